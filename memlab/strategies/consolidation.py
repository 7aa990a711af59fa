"""Consolidation: how a memory candidate changes the store (mem0-style ADD/UPDATE/DELETE/NOOP).

- ``append``: every candidate is ADDed. Cheapest; duplicates and stale values accumulate.
- ``dedup``: NOOP when a stored memory is a near-duplicate (cosine ≥ ``threshold``), else ADD.
  No model calls; cannot tell an update from a new fact.
- ``reconcile``: retrieve the ``candidates`` most similar memories; below ``min_similarity``
  ADD directly (no call), otherwise ask the ReconcileMemory role (purpose ``consolidate``)
  whether to ADD, UPDATE (merge, sources unioned, re-embedded), DELETE (invalidate: the item
  is kept with ``valid=False`` for history and never retrieved again) or NOOP.

Every store write happens before its event is returned, so an event in the log means the
write is done.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from memlab.memory.item import MemoryEvent, MemoryItem, Op
from memlab.roles.program import RoleFailure
from memlab.strategies.components import Component, Params, component
from memlab.strategies.extraction import Candidate


class Consolidator(Component):
    def __init__(self, params, env) -> None:
        super().__init__(params, env)
        self.failures = 0

    def apply(self, store, namespace: str, cands: list[Candidate], when: datetime) -> list[MemoryEvent]:
        raise NotImplementedError

    def _add(self, store, namespace: str, cand: Candidate, vec: np.ndarray, when: datetime, reason: str) -> MemoryEvent:
        meta = {"date": when.date().isoformat(), **cand.metadata}
        if cand.importance is not None:
            meta["importance"] = cand.importance
        item = MemoryItem(namespace=namespace, text=cand.text, kind=cand.kind, metadata=meta,
                          source_turn_ids=list(cand.source_turn_ids), created_at=when, updated_at=when)
        store.add([item], vec[None, :])
        return MemoryEvent(op=Op.ADD, item_id=item.id, namespace=namespace, kind=item.kind, text=item.text,
                           source_turn_ids=item.source_turn_ids, reason=reason, store=store.name)


@component("consolidator", "append")
class Append(Consolidator):
    def apply(self, store, namespace, cands, when):
        if not cands:
            return []
        vecs = self.env.embedder.embed([c.text for c in cands])
        return [self._add(store, namespace, c, v, when, "append") for c, v in zip(cands, vecs)]


@component("consolidator", "dedup")
class Dedup(Consolidator):
    class Params(Params):
        threshold: float = 0.92

    def apply(self, store, namespace, cands, when):
        events = []
        vecs = self.env.embedder.embed([c.text for c in cands]) if cands else []
        for cand, vec in zip(cands, vecs):
            hits = store.search(namespace, embedding=vec, k=1)
            if hits and hits[0].score >= self.params.threshold:
                events.append(MemoryEvent(op=Op.NOOP, item_id=hits[0].item.id, namespace=namespace, kind=cand.kind,
                                          text=cand.text, source_turn_ids=cand.source_turn_ids,
                                          reason=f"near-duplicate (cos={hits[0].score:.3f})", store=store.name))
            else:
                events.append(self._add(store, namespace, cand, vec, when, "new"))
        return events


@component("consolidator", "reconcile")
class Reconcile(Consolidator):
    class Params(Params):
        candidates: int = 5
        """How many similar memories the role sees."""
        min_similarity: float = 0.45
        """Below this cosine to every stored memory the candidate is ADDed without a model call."""

    def apply(self, store, namespace, cands, when):
        events: list[MemoryEvent] = []
        vecs = self.env.embedder.embed([c.text for c in cands]) if cands else []
        for cand, vec in zip(cands, vecs):
            hits = store.search(namespace, embedding=vec, k=self.params.candidates)
            hits = [h for h in hits if h.score >= self.params.min_similarity]
            if not hits:
                events.append(self._add(store, namespace, cand, vec, when, "no similar memory"))
                continue
            try:
                res = self.env.roles.reconcile(new_fact=cand.text, existing=[h.item.text for h in hits])
            except RoleFailure:
                self.failures += 1  # fall back to keeping the information
                events.append(self._add(store, namespace, cand, vec, when, "reconcile failed; added"))
                continue
            action = str(res.get("action", "ADD")).upper()
            target = res.get("target")
            target = int(target) if isinstance(target, (int, float, str)) and str(target).lstrip("-").isdigit() else -1
            hit = hits[target] if 0 <= target < len(hits) else None
            if action == "UPDATE" and hit is not None:
                old = hit.item
                merged = str(res.get("merged") or cand.text).strip()
                new = old.model_copy(update={
                    "text": merged,
                    "source_turn_ids": sorted(set(old.source_turn_ids) | set(cand.source_turn_ids)),
                    "updated_at": when,
                    "metadata": {**old.metadata, "date": when.date().isoformat()},
                })
                store.update(new, self.env.embedder.embed([merged])[0])
                events.append(MemoryEvent(op=Op.UPDATE, item_id=old.id, namespace=namespace, kind=new.kind, text=merged,
                                          previous_text=old.text, source_turn_ids=new.source_turn_ids,
                                          reason="reconcile: update", store=store.name))
            elif action == "DELETE" and hit is not None:
                old = hit.item
                store.update(old.model_copy(update={"valid": False, "updated_at": when}))
                events.append(MemoryEvent(op=Op.DELETE, item_id=old.id, namespace=namespace, kind=old.kind, text=cand.text,
                                          previous_text=old.text, source_turn_ids=cand.source_turn_ids,
                                          reason="reconcile: retracted (invalidated)", store=store.name))
            elif action == "NOOP":
                events.append(MemoryEvent(op=Op.NOOP, item_id=hit.item.id if hit else None, namespace=namespace,
                                          kind=cand.kind, text=cand.text, source_turn_ids=cand.source_turn_ids,
                                          reason="reconcile: already known", store=store.name))
            else:
                events.append(self._add(store, namespace, cand, vec, when, "reconcile: new"))
        return events
