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
from memlab.tokens import count_tokens


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
        max_tokens: int | None = Field(default=None, ge=1)
        """Keep only the newest current memories whose texts total at most this many tokens (None: no token
        cap). A long-term memory of bounded size, oldest dropped: suite-check's planted capacity bound."""

    def begin_unit(self, state: StrategyState) -> None:
        self._tokens: dict[str, dict[str, int]] = {}
        """Per namespace: the tokens of each current memory, kept from the turn's operations (so the token cap
        reads the store only when it binds)."""

    def on_turn(self, event, state: StrategyState) -> None:
        if self.params.max_tokens is not None:
            self._track(state)
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
            self._cap_tokens(state)
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
            live = newest_first(live)[:cap]
        self._cap_tokens(state, live)

    def _track(self, state: StrategyState) -> None:
        """Keep the namespace's memory sizes in step with the turn's operations (idempotent: an operation seen
        twice sets the same size or removes the same id)."""
        sizes = self._sizes(state.namespace)
        for op in state.out.ops:
            if op.op in (Op.ADD, Op.UPDATE) and op.item_id:
                sizes[op.item_id] = count_tokens(op.text or "")
            elif op.op in (Op.DELETE, Op.INVALIDATE):
                sizes.pop(op.item_id, None)

    def _sizes(self, namespace: str) -> dict[str, int]:
        if not hasattr(self, "_tokens"):
            self._tokens = {}
        return self._tokens.setdefault(namespace, {})

    def _cap_tokens(self, state: StrategyState, live: list[MemoryItem] | None = None) -> None:
        """Drop the oldest current memories until the rest fit in ``max_tokens`` (the newest always kept)."""
        budget = self.params.max_tokens
        if budget is None:
            return
        sizes = self._sizes(state.namespace)
        if live is None and sum(sizes.values()) <= budget:
            return  # known to fit: no need to read the store
        if live is None:
            live = [it for it in state.store.list(state.namespace, include_invalid=False) if it.valid]
        kept, total = [], 0
        for item in newest_first(live):
            size = count_tokens(item.text)
            if kept and total + size > budget:
                self._remove(state, item, f"token cap: newest {budget} tokens kept", invalidate=False)
                continue
            kept.append(item)
            total += size
        sizes.clear()
        sizes.update({it.id: count_tokens(it.text) for it in kept})

    def _remove(self, state: StrategyState, item: MemoryItem, reason: str, *, invalidate: bool) -> None:
        store = state.store
        if invalidate:
            store.update(item.model_copy(update={"valid": False, "updated_at": state.now}))
        else:
            store.delete(state.namespace, [item.id])
        state.emit(MemoryEvent(op=Op.INVALIDATE if invalidate else Op.DELETE, item_id=item.id, namespace=state.namespace,
                               kind=item.kind, text=item.text, previous_text=item.text,
                               source_turn_ids=list(item.source_turn_ids), reason=reason, store=store.name))
