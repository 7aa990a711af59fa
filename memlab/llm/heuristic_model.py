"""The offline default model: DSPy signatures answered by documented rules.

It receives the same formatted messages a real LLM would (so token accounting counts what
*would* have been sent), but answers from the request's structured ``inputs`` with
:class:`memlab.roles.heuristic.HeuristicRoles`. Its replies are rendered in DSPy's ChatAdapter
format, so the completion tokens are comparable too. Every output labels it ``heuristic``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from memlab.llm.types import ChatRequest, ChatResponse, ModelError, Usage
from memlab.tokens import count_message_tokens, count_tokens

HEURISTIC_ID = "heuristic-v1"


def render_chat_adapter_output(outputs: dict[str, Any], fields: list[str]) -> str:
    parts = []
    for name in fields or list(outputs):
        value = outputs.get(name)
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"[[ ## {name} ## ]]\n{text}")
    parts.append("[[ ## completed ## ]]")
    return "\n\n".join(parts)


class HeuristicChatModel:
    """Rule-based stand-in for an LLM (label: ``heuristic``). Not a fake: see docs/heuristics.md."""

    is_heuristic = True
    model_id = HEURISTIC_ID

    def __init__(self, embedder: Any = None) -> None:
        from memlab.roles.heuristic import HeuristicRoles

        self.roles = HeuristicRoles(embedder)

    @classmethod
    def from_spec(cls, spec: Any, *, embedder: Any = None, **_: Any) -> HeuristicChatModel:
        return cls(embedder)

    def describe(self) -> dict[str, Any]:
        return {"provider": "heuristic", "model": HEURISTIC_ID, "heuristic": True,
                "note": "rule-based stand-in for an LLM; rules in docs/heuristics.md"}

    def complete(self, request: ChatRequest) -> ChatResponse:
        if not request.signature or request.inputs is None:
            raise ModelError("the heuristic model answers memlab role signatures only (request has no signature/inputs)")
        fn = getattr(self.roles, request.signature, None)
        if fn is None:
            raise ModelError(f"the heuristic model has no rule for signature {request.signature!r}")
        t0 = time.perf_counter()
        outputs = fn(**request.inputs)
        text = render_chat_adapter_output(outputs, request.output_fields)
        usage = Usage(prompt_tokens=count_message_tokens(request.messages), completion_tokens=count_tokens(text))
        return ChatResponse(text=text, usage=usage, model=HEURISTIC_ID, latency_s=time.perf_counter() - t0, parsed=outputs)
