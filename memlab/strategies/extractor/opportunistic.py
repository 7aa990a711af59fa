"""Seed 003's opportunistic learning: learning patterns trigger an analysis with a confidence level."""

from __future__ import annotations

import re
from pydantic import Field
import memlab.strategies.extractor.model  # noqa: F401  (declares the "extractor" slot)
from memlab.roles.program import RoleFailure
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Candidate, Invocation, StrategyState


SEED_003_PATTERNS: dict[str, list[str]] = {
    "names": [r"\b[A-Z][a-z]+ (?:is|was)\b", r"\bmy (?:partner|colleague|manager|boss|client) [A-Z][a-z]+\b",
              r"\b[A-Z][a-z]+ (?:works|worked) (?:at|for|with)\b"],
    "preferences": [r"\bI (?:prefer|like|love|hate|dislike|always|usually|never)\b", r"\bI tend to\b", r"\bmy style is\b"],
    "projects": [r"\bworking on [A-Z][a-zA-Z0-9\s]+\b", r"\bproject called [A-Z][a-zA-Z0-9\s]+\b",
                 r"\bclient [A-Z][a-zA-Z0-9\s]+\b"],
    "schedules": [r"\bevery (?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b",
                  r"\busually (?:at|around) \d+(?::\d+)?(?:am|pm)?\b", r"\bmy schedule is\b"],
}
"""Seed 003's ``learning_patterns``, verbatim (case-sensitive, as written there)."""


@component("extractor", "opportunistic")
class OpportunisticLearning(Component):
    """Learning patterns trigger one analysis per exchange; facts come with a category and a confidence."""

    class Params(Params):
        patterns: dict[str, list[str]] = Field(default_factory=lambda: {k: list(v) for k, v in SEED_003_PATTERNS.items()})
        """Category → regular expressions over the user's message (seed 003's learning_patterns)."""

    def on_invocation_end(self, invocation: Invocation, state: StrategyState) -> None:
        users = [e for e in invocation.events if e.turn.role == "user"]
        if not users:
            return
        user = users[0]
        triggered = [cat for cat, rxs in self.params.patterns.items() if any(re.search(rx, user.turn.text) for rx in rxs)]
        if not triggered:
            return
        response = "\n".join(e.turn.text for e in invocation.events if e.turn.role == "assistant")
        try:
            res = self.env.roles.analyze_learning(user_input=user.turn.text, response=response, triggered_categories=triggered)
        except RoleFailure as exc:  # learning failures never affect the conversation
            self.failed("learning analysis call failed; nothing learned", exc)
            return
        for raw in res.get("candidates") or []:
            c = raw.model_dump() if hasattr(raw, "model_dump") else dict(raw)
            fact = str(c.get("fact") or "").strip()
            if fact:
                state.candidates.append(Candidate(fact, "fact", [user.turn.id], metadata={
                    "category": str(c.get("category") or "general"), "confidence": str(c.get("confidence") or "low")},
                    origin="opportunistic"))
