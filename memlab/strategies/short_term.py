"""Short-term memory: what of the current conversation goes into the prompt.

- ``full_history``: every message of the current thread so far (the upper bound of a design
  without long-term memory; cost grows with history).
- ``all_threads``: every message the user ever sent or received, in every thread so far (the
  true upper bound when threads reset short-term memory).
- ``recent_window``: the last ``n`` messages.
- ``summarizing``: the messages plus a summary of older ones; a trigger (``every_n_steps``,
  ``token_threshold``, ``never``; see :mod:`memlab.strategies.triggers`) decides when to fold
  all but the last ``keep_recent`` messages into the summary (Summarize role, purpose
  ``summarize``). Each compression is recorded with the turns it folded.
- ``rolling_summary``: ``summarizing`` with ``every_n_steps(2·every)`` and ``keep_recent = n``
  (re-summarise each time ``every`` more message pairs have left an ``n``-message window).
- ``invocation_summaries``: conversation memory in seed 000's sense — at the end of every
  invocation, one summary of it ("user asked X, the agent did Y, the result was Z") is kept;
  the prompt gets those summaries (the current invocation is the agent's working memory).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from memlab.memory.item import MemoryEvent, Op
from memlab.strategies.base import ContextLine, ContextSection, TurnEvent
from memlab.strategies.slots import Component, Params, component, declare_slot
from memlab.strategies.triggers import Compressor, EveryNStepsSpec, Entry, TriggerSpec, make_trigger, trigger_shorthand

declare_slot("short_term", "what of the current conversation goes into the prompt", order=10)


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


class _SummarizingParams(Params):
    trigger: TriggerSpec = Field(default_factory=lambda: EveryNStepsSpec(n=20))
    """When to compress (a typed trigger spec: never | every_n_steps | token_threshold)."""
    keep_recent: int = Field(default=10, ge=0)
    """Messages kept verbatim after a compression."""

    @field_validator("trigger", mode="before")
    @classmethod
    def _shorthand(cls, v: Any) -> Any:
        return trigger_shorthand(v)

    @field_validator("trigger")
    @classmethod
    def _no_agent(cls, v: Any) -> Any:
        if v.type == "agent_driven":
            raise ValueError("agent_driven needs an agent (use it for the agent's working memory)")
        return v


@component("short_term", "summarizing")
class Summarizing(Component):
    """Messages plus a summary of older ones, compressed when a trigger fires."""

    Params = _SummarizingParams
    context_order = 60

    def _trigger_spec(self) -> TriggerSpec:
        return self.params.trigger

    def _keep_recent(self) -> int:
        return self.params.keep_recent

    def begin_conversation(self, state) -> None:
        self.compressor = Compressor(make_trigger(self._trigger_spec()), self._keep_recent(),
                                     self.env.roles.summarize, component="history")

    def on_turn(self, event: TurnEvent, state) -> None:
        self.compressor.add(Entry(event.line, [event.turn.id]))
        previous = self.compressor.summary
        comp = self.compressor.maybe_compress()
        if comp is None:
            return
        state.compressed(comp)
        if not comp.ok:
            self.failures += 1
            return
        state.emit(MemoryEvent(op=Op.UPDATE if previous else Op.ADD, item_id="summary", namespace=state.namespace,
                               kind="summary", text=comp.summary, previous_text=previous or None,
                               source_turn_ids=comp.summary_source_turn_ids, reason=f"compressed ({comp.trigger})"))

    def context_sections(self, query, state) -> list[ContextSection]:
        c = self.compressor
        out = []
        if c.summary:
            out.append(ContextSection("Summary of earlier conversation",
                                      [ContextLine(c.summary, list(c.summary_sources), kind="summary")]))
        out.append(ContextSection("Recent messages",
                                  [ContextLine(e.text, list(e.turn_ids), kind="message") for e in c.entries]))
        return out


@component("short_term", "rolling_summary")
class RollingSummary(Summarizing):
    """Last n messages plus a summary re-written every `every` message pairs (summarizing + every_n_steps)."""

    class Params(Params):
        n: int = Field(default=10, ge=0)
        """Recent messages kept verbatim."""
        every: int = Field(default=5, ge=1)
        """Re-summarise after this many new message pairs have left the window."""

    def __init__(self, params: Params, env: Any) -> None:
        super().__init__(params, env)
        self._every = EveryNStepsSpec(n=2 * params.every)  # the trigger the knob means, built once

    def _trigger_spec(self) -> TriggerSpec:
        return self._every

    def _keep_recent(self) -> int:
        return self.params.n


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


@component("short_term", "invocation_summaries")
class InvocationSummaries(Component):
    """Conversation memory: one summary per finished invocation of this conversation."""

    class Params(Params):
        max_summaries: int | None = Field(default=None, ge=1)
        """Keep only the most recent summaries (None: all)."""
        max_tokens: int | None = Field(default=None, ge=1)
        """Keep only the most recent summaries whose lines fit this many tokens together (None: all).
        Unbounded, every agent call of a long conversation carries every earlier invocation."""

    context_order = 55

    def begin_conversation(self, state) -> None:
        self.summaries: list[ContextLine] = []
        self.tokens = 0

    def on_invocation_end(self, invocation, state) -> None:
        from memlab.roles.program import RoleFailure

        if not invocation.events:
            return
        try:
            res = self.env.roles.summarize(previous_summary="", messages=invocation.transcript)
        except RoleFailure:
            self.failures += 1
            return
        text = str(res.get("summary") or "").strip()
        if not text:
            return
        date = invocation.events[0].timestamp.date().isoformat()
        self.summaries.append(ContextLine(f"[{date}] {text}", invocation.turn_ids, kind="summary"))
        if self.params.max_summaries:
            self.summaries = self.summaries[-self.params.max_summaries:]
        if self.params.max_tokens:
            from memlab.tokens import count_tokens

            if self.params.max_summaries:  # the list was just cut: count what is left (at most max_summaries)
                self.tokens = sum(count_tokens(line.text) for line in self.summaries)
            else:
                self.tokens += count_tokens(self.summaries[-1].text)
            drop = 0
            while self.tokens > self.params.max_tokens and drop < len(self.summaries) - 1:
                self.tokens -= count_tokens(self.summaries[drop].text)
                drop += 1
            if drop:
                self.summaries = self.summaries[drop:]
        state.emit(MemoryEvent(op=Op.ADD, item_id=f"invocation-{invocation.index}", namespace=state.namespace,
                               kind="summary", text=text, source_turn_ids=invocation.turn_ids,
                               reason="invocation summarised into conversation memory"))

    def context_sections(self, query, state) -> list[ContextSection]:
        return [ContextSection("Conversation memory (earlier invocations)", list(self.summaries))]
