"""The offline model (provider ``offline``): memlab's stand-in for an LLM, answering from the prompt.

It reads the same ChatAdapter messages a real model gets: the role from the field names the
system message lists, the inputs from the ``[[ ## field ## ]]`` sections of the last user
message, the offered tools from ``request.tools``. It replies in ChatAdapter format (and with
native tool calls for tool-using roles), and its usage is counted with cl100k on the exact
messages and reply, so token costs compare with a real model's. See docs/offline-model.md.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memlab.llm.types import ChatRequest, ChatResponse, ModelError, ToolCall, Usage
from memlab.offline.prompt import PromptError, read_prompt, render_chat_adapter_output
from memlab.offline.roles import Env, identify
from memlab.offline.similarity import Similarity
from memlab.offline.version import model_id
from memlab.tokens import count_message_tokens, count_tokens

MECHANISMS = ("pysbd sentence segmentation", "speech-act filter (questions, small talk, one-off requests, injection)",
              "speaker/first-person attribution", "relative dates resolved (dateutil)", "MiniLM similarity + idf overlap",
              "slot-change reconcile (ADD/UPDATE/DELETE/NOOP)", "cue-based gate", "extractive summary",
              "extractive answerer with abstention", "containment judge", "memory-tool policy")


class OfflineOptions(BaseModel):
    """``model.options`` the offline model reads."""

    model_config = ConfigDict(extra="forbid")
    tool_reliability: float = Field(default=1.0, ge=0.0, le=1.0,
                                    description="Probability that a store_fact/update_fact the policy should make is made.")
    seed: int = Field(default=0, description="Seed of the deterministic reliability draw.")


class OfflineChatModel:
    """Rule-based stand-in for an LLM, versioned by the hash of its source."""

    def __init__(self, embedder: Any = None, options: OfflineOptions | None = None) -> None:
        self.sim = Similarity(embedder)
        self.options = options or OfflineOptions()
        self.model_id = model_id()

    @classmethod
    def from_spec(cls, spec: Any, *, embedder: Any = None, **_: Any) -> OfflineChatModel:
        raw = getattr(spec, "options", None) or {}
        try:
            options = OfflineOptions.model_validate(raw)
        except ValueError as exc:
            raise ValueError(f"model.options for provider 'offline': {exc}") from None
        return cls(embedder, options)

    def describe(self) -> dict[str, Any]:
        return {"provider": "offline", "model": self.model_id, "heuristic": True, "mechanisms": list(MECHANISMS),
                "options": self.options.model_dump(),
                "note": "offline stand-in for an LLM (general rules, no dataset-derived lists); docs/offline-model.md"}

    def reject(self, request: ChatRequest) -> None:
        """Nothing is cached, so there is nothing to drop."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        t0 = time.perf_counter()
        try:
            prompt = read_prompt(request.messages)
            _, fn = identify(prompt)
        except PromptError as exc:
            raise ModelError(f"offline model: {exc}") from None
        offered = {t.name for t in request.tools} if request.tool_choice != "none" else set()
        reply = fn(prompt.values, Env(self.sim, offered, self.options.tool_reliability, self.options.seed,
                                      max_tokens=request.max_tokens, outputs=list(prompt.outputs)))
        fields = [f for f in prompt.outputs if f in reply.outputs] or list(reply.outputs)
        text = render_chat_adapter_output(reply.outputs, fields)
        calls = [ToolCall.from_raw(f"call_{i}", name, json.dumps(args, ensure_ascii=False))
                 for i, (name, args) in enumerate(reply.tool_calls)]
        completion = count_tokens(text) + sum(count_tokens(c.name) + count_tokens(c.raw_arguments) + 3 for c in calls)
        usage = Usage(prompt_tokens=count_message_tokens(request.messages), completion_tokens=completion)
        return ChatResponse(text=text, usage=usage, model=self.model_id, latency_s=time.perf_counter() - t0,
                            tool_calls=calls, finish_reason="tool_calls" if calls else "stop")
