"""Short-term memory: what of the current conversation's messages goes into the prompt.

- ``full_history``: every message so far (the upper bound; cost grows with history).
- ``recent_window``: the last ``n`` messages.
- ``rolling_summary``: the last ``n`` messages plus a summary of older ones, re-summarised
  every ``every`` message pairs through the Summarize role (purpose ``summarize``).
"""

from __future__ import annotations

from memlab.memory.item import MemoryEvent
from memlab.roles.program import RoleFailure
from memlab.strategies.base import ContextLine, ContextSection, TurnEvent
from memlab.strategies.components import Component, Params, component


class ShortTerm(Component):
    def __init__(self, params: Params, env) -> None:
        super().__init__(params, env)
        self.buffer: list[TurnEvent] = []

    def begin(self, namespace: str) -> None:
        self.buffer = []

    def observe(self, event: TurnEvent) -> list[MemoryEvent]:
        self.buffer.append(event)
        return []

    def sections(self) -> list[ContextSection]:
        raise NotImplementedError


def _lines(events: list[TurnEvent]) -> list[ContextLine]:
    return [ContextLine(text=e.line, source_turn_ids=[e.turn.id], kind="message") for e in events]


@component("short_term", "full_history")
class FullHistory(ShortTerm):
    def sections(self) -> list[ContextSection]:
        return [ContextSection("Conversation history", _lines(self.buffer))]


@component("short_term", "recent_window")
class RecentWindow(ShortTerm):
    class Params(Params):
        n: int = 10
        """Number of most recent messages kept verbatim."""

    def sections(self) -> list[ContextSection]:
        n = self.params.n
        return [ContextSection("Recent messages", _lines(self.buffer[-n:] if n > 0 else []))]


@component("short_term", "rolling_summary")
class RollingSummary(ShortTerm):
    class Params(Params):
        n: int = 10
        """Recent messages kept verbatim."""
        every: int = 5
        """Re-summarise after this many new message pairs have left the window."""

    def begin(self, namespace: str) -> None:
        super().begin(namespace)
        self.summary = ""
        self.summary_sources: list[str] = []
        self.summarised_upto = 0
        self.failures = 0

    def observe(self, event: TurnEvent) -> list[MemoryEvent]:
        self.buffer.append(event)
        out_of_window = len(self.buffer) - self.params.n
        if out_of_window - self.summarised_upto >= 2 * self.params.every:
            chunk = self.buffer[self.summarised_upto : out_of_window]
            try:
                res = self.env.roles.summarize(
                    previous_summary=self.summary, messages="\n".join(e.line for e in chunk)
                )
            except RoleFailure:
                self.failures += 1  # keep the old summary; the failed call is in the call log
                return []
            previous = self.summary
            self.summary = str(res["summary"]).strip()
            self.summary_sources = sorted(set(self.summary_sources) | {e.turn.id for e in chunk})
            self.summarised_upto = out_of_window
            return [MemoryEvent(op="UPDATE" if previous else "ADD", item_id="summary", namespace=event.namespace,
                                kind="summary", text=self.summary, previous_text=previous or None,
                                source_turn_ids=self.summary_sources, reason="rolling summary")]
        return []

    def sections(self) -> list[ContextSection]:
        recent = self.buffer[self.summarised_upto :]  # everything not yet folded into the summary
        out = []
        if self.summary:
            out.append(ContextSection("Summary of earlier conversation",
                                      [ContextLine(self.summary, list(self.summary_sources), kind="summary")]))
        out.append(ContextSection("Recent messages", _lines(recent)))
        return out
