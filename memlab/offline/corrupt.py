"""A stored value altered: what the extraction knob ``extraction.corruption`` does to a fact.

A model that extracts a fact can get its value wrong — a digit off, a date moved, a name
misspelt — and the memory then holds a confident wrong value. The stand-in alters a fact's values
by shape (the same shapes the slot rule reads as values): every number moves by a few, and a fact
without a number has its names (other than its subject) garbled. Deterministic in the draw, so a
rerun stores the same wrong value.
"""

from __future__ import annotations

import re

from memlab.offline import lexicon as lx
from memlab.offline.text import names

_DIGITS = re.compile(r"\d+")
_NUMBER_WORD = re.compile(r"\b(" + "|".join(sorted((w for w in lx.NUMBER_WORDS if w.isalpha()), key=len, reverse=True))
                          + r")\b", re.I)


def _garble(name: str) -> str:
    """Each word of a name reversed ("Bergen" → "Negreb"), rotated when that changes nothing."""
    out = []
    for word in name.split():
        new = word[::-1]
        if new.lower() == word.lower():
            new = word[1:] + word[:1]
        out.append(new[:1].upper() + new[1:].lower())
    return " ".join(out)


def corrupt(fact: str, draw: float) -> str:
    """``fact`` with its values altered (``draw`` in [0, 1) picks by how much); unchanged when it
    carries no value."""
    shift = 1 + int(draw * 1_000_003) % 7
    if _DIGITS.search(fact):
        return _DIGITS.sub(lambda m: str(int(m.group()) + shift), fact)
    if _NUMBER_WORD.search(fact):
        return _NUMBER_WORD.sub(lambda m: str(int(lx.NUMBER_WORDS[m.group().lower()]) + shift), fact)
    from memlab.offline.slots import analyse

    subject = set(analyse(fact).subject.replace("'s", " ").split())
    found = [n for n in names(fact) if not {w.lower() for w in n.split()} <= subject]
    for name in sorted(set(found), key=len, reverse=True):
        fact = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", _garble(name), fact)
    return fact
