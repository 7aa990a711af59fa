"""Why a probe scored what it scored: which gold form was looked for, where it was found — or, on
a miss, the line that came nearest.

A bare 0 says nothing a reader can act on. An explanation names the form that matched and the
context line (section and number) that holds it, or for a miss the gold form and the closest line
with how much of the form it shares ("nearest: line 14 of Long-term memory, 'moved to Lisbo…', 0.83
of 'lisbon'"), so a failed probe in the report can be read without opening the run folder. Built
from the scoring primitives only, like every metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any

from memlab.scoring.matching import contains
from memlab.scoring.values import canonical

GoldForms = Sequence[Sequence[str]]
MAX_LINES = 2000
"""Lines searched for a nearest miss (a LoCoMo-sized history has ~2,000; beyond, the first ones)."""


def _clip(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _lines(items: list[dict[str, Any]] | None, context: str | None) -> list[tuple[str, int, str]]:
    """(section, 1-based line number within it, text) of a context, from its items when recorded."""
    if items:
        out, counts = [], {}
        for item in items:
            section = str(item.get("section") or "")
            counts[section] = counts.get(section, 0) + 1
            out.append((section, counts[section], str(item.get("text") or "")))
        return out
    out, section, n = [], "", 0
    for line in (context or "").splitlines():
        if line.startswith("## "):
            section, n = line[3:].strip(), 0
            continue
        if line.strip():
            n += 1
            out.append((section, n, line))
    return out


def _where(section: str, number: int, text: str) -> str:
    return f"line {number} of {section or 'the context'}: '{_clip(text)}'"


def _share(form: str, line: str) -> float:
    """How much of ``form`` (canonical) the longest stretch it shares with ``line`` covers, 0..1
    ("lisbo" in a line: 0.83 of "lisbon"; letters scattered over a long line count for nothing)."""
    a, b = canonical(form), canonical(line)
    if not a or not b:
        return 0.0
    m = SequenceMatcher(None, a, b, autojunk=False)
    return m.find_longest_match(0, len(a), 0, len(b)).size / len(a)


def explain_presence(gold: GoldForms, match: str, items: list[dict[str, Any]] | None, context: str | None,
                     where: str = "context") -> str:
    """Which gold form was found in which line, or for a miss the nearest line — per required part."""
    lines = _lines(items, context)
    if not lines:
        return f"the {where} is empty"
    parts = []
    for forms in gold:
        hit = next(((form, line) for form in forms for line in lines[:MAX_LINES] if contains(line[2], form)), None)
        if hit is None and contains(context, forms[0] if forms else ""):  # across line breaks
            hit = (forms[0], ("", 0, ""))
        if hit is not None:
            form, (section, number, text) = hit
            parts.append(f"found '{form}' in " + (_where(section, number, text) if number else f"the {where}"))
            continue
        best = max(((form, line, _share(form, line[2])) for form in forms for line in lines[:MAX_LINES]),
                   key=lambda t: t[2], default=None)
        looked = " / ".join(f"'{f}'" for f in forms[:4]) + (" …" if len(forms) > 4 else "")
        if best is None or best[2] < 0.6:
            parts.append(f"no form of {looked} in the {where}")
        else:
            form, (section, number, text), share = best
            parts.append(f"no form of {looked} in the {where}; nearest: {_where(section, number, text)}, "
                         f"{share:.2f} of '{form}'")
    joiner = "; and " if match == "all" else "; or "
    return joiner.join(parts)


def explain_sources(evidence: Sequence[str], sources: Sequence[str]) -> str:
    """Which evidence turns the context derives from, and which it does not."""
    have = set(sources)
    got = [e for e in evidence if e in have]
    missing = [e for e in evidence if e not in have]
    out = []
    if got:
        out.append("context derives from evidence " + ", ".join(got))
    if missing:
        out.append("no context line derives from " + ", ".join(missing))
    return "; ".join(out) or "no evidence turns"


def explain_carried(evidence: Sequence[str], gold: GoldForms, items: list[dict[str, Any]] | None) -> str:
    """Per evidence turn: a line derived from it that still carries a gold form, or what was there."""
    out = []
    for e in evidence:
        derived = [it for it in items or [] if e in (it.get("source_turn_ids") or [])]
        carrying = next((it for it in derived if any(contains(it.get("text"), f) for forms in gold for f in forms)), None)
        if carrying is not None:
            out.append(f"{e}: carried by '{_clip(str(carrying.get('text')), 60)}'")
        elif derived:
            out.append(f"{e}: {len(derived)} line(s) derive from it, none with a gold form "
                       f"(e.g. '{_clip(str(derived[0].get('text')), 60)}')")
        else:
            out.append(f"{e}: nothing in the context derives from it")
    return "; ".join(out) or "no evidence turns"
