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

from memlab.strategies.slots import declare_slot

declare_slot("lifecycle", "what happens to stored memories as they age (expiry, caps)", order=45)
