"""Oracle extractors: exactly the dataset's annotated facts, or those facts with controlled errors (recall, precision)."""

from __future__ import annotations

from pydantic import Field
from memlab.strategies.base import TurnEvent
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Candidate, StrategyState


@component("extractor", "oracle")
class OracleExtractor(Component):
    """Stores exactly the facts the dataset annotates for each turn (evidence text where unannotated); no model calls."""

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        state.candidates.extend(Candidate(f, "fact", [event.turn.id], origin="oracle") for f in event.oracle_facts)


class _NoisyParams(Params):
    recall: float = Field(default=1.0, ge=0.0, le=1.0)
    """Probability that an annotated fact is proposed at all."""
    precision: float = Field(default=1.0, gt=0.0, le=1.0)
    """Share of proposed facts that are correct; the rest are corrupted copies (a value swapped)."""
    seed: int = Field(default=0, ge=0)


@component("extractor", "noisy_oracle")
class NoisyOracleExtractor(Component):
    """The oracle with controlled errors: drops facts (1 − recall) and corrupts some (so precision holds), seeded."""

    Params = _NoisyParams

    def begin_conversation(self, state: StrategyState) -> None:
        self.vocabulary: list[str] = []  # values seen so far in the conversation: what a confused extractor swaps in

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        p = self.params
        for i, fact in enumerate(event.oracle_facts):
            draw = _uniform(p.seed, event.conversation_id, event.turn.id, i, "keep")
            if draw >= p.recall:
                continue
            text, corrupted = fact, False
            if _uniform(p.seed, event.conversation_id, event.turn.id, i, "corrupt") >= p.precision:
                text, corrupted = _corrupt(fact, self.vocabulary, _uniform(p.seed, event.turn.id, i, "pick")), True
            state.candidates.append(Candidate(text, "fact", [event.turn.id], origin="noisy_oracle",
                                              metadata={"corrupted": corrupted}))
        self.vocabulary.extend(w for w in _value_words(event.turn.text) if w not in self.vocabulary)


def _uniform(*key: object) -> float:
    """A deterministic draw in [0, 1) from a key (so a rerun or a resume makes the same choices)."""
    import hashlib

    digest = hashlib.sha256("\x00".join(map(str, key)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _value_words(text: str) -> list[str]:
    """Words that look like values: numbers, long words, capitalised words not opening a sentence."""
    import re

    out = []
    for m in re.finditer(r"[A-Za-z0-9][\w'-]*", text):
        w = m.group(0)
        opens_sentence = not text[: m.start()].strip() or text[: m.start()].rstrip()[-1] in ".!?:"
        if w[0].isdigit() or len(w) >= 7 or (w[0].isupper() and not opens_sentence):
            out.append(w)
    return out


def _corrupt(fact: str, vocabulary: list[str], draw: float) -> str:
    """Swap the fact's most value-like word (its last value word, else its last word) for another
    value seen in the conversation, or reverse it when there is none."""
    import re

    words = _value_words(fact) or re.findall(r"[A-Za-z0-9][\w'-]*", fact)
    if not words:
        return fact
    target = words[-1]
    pool = [w for w in vocabulary if w.lower() != target.lower()]
    replacement = pool[int(draw * len(pool))] if pool else target[::-1]
    head, _, tail = fact.rpartition(target)
    return f"{head}{replacement}{tail}"
