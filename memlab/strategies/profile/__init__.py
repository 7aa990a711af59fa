"""A structured user profile synced from memories and injected as one line (seed 001's
``user_context``, ``_profile_sync_from_memory`` and ``_build_profile_line``).

- profile ``synced_profile``: whenever a semantic memory is created or updated in a turn (an
  ADD or UPDATE op of a kind in ``sync_kinds``), the ``SyncProfile`` role (purpose
  ``consolidate``) proposes structured updates to the profile (tone, language, city, goals,
  time zone), which are applied and persisted; each change is one op (ADD for the first, then
  UPDATE, kind ``profile``) whose reason names the memory and the fields. The profile is one
  item in its own store namespace (``<unit namespace>/user_context``), apart from the memories
  retrieval searches, and outlives the unit's conversations as the seed's Postgres row does.
- Every context (each turn and each probe) starts with the profile line, "User profile: city
  Porto; tone …", whether or not a memory was written — the seed injects it on every turn.
- The profile's ``time_zone`` is what the ``weighted_rerank`` retriever's "Now:" line is shown in
  (:func:`user_time_zone`), falling back to that retriever's ``time_zone`` (UTC), as the seed's
  ``memory_context`` reads ``user_context.locale_info.time_zone``."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("profile", "a structured user profile synced from memories and injected as one line", order=50)
