"""What every consolidator shares: candidates taken from the state after each turn, invocation and conversation."""

from __future__ import annotations

import numpy as np
from memlab.memory.item import MemoryEvent, MemoryItem, Op
from memlab.strategies.slots import Component
from memlab.strategies.state import Candidate, StrategyState


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
