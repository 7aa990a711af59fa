"""How close two texts are: sentence embeddings plus weighted lexical overlap.

Embeddings catch paraphrase ("moved to" ~ "lives in"); lexical overlap catches the exact names
and rare words embeddings blur. The embedder is the run's shared MiniLM (its cache means a text
seen by any strategy is embedded once); without one, a hashed bag of lemmas stands in, so every
role still works (and tests can run) with lexical similarity only.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from memlab.offline.text import content_lemmas

_HASH_DIM = 512


class Similarity:
    """Embedding and overlap scores over one embedder (or the lexical stand-in)."""

    def __init__(self, embedder: Any = None) -> None:
        self.embedder = embedder

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        if self.embedder is not None:
            return np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)
        out = np.zeros((len(texts), _HASH_DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            for lem in content_lemmas(text):
                out[i, int(hashlib.md5(lem.encode()).hexdigest()[:8], 16) % _HASH_DIM] = 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)

    def cosine(self, a: str, others: Sequence[str]) -> np.ndarray:
        """Cosine of ``a`` to each of ``others``."""
        vecs = self.embed([a, *others])
        return vecs[1:] @ vecs[0] if len(others) else np.zeros(0, dtype=np.float32)


def idf_weights(docs: Sequence[set[str]]) -> dict[str, float]:
    """Inverse document frequency over the lines at hand: a word on every line (the user's own name)
    tells nothing about which line answers; a word on one line tells a lot."""
    n = len(docs)
    df: dict[str, int] = {}
    for d in docs:
        for w in d:
            df[w] = df.get(w, 0) + 1
    return {w: math.log(1 + n / c) for w, c in df.items()}


def coverage(query: set[str], doc: set[str], idf: dict[str, float]) -> float:
    """Share of the query's (idf-weighted) content words that the doc contains, 0..1."""
    return coverages(query, [doc], idf)[0]


def coverages(query: set[str], docs: Sequence[set[str]], idf: dict[str, float]) -> list[float]:
    """:func:`coverage` of each doc. The weight of an unknown word and the query's total weight are
    the same for every doc, so they are computed once (per doc, they cost O(vocabulary) each: at a
    full history's ~600 lines, most of an answer's time)."""
    if not query:
        return [0.0] * len(docs)
    default = max(idf.values(), default=1.0)
    total = sum(idf.get(w, default) for w in query)
    return [sum(idf.get(w, default) for w in query & doc) / total for doc in docs]
