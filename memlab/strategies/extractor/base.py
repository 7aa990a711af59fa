"""What the per-message extractors share: which roles count, the turns before a message, speaker labels."""

from __future__ import annotations

from memlab.roles.program import RoleFailure
from memlab.strategies.base import TurnEvent
from memlab.strategies.slots import Component, Params
from memlab.strategies.state import Candidate, StrategyState


def speaker_label(event: TurnEvent) -> str:
    t = event.turn
    if t.role == "tool":
        return f"tool: {t.tool_name or 'tool'}"
    return f"{t.role}: {event.speaker}" if event.speaker and event.speaker != t.role else t.role


class _RolesParams(Params):
    roles: list[str] = ["user"]
    """Message roles whose turns are considered (user; add 'tool' for agentic observations)."""


class PerMessage(Component):
    """Shared by the per-message extractors: which roles count, and a few preceding messages as context."""

    Params = _RolesParams

    def begin_conversation(self, state: StrategyState) -> None:
        self.recent: list[TurnEvent] = []

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        if event.turn.role in self.params.roles:
            state.candidates.extend(self.propose(event))
        self.recent = (self.recent + [event])[-4:]

    def propose(self, event: TurnEvent) -> list[Candidate]:
        raise NotImplementedError

    def _extract(self, event: TurnEvent, kind: str = "fact", importance: float | None = None) -> list[Candidate]:
        context = "\n".join(e.line for e in self.recent[-3:])
        try:
            res = self.env.roles.extract(message=event.turn.text, speaker=speaker_label(event), context=context,
                                         date=event.timestamp.date().isoformat())
        except RoleFailure as exc:
            self.failed("extraction call failed; message not extracted", exc)
            return []
        facts = [str(f).strip() for f in res.get("facts") or [] if str(f).strip()]
        return [Candidate(f, kind, [event.turn.id], importance) for f in facts]
