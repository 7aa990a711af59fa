"""Weighted rerank of vector neighbours (seed 001's ``memory_context``).

The ``top_k`` memories most similar to the question (``MEMORY_CONTEXT_TOPK``) are reranked by
``w_similarity``·cosine + ``w_importance``·importance + ``w_recency``·exp(−age·ln2/half-life) +
``w_pinned``·pinned (``MEMORY_RERANK_WEIGHTS``: sim, imp, recency, pinned), and the best
``top_n`` (``MEMORY_CONTEXT_TOPN``) are injected as a bullet list with a "Now: …" line giving
the question's date and time in the user's time zone: the profile's (``synced_profile``, seed
001's ``user_context.locale_info.time_zone``) when it has one, else ``time_zone`` (the seed's
fallback, UTC). Dataset timestamps without an offset are read as UTC. Importance is ``metadata.importance`` (0 when absent); pinned is a truthy
``metadata.pinned``. The seed gives the knobs but not their values; the defaults here (10 → 5;
0.6 / 0.2 / 0.1 / 0.1; 30-day half-life) are memlab's and every one is a parameter.

Unlike ``hybrid``, no keyword engine is involved: only the vector ranking is reranked, so the
backend's keyword scoring cannot change the result."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
from pydantic import Field, field_validator
from memlab.memory.item import ScoredItem
from memlab.strategies.base import ContextLine, ContextSection
from memlab.strategies.profile.synced_profile import user_time_zone
from memlab.strategies.retriever.base import Retriever, memory_line
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
        w_similarity: float = Field(default=0.6, ge=0)
        w_importance: float = Field(default=0.2, ge=0)
        w_recency: float = Field(default=0.1, ge=0)
        w_pinned: float = Field(default=0.1, ge=0)
        half_life_days: float = Field(default=30.0, gt=0)
        now_line: bool = True
        """Inject "Now: <weekday> <date> <time> <zone>" with the memories (the seed's time line)."""
        time_zone: str = "UTC"
        """IANA zone of the Now line when the user's profile has none (seed 001's fallback: UTC)."""

        @field_validator("time_zone")
        @classmethod
        def _known_zone(cls, v: str) -> str:
            try:
                ZoneInfo(v)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"unknown IANA time zone {v!r} (e.g. UTC, Europe/Lisbon)") from None
            return v

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
            zone = user_time_zone(state.store, state.namespace) or ZoneInfo(self.params.time_zone)
            lines.append(ContextLine(text=now_line(query.now, zone), kind="time"))
        return [ContextSection(self.section_title, lines)]


def now_line(now: datetime, zone: ZoneInfo) -> str:
    """``Now: Tuesday 2024-05-07 05:00 Asia/Tokyo``: ``now`` (UTC when it has no offset) in ``zone``."""
    local = (now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)).astimezone(zone)
    return f"Now: {local:%A %Y-%m-%d %H:%M} {zone.key}"
