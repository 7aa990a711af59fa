"""Is a gold answer in a text? Word-bounded containment of normalised forms.

Both sides are normalised (:mod:`memlab.scoring.values`) before the gold form is looked for as
a whole-token run, so "Lisbon" is not found in "Lisbonne" and "8 May 2023" is found in
"[2023-05-08] …".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memlab.scoring.values import canonical

GoldForms = Sequence[Sequence[str]]
"""Gold answers: one list of accepted surface forms (text + aliases) per answer part."""


def contains(haystack: str | None, needle: str | None) -> bool:
    """``needle`` occurs in ``haystack`` as a run of whole canonical tokens."""
    n = canonical(needle)
    if not n or not haystack:
        return False
    return f" {n} " in f" {canonical(haystack)} "


def part_present(text: str | None, forms: Iterable[str]) -> bool:
    """Some accepted form of one gold part occurs in ``text``."""
    return any(contains(text, form) for form in forms)


def gold_present(text: str | None, gold: GoldForms, match: str = "any") -> bool:
    """Every part (``match="all"``) or some part (``"any"``) of the gold answer occurs in ``text``."""
    _check_match(match)
    if not gold:
        return False
    hits = [part_present(text, forms) for forms in gold]
    return all(hits) if match == "all" else any(hits)


def any_gold_form(text: str | None, gold: GoldForms) -> bool:
    """Some form of some gold part occurs in ``text`` (what one context line can carry)."""
    return any(part_present(text, forms) for forms in gold)


def _check_match(match: str) -> None:
    if match not in ("any", "all"):
        raise ValueError(f"gold_match must be 'any' or 'all', got {match!r}")
