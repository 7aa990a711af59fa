"""Running DSPy signatures through memlab's chat-model layer.

:class:`Role` is memlab's ``dspy.Predict``: it formats a signature with DSPy's ChatAdapter,
sends the messages through a :class:`~memlab.llm.base.ChatModel` (so record/replay, retries and
token accounting apply to every call), parses the typed outputs, and emits one
:class:`~memlab.llm.types.CallRecord` per logical call. Unparseable replies are retried with a
correction message; a call that still fails raises :class:`RoleFailure` after being recorded,
and the caller decides what failing means (a skipped extraction, an errored probe).

:class:`MemoryRoles` composes the roles as attributes, DSPy-Module style.
"""

from __future__ import annotations

import time
from typing import Any

from memlab.llm import calls
from memlab.llm.base import ChatModel
from memlab.llm.types import CallRecord, ChatRequest, ModelError
from memlab.roles import signatures as sig


class RoleFailure(RuntimeError):
    """A role call failed after retries; ``record`` is the failed call as logged."""

    def __init__(self, message: str, record: CallRecord) -> None:
        super().__init__(message)
        self.record = record


_ADAPTER = None


def _adapter() -> Any:
    global _ADAPTER
    if _ADAPTER is None:
        import dspy

        _ADAPTER = dspy.ChatAdapter()
    return _ADAPTER


class Role:
    """One LLM role: a signature, a purpose tag for accounting, and the model that answers it."""

    def __init__(self, signature: type, model: ChatModel, purpose: str, *, max_parse_attempts: int = 3) -> None:
        self.signature = signature
        self.model = model
        self.purpose = purpose
        self.max_parse_attempts = max_parse_attempts
        self.output_fields = list(signature.output_fields)

    def format(self, **inputs: Any) -> list[dict[str, str]]:
        return _adapter().format(self.signature, demos=[], inputs=inputs)

    def __call__(self, **inputs: Any) -> dict[str, Any]:
        messages = self.format(**inputs)
        record = CallRecord(
            call_id=calls.new_call_id(), purpose=self.purpose, signature=self.signature.__name__, model=self.model.model_id, attempts=0
        )
        t0 = time.perf_counter()
        last_error: str | None = None
        convo = list(messages)
        try:
            for attempt in range(1, self.max_parse_attempts + 1):
                request = ChatRequest(
                    messages=convo,
                    purpose=self.purpose,
                    signature=self.signature.__name__,
                    inputs=inputs,
                    output_fields=self.output_fields,
                )
                try:
                    resp = self.model.complete(request)
                except ModelError as exc:
                    record.attempts += getattr(exc, "attempts", 1)
                    raise
                record.attempts += resp.__dict__.get("attempts", 1)
                record.prompt_tokens += resp.usage.prompt_tokens
                record.completion_tokens += resp.usage.completion_tokens
                record.token_source = resp.usage.source
                record.cached = resp.cached
                record.model = resp.model
                try:
                    outputs = resp.parsed if resp.parsed is not None else _adapter().parse(self.signature, resp.text)
                    outputs = {k: outputs[k] for k in self.output_fields}
                except Exception as exc:  # adapter raises its own AdapterParseError, KeyError on missing fields
                    last_error = f"malformed output: {type(exc).__name__}: {str(exc)[:300]}"
                    # a cache must not serve this reply again (the correction below is identical across runs too)
                    reject = getattr(self.model, "reject", None)  # models written before ChatModel.reject existed lack it
                    if reject is not None:
                        reject(request)
                    convo = [
                        *messages,
                        {"role": "assistant", "content": resp.text},
                        {"role": "user", "content": "Your reply could not be parsed. Reply again, giving every output field "
                         "between the [[ ## field ## ]] markers exactly as instructed."},
                    ]
                    continue
                record.latency_s = time.perf_counter() - t0
                calls.emit(record)
                return outputs
        except ModelError as exc:
            last_error = f"{type(exc).__name__}: {exc}"
        record.ok = False
        record.error = last_error
        record.latency_s = time.perf_counter() - t0
        calls.emit(record)
        raise RoleFailure(f"{self.signature.__name__} ({self.purpose}) failed: {last_error}", record)


class MemoryRoles:
    """The roles a strategy may use, composed as attributes (like a DSPy Module's predictors)."""

    def __init__(self, model: ChatModel, judge_model: ChatModel | None = None) -> None:
        self.model = model
        self.extract = Role(sig.ExtractFacts, model, "extract")
        self.gate = Role(sig.ShouldRemember, model, "gate")
        self.reconcile = Role(sig.ReconcileMemory, model, "consolidate")
        self.summarize = Role(sig.Summarize, model, "summarize")
        self.compress = Role(sig.Summarize, model, "compress")
        self.answer = Role(sig.AnswerFromMemory, model, "answer")
        self.judge = Role(sig.JudgeAnswer, judge_model, "judge") if judge_model is not None else None
