"""Is the gold answer written anywhere in the conversation? (the ceiling of string recall)

A gold answer that is derived ("how many trips?" when the turns describe each trip) can never be
found by string matching in a context, whatever the memory does; :func:`gold_written` tells the
runner which probes string recall can credit at all.
"""

from __future__ import annotations

from collections.abc import Iterable

from memlab.scoring.matching import GoldForms, _check_match, part_present


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
