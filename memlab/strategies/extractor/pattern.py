"""Pattern extraction: regular expressions over the last K messages, no model (seed 004).

Seed 004 (``agent_memory_pg``) extracts memories without any model call: when the
conversation's history length reaches a multiple of ``every`` (``IF history.length % 10 == 0``),
it runs fixed regular expressions over the messages since the previous pass — ``I like|I
prefer|my favorite`` → a preference, ``I am|my name is|I work at`` → a fact — and stores the
matched clause with ``{"source": "auto_extract"}``. Its worked example turns "My name is Alice
and I prefer dark mode." into the fact "My name is Alice" and the preference "I prefer dark
mode", so a memory is the clause from the match to the next clause boundary (punctuation, or
"and"/"but"), and matching ignores case ("My name is" matches ``my name is``).

After the patterns, the seed's ``summarizeConversations`` writes a ``conversation_summary`` memory
when the pass covers more than 5 messages, without saying how it is written. ``summary`` chooses:
``excerpt`` (memlab's default: no model, like the rest of the seed's extraction path — the first
sentence of each matched-role message of the pass, in order, joined by " / ", cut to
``summary_chars``), ``model`` (one Summarize call, purpose ``summarize``, over the pass's
messages) or ``none``.

Why it is worth having as a component: it is the zero-cost end of the extraction axis (no
model calls, no tokens) while still writing typed memories; its misses (anything not phrased
like a pattern, everything in the messages after the last multiple of K) are what it costs."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Literal
from pydantic import Field, field_validator
from memlab.roles.program import RoleFailure
from memlab.strategies.base import TurnEvent
import memlab.strategies.extractor.model  # noqa: F401  (declares the "extractor" slot)
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Candidate, StrategyState


SEED_004_PATTERNS: dict[str, list[str]] = {
    "preference": [r"I like", r"I prefer", r"my favorite"],
    "fact": [r"I am", r"my name is", r"I work at"],
}
"""Seed 004's two regular expressions, one alternative per entry (kind → alternatives)."""


SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


CLAUSE_END = re.compile(r"[.!?;,\n]|\s+(?:and|but)\s+", re.IGNORECASE)
"""Where a matched memory ends: punctuation or a coordinating 'and'/'but' (the seed's example)."""


class PatternParams(Params):
    every: int = Field(default=10, ge=1)
    """Run a pass each time the conversation's message count is a multiple of this (seed 004: 10)."""
    roles: list[str] = ["user"]
    """Message roles whose text is matched (the patterns are first-person statements)."""
    patterns: dict[str, list[str]] = Field(default_factory=lambda: {k: list(v) for k, v in SEED_004_PATTERNS.items()})
    """Memory kind → regular expressions (case-insensitive, whole words); the first kind that matches a clause wins."""
    source: str = "auto_extract"
    """The ``metadata.source`` written on every memory (seed 004: auto_extract)."""
    summary: Literal["none", "excerpt", "model"] = "excerpt"
    """How the pass's conversation summary is written (the seed does not say): ``excerpt`` = first sentences of
    the messages, no model (memlab's default); ``model`` = one Summarize call; ``none`` = no summary."""
    summary_after: int = Field(default=5, ge=0)
    """A pass over more than this many messages writes a summary (seed 004: messages.length > 5)."""
    summary_chars: int = Field(default=500, ge=20)
    """Longest ``excerpt`` summary, in characters."""

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, v: dict[str, list[str]]) -> dict[str, list[str]]:
        for kind, alternatives in v.items():
            for rx in alternatives:
                try:
                    re.compile(rx)
                except re.error as exc:
                    raise ValueError(f"patterns.{kind}: {rx!r} is not a valid regular expression ({exc})") from None
        return v


@component("extractor", "pattern")
class PatternExtractor(Component):
    """Regex extraction every K messages (no model): first-person clauses → typed memories."""

    Params = PatternParams

    @cached_property
    def _compiled(self) -> list[tuple[str, re.Pattern[str]]]:
        return [(kind, re.compile(r"\b(?:" + "|".join(alts) + r")\b", re.IGNORECASE))
                for kind, alts in self.params.patterns.items() if alts]

    def begin_conversation(self, state: StrategyState) -> None:
        self.pending: list[TurnEvent] = []
        self.count = 0

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        if event.turn.role not in ("user", "assistant"):
            return  # the seed's history holds the chat messages only
        self.count += 1
        self.pending.append(event)
        if self.count % self.params.every:
            return
        batch, self.pending = self.pending, []
        for ev in batch:
            if ev.turn.role in self.params.roles:
                state.candidates.extend(self.matches(ev))
        if self.params.summary != "none" and len(batch) > self.params.summary_after:
            text = self.summarize(batch)
            if text:
                state.candidates.append(Candidate(text, "conversation_summary", [ev.turn.id for ev in batch],
                                                  metadata={"source": self.params.source, "summary": self.params.summary}))

    def summarize(self, batch: list[TurnEvent]) -> str:
        """The pass's conversation summary, written the way ``summary`` says ("" when there is nothing)."""
        if self.params.summary == "model":
            try:
                res = self.env.roles.summarize(previous_summary="", messages="\n".join(ev.line for ev in batch))
            except RoleFailure as exc:
                self.failed("summary call failed; stored without a summary", exc)
                return ""
            return str(res.get("summary") or "").strip()
        firsts = [SENTENCE_END.split(ev.turn.text.strip())[0] for ev in batch if ev.turn.role in self.params.roles]
        text = " / ".join(f for f in firsts if f)
        return text if len(text) <= self.params.summary_chars else text[: self.params.summary_chars - 1].rstrip() + "…"

    def matches(self, event: TurnEvent) -> list[Candidate]:
        """Every clause of the message that a pattern matches, as a candidate of that pattern's kind."""
        text = event.turn.text
        out: list[Candidate] = []
        taken: list[tuple[int, int]] = []
        for kind, rx in self._compiled:
            for m in rx.finditer(text):
                if any(a <= m.start() < b for a, b in taken):
                    continue  # a clause already taken by an earlier kind (or an earlier match of this one)
                end = CLAUSE_END.search(text, m.end())
                stop = end.start() if end else len(text)
                clause = text[m.start():stop].strip()
                taken.append((m.start(), stop))
                if clause:
                    out.append(Candidate(clause, kind, [event.turn.id], metadata={"source": self.params.source}))
        out.sort(key=lambda c: text.find(c.text))
        return out
