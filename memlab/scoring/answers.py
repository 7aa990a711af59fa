"""Answer normalisation and token F1 (SQuAD conventions), over value-normalised tokens.

SQuAD's normalisation (lower case, punctuation as separator, articles dropped) is kept, and on
top of it every value is written one way (:mod:`memlab.scoring.values`), so "3 km" and
"three kilometres" are the same answer to F1 as they are to containment.
"""

from __future__ import annotations

from collections import Counter

from memlab.scoring.values import canonical, canonical_tokens


def normalize_answer(text: str | None) -> str:
    """The canonical form of an answer: SQuAD normalisation plus value normalisation."""
    return canonical(text)


def token_f1(prediction: str | None, reference: str | None) -> float:
    """Token-level F1 of two answers after normalisation; 1.0 when both are empty, else 0.0 if one is."""
    p, r = canonical_tokens(prediction), canonical_tokens(reference)
    if not p or not r:
        return float(p == r)
    same = sum((Counter(p) & Counter(r)).values())
    if not same:
        return 0.0
    precision, recall = same / len(p), same / len(r)
    return 2 * precision * recall / (precision + recall)
