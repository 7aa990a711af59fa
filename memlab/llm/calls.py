"""Where call records go: a context-local sink and scope set by the runner.

The runner sets the scope (strategy, conversation, turn or probe) before driving a strategy,
and every model call made underneath is recorded with it — strategies never pass loggers
around, and a notebook that calls roles directly simply gets no records.
"""

from __future__ import annotations

import contextlib
import contextvars
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from memlab.llm.types import CallRecord

_sink: contextvars.ContextVar[Callable[[CallRecord], None] | None] = contextvars.ContextVar("memlab_call_sink", default=None)
_scope: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("memlab_call_scope", default={})


@contextlib.contextmanager
def call_sink(sink: Callable[[CallRecord], None]) -> Iterator[None]:
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)


@contextlib.contextmanager
def call_scope(**scope: Any) -> Iterator[None]:
    token = _scope.set({**_scope.get(), **scope})
    try:
        yield
    finally:
        _scope.reset(token)


def current_scope() -> dict[str, Any]:
    return dict(_scope.get())


def emit(record: CallRecord) -> None:
    record.scope = {**current_scope(), **record.scope}
    sink = _sink.get()
    if sink is not None:
        sink(record)


def new_call_id() -> str:
    return uuid.uuid4().hex[:16]
