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
from memlab.offline import budget
from memlab.llm.profile_file import load_profile
from memlab.offline.behaviour import DEFAULT, Behaviour, BehaviourProfile
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

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    tool_reliability: float | None = Field(default=None, ge=0.0, le=1.0,
                                           description="The former name of the behaviour knob agent.store_user_facts: "
                                           "probability that a store_fact/update_fact the policy should make is made.")
    seed: int = Field(default=0, ge=0, description="Seed of every behaviour draw (memlab/offline/behaviour.py).")


def resolve_profile(spec: Any) -> tuple[BehaviourProfile, int]:
    """(behaviour profile, seed) of an offline model spec: its ``profile`` (file or mapping) with
    ``options.tool_reliability`` folded in as ``agent.store_user_facts``. Raises ``ValueError``
    naming the file and field of a bad profile, or the option."""
    try:
        options = OfflineOptions.model_validate(getattr(spec, "options", None) or {})
    except ValueError as exc:
        raise ValueError(f"model.options for provider 'offline': {exc}") from None
    profile = load_profile(getattr(spec, "profile", None))
    if options.tool_reliability is not None:
        given = profile.agent.store_user_facts
        if given != DEFAULT.agent.store_user_facts and given != options.tool_reliability:
            raise ValueError(f"model.options.tool_reliability ({options.tool_reliability}) and the profile's "
                             f"agent.store_user_facts ({given}) are one knob; give it once")
        profile = profile.with_knobs({"agent.store_user_facts": options.tool_reliability})
    return profile, options.seed


class OfflineChatModel:
    """Rule-based stand-in for an LLM, versioned by the hash of its source (and of its behaviour
    profile, when that is not the default)."""

    def __init__(self, embedder: Any = None, options: OfflineOptions | None = None,
                 profile: BehaviourProfile | None = None, max_tokens: int | None = 512) -> None:
        self.sim = Similarity(embedder)
        self.options = options or OfflineOptions()
        profile = profile or DEFAULT
        if self.options.tool_reliability is not None:
            profile = profile.with_knobs({"agent.store_user_facts": self.options.tool_reliability})
        self.behaviour = Behaviour(profile, self.options.seed)
        self.model_id = model_id() + ("" if profile.is_default else f"+profile-{profile.digest()}")
        self.max_tokens = max_tokens
        """The reply budget of a call that sets none (the spec's ``max_tokens``), as an endpoint model
        sends it with every request: no reply is longer (memlab.offline.budget)."""

    @classmethod
    def from_spec(cls, spec: Any, *, embedder: Any = None, **_: Any) -> OfflineChatModel:
        profile, seed = resolve_profile(spec)
        return cls(embedder, OfflineOptions(seed=seed), profile, getattr(spec, "max_tokens", 512))

    def describe(self) -> dict[str, Any]:
        profile = self.behaviour.profile
        return {"provider": "offline", "model": self.model_id, "heuristic": True, "mechanisms": list(MECHANISMS),
                "options": {"seed": self.behaviour.seed}, "max_tokens": self.max_tokens,
                "profile": {"hash": profile.digest(), "default": profile.is_default, "knobs": profile.knobs(),
                            "changed": profile.changed()},
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
        limit = request.max_tokens or self.max_tokens  # what the openai provider sends as max_tokens
        reply = fn(prompt.values, Env(self.sim, offered, self.behaviour, max_tokens=limit, outputs=list(prompt.outputs)))
        # the reply stops at the call's budget, as an endpoint's does (memlab.offline.budget)
        outputs, tool_calls, cut = budget.fit(reply.outputs, reply.tool_calls, list(prompt.outputs), limit)
        fields = [f for f in prompt.outputs if f in outputs] or list(outputs)
        text = render_chat_adapter_output(outputs, fields)
        calls = [ToolCall.from_raw(f"call_{i}", name, json.dumps(args, ensure_ascii=False))
                 for i, (name, args) in enumerate(tool_calls)]
        completion = count_tokens(text) + sum(count_tokens(c.name) + count_tokens(c.raw_arguments) + 3 for c in calls)
        usage = Usage(prompt_tokens=count_message_tokens(request.messages), completion_tokens=completion)
        return ChatResponse(text=text, usage=usage, model=self.model_id, latency_s=time.perf_counter() - t0,
                            tool_calls=calls, finish_reason="length" if cut else "tool_calls" if calls else "stop")
