"""The offline judge: one documented rule per judge prompt (JudgeAnswerLenient, JudgeAnswerStrict).

It is built from :mod:`memlab.scoring` alone (normalisation, abstention detection, a fixed list of
English function words) and never from the offline model's own rules: the offline model answers,
and a judge that reused its answerer's abstention phrases would grade the model by its own rules.
``tests/test_scoring_imports.py`` checks its imports. (The offline model provider answers the judge
roles with this module, like an LLM endpoint would answer them with its own weights.)

Texts are normalised (lowercase, punctuation and articles dropped, ordinal suffixes cut so
"May 7th" reads "may 7"). The gold field lists accepted answers separated by `` | `` and, for a
multi-part answer, required parts separated by `` & `` (see ``JUDGE_GOLD_DESC``).

- **lenient** (the LoCoMo-style prompt: "touches the same topic or date counts"): correct when the
  response shares at least one content word (not a function word) with any accepted form of any
  part. Generous on purpose, so it accepts hedges and stale values that mention a gold word.
- **strict**: correct when *every* part is stated — the response contains an accepted form, or
  covers at least ``MIN_GOLD_RECALL`` of its tokens (so "Porto, Portugal" matches "Porto" while
  "the 7th of May" covers too little of "7 May 2024") — and the response neither states a
  superseded value nor hedges (a hedge word, or an "or" the gold does not contain).

Under both, a response that declines to answer is ``abstained``; it is correct only when there is
no gold answer (an abstention probe: empty gold, or memlab's marker ``(none: ...)``).
"""

from __future__ import annotations

import re

from memlab.scoring.abstention import is_abstention
from memlab.scoring.words import FUNCTION_WORDS

MIN_GOLD_RECALL = 0.8
HEDGES = frozenset("maybe perhaps possibly probably might either unsure guess".split())
"""Words that present a value as uncertain or as one of several (general English, not data-derived)."""
HEDGE_PHRASES = ("not sure", "i think", "could be", "may be")


def normalise(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", text.lower().replace("’", "'"))
    return [re.sub(r"^(\d+)(?:st|nd|rd|th)$", r"\1", w) for w in words if w not in ("a", "an", "the")]


def gold_parts(gold: str) -> list[list[list[str]]]:
    """Parts (all required) → accepted forms (any) → normalised tokens."""
    parts = [[normalise(form) for form in part.split(" | ")] for part in gold.split(" & ")]
    return [[f for f in forms if f] for forms in parts if any(forms)]


def _states(said: list[str], form: list[str]) -> bool:
    joined = f" {' '.join(said)} "
    return f" {' '.join(form)} " in joined or sum(t in said for t in form) / len(form) >= MIN_GOLD_RECALL


def _touches(said: list[str], form: list[str]) -> bool:
    content = [t for t in form if t not in FUNCTION_WORDS]
    return any(t in said for t in content or form)


def hedges(response: str, gold: str) -> bool:
    said = normalise(response)
    text = " ".join(said)
    gold_words = set(normalise(gold))
    return (any(w in HEDGES for w in said) or any(f" {p} " in f" {text} " for p in HEDGE_PHRASES)
            or ("or" in said and "or" not in gold_words))


def judge(gold: str, response: str, *, strict: bool, superseded: str = "") -> dict[str, bool]:
    abstained = is_abstention(response)
    parts = gold_parts(gold)
    if not parts or gold.lstrip().startswith("(none"):
        return {"correct": abstained, "abstained": abstained}
    said = normalise(response)
    if not strict:
        correct = any(_touches(said, form) for forms in parts for form in forms)
        return {"correct": correct and not abstained, "abstained": abstained}
    correct = all(any(_states(said, form) for form in forms) for forms in parts)
    joined = f" {' '.join(said)} "
    gold_text = f" {' '.join(normalise(gold))} "
    stale = any(s and f" {' '.join(s)} " in joined and f" {' '.join(s)} " not in gold_text
                for s in (normalise(x) for x in superseded.split(" | ")))
    return {"correct": correct and not stale and not hedges(response, gold) and not abstained, "abstained": abstained}
