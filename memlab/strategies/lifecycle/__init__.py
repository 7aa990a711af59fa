"""The lifecycle slot: what happens to stored memories as they age (TTL expiry, a FIFO cap).

The slot is declared here; the components and their design notes are in
:mod:`memlab.strategies.lifecycle.ttl_fifo`."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("lifecycle", "what happens to stored memories as they age (expiry, caps)", order=45)
