"""What a memory strategy is to the runner, and the values it hands back.

A strategy sees a conversation one turn at a time (:meth:`Strategy.observe`) and, when a probe
is asked, assembles the memory context the agent gets (:meth:`Strategy.context`). Every line of
that context carries the dataset turn ids it derives from, so recall can be scored by
provenance as well as by string match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from memlab.datasets.models import Turn
from memlab.memory.item import MemoryEvent


@dataclass(frozen=True)
class TurnEvent:
    """A dataset turn as a strategy sees it: with its conversation, namespace and time resolved."""

    conversation_id: str
    namespace: str
    session_id: str
    turn: Turn
    timestamp: datetime
    speaker: str

    @property
    def line(self) -> str:
        return f"[{self.timestamp.date().isoformat()}] {self.speaker}: {self.turn.text}"


@dataclass
class ContextLine:
    text: str
    source_turn_ids: list[str] = field(default_factory=list)
    kind: str = "message"
    score: float | None = None


@dataclass
class ContextSection:
    title: str
    lines: list[ContextLine] = field(default_factory=list)


@dataclass
class MemoryContext:
    """The memory a strategy injects into the agent's prompt for one probe."""

    sections: list[ContextSection] = field(default_factory=list)
    retrieval_latency_s: float = 0.0
    """Time spent inside the store's ``search`` calls only: what differs between backends."""
    retrieval_total_s: float = 0.0
    """Whole retrieval step, including embedding the question (cached after its first use, so it
    depends on which strategy asked first) and reranking."""

    @property
    def text(self) -> str:
        parts = []
        for s in self.sections:
            if s.lines:
                parts.append(f"## {s.title}\n" + "\n".join(line.text for line in s.lines))
        return "\n\n".join(parts)

    @property
    def lines(self) -> list[ContextLine]:
        return [line for s in self.sections for line in s.lines]

    def source_turn_ids(self) -> set[str]:
        return {t for line in self.lines for t in line.source_turn_ids}


class Strategy(Protocol):
    name: str

    def describe(self) -> dict[str, Any]:
        """The fully resolved spec (defaults filled in) for the manifest."""

    def begin(self, conversation_id: str, namespace: str, *, fresh: bool) -> None:
        """Start (or, after an interrupted attempt, restart) a conversation; ``fresh`` clears its namespace."""

    def observe(self, event: TurnEvent) -> list[MemoryEvent]:
        """Take in one turn; return the memory operations it caused."""

    def context(self, question: str, now: datetime) -> MemoryContext:
        """Assemble the memory context for a question asked at ``now``."""

    def end(self) -> list[MemoryEvent]:
        """Conversation over (flush buffers); return any operations."""

    def close(self) -> None:
        """Release stores."""
