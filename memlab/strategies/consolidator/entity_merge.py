"""Seed 002's entity graph merge: typed nodes and weighted relationships merged by id."""

from __future__ import annotations

from typing import Any, Literal
from memlab.memory.item import MemoryEvent, MemoryItem, Op
from memlab.strategies.consolidator.base import Consolidator
import memlab.strategies.extractor.model  # noqa: F401  (declares the "extractor" slot)
from memlab.strategies.slots import Params, component
from memlab.strategies.state import Candidate
from memlab.strategies.extractor.summary_entities import ENTITY_KIND, _turn_order, entity_id, node_text


@component("consolidator", "entity_merge")
class EntityMerge(Consolidator):
    """Entity nodes merged into the graph by id (replace or union); other candidates are added."""

    class Params(Params):
        merge: Literal["replace", "union"] = "replace"
        """A node whose id exists replaces it (seed 002) or is unioned with it (relationships by target)."""

    def apply(self, state, cand: Candidate, vec) -> None:
        node = cand.metadata.get("entity")
        if cand.kind != ENTITY_KIND or not isinstance(node, dict):
            self._add(state, cand, vec, "not an entity node; added")
            return
        store, ns = state.store, state.namespace
        found = store.get(ns, [entity_id(str(node["id"]))])
        if not found:
            item = MemoryItem(id=entity_id(str(node["id"])), namespace=ns, text=cand.text, kind=ENTITY_KIND,
                              metadata={"date": state.now.date().isoformat(), "entity": node},
                              source_turn_ids=list(cand.source_turn_ids), created_at=state.now, updated_at=state.now)
            store.add([item], vec[None, :])
            state.emit(MemoryEvent(op=Op.ADD, item_id=item.id, namespace=ns, kind=ENTITY_KIND, text=item.text,
                                   source_turn_ids=item.source_turn_ids, reason="new entity id", store=store.name))
            return
        old = found[0]
        merged = node if self.params.merge == "replace" else _union(old.metadata.get("entity") or {}, node)
        text = node_text(merged)
        if merged == old.metadata.get("entity"):
            self._noop(state, cand, old.id, "entity unchanged")
            return
        new = old.model_copy(update={"text": text, "updated_at": state.now, "valid": True,
                                     "metadata": {**old.metadata, "date": state.now.date().isoformat(), "entity": merged},
                                     "source_turn_ids": sorted(set(old.source_turn_ids) | set(cand.source_turn_ids),
                                                               key=_turn_order)})
        store.update(new, vec if text == cand.text else self.env.embedder.embed([text])[0])
        state.emit(MemoryEvent(op=Op.UPDATE, item_id=old.id, namespace=ns, kind=ENTITY_KIND, text=text,
                               previous_text=old.text, source_turn_ids=new.source_turn_ids,
                               reason=f"entity id matched ({self.params.merge})", store=store.name))


def _union(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    rels = {str(r.get("targetId")): dict(r) for r in old.get("relationships") or []}
    for r in new.get("relationships") or []:
        rels[str(r.get("targetId"))] = dict(r)
    return {**old, **{k: v for k, v in new.items() if v not in (None, "")},
            "properties": {**(old.get("properties") or {}), **(new.get("properties") or {})},
            "relationships": list(rels.values())}
