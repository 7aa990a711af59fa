"""Histories with summaries: a summary of older messages compressed by a trigger, a rolling summary, one summary per finished invocation (conversation memory)."""

from __future__ import annotations

from typing import Any
from pydantic import Field, field_validator
from memlab.memory.item import MemoryEvent, Op
from memlab.strategies.base import ContextLine, ContextSection, TurnEvent
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.triggers import Compressor, EveryNStepsSpec, Entry, TriggerSpec, make_trigger


class _SummarizingParams(Params):
    trigger: TriggerSpec = Field(default_factory=lambda: EveryNStepsSpec(n=20))
    """When to compress (a typed trigger spec: never | every_n_steps | token_threshold)."""
    keep_recent: int = Field(default=10, ge=0)
    """Messages kept verbatim after a compression."""

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
            self.failed("compression failed; messages kept", comp.reason)
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
        except RoleFailure as exc:
            self.failed("invocation summary call failed; no summary", exc)
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
