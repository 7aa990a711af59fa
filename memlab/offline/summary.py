"""The extractive summariser (Summarize): the summary is a list of durable facts.

Each new message line (``[date] speaker: text``) goes through the same statement filter and
attribution as extraction, so pleasantries and questions drop out and what remains is concrete.
Each new fact is then reconciled against the summary's sentences with the slot rule
(``slots.decide``): a changed value replaces the old sentence, a retraction removes it, a
restatement is skipped, anything else is appended. No sentence is invented or paraphrased.
"""

from __future__ import annotations

import re

from memlab.offline.similarity import Similarity
from memlab.offline.slots import analyse, decide
from memlab.offline.statements import extract
from memlab.offline.text import sentences

_MESSAGE = re.compile(r"^(?:\[(?P<date>[^\]]+)\]\s*)?(?P<speaker>[^:\n]{1,60}?):\s*(?P<text>.+)$")


def _facts(messages: str) -> list[str]:
    out: list[str] = []
    for line in messages.splitlines():
        m = _MESSAGE.match(line.strip())
        if not m:
            continue
        speaker = m.group("speaker").strip()
        if not speaker.lower().startswith(("user", "assistant", "tool", "system")):
            speaker = f"user: {speaker}"
        out += extract(m.group("text"), speaker, m.group("date") or "")
    return out


def summarize(previous_summary: str, messages: str, sim: Similarity) -> str:
    kept = sentences(previous_summary) if previous_summary.strip() else []
    for fact in _facts(messages):
        if not kept:
            kept.append(fact)
            continue
        new = analyse(fact)
        cos = sim.cosine(fact, kept)
        actions = [decide(new, analyse(old), float(c)) for old, c in zip(kept, cos, strict=True)]
        if "NOOP" in actions:
            continue
        kept = [old for old, a in zip(kept, actions, strict=True) if a not in ("UPDATE", "DELETE")]
        if "DELETE" not in actions or "UPDATE" in actions:
            kept.append(fact)
    return " ".join(s if s.endswith((".", "!", "?")) else s + "." for s in kept)
