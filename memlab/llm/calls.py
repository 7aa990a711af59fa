"""Where call records go: a context-local sink and scope set by the runner.

The runner sets the scope (strategy, conversation, turn or probe) before driving a strategy,
and every model call made underneath is recorded with it — strategies never pass loggers
around, and a notebook that calls roles directly simply gets no records. Calls made outside a
role (an agent's tool loop) are recorded the same way through :func:`complete_recorded`.
"""

from __future__ import annotations

import contextvars
import time
import uuid
from collections.abc import Callable
from typing import Any

from memlab.llm.types import CallRecord, ChatRequest, ChatResponse, ModelError

_sink: contextvars.ContextVar[Callable[[CallRecord], None] | None] = contextvars.ContextVar("memlab_call_sink", default=None)
_scope: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("memlab_call_scope", default={})


class _ContextSet:
    """Sets a context variable for a ``with`` block and restores it after. A plain class rather
    than ``@contextlib.contextmanager``: the unit player enters a scope for every turn of every
    strategy (~23,000 per LoCoMo-sized conversation), and a generator-based manager costs
    several times as much per entry."""

    __slots__ = ("_var", "_value", "_merge", "_token")

    def __init__(self, var: contextvars.ContextVar[Any], value: Any, *, merge: bool = False) -> None:
        self._var, self._value, self._merge = var, value, merge

    def __enter__(self) -> None:
        # a merged value (a scope) is layered on the one in force when the block is entered
        self._token = self._var.set({**self._var.get(), **self._value} if self._merge else self._value)

    def __exit__(self, *exc: object) -> None:
        self._var.reset(self._token)


def call_sink(sink: Callable[[CallRecord], None]) -> _ContextSet:
    """Within the block, every model call's record goes to ``sink``."""
    return _ContextSet(_sink, sink)


def call_scope(**scope: Any) -> _ContextSet:
    """Within the block, every model call's record carries ``scope`` (on top of the enclosing one)."""
    return _ContextSet(_scope, scope, merge=True)


def current_scope() -> dict[str, Any]:
    return dict(_scope.get())


def current_sink() -> Callable[[CallRecord], None] | None:
    """The sink in force (None outside a run): captured by an endpoint that records calls made in
    another thread on behalf of this one (memlab/external/ledger.py)."""
    return _sink.get()


def emit(record: CallRecord) -> None:
    record.scope = {**current_scope(), **record.scope}
    sink = _sink.get()
    if sink is not None:
        sink(record)


def new_call_id() -> str:
    return uuid.uuid4().hex[:16]


def complete_recorded(model: Any, request: ChatRequest, *, caller: str | None = None) -> ChatResponse:
    """One model call made outside a :class:`~memlab.roles.program.Role` (e.g. an agent's tool
    loop, or an external library's request to memlab's endpoint, ``caller`` naming the library),
    recorded like a role call: tokens, attempts, the tools offered and the tools called.
    A failed call is recorded (``ok=False``) and its :class:`ModelError` re-raised."""
    record = CallRecord(call_id=new_call_id(), purpose=request.purpose, signature=request.signature, model=model.model_id,
                        tools_offered=[t.name for t in request.tools], caller=caller)
    t0 = time.perf_counter()
    try:
        resp = model.complete(request)
    except ModelError as exc:
        record.ok, record.error, record.attempts = False, f"{type(exc).__name__}: {exc}", exc.attempts
        record.latency_s = time.perf_counter() - t0
        emit(record)
        raise
    record.model, record.cached, record.attempts = resp.model, resp.cached, resp.attempts
    record.prompt_tokens, record.completion_tokens, record.token_source = resp.usage.prompt_tokens, resp.usage.completion_tokens, resp.usage.source
    record.cached_tokens = resp.usage.cached_tokens
    record.tool_calls = [c.name for c in resp.tool_calls]
    record.latency_s = time.perf_counter() - t0
    emit(record)
    return resp
