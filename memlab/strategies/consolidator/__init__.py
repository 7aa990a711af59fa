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
is recorded, so an event in the log means the write is done. Memory ids are deterministic."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("consolidator", "how a memory candidate changes the store (ADD/UPDATE/DELETE/NOOP)", order=40)
