"""Running DSPy programs through memlab's chat-model layer.

Every LLM role is a real ``dspy.Predict`` over its Signature, run under a ``dspy.LM`` whose
engine is :class:`MemlabEngine`: DSPy formats the prompt (ChatAdapter, demos, native tool
calls) and parses the reply, while every request goes through a memlab
:class:`~memlab.llm.base.ChatModel` — so record/replay, retries, the circuit breaker, rate
limits and the token ledger apply to DSPy programs too, and a DSPy optimizer can be pointed at
any role (roles are ``dspy.Module`` objects; see ``docs/dspy.md``).

:class:`Role` is one logical call: it emits one :class:`~memlab.llm.types.CallRecord` (all
requests of the call summed, parse retries included). An unparseable reply is rejected (so a
record/replay cache never serves it again) and retried with a correction message; a call that
still fails raises :class:`RoleFailure` after being recorded, and the caller decides what failing
means (a skipped extraction, an errored probe).

:class:`MemoryRoles` composes the roles as attributes, DSPy-Module style, each with the model
configured for its purpose (``models: {extract: ..., answer: ...}`` in a run config).
"""

from __future__ import annotations

import contextvars
import json
import time
from dataclasses import dataclass, field
from typing import Any

import dspy

from memlab.llm import calls
from memlab.llm.base import ChatModel
from memlab.llm.types import ROLE_PURPOSES, CallRecord, ChatRequest, EndpointDown, ModelError
from memlab.roles import signatures as sig
from memlab.roles.dspy_speed import ChatAdapter, cache_type_adapters

cache_type_adapters()  # one pydantic TypeAdapter per type in DSPy's prompt formatting (docs: dspy_speed)

CORRECTION = ("Your reply could not be parsed. Reply again, giving every output field between the "
              "[[ ## field ## ]] markers exactly as instructed.")


class RoleFailure(RuntimeError):
    """A role call failed after retries; ``record`` is the failed call as logged."""

    def __init__(self, message: str, record: CallRecord) -> None:
        super().__init__(message)
        self.record = record


@dataclass
class _CallState:
    """What one logical role call accumulates across its requests (kept in a context variable so a
    role object can serve many threads at once)."""

    record: CallRecord
    signature: str
    output_fields: list[str]
    correction: str | None = None
    last_request: ChatRequest | None = None
    error: ModelError | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_current: contextvars.ContextVar[_CallState | None] = contextvars.ContextVar("memlab_role_call", default=None)


class Outputs(dict):
    """A role's typed outputs: a plain dict that also reads as attributes (``out.facts``), which is
    what DSPy metrics and optimizers expect of a module's prediction."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class _Shared:
    """Holds a model that copies of a program must share, not duplicate.

    DSPy optimizers deep-copy the program they compile (teacher, student, candidates); a copied
    ChatModel would carry its own HTTP client, cache handle and circuit breaker, and a test's
    recording model would stop seeing the calls. Models are services, so copies share them."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class MemlabEngine:
    """A DSPy engine (``complete(lm15.Request) -> lm15.Response``) backed by a memlab ChatModel."""

    def __init__(self, model: ChatModel, purpose: str) -> None:
        self._model = _Shared(model)
        self.purpose = purpose

    @property
    def model(self) -> ChatModel:
        return self._model.obj

    def complete(self, request: Any) -> Any:
        from dspy.lm15 import Message, Response, TextPart, ToolCallPart, Usage

        state = _current.get()
        messages = _openai_messages(request)
        if state is not None and state.correction is not None:
            messages += [{"role": "assistant", "content": state.correction}, {"role": "user", "content": CORRECTION}]
        cfg = request.config
        kwargs: dict[str, Any] = {}
        if request.tools:
            from memlab.llm.types import ToolSpec

            kwargs["tools"] = [ToolSpec(name=t.name, description=t.description or "", parameters=dict(t.parameters))
                               for t in request.tools]
            choice = getattr(cfg, "tool_choice", None)
            if choice is not None:
                kwargs["tool_choice"] = choice.allowed[0] if choice.allowed else choice.mode
        chat = ChatRequest(
            messages=messages, purpose=self.purpose, temperature=cfg.temperature or 0.0, max_tokens=cfg.max_tokens,
            signature=state.signature if state else None,
            output_fields=state.output_fields if state else [], **kwargs,
        )
        try:
            resp = self.model.complete(chat)
        except ModelError as exc:
            if state is not None:
                state.error = exc
                state.record.attempts += getattr(exc, "attempts", 1)
            raise
        if state is not None:
            rec = state.record
            state.last_request = chat
            rec.attempts += resp.__dict__.get("attempts", 1)
            rec.prompt_tokens += resp.usage.prompt_tokens
            rec.completion_tokens += resp.usage.completion_tokens
            rec.cached_tokens += resp.usage.cached_tokens
            rec.token_source = resp.usage.source
            rec.cached = resp.cached
            rec.model = resp.model
            state.extra["text"] = resp.text
        parts: list[Any] = [TextPart(resp.text)] if resp.text or not getattr(resp, "tool_calls", None) else []
        for tc in getattr(resp, "tool_calls", None) or []:
            if tc.error is None:
                parts.append(ToolCallPart(id=tc.id, name=tc.name, input=tc.arguments))
            elif state is not None:  # malformed: not executed; the caller sees and records the error
                state.extra.setdefault("tool_call_errors", []).append({"id": tc.id, "name": tc.name, "error": tc.error})
        finish = "tool_call" if getattr(resp, "tool_calls", None) else "stop"
        return Response(id=None, model=resp.model, message=Message.assistant(parts), finish_reason=finish,
                        usage=Usage(input_tokens=resp.usage.prompt_tokens, output_tokens=resp.usage.completion_tokens))

    def stream(self, request: Any) -> Any:
        raise NotImplementedError("memlab roles do not stream")

    def close(self) -> None:
        pass


def _openai_messages(request: Any) -> list[dict[str, Any]]:
    """An lm15 request as OpenAI chat messages (text, tool calls and tool results)."""
    out: list[dict[str, Any]] = []
    if request.system is not None:
        system = request.system if isinstance(request.system, str) else "".join(getattr(p, "text", "") for p in request.system)
        out.append({"role": "system", "content": system})
    for m in request.messages:
        calls_ = [p for p in m.parts if getattr(p, "type", "") == "tool_call"]
        results = [p for p in m.parts if getattr(p, "type", "") == "tool_result"]
        text = "".join(getattr(p, "text", "") or "" for p in m.parts if getattr(p, "type", "") == "text")
        if results:
            for r in results:
                content = "".join(getattr(c, "text", "") or "" for c in r.content)
                out.append({"role": "tool", "tool_call_id": r.id, "content": content})
            continue
        msg: dict[str, Any] = {"role": "assistant" if m.role == "assistant" else m.role, "content": text}
        if calls_:
            msg["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": json.dumps(c.input, ensure_ascii=False)}}
                                 for c in calls_]
        out.append(msg)
    return out


class MemlabLM(dspy.LM):
    """``dspy.LM`` over a :class:`MemlabEngine` (DSPy's own cache and retries off: memlab owns both)."""

    def __init__(self, model: ChatModel, purpose: str, *, native_tools: bool = True) -> None:
        super().__init__(f"memlab/{model.model_id}", engine=MemlabEngine(model, purpose), cache=False, num_retries=0)
        self._native_tools = native_tools

    @property
    def supports_function_calling(self) -> bool:
        return self._native_tools


class Role(dspy.Module):
    """One LLM role: a ``dspy.Predict`` over a signature, a purpose tag for accounting, and its model."""

    def __init__(self, signature: type[dspy.Signature], model: ChatModel, purpose: str, *,
                 max_parse_attempts: int = 3, native_tools: bool = True) -> None:
        super().__init__()
        self.signature = signature
        self._model = _Shared(model)
        self.purpose = purpose
        self.max_parse_attempts = max_parse_attempts
        self.output_fields = list(signature.output_fields)
        self.predict = dspy.Predict(signature)
        self.lm = MemlabLM(model, purpose, native_tools=native_tools)
        self.adapter = ChatAdapter(use_json_adapter_fallback=False, use_native_function_calling=native_tools)

    @property
    def model(self) -> ChatModel:
        return self._model.obj

    def format(self, **inputs: Any) -> list[dict[str, Any]]:
        """The messages this role would send (demos included), without calling the model."""
        return self.adapter.format(self.signature, demos=list(self.predict.demos), inputs=inputs)

    def forward(self, **inputs: Any) -> Outputs:
        record = CallRecord(call_id=calls.new_call_id(), purpose=self.purpose, signature=self.signature.__name__,
                            model=self.model.model_id, attempts=0)
        state = _CallState(record, self.signature.__name__, self.output_fields)
        token = _current.set(state)
        t0 = time.perf_counter()
        last_error = "no attempt made"
        try:
            with dspy.context(lm=self.lm, adapter=self.adapter, disable_history=True):
                for _ in range(self.max_parse_attempts):
                    state.error = None
                    try:
                        pred = self.predict(**inputs)
                    except dspy.utils.exceptions.AdapterParseError as exc:
                        last_error = f"malformed output: {str(exc)[:300]}"
                        reject = getattr(self.model, "reject", None)
                        if state.last_request is not None and reject is not None:
                            reject(state.last_request)
                        state.correction = str(state.extra.get("text") or getattr(exc, "lm_response", "") or "")
                        continue
                    except Exception:  # DSPy wraps engine errors (LMUnexpectedError)
                        if state.error is None:
                            raise
                        last_error = f"{type(state.error).__name__}: {state.error}"
                        break
                    outputs = Outputs({k: pred[k] for k in self.output_fields})
                    if state.extra.get("tool_call_errors"):
                        outputs["tool_call_errors"] = state.extra["tool_call_errors"]
                    record.latency_s = time.perf_counter() - t0
                    calls.emit(record)
                    return outputs
        finally:
            _current.reset(token)
        record.ok = False
        record.error = last_error
        record.latency_s = time.perf_counter() - t0
        calls.emit(record)
        if isinstance(state.error, EndpointDown):
            raise state.error  # no later call can succeed either: the runner stops the run
        raise RoleFailure(f"{self.signature.__name__} ({self.purpose}) failed: {last_error}", record)




class MemoryRoles(dspy.Module):
    """The roles a strategy may use, composed as attributes (a DSPy Module's predictors).

    ``models`` maps a purpose (see :data:`ROLE_PURPOSES`) to the model that answers it; purposes
    not listed use ``default``. The judge is not one of them: judging is a pass over the recorded
    answers after the units (:mod:`memlab.judging`), never a role a strategy holds."""

    def __init__(self, models: dict[str, ChatModel] | ChatModel, *, native_tools: bool = True,
                 answering: bool = True) -> None:
        super().__init__()
        self.answering = answering
        """False in a retrieval-only run (``answer_probes: false``): a strategy assembles each probe's
        context as usual, but the answer role is not called (:func:`memlab.strategies.answer.modes.answer_from_context`)."""
        if not isinstance(models, dict):
            models = {"default": models}
        self.models = models
        default = models["default"]

        def pick(purpose: str) -> ChatModel:
            return models.get(purpose, default)

        self.model = default
        self.extract = Role(sig.ExtractFacts, pick("extract"), "extract")
        self.extract_invocation = Role(sig.ExtractFromTranscript, pick("extract"), "extract")
        self.record_episode = Role(sig.RecordEpisode, pick("extract"), "extract")
        self.gate = Role(sig.ShouldRemember, pick("gate"), "gate")
        self.reconcile = Role(sig.ReconcileMemory, pick("consolidate"), "consolidate")
        self.summarize = Role(sig.Summarize, pick("summarize"), "summarize")
        self.compress = Role(sig.Summarize, pick("compress"), "compress")
        self.answer = Role(sig.AnswerFromMemory, pick("answer"), "answer")
        self.agent_step = Role(sig.AgentStep, pick("agent"), "agent", native_tools=native_tools)
        self.search_before_answering = Role(sig.SearchBeforeAnswering, pick("answer"), "answer", native_tools=native_tools)
        self.summarize_entities = Role(sig.SummarizeWithEntities, pick("summarize"), "summarize")
        self.classify_memory = Role(sig.ClassifyMemory, pick("gate"), "gate")
        self.same_fact = Role(sig.SameFact, pick("consolidate"), "consolidate")
        self.compose = Role(sig.ComposeSummaries, pick("consolidate"), "consolidate")
        self.analyze_learning = Role(sig.AnalyzeForLearning, pick("extract"), "extract")
        self.sync_profile = Role(sig.SyncProfile, pick("consolidate"), "consolidate")

    def describe(self) -> dict[str, Any]:
        return {purpose: self.models.get(purpose, self.models["default"]).describe() for purpose in ROLE_PURPOSES
                if purpose != "judge"}
