"""A context as the viewer shows it: lines with the gold forms and the evidence-derived lines marked,
a window of them at a time, and what two contexts do not share.

The lines are the design report's (:func:`memlab.analysis.html_report.context_lines`: one per recorded
context item, marked when derived from an evidence turn). A line *holds the gold* when the scoring's
own containment test says so (:func:`memlab.scoring.any_gold_form`: normalised, aliases included);
the spans to highlight are the literal, case-insensitive, word-bounded occurrences of a form — a
normalised match (a date written another way) marks the whole line without a span. A full
history has ~600 lines and a hostile one 10,000: a page gets the evidence and gold lines and the
first :data:`WINDOW` others, the rest on demand; a line longer than :data:`MAX_CHARS` is cut.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from memlab.analysis.html_report import context_lines
from memlab.scoring import any_gold_form, contains

WINDOW = 300
"""Lines sent with a page besides the evidence and gold lines; the rest load on demand."""
MAX_PINNED = 500
"""Lines outside the window sent because they are marked (a context where every line holds the gold)."""
MAX_CHARS = 4000
"""Characters of one line sent to the page (a 1 MB turn in a full history is cut; its length is said)."""


@lru_cache(maxsize=512)
def _pattern(form: str) -> re.Pattern[str] | None:
    form = form.strip()
    if not form:
        return None
    return re.compile(r"(?<!\w)" + re.escape(form) + r"(?!\w)", re.IGNORECASE)


def spans(text: str, forms: Iterable[str], kind: str) -> list[list[Any]]:
    """[start, end, kind] of every literal occurrence of a form in ``text``."""
    out = []
    for form in forms:
        pat = _pattern(str(form))
        if pat is not None:
            out += [[m.start(), m.end(), kind] for m in pat.finditer(text)]
    return out


def _merge(found: list[list[Any]]) -> list[list[Any]]:
    """Non-overlapping spans, in order; a gold span wins over a stale one it overlaps."""
    found.sort(key=lambda s: (s[0], s[2] != "gold", -s[1]))
    out: list[list[Any]] = []
    for s in found:
        if out and s[0] < out[-1][1]:
            if s[2] == "gold" and out[-1][2] != "gold":
                out[-1] = s
            continue
        out.append(s)
    return out


@dataclass(frozen=True)
class Marker:
    """What to mark in a probe's lines: its gold forms and the values a knowledge update superseded."""

    gold: Sequence[Sequence[str]]
    superseded: Sequence[str] = ()

    @property
    def forms(self) -> list[str]:
        return [str(f) for forms in self.gold for f in forms]

    def line(self, text: str) -> dict[str, Any]:
        """One line as the page shows it: text (cut), whether it holds the gold or a stale value, spans."""
        shown = text if len(text) <= MAX_CHARS else text[:MAX_CHARS]
        out: dict[str, Any] = {"text": shown}
        if len(text) > MAX_CHARS:
            out["cut"] = len(text)
        if self.gold and any_gold_form(text, self.gold):
            out["gold"] = True
        if any(contains(text, s) for s in self.superseded):
            out["stale"] = True
        found = _merge(spans(shown, self.forms, "gold") + spans(shown, self.superseded, "stale"))
        if found:
            out["spans"] = found
        return out


def probe_lines(rec: dict[str, Any]) -> list[dict[str, Any]]:
    """Every line of a probe record's context, marked (before windowing)."""
    marker = Marker(rec.get("gold") or [], [str(s) for s in rec.get("superseded") or []])
    out = []
    for i, line in enumerate(context_lines(rec)):
        row = marker.line(line.text)
        row["i"] = i
        if line.section:
            row["section"] = line.section
        if line.evidence:
            row["evidence"] = True
        if line.sources:
            row["sources"] = line.sources[:20]
        out.append(row)
    return out


def window(lines: list[dict[str, Any]], start: int = 0, count: int = WINDOW, pinned: bool = True) -> list[dict[str, Any]]:
    """Lines ``start`` … ``start + count`` and, with ``pinned``, up to :data:`MAX_PINNED` evidence,
    gold, stale or unshared lines elsewhere (evidence first), so a miss and the line that came
    nearest are on the page; in context order."""
    keep = {x["i"] for x in lines if start <= x["i"] < start + count}
    room = MAX_PINNED if pinned else 0
    for flag in ("evidence", "gold", "stale", "only"):
        extra = [x["i"] for x in lines if x.get(flag) and x["i"] not in keep][:room]
        keep.update(extra)
        room -= len(extra)
    return [x for x in lines if x["i"] in keep]


def mark_difference(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> tuple[int, int]:
    """Mark (``only``) the lines of each context whose text the other does not hold; returns how
    many each has. By text, not by position: two memories order their lines differently."""
    ta, tb = {x["text"] for x in a}, {x["text"] for x in b}
    n_a = n_b = 0
    for x in a:
        if x["text"] not in tb:
            x["only"] = True
            n_a += 1
    for x in b:
        if x["text"] not in ta:
            x["only"] = True
            n_b += 1
    return n_a, n_b
