"""Is the gold answer written anywhere a context could take it from? (the ceiling of string recall)

A gold answer that is derived ("how many trips?" when the turns describe each trip) can never be
found by string matching in a context, whatever the memory does. :func:`gold_attested` tells the
runner which probes string recall can credit at all, given the canonical text of everything a
context could carry from the dataset (:mod:`memlab.analysis.ceiling` builds it: turns as histories render
them, dates, facts...); :func:`gold_written` is the older, narrower check over turn text only.
"""

from __future__ import annotations

from collections.abc import Iterable

from memlab.scoring.matching import GoldForms, _check_match, part_present
from memlab.scoring.values import canonical


def gold_written(gold: GoldForms, gold_match: str, turn_texts: Iterable[str]) -> bool:
    """Whether the conversation's turns up to the probe write the gold answer.

    ``any``: some part has a form in some turn. ``all``: every part has a form in some turn (the
    parts may sit in different turns, as the context they are later recalled into is one text)."""
    _check_match(gold_match)
    if not gold:
        return False
    texts = list(turn_texts)
    hits = [any(part_present(t, forms) for t in texts) for forms in gold]
    return all(hits) if gold_match == "all" else any(hits)


def gold_attested(gold: GoldForms, gold_match: str, canonical_text: str) -> bool:
    """Whether ``canonical_text`` (already normalised with :func:`memlab.scoring.canonical`) holds
    every part (``all``) or some part (``any``) of the gold answer, as string recall would find it."""
    _check_match(gold_match)
    if not gold:
        return False
    hay = f" {canonical_text} "

    def part(forms: Iterable[str]) -> bool:
        return any((n := canonical(f)) and f" {n} " in hay for f in forms)

    hits = [part(forms) for forms in gold]
    return all(hits) if gold_match == "all" else any(hits)
