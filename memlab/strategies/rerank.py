"""Weighted rerank of vector neighbours (seed 001's ``memory_context``).

The ``top_k`` memories most similar to the question (``MEMORY_CONTEXT_TOPK``) are reranked by
``w_similarity``·cosine + ``w_importance``·importance + ``w_recency``·exp(−age·ln2/half-life) +
``w_pinned``·pinned (``MEMORY_RERANK_WEIGHTS``: sim, imp, recency, pinned), and the best
``top_n`` (``MEMORY_CONTEXT_TOPN``) are injected as a bullet list with a "Now: …" line giving
the question's date. Importance is ``metadata.importance`` (0 when absent); pinned is a truthy
``metadata.pinned``. The seed gives the knobs but not their values; the defaults here (10 → 5;
0.6 / 0.2 / 0.1 / 0.1; 30-day half-life) are memlab's and every one is a parameter.

Unlike ``hybrid``, no keyword engine is involved: only the vector ranking is reranked, so the
backend's keyword scoring cannot change the result.
"""

from __future__ import annotations

import math

from pydantic import Field

from memlab.memory.item import ScoredItem
from memlab.strategies.base import ContextLine, ContextSection
from memlab.strategies.retrieval import Retriever, memory_line
from memlab.strategies.slots import Params, component
from memlab.strategies.state import Query, StrategyState


@component("retriever", "weighted_rerank")
class WeightedRerank(Retriever):
    """Vector top-K reranked by similarity, importance, recency and pinning; top-N injected with a 'Now:' line."""

    class Params(Params):
        top_k: int = Field(default=10, ge=1)
        """Vector neighbours fetched (MEMORY_CONTEXT_TOPK)."""
        top_n: int = Field(default=5, ge=0)
        """Memories injected after reranking (MEMORY_CONTEXT_TOPN)."""
        w_similarity: float = 0.6
        w_importance: float = 0.2
        w_recency: float = 0.1
        w_pinned: float = 0.1
        half_life_days: float = Field(default=30.0, gt=0)
        now_line: bool = True
        """Inject "Now: <date>" with the memories (the seed's time line)."""

    section_title = "Relevant memories"

    def retrieve(self, store, namespace: str, query: Query) -> list[ScoredItem]:
        p = self.params
        hits = store.search(namespace, embedding=query.embedding(), k=p.top_k)
        scored = []
        for h in hits:
            age_days = max(0.0, (query.now.replace(tzinfo=None) - h.item.created_at.replace(tzinfo=None)).total_seconds() / 86400)
            score = (p.w_similarity * h.score + p.w_importance * float(h.item.metadata.get("importance") or 0.0)
                     + p.w_recency * math.exp(-age_days * math.log(2) / p.half_life_days)
                     + p.w_pinned * (1.0 if h.item.metadata.get("pinned") else 0.0))
            scored.append(ScoredItem(item=h.item, score=score))
        scored.sort(key=lambda h: (-h.score, h.item.created_at, h.item.id))
        return scored[: p.top_n]

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        lines = [ContextLine(text=f"- {memory_line(h.item)}", source_turn_ids=list(h.item.source_turn_ids), kind=h.item.kind,
                             score=h.score) for h in self.retrieve(state.store, state.namespace, query)]
        if self.params.now_line and query.now is not None:
            lines.append(ContextLine(text=f"Now: {query.now.date().isoformat()}", kind="time"))
        return [ContextSection(self.section_title, lines)]
