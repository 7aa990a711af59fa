"""The basic consolidators: append every candidate, drop near-duplicates, or reconcile (ADD / UPDATE / DELETE / NOOP)."""

from __future__ import annotations

from pydantic import Field

from memlab.memory.item import MemoryEvent, Op
from memlab.roles.program import RoleFailure
from memlab.strategies.slots import Params, component
from memlab.strategies.consolidator.base import Consolidator


@component("consolidator", "append")
class Append(Consolidator):
    """Every candidate is added."""

    def apply(self, state, cand, vec):
        self._add(state, cand, vec, "append")


@component("consolidator", "dedup")
class Dedup(Consolidator):
    """NOOP on a near-duplicate (cosine ≥ threshold), else ADD; no model calls."""

    class Params(Params):
        threshold: float = Field(default=0.92, ge=-1.0, le=1.0)

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
        candidates: int = Field(default=5, ge=1)
        """How many similar memories the role sees."""
        min_similarity: float = Field(default=0.45, ge=-1.0, le=1.0)
        """Below this cosine to every stored memory the candidate is ADDed without a model call."""

    def apply(self, state, cand, vec):
        store, ns = state.store, state.namespace
        hits = [h for h in store.search(ns, embedding=vec, k=self.params.candidates) if h.score >= self.params.min_similarity]
        if not hits:
            self._add(state, cand, vec, "no similar memory")
            return
        try:
            res = self.env.roles.reconcile(new_fact=cand.text, existing=[h.item.text for h in hits])
        except RoleFailure as exc:  # fall back to keeping the information
            self.failed("reconcile call failed; candidate added", exc)
            self._add(state, cand, vec, "reconcile failed; added")
            return
        action = str(res.get("action", "ADD")).upper()
        raw = res.get("target")
        target = int(raw) if isinstance(raw, (int, float, str)) and str(raw).lstrip("-").isdigit() else -1
        hit = hits[target] if 0 <= target < len(hits) else None
        if action in ("UPDATE", "DELETE") and hit is None:
            # the decision names no memory it was shown: the candidate is kept, and the record says why
            # (an ADD here is the fallback, not the role's decision)
            shown = f"{len(hits)} memor{'y' if len(hits) == 1 else 'ies'} shown"
            self.failed("reconcile decision with an invalid target; candidate added", f"{action} target {raw!r}, {shown}")
            self._add(state, cand, vec, f"reconcile: {action} with an invalid target ({raw!r}; {shown}); added")
            return
        if action == "UPDATE":
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
        elif action == "DELETE":
            old = hit.item
            store.update(old.model_copy(update={"valid": False, "updated_at": state.now}))
            state.emit(MemoryEvent(op=Op.DELETE, item_id=old.id, namespace=ns, kind=old.kind, text=cand.text,
                                   previous_text=old.text, source_turn_ids=cand.source_turn_ids,
                                   reason="reconcile: retracted (invalidated)", store=store.name))
        elif action == "NOOP":
            self._noop(state, cand, hit.item.id if hit else None, "reconcile: already known")
        else:
            self._add(state, cand, vec, "reconcile: new")
