"""A structured user profile synced from memories and injected as one line (seed 001's
``user_context``, ``_profile_sync_from_memory`` and ``_build_profile_line``).

The slot is declared here; the components and their design notes are in
:mod:`memlab.strategies.profile.synced_profile`."""

from __future__ import annotations

from memlab.strategies.slots import Needs, declare_slot

declare_slot("profile", "a structured user profile synced from memories and injected as one line", order=50, needs=(
    Needs("extractor", why="profile {type!r} is synced from the memories an extractor writes; add an extractor"),
))
