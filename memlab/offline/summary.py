"""The extractive summariser (Summarize): the summary is a list of durable facts.

Each new message (``[date] speaker: text``, continuation lines included) goes through the same statement filter and
attribution as extraction, so pleasantries and questions drop out and what remains is concrete.
Each new fact is then reconciled against the summary's sentences with the slot rule
(``slots.decide``): a changed value replaces the old sentence, a retraction removes it, a
restatement is skipped, anything else is appended. No sentence is invented or paraphrased.
"""

from __future__ import annotations

import re

from memlab.offline.attribution import split_labelled
from memlab.offline.similarity import Similarity
from memlab.offline.slots import analyse, decide
from memlab.offline.statements import extract
from memlab.offline.text import sentences

_DATED = re.compile(r"^\[(?P<date>[^\]]+)\]\s*(?P<rest>.*)$")
_NAMED = re.compile(r"^(?P<name>[^:\n]{1,60}?):\s*(?P<text>.*)$")


def _messages(lines: str) -> list[tuple[str, str, str]]:
    """(date, speaker label, text) per ``[date] speaker: text`` line; a line without a ``[date]``
    continues the message before it (a multi-line tool observation)."""
    out: list[tuple[str, str, str]] = []
    for line in lines.splitlines():
        m = _DATED.match(line.strip())
        if not m:
            if out and line.strip():
                out[-1] = (out[-1][0], out[-1][1], f"{out[-1][2]}\n{line.strip()}")
            continue
        labelled = split_labelled(m.group("rest"))
        named = _NAMED.match(m.group("rest"))
        if labelled:
            out.append((m.group("date"), *labelled))
        elif named:
            out.append((m.group("date"), f"user: {named.group('name').strip()}", named.group("text")))
    return out


def _facts(lines: str) -> list[str]:
    return [f for date, speaker, text in _messages(lines) for f in extract(text, speaker, date)]


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
