"""A simple, documented judge (JudgeAnswer).

Both texts are normalised (lowercase, punctuation and articles dropped). The response is
correct when it contains a gold answer, or when it covers at least ``MIN_GOLD_RECALL`` of a
gold answer's tokens (so "Porto, Portugal" matches "Porto" and "the 7th of May" covers little
of "7 May 2024" without passing). A response that declines to answer is ``abstained``; it is correct only when there is no gold
answer (an abstention probe: empty gold, or memlab's marker ``(none: ...)``).
"""

from __future__ import annotations

import re

from memlab.offline.answer import is_abstention

MIN_GOLD_RECALL = 0.8


def normalise(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in ("a", "an", "the")]


def judge(gold: str, response: str) -> dict[str, bool]:
    abstained = is_abstention(response)
    said = normalise(response)
    joined = f" {' '.join(said)} "
    correct = False
    for g in (normalise(x) for x in gold.split(" | ")):
        if g and (f" {' '.join(g)} " in joined or sum(t in said for t in g) / len(g) >= MIN_GOLD_RECALL):
            correct = True
    if not normalise(gold) or gold.lstrip().startswith("(none"):
        return {"correct": abstained, "abstained": abstained}
    return {"correct": correct and not abstained, "abstained": abstained}
