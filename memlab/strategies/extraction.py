"""Extraction: which turns become long-term memory candidates, and how.

- ``post_turn``: after each turn by an allowed role, the ExtractFacts role (purpose ``extract``)
  turns the message into zero or more facts. The classic "extract after each invocation" design.
- ``gated``: the ShouldRemember role (purpose ``gate``) classifies each message on the hot path;
  only messages it keeps go through ExtractFacts. Cheaper when most turns are chit-chat.
- ``verbatim``: store every message of an allowed role as-is (no model calls) — the raw-RAG
  baseline, and an upper bound on what extraction can lose.

Each candidate carries the id of the turn it came from (provenance).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memlab.roles.program import RoleFailure
from memlab.strategies.base import TurnEvent
from memlab.strategies.components import Component, Params, component


@dataclass
class Candidate:
    text: str
    kind: str
    source_turn_ids: list[str]
    importance: float | None = None
    metadata: dict = field(default_factory=dict)


class Extractor(Component):
    failures: int = 0

    def __init__(self, params, env) -> None:
        super().__init__(params, env)
        self.recent: list[TurnEvent] = []
        self.failures = 0

    def begin(self, namespace: str) -> None:
        self.recent = []

    def candidates(self, event: TurnEvent) -> list[Candidate]:
        raise NotImplementedError

    def _allowed(self, event: TurnEvent) -> bool:
        return event.turn.role in self.params.roles

    def _remember(self, event: TurnEvent) -> None:
        self.recent = (self.recent + [event])[-4:]

    def _extract(self, event: TurnEvent, kind: str = "fact", importance: float | None = None) -> list[Candidate]:
        context = "\n".join(e.line for e in self.recent[-3:])
        try:
            res = self.env.roles.extract(
                message=event.turn.text, speaker=_speaker(event), context=context, date=event.timestamp.date().isoformat()
            )
        except RoleFailure:
            self.failures += 1
            return []
        facts = [str(f).strip() for f in res.get("facts") or [] if str(f).strip()]
        return [Candidate(f, kind, [event.turn.id], importance) for f in facts]


def _speaker(event: TurnEvent) -> str:
    t = event.turn
    if t.role == "tool":
        return f"tool: {t.tool_name or 'tool'}"
    return f"{t.role}: {event.speaker}" if event.speaker and event.speaker != t.role else t.role


class _RolesParams(Params):
    roles: list[str] = ["user"]
    """Message roles whose turns are considered (user; add 'tool' for agentic observations)."""


@component("extractor", "post_turn")
class PostTurnExtractor(Extractor):
    Params = _RolesParams

    def candidates(self, event: TurnEvent) -> list[Candidate]:
        out = self._extract(event) if self._allowed(event) else []
        self._remember(event)
        return out


@component("extractor", "gated")
class GatedExtractor(Extractor):
    class Params(_RolesParams):
        min_importance: float = 0.3

    def candidates(self, event: TurnEvent) -> list[Candidate]:
        out: list[Candidate] = []
        if self._allowed(event):
            try:
                verdict = self.env.roles.gate(message=event.turn.text, speaker=_speaker(event))
            except RoleFailure:
                self.failures += 1
                verdict = {"remember": False}
            if verdict.get("remember") and float(verdict.get("importance") or 0) >= self.params.min_importance:
                kind = verdict.get("kind") if verdict.get("kind") not in (None, "none") else "fact"
                out = self._extract(event, kind=kind, importance=float(verdict.get("importance") or 0))
        self._remember(event)
        return out


@component("extractor", "verbatim")
class VerbatimExtractor(Extractor):
    Params = _RolesParams

    def candidates(self, event: TurnEvent) -> list[Candidate]:
        if not self._allowed(event):
            return []
        return [Candidate(f"{event.speaker}: {event.turn.text}", "message", [event.turn.id])]
