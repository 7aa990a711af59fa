"""Thresholded merge (seed 001's write path): neighbours, two similarity thresholds, a same-fact check.

For each candidate the ``top_k`` nearest memories of the same namespace and category
(``MEMORY_MERGE_TOPK``) are searched; then, as in the seed's flow diagram:

1. best cosine ≥ ``auto_update`` (``MEMORY_MERGE_AUTO_UPDATE``, 0.85): merge into it, no check;
2. else the neighbours with cosine ≥ ``check_low`` (``MEMORY_MERGE_CHECK_LOW``, 0.60), most
   similar first, are asked the ``SameFact`` role (purpose ``consolidate``) one by one; the first
   "same" is merged into (early exit);
3. else the candidate is created — unless its importance is under ``min_importance``
   (``MEMORY_SEMANTIC_MIN_IMPORTANCE``; updates are still allowed), then it is dropped (NOOP).

A merge (``MEMORY_MERGE_MODE``): ``recreate`` (the seed's default) composes an enriched text
(``ComposeSummaries`` role; the new text if the call fails, the seed's deterministic fallback),
ADDs it as a new memory and DELETEs the old one; ``update`` rewrites the old memory in place
(UPDATE, sources unioned). Every operation's reason names the threshold or the verdict that
decided it, so the log shows why each write happened."""

from __future__ import annotations

from typing import Literal
import numpy as np
from pydantic import Field, model_validator
from memlab.memory.item import MemoryEvent, MemoryItem, Op, ScoredItem
from memlab.roles.program import RoleFailure
from memlab.strategies.consolidator.base import Consolidator
from memlab.strategies.slots import Params, component
from memlab.strategies.state import Candidate, StrategyState


@component("consolidator", "thresholded_merge")
class ThresholdedMerge(Consolidator):
    """Auto-merge above one cosine, a same-fact check between two, create (if important enough) below."""

    class Params(Params):
        top_k: int = Field(default=5, ge=1)
        """Neighbours searched and checked (MEMORY_MERGE_TOPK, default 5)."""
        check_low: float = Field(default=0.60, ge=-1.0, le=1.0)
        """Cosine from which a neighbour is given the same-fact check (MEMORY_MERGE_CHECK_LOW, 0.60)."""
        auto_update: float = Field(default=0.85, ge=-1.0, le=1.0)
        """Cosine from which the best neighbour is merged without a check (MEMORY_MERGE_AUTO_UPDATE, 0.85)."""
        mode: Literal["recreate", "update"] = "recreate"
        """recreate: compose, add the new memory, delete the old; update: rewrite in place (MEMORY_MERGE_MODE)."""
        min_importance: float = Field(default=0.3, ge=0.0, le=1.0)
        """Creations under this importance are dropped; merges are not (MEMORY_SEMANTIC_MIN_IMPORTANCE; the
        document gives no value, 0.3 is memlab's gated-extractor default)."""
        same_category: bool = True
        """Search neighbours only among memories of the candidate's category (the seed does)."""

        @model_validator(mode="after")
        def _ordered(self) -> ThresholdedMerge.Params:
            if self.check_low > self.auto_update:
                raise ValueError(f"check_low ({self.check_low}) must not exceed auto_update ({self.auto_update})")
            return self

    def apply(self, state: StrategyState, cand: Candidate, vec: np.ndarray) -> None:
        p = self.params
        where = {"kind": cand.kind} if p.same_category else None
        hits = state.store.search(state.namespace, embedding=vec, k=p.top_k, where=where)
        if hits and hits[0].score >= p.auto_update:
            self.merge(state, cand, vec, hits[0], f"auto-update: cos={hits[0].score:.3f} ≥ {p.auto_update}")
            return
        for hit in (h for h in hits if h.score >= p.check_low):
            try:
                same = bool(self.env.roles.same_fact(existing=hit.item.text, new=cand.text).get("same"))
            except RoleFailure as exc:
                self.failed("same-fact check failed; compared with the next memory", exc)
                continue
            if same:
                self.merge(state, cand, vec, hit, f"same-fact check: same (cos={hit.score:.3f} in [{p.check_low}, {p.auto_update}))")
                return
        importance = cand.importance if cand.importance is not None else 1.0
        if importance < p.min_importance:
            self._noop(state, cand, None, f"creation dropped: importance {importance:.2f} < {p.min_importance}")
            return
        checked = sum(h.score >= p.check_low for h in hits)
        self._add(state, cand, vec, f"created: no same fact among {checked} checked neighbour(s)" if checked
                  else f"created: no neighbour with cos ≥ {p.check_low}")

    def merge(self, state: StrategyState, cand: Candidate, vec: np.ndarray, hit: ScoredItem, reason: str) -> None:
        store, ns, old = state.store, state.namespace, hit.item
        sources = sorted(set(old.source_turn_ids) | set(cand.source_turn_ids))
        if self.params.mode == "update":
            new = old.model_copy(update={"text": cand.text, "source_turn_ids": sources, "updated_at": state.now,
                                         "metadata": {**old.metadata, "date": state.now.date().isoformat()}})
            store.update(new, vec)
            state.emit(MemoryEvent(op=Op.UPDATE, item_id=old.id, namespace=ns, kind=old.kind, text=cand.text,
                                   previous_text=old.text, source_turn_ids=sources, reason=f"{reason}; updated in place",
                                   store=store.name))
            return
        try:
            text = str(self.env.roles.compose(existing=old.text, new=cand.text).get("summary") or "").strip() or cand.text
        except RoleFailure as exc:
            self.failed("compose call failed; the newer statement kept", exc)
            text = cand.text  # the seed's deterministic fallback: keep the newer statement
        meta = {**old.metadata, **cand.metadata, "date": state.now.date().isoformat()}
        if cand.importance is not None:
            meta["importance"] = max(cand.importance, float(old.metadata.get("importance") or 0.0))
        item = MemoryItem(id=state.ids(), namespace=ns, text=text, kind=old.kind, metadata=meta, source_turn_ids=sources,
                          created_at=state.now, updated_at=state.now)
        store.add([item], vec[None, :] if text == cand.text else self.env.embedder.embed([text])[0][None, :])
        state.emit(MemoryEvent(op=Op.ADD, item_id=item.id, namespace=ns, kind=item.kind, text=text, previous_text=old.text,
                               source_turn_ids=sources, reason=f"{reason}; recreated", store=store.name))
        store.delete(ns, [old.id])
        state.emit(MemoryEvent(op=Op.DELETE, item_id=old.id, namespace=ns, kind=old.kind, text=old.text,
                               previous_text=old.text, source_turn_ids=list(old.source_turn_ids),
                               reason=f"{reason}; replaced by {item.id}", store=store.name))
