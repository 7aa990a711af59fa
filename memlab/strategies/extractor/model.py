"""Extractors that call a model (or store messages verbatim): per message (post_turn, gated, verbatim) or per invocation (post_pass)."""

from __future__ import annotations

from pydantic import Field

from memlab.roles.program import RoleFailure
from memlab.strategies.base import TurnEvent
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Candidate, Invocation, StrategyState
from memlab.strategies.extractor.base import PerMessage, _RolesParams, speaker_label


@component("extractor", "post_turn")
class PostTurnExtractor(PerMessage):
    """One ExtractFacts call after every message of an allowed role."""

    def propose(self, event: TurnEvent) -> list[Candidate]:
        return self._extract(event)


@component("extractor", "gated")
class GatedExtractor(PerMessage):
    """A ShouldRemember gate on every message; only kept messages are extracted."""

    class Params(_RolesParams):
        min_importance: float = Field(default=0.3, ge=0.0, le=1.0)

    def propose(self, event: TurnEvent) -> list[Candidate]:
        try:
            verdict = self.env.roles.gate(message=event.turn.text, speaker=speaker_label(event))
        except RoleFailure as exc:
            self.failed("gate call failed; message not extracted", exc)
            return []
        importance = float(verdict.get("importance") or 0)
        if not verdict.get("remember") or importance < self.params.min_importance:
            return []
        kind = verdict.get("kind") if verdict.get("kind") not in (None, "none") else "fact"
        return self._extract(event, kind=kind, importance=importance)


@component("extractor", "verbatim")
class VerbatimExtractor(PerMessage):
    """Every message of an allowed role stored as-is (no model calls)."""

    def propose(self, event: TurnEvent) -> list[Candidate]:
        return [Candidate(f"{event.speaker}: {event.turn.text}", "message", [event.turn.id])]


@component("extractor", "post_pass")
class PostPassExtractor(Component):
    """One extraction call over each finished invocation's transcript."""

    class Params(Params):
        roles: list[str] = ["user", "tool"]
        """Roles whose turns the transcript shows (the assistant's own words are left out by default)."""

    def on_invocation_end(self, invocation: Invocation, state: StrategyState) -> None:
        events = [e for e in invocation.events if e.turn.role in self.params.roles]
        if not events:
            return
        transcript = "\n".join(f"[{e.turn.id}] {speaker_label(e)}: {e.turn.text}" for e in events)
        try:
            res = self.env.roles.extract_invocation(transcript=transcript, date=events[0].timestamp.date().isoformat())
        except RoleFailure as exc:
            self.failed("invocation extraction call failed; nothing extracted", exc)
            return
        known = {e.turn.id for e in events}
        for fact in res.get("facts") or []:
            text, cited = _sourced(fact)
            if not text:
                continue
            sources = [t for t in cited if t in known] or sorted(known, key=[e.turn.id for e in events].index)
            state.candidates.append(Candidate(text, "fact", sources))


def _sourced(fact: object) -> tuple[str, list[str]]:
    """A fact from ExtractFromTranscript: a {text, turn_ids} object, or a bare string (no citation)."""
    if isinstance(fact, dict):
        return str(fact.get("text") or "").strip(), [str(t) for t in fact.get("turn_ids") or []]
    text = getattr(fact, "text", None)
    if text is not None:
        return str(text).strip(), [str(t) for t in getattr(fact, "turn_ids", []) or []]
    return str(fact).strip(), []
