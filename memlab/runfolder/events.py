"""What a strategy reports it did — the event half of a run folder's rows.

A row of ``memory_ops``, ``compressions`` or ``agent_steps`` is its **scope** (run, attempt,
strategy, dataset, conversation: :class:`memlab.runfolder.records.Record`), **where in the unit**
it happened (turn, step, phase) and the **event** a strategy's component returned: one of the types
here. :mod:`memlab.runfolder.records` builds each row model from these types' own fields, so an
event and its row cannot drift apart (the probe row is the same shape: ``probe_record``).

They live in the run-folder package, the lowest layer both pipelines share, so the records can be
built from them; ``memlab.memory.item`` and ``memlab.strategies.base`` re-export them where
components have always imported them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field


class Op(str, Enum):
    """What a memory operation did (mem0's ADD / UPDATE / DELETE / NOOP, plus INVALIDATE)."""

    ADD = "ADD"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    NOOP = "NOOP"
    INVALIDATE = "INVALIDATE"
    """Superseded or expired: kept with ``valid=False`` for audit, never retrieved as current."""


class MemoryEvent(BaseModel):
    """A memory operation, mem0-style: what changed, why, and from which turns."""

    op: Op
    item_id: str | None = None
    namespace: str
    kind: str = "fact"
    text: str = ""
    previous_text: str | None = None
    source_turn_ids: list[str] = Field(default_factory=list)
    reason: str = ""
    store: str = ""

    def record(self) -> dict[str, Any]:
        """The event as a JSON-ready dict in field order (``model_dump(mode="json")``'s result,
        built directly: every memory operation of a run goes through here)."""
        out = {name: getattr(self, name) for name in _EVENT_FIELDS}
        out["op"] = self.op.value
        out["source_turn_ids"] = list(self.source_turn_ids)
        return out


_EVENT_FIELDS = tuple(MemoryEvent.model_fields)


@dataclass
class CompressionEvent:
    """One compression of working memory or history: what was folded, by which trigger, at what size."""

    component: str
    """What was compressed: ``history`` (conversation messages) or ``working_memory`` (an agent's steps)."""
    trigger: str
    step: int
    tokens_before: int
    tokens_after: int
    folded_turn_ids: list[str]
    summary: str
    summary_source_turn_ids: list[str]
    """Every turn the summary now stands for (cumulative over earlier compressions)."""
    ok: bool = True
    reason: str = ""

    def record(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class AgentStep:
    """One tool call an agent made (or tried to make), and what came of it."""

    step: int
    tool: str
    args: dict[str, Any]
    ok: bool = True
    result_chars: int = 0
    error: str | None = None
    phase: str = "invocation"
    """``invocation`` (while a scripted invocation is replayed) or ``probe`` (while answering)."""

    def record(self) -> dict[str, Any]:
        return dict(self.__dict__)
