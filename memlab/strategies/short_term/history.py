"""The history a prompt shows: the whole current thread, every thread of the user (a bound), the last n messages, or exactly the evidence (a bound)."""

from __future__ import annotations

from pydantic import Field
from memlab.strategies.base import ContextLine, ContextSection, TurnEvent
from memlab.strategies.slots import Component, Params, component


class ShortTerm(Component):
    context_order = 60

    def begin_conversation(self, state) -> None:
        self.buffer: list[TurnEvent] = []

    def on_turn(self, event: TurnEvent, state) -> None:
        self.buffer.append(event)


def _lines(events: list[TurnEvent]) -> list[ContextLine]:
    return [ContextLine(text=e.line, source_turn_ids=[e.turn.id], kind="message") for e in events]


@component("short_term", "full_history")
class FullHistory(ShortTerm):
    """Every message of the conversation so far."""

    def begin_conversation(self, state) -> None:
        super().begin_conversation(state)
        self._rendered: list[ContextLine] = []  # the lines of buffer[:len(_rendered)]

    def context_sections(self, query, state) -> list[ContextSection]:
        # the history only grows: render the new messages, reuse the lines of the others (every
        # probe asked at one point got a fresh copy of all ~2,000 lines of a LoCoMo conversation)
        self._rendered += _lines(self.buffer[len(self._rendered):])
        return [ContextSection("Conversation history", list(self._rendered))]


@component("short_term", "all_threads")
class AllThreads(FullHistory):
    """Bound: every message of every thread of the user so far (what no memory design can beat)."""

    def begin_unit(self, state) -> None:
        super().begin_conversation(state)  # one history per user: it starts with the unit, not the thread

    def begin_conversation(self, state) -> None:
        pass  # a new thread keeps the earlier threads' messages


@component("short_term", "recent_window")
class RecentWindow(ShortTerm):
    """The last n messages."""

    class Params(Params):
        n: int = Field(default=10, ge=0)
        """Number of most recent messages kept verbatim."""

    def context_sections(self, query, state) -> list[ContextSection]:
        n = self.params.n
        return [ContextSection("Recent messages", _lines(self.buffer[-n:] if n > 0 else []))]


@component("short_term", "evidence_oracle")
class EvidenceOracle(ShortTerm):
    """Bound: exactly the probe's evidence turns, verbatim (the fewest tokens that can answer), from
    any thread of the user."""

    def begin_unit(self, state) -> None:
        self.buffer = []  # every turn of the user so far: evidence may lie in an earlier thread

    def begin_conversation(self, state) -> None:
        pass

    def context_sections(self, query, state) -> list[ContextSection]:
        wanted = set(query.evidence or [])
        return [ContextSection("Evidence", _lines([e for e in self.buffer if e.turn.id in wanted]))]
