"""The lifecycle slot: what happens to stored memories as they age (TTL expiry, a FIFO cap).

Seed 004 runs ``cleanupMemories`` after storing any memory: it deletes the rows whose
``expires_at`` has passed, then keeps only the newest 1000 of the agent's memories (``DELETE
... WHERE id IN (SELECT id ORDER BY created_at ... OFFSET 1000)``). The ``ttl_fifo`` component
does the same per store namespace, after every turn on which a memory was written, and records
every removal as a memory operation with its reason.

**Dataset time, not wall-clock time.** A replayed conversation happens at its dataset
timestamps (often years ago), while the stores compare ``MemoryItem.expires_at`` with the
machine's clock, so a TTL stamped there would hide every memory at once. The expiry is
therefore kept in ``metadata["expires_at"]`` (ISO, dataset time), stamped on new memories of
the kinds given a TTL; :func:`expired` is the test any component applies against the query's
time, and the cleanup removes expired memories for good.

**Only when something can go.** The cleanup reads the namespace only when it could remove
something: when a TTL is configured (memories to stamp, expiries that may have passed) or when
the namespace holds more memories than the cap. Otherwise (seed 004's defaults, until the cap is
reached) it returns at once: reading every memory after every write made the cost of a turn grow
with the conversation. (Only this component stamps expiries, so without a TTL there are none.)"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Literal
from pydantic import Field
from memlab.memory.item import MemoryEvent, MemoryItem, Op
from memlab.memory.stores.base import newest_first
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import StrategyState


EXPIRES_KEY = "expires_at"
"""The metadata key holding a memory's expiry in dataset time (ISO 8601)."""


def expires_at(item: MemoryItem) -> datetime | None:
    raw = item.metadata.get(EXPIRES_KEY)
    if not raw:
        return None
    try:
        return datetime.fromisoformat(str(raw))
    except ValueError as exc:
        raise ValueError(f"memory {item.id}: metadata.{EXPIRES_KEY} {raw!r} is not an ISO timestamp") from exc


def expired(item: MemoryItem, now: datetime | None) -> bool:
    """True when the memory's dataset-time expiry has passed at ``now`` (never without a clock)."""
    when = expires_at(item)
    return when is not None and now is not None and _naive(when) <= _naive(now)


def _naive(ts: datetime) -> datetime:
    return ts.replace(tzinfo=None)


@component("lifecycle", "ttl_fifo")
class TtlFifo(Component):
    """TTL expiry per memory kind and a FIFO cap per namespace, applied after every write."""

    class Params(Params):
        max_items: int | None = Field(default=1000, ge=1)
        """Keep at most this many current memories per namespace, newest first (seed 004: 1000; None: no cap)."""
        ttl_days: dict[str, Annotated[float, Field(gt=0)]] = Field(default_factory=dict)
        """Memory kind → days until it expires (seed 004: none; its TTL column is optional)."""
        on_expiry: Literal["delete", "invalidate"] = "delete"
        """Remove an expired memory (seed 004's DELETE) or keep it invalidated for audit (INVALIDATE)."""

    def on_turn(self, event, state: StrategyState) -> None:
        if any(op.op in (Op.ADD, Op.UPDATE) for op in state.out.ops):
            self.cleanup(state)

    def on_invocation_end(self, invocation, state: StrategyState) -> None:
        self.on_turn(None, state)

    def on_conversation_end(self, state: StrategyState) -> None:
        self.on_turn(None, state)

    def cleanup(self, state: StrategyState) -> None:
        """Stamp new memories' expiry, drop the expired ones, then enforce the cap (the seed's order)."""
        store, ns, now = state.store, state.namespace, state.now
        cap = self.params.max_items
        if not self.params.ttl_days and (cap is None or store.count(ns) <= cap):
            # nothing to stamp (no TTL), and at most `cap` memories (count includes invalidated ones):
            # no expiry stamped here can have passed and the cap cannot bind, so nothing to remove.
            # Listing the whole namespace after every write grew with the conversation, up to the cap.
            return
        current = [it for it in store.list(ns, include_invalid=False) if it.valid]
        live: list[MemoryItem] = []
        for item in current:
            ttl = self.params.ttl_days.get(item.kind)
            if ttl is not None and EXPIRES_KEY not in item.metadata:
                stamp = item.created_at + timedelta(days=ttl)
                item = item.model_copy(update={"metadata": {**item.metadata, EXPIRES_KEY: stamp.isoformat()}})
                store.update(item)
            if expired(item, now):
                self._remove(state, item, f"expired (ttl {ttl} days)" if ttl is not None else "expired",
                             invalidate=self.params.on_expiry == "invalidate")
            else:
                live.append(item)
        cap = self.params.max_items
        if cap is not None and len(live) > cap:
            for item in newest_first(live)[cap:]:
                self._remove(state, item, f"fifo cap: newest {cap} kept", invalidate=False)

    def _remove(self, state: StrategyState, item: MemoryItem, reason: str, *, invalidate: bool) -> None:
        store = state.store
        if invalidate:
            store.update(item.model_copy(update={"valid": False, "updated_at": state.now}))
        else:
            store.delete(state.namespace, [item.id])
        state.emit(MemoryEvent(op=Op.INVALIDATE if invalidate else Op.DELETE, item_id=item.id, namespace=state.namespace,
                               kind=item.kind, text=item.text, previous_text=item.text,
                               source_turn_ids=list(item.source_turn_ids), reason=reason, store=store.name))
