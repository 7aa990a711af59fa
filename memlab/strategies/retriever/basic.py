"""The basic retrievers: vector top-k, keyword (BM25 / full text), the most recent, and hybrid fusion."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Literal
from pydantic import Field
from memlab.memory.item import ScoredItem
from memlab.strategies.slots import Params, component
from memlab.strategies.retriever.base import Retriever


@component("retriever", "vector")
class VectorRetriever(Retriever):
    """Cosine top-k over the memories' embeddings."""

    def retrieve(self, store, namespace, query):
        return store.search(namespace, embedding=query.embedding(), k=self.params.k)


@component("retriever", "keyword")
class KeywordRetriever(Retriever):
    """The store's keyword search (BM25 / full-text)."""

    def retrieve(self, store, namespace, query):
        return store.search(namespace, text=query.question, k=self.params.k)


@component("retriever", "recency")
class RecencyRetriever(Retriever):
    """The k most recent memories, whatever the question."""

    def retrieve(self, store, namespace, query):
        return store.search(namespace, k=self.params.k)


@component("retriever", "hybrid")
class HybridRetriever(Retriever):
    """Vector and keyword candidates fused by a weighted score sum or by reciprocal rank fusion.

    ``fusion: weighted`` (default) reranks the union with ``w_similarity``·cosine +
    ``w_keyword``·(keyword score / best keyword score) + ``w_recency``·exp(−age/half-life) +
    ``w_importance``·importance. It needs commensurable scores, and keyword scores are not:
    BM25 (in_memory, chroma) and ``ts_rank`` (postgres) differ in scale and shape.
    ``fusion: rrf`` uses only the two rankings: score = Σ 1/(``rrf_k`` + rank), rank 1-based in
    the vector and in the keyword list (Cormack et al., 2009; ``rrf_k`` = 60 as there), so it is
    insensitive to the engines' score scales; the ``w_*`` weights do not apply. Ties go by
    ``created_at`` then id, the stores' rule."""

    class Params(Params):
        k: int = Field(default=8, ge=1, description="Memories injected into the context per question (at least 1: a strategy that injects no memory has no retriever).")
        pool: int = Field(default=3, ge=1, description="Each engine is asked for pool × k candidates.")
        fusion: Literal["weighted", "rrf"] = "weighted"
        rrf_k: int = Field(default=60, ge=1)
        w_similarity: float = Field(default=1.0, ge=0)
        w_keyword: float = Field(default=0.3, ge=0)
        w_recency: float = Field(default=0.1, ge=0)
        w_importance: float = Field(default=0.0, ge=0)
        half_life_days: float = Field(default=30.0, gt=0)

    def retrieve(self, store, namespace, query):
        p = self.params
        vec = query.embedding()
        by_vec = store.search(namespace, embedding=vec, k=p.k * p.pool)
        by_kw = store.search(namespace, text=query.question, k=p.k * p.pool)
        items = {h.item.id: h.item for h in by_vec + by_kw}
        if not items:
            return []
        if p.fusion == "rrf":
            scores = self.reciprocal_rank_fusion([[h.item.id for h in by_vec], [h.item.id for h in by_kw]], p.rrf_k)
        else:
            scores = self._weighted(items, by_vec, by_kw, vec, query)
        scored = [ScoredItem(item=item, score=scores[iid]) for iid, item in items.items()]
        scored.sort(key=lambda h: (-h.score, h.item.created_at, h.item.id))
        return scored[: p.k]

    @staticmethod
    def reciprocal_rank_fusion(rankings: list[list[str]], rrf_k: int = 60) -> dict[str, float]:
        """RRF score of every id in any ranking: Σ over rankings of 1 / (rrf_k + 1-based rank)."""
        out: dict[str, float] = {}
        for ranking in rankings:
            for rank, iid in enumerate(ranking, start=1):
                out[iid] = out.get(iid, 0.0) + 1.0 / (rrf_k + rank)
        return out

    def _weighted(self, items, by_vec, by_kw, vec, query) -> dict[str, float]:
        p = self.params
        sims = {h.item.id: h.score for h in by_vec}
        missing = [i for i in items if i not in sims]
        if missing:  # cosine for keyword-only hits, from the same embedder
            mvecs = self.env.embedder.embed([items[i].text for i in missing])
            for i, mv in zip(missing, mvecs):
                sims[i] = float(mv @ vec)
        kw_max = max((h.score for h in by_kw), default=0.0) or 1.0
        kws = {h.item.id: h.score / kw_max for h in by_kw}
        out = {}
        for iid, item in items.items():
            age_days = max(0.0, (_naive(query.now) - _naive(item.created_at)).total_seconds() / 86400)
            recency = math.exp(-age_days * math.log(2) / p.half_life_days)
            importance = float(item.metadata.get("importance") or 0.0)
            out[iid] = (p.w_similarity * sims.get(iid, 0.0) + p.w_keyword * kws.get(iid, 0.0)
                        + p.w_recency * recency + p.w_importance * importance)
        return out


def _naive(ts: datetime) -> datetime:
    return ts.replace(tzinfo=None)
