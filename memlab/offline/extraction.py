"""What the extraction roles return under a behaviour profile.

The extraction filter (:mod:`memlab.offline.statements`) finds the durable facts of a turn; the
profile's extraction knobs then decide, per fact, whether it is extracted at all (the recall for
its speaker: a user, an assistant, a tool) and whether its value comes out altered
(``extraction.corruption``, :mod:`memlab.offline.corrupt`). As built every user fact and tool value
line is extracted, no assistant statement, and nothing is altered.
"""

from __future__ import annotations

from memlab.offline.attribution import parse_speaker
from memlab.offline.behaviour import AS_BUILT, DEFAULT, Behaviour, chance
from memlab.offline.corrupt import corrupt
from memlab.offline.statements import assistant_statements, extract

RECALL = {"user": "extraction.user_recall", "assistant": "extraction.assistant_recall", "tool": "extraction.tool_recall"}
"""The recall knob for a speaker's role."""


def extract_turn(message: str, speaker: str, date: str = "", context: str = "", behaviour: Behaviour = AS_BUILT) -> list[str]:
    """The facts extracted from one message under ``behaviour``, in order."""
    if behaviour.profile.extraction == DEFAULT.extraction:
        return extract(message, speaker, date, context)
    role, name = parse_speaker(speaker)
    if role == "assistant" and behaviour.profile.extraction.assistant_recall > 0:
        facts = assistant_statements(message, name, date)
    else:
        facts = extract(message, speaker, date, context)
    knob = RECALL.get(role)
    kept = [f for f in facts if knob is None or behaviour.keeps(knob, f)]
    rate = behaviour.profile.extraction.corruption
    return [corrupt(f, chance(behaviour.seed, "extraction.corruption.how", f))
            if rate > 0 and chance(behaviour.seed, "extraction.corruption", f) < rate else f for f in kept]
