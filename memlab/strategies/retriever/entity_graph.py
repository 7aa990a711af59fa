"""Seed 002's entity retrieval: the graph nodes a question names, with their neighbours."""

from __future__ import annotations

from pydantic import Field
from memlab.memory.item import ScoredItem
from memlab.strategies.base import ContextLine, ContextSection
import memlab.strategies.extractor.model  # noqa: F401  (declares the "extractor" slot)
from memlab.strategies.retriever.base import Retriever
from memlab.strategies.slots import Params, component
from memlab.strategies.state import Query, StrategyState
from memlab.strategies.extractor.summary_entities import ENTITY_KIND, _names, node_text


@component("retriever", "entity_graph")
class EntityGraphRetriever(Retriever):
    """The entities a question names, then their neighbours by relationship strength."""

    class Params(Params):
        k: int = Field(default=8, ge=1)
        """At most this many nodes injected."""
        hops: int = Field(default=1, ge=0)
        """How far to follow relationships from a named entity."""
        min_strength: float = Field(default=0.0, ge=0.0, le=1.0)
        """Relationships weaker than this are not followed."""

    section_title = "Entity memory"

    def retrieve(self, store, namespace: str, query: Query) -> list[ScoredItem]:
        self._listed = store.list(namespace, where={"kind": ENTITY_KIND}, include_invalid=False)
        items = {it.id: it for it in self._listed if it.valid}
        by_node = {str(it.metadata.get("entity", {}).get("id")): it for it in items.values()}
        scores: dict[str, float] = {}
        for nid, it in by_node.items():
            if _names(query.question, str(it.metadata["entity"].get("name") or "")):
                scores[nid] = 1.0
        frontier = dict(scores)
        for _ in range(self.params.hops):
            nxt: dict[str, float] = {}
            for nid, score in frontier.items():
                for r in by_node[nid].metadata["entity"].get("relationships") or []:
                    target, strength = str(r.get("targetId")), float(r.get("strength") or 0.0)
                    if target in by_node and strength >= self.params.min_strength:
                        s = score * strength
                        if s > max(scores.get(target, 0.0), nxt.get(target, 0.0)):
                            nxt[target] = s
            scores.update(nxt)
            frontier = nxt
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], by_node[kv[0]].created_at, by_node[kv[0]].id))
        return [ScoredItem(item=by_node[nid], score=s) for nid, s in ranked[: self.params.k]]

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        hits = self.retrieve(state.store, state.namespace, query)
        names = {str(it.metadata["entity"].get("id")): str(it.metadata["entity"].get("name"))
                 for it in self._listed}
        return [ContextSection(self.section_title, [
            ContextLine(text=node_text(h.item.metadata["entity"], names), source_turn_ids=list(h.item.source_turn_ids),
                        kind=ENTITY_KIND, score=h.score) for h in hits])]
