"""Consolidation: how a memory candidate changes the store (mem0-style ADD/UPDATE/DELETE/NOOP).

- ``append``: every candidate is ADDed. Cheapest; duplicates and stale values accumulate.
- ``dedup``: NOOP when a stored memory is a near-duplicate (cosine ≥ ``threshold``), else ADD.
  No model calls; cannot tell an update from a new fact.
- ``reconcile``: retrieve the ``candidates`` most similar memories; below ``min_similarity``
  ADD directly (no call), otherwise ask the ReconcileMemory role (purpose ``consolidate``)
  whether to ADD, UPDATE (merge, sources unioned, re-embedded), DELETE (invalidate: the item
  is kept with ``valid=False`` for history and never retrieved again) or NOOP.

The consolidator takes the candidates its strategy's extractor (or agent) left in the shared
state after every turn and at every invocation end. Every store write happens before its event
is recorded, so an event in the log means the write is done. Memory ids are deterministic.
"""

from __future__ import annotations

import numpy as np

from memlab.memory.item import MemoryEvent, MemoryItem, Op
from memlab.roles.program import RoleFailure
from memlab.strategies.slots import Component, Params, component, declare_slot
from memlab.strategies.state import Candidate, StrategyState

declare_slot("consolidator", "how a memory candidate changes the store (ADD/UPDATE/DELETE/NOOP)", order=40)


class Consolidator(Component):
    def on_turn(self, event, state: StrategyState) -> None:
        self.flush(state)

    def on_invocation_end(self, invocation, state: StrategyState) -> None:
        self.flush(state)

    def on_conversation_end(self, state: StrategyState) -> None:
        self.flush(state)

    def flush(self, state: StrategyState) -> None:
        cands, state.candidates = state.candidates, []
        if cands:
            vecs = self.env.embedder.embed([c.text for c in cands])
            for cand, vec in zip(cands, vecs):
                self.apply(state, cand, vec)

    def apply(self, state: StrategyState, cand: Candidate, vec: np.ndarray) -> None:
        raise NotImplementedError

    def _add(self, state: StrategyState, cand: Candidate, vec: np.ndarray, reason: str) -> None:
        when = state.now
        meta = {"date": when.date().isoformat(), **cand.metadata}
        if cand.importance is not None:
            meta["importance"] = cand.importance
        item = MemoryItem(id=state.ids(), namespace=state.namespace, text=cand.text, kind=cand.kind, metadata=meta,
                          source_turn_ids=list(cand.source_turn_ids), created_at=when, updated_at=when)
        state.store.add([item], vec[None, :])
        state.emit(MemoryEvent(op=Op.ADD, item_id=item.id, namespace=state.namespace, kind=item.kind, text=item.text,
                               source_turn_ids=item.source_turn_ids, reason=reason, store=state.store.name))

    def _noop(self, state: StrategyState, cand: Candidate, item_id: str | None, reason: str) -> None:
        state.emit(MemoryEvent(op=Op.NOOP, item_id=item_id, namespace=state.namespace, kind=cand.kind, text=cand.text,
                               source_turn_ids=cand.source_turn_ids, reason=reason, store=state.store.name))


@component("consolidator", "append")
class Append(Consolidator):
    """Every candidate is added."""

    def apply(self, state, cand, vec):
        self._add(state, cand, vec, "append")


@component("consolidator", "dedup")
class Dedup(Consolidator):
    """NOOP on a near-duplicate (cosine ≥ threshold), else ADD; no model calls."""

    class Params(Params):
        threshold: float = 0.92

    def apply(self, state, cand, vec):
        hits = state.store.search(state.namespace, embedding=vec, k=1)
        if hits and hits[0].score >= self.params.threshold:
            self._noop(state, cand, hits[0].item.id, f"near-duplicate (cos={hits[0].score:.3f})")
        else:
            self._add(state, cand, vec, "new")


@component("consolidator", "reconcile")
class Reconcile(Consolidator):
    """A ReconcileMemory call against similar memories decides ADD / UPDATE / DELETE / NOOP."""

    class Params(Params):
        candidates: int = 5
        """How many similar memories the role sees."""
        min_similarity: float = 0.45
        """Below this cosine to every stored memory the candidate is ADDed without a model call."""

    def apply(self, state, cand, vec):
        store, ns = state.store, state.namespace
        hits = [h for h in store.search(ns, embedding=vec, k=self.params.candidates) if h.score >= self.params.min_similarity]
        if not hits:
            self._add(state, cand, vec, "no similar memory")
            return
        try:
            res = self.env.roles.reconcile(new_fact=cand.text, existing=[h.item.text for h in hits])
        except RoleFailure:
            self.failures += 1  # fall back to keeping the information
            self._add(state, cand, vec, "reconcile failed; added")
            return
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
                "updated_at": state.now,
                "metadata": {**old.metadata, "date": state.now.date().isoformat()},
            })
            store.update(new, self.env.embedder.embed([merged])[0])
            state.emit(MemoryEvent(op=Op.UPDATE, item_id=old.id, namespace=ns, kind=new.kind, text=merged,
                                   previous_text=old.text, source_turn_ids=new.source_turn_ids,
                                   reason="reconcile: update", store=store.name))
        elif action == "DELETE" and hit is not None:
            old = hit.item
            store.update(old.model_copy(update={"valid": False, "updated_at": state.now}))
            state.emit(MemoryEvent(op=Op.DELETE, item_id=old.id, namespace=ns, kind=old.kind, text=cand.text,
                                   previous_text=old.text, source_turn_ids=cand.source_turn_ids,
                                   reason="reconcile: retracted (invalidated)", store=store.name))
        elif action == "NOOP":
            self._noop(state, cand, hit.item.id if hit else None, "reconcile: already known")
        else:
            self._add(state, cand, vec, "reconcile: new")
