"""Keyword relevance (BM25) over memory texts, for stores without a full-text index."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
STOPWORDS = frozenset(
    "a an the and or but if of at by for with about against between into through during before after above below "
    "to from up down in out on off over under again further then once here there when where why how all any both "
    "each few more most other some such no nor not only own same so than too very s t can will just don should now "
    "i me my myself we our ours you your yours he him his she her hers it its they them their what which who whom "
    "this that these those am is are was were be been being have has had having do does did doing would could "
    "im i'm i've i'd i'll you're it's that's".split()
)


def tokens(text: str, *, keep_stopwords: bool = False) -> list[str]:
    toks = _TOKEN.findall(text.lower())
    return toks if keep_stopwords else [t for t in toks if t not in STOPWORDS]


def bm25_scores(query: str, docs: Sequence[str], *, k1: float = 1.2, b: float = 0.75) -> list[float]:
    """BM25 score of each doc for the query (0 when no query term occurs)."""
    q = set(tokens(query))
    if not q or not docs:
        return [0.0] * len(docs)
    doc_toks = [tokens(d) for d in docs]
    n = len(docs)
    avgdl = sum(len(t) for t in doc_toks) / n or 1.0
    df = Counter(term for toks in doc_toks for term in set(toks) if term in q)
    scores = []
    for toks in doc_toks:
        tf = Counter(toks)
        s = 0.0
        for term in q:
            if tf[term]:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                s += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * len(toks) / avgdl))
        scores.append(s)
    return scores
