"""Retrieval: which long-term memories are injected for a question.

- ``vector``: cosine top-k over the shared embedder's vectors.
- ``keyword``: the store's keyword search (BM25 in Python stores, full-text index in Postgres).
- ``recency``: the k most recent memories, whatever the question.
- ``hybrid``: union of vector and keyword candidates (``pool`` × k each), reranked by
  ``w_similarity``·cosine + ``w_keyword``·normalised keyword score + ``w_recency``·exp(−age/half-life)
  + ``w_importance``·importance.
"""

from __future__ import annotations

import math
from datetime import datetime

from memlab.memory.item import ScoredItem
from memlab.strategies.components import Component, Params, component


class Retriever(Component):
    class Params(Params):
        k: int = 8

    def retrieve(self, store, namespace: str, question: str, now: datetime) -> list[ScoredItem]:
        raise NotImplementedError


@component("retriever", "vector")
class VectorRetriever(Retriever):
    def retrieve(self, store, namespace, question, now):
        vec = self.env.embedder.embed([question])[0]
        return store.search(namespace, embedding=vec, k=self.params.k)


@component("retriever", "keyword")
class KeywordRetriever(Retriever):
    def retrieve(self, store, namespace, question, now):
        return store.search(namespace, text=question, k=self.params.k)


@component("retriever", "recency")
class RecencyRetriever(Retriever):
    def retrieve(self, store, namespace, question, now):
        return store.search(namespace, k=self.params.k)


@component("retriever", "hybrid")
class HybridRetriever(Retriever):
    class Params(Params):
        k: int = 8
        pool: int = 3
        w_similarity: float = 1.0
        w_keyword: float = 0.3
        w_recency: float = 0.1
        w_importance: float = 0.0
        half_life_days: float = 30.0

    def retrieve(self, store, namespace, question, now):
        p = self.params
        vec = self.env.embedder.embed([question])[0]
        by_vec = store.search(namespace, embedding=vec, k=p.k * p.pool)
        by_kw = store.search(namespace, text=question, k=p.k * p.pool)
        items = {h.item.id: h.item for h in by_vec + by_kw}
        if not items:
            return []
        sims = {h.item.id: h.score for h in by_vec}
        missing = [i for i in items if i not in sims]
        if missing:  # cosine for keyword-only hits, from the same embedder
            mvecs = self.env.embedder.embed([items[i].text for i in missing])
            for i, mv in zip(missing, mvecs):
                sims[i] = float(mv @ vec)
        kw_max = max((h.score for h in by_kw), default=0.0) or 1.0
        kws = {h.item.id: h.score / kw_max for h in by_kw}
        scored = []
        for iid, item in items.items():
            age_days = max(0.0, (_naive(now) - _naive(item.created_at)).total_seconds() / 86400)
            recency = math.exp(-age_days * math.log(2) / p.half_life_days)
            importance = float(item.metadata.get("importance") or 0.0)
            s = p.w_similarity * sims.get(iid, 0.0) + p.w_keyword * kws.get(iid, 0.0) + p.w_recency * recency + p.w_importance * importance
            scored.append(ScoredItem(item=item, score=s))
        scored.sort(key=lambda h: -h.score)
        return scored[: p.k]


def _naive(ts: datetime) -> datetime:
    return ts.replace(tzinfo=None)
