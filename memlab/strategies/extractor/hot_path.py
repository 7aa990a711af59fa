"""The hot-path classifier gate (seed 001's ``memory_hotpath``): should this exchange create a memory?

Before the supervisor answers, a small model reads the user's last ``window`` messages (2–3 in
the seed) and decides whether to create a **semantic memory**: only stable user facts,
preferences and goals; never meta / capability questions, one-off actions or time-bound events
(the "DO NOT create" rules of the ``ClassifyMemory`` role, purpose ``gate``). A positive verdict
becomes one candidate with its category (the memory's kind), a one-sentence summary and an
importance, citing the window's turns; the consolidator (``thresholded_merge`` in the seed)
decides how it lands in the store. One call per user message: the cost grows with the number
of messages, not with what they contain."""

from __future__ import annotations

from pydantic import Field
import memlab.strategies.extractor.model  # noqa: F401  (declares the "extractor" slot)
from memlab.roles.program import RoleFailure
from memlab.strategies.base import TurnEvent
from memlab.strategies.extractor.base import speaker_label
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Candidate, StrategyState


@component("extractor", "hot_path")
class HotPathGate(Component):
    """A classifier over the user's last few messages proposes at most one categorised memory per message."""

    class Params(Params):
        window: int = Field(default=3, ge=1)
        """How many of the user's most recent messages the classifier sees (seed 001: 2–3)."""

    def begin_conversation(self, state: StrategyState) -> None:
        self.recent: list[TurnEvent] = []

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        if event.turn.role != "user":
            return
        self.recent = (self.recent + [event])[-self.params.window:]
        try:
            res = self.env.roles.classify_memory(recent_user_turns=[e.turn.text for e in self.recent],
                                                 speaker=speaker_label(event))
        except RoleFailure as exc:
            self.failed("classification call failed; message not kept", exc)
            return
        summary = str(res.get("summary") or "").strip()
        if not res.get("should_create") or not summary:
            return
        importance = max(0.0, min(1.0, float(res.get("importance") or 0.0)))
        category = str(res.get("category") or "fact")
        state.candidates.append(Candidate(summary, category, [e.turn.id for e in self.recent], importance=importance,
                                          metadata={"category": category}, origin="hot_path"))
