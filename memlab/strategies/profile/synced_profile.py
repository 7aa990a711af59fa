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

from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
from pydantic import Field
from memlab.memory.item import MemoryEvent, MemoryItem, Op
from memlab.roles.program import RoleFailure
from memlab.strategies.base import ContextLine, ContextSection, TurnEvent
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Invocation, Query, StrategyState


PROFILE_SESSION = "user_context"
"""The profile's namespace below the unit's, and its item id (seed 001: the ``user_context`` row)."""


SEED_001_FIELDS = ["tone", "language", "city", "goals", "time_zone"]
"""The fields seed 001 names (tone, language, city, goals; ``locale_info.time_zone``)."""


def profile_namespace(namespace: str) -> str:
    return f"{namespace}/{PROFILE_SESSION}"


def read_profile(store: Any, namespace: str) -> dict[str, str]:
    """The stored profile of a unit namespace (empty when none was synced yet)."""
    found = store.get(profile_namespace(namespace), [PROFILE_SESSION])
    return dict(found[0].metadata.get("profile") or {}) if found else {}


def user_time_zone(store: Any, namespace: str) -> ZoneInfo | None:
    """The profile's time zone, or None when it has none (or an unknown one)."""
    name = read_profile(store, namespace).get("time_zone", "") if store is not None else ""
    try:
        return ZoneInfo(name) if name else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def profile_line(profile: dict[str, str], fields: list[str]) -> str:
    """``User profile: city Porto; time zone Europe/Lisbon`` (the fields in ``fields`` order)."""
    parts = [f"{f.replace('_', ' ')} {profile[f]}" for f in fields if profile.get(f)]
    return "User profile: " + "; ".join(parts) if parts else ""


@component("profile", "synced_profile")
class SyncedProfile(Component):
    """Profile fields proposed from each new or updated memory (SyncProfile role); one profile line injected."""

    class Params(Params):
        fields: list[str] = Field(default_factory=lambda: list(SEED_001_FIELDS), min_length=1)
        """Profile fields the sync may set (seed 001: tone, language, city, goals, time zone)."""
        sync_kinds: list[str] = Field(default_factory=lambda: ["fact", "preference", "goal"])
        """Memory kinds whose creation or update triggers a sync (seed 001: semantic memories, not episodes)."""
        inject: bool = True
        """Inject the profile line into every context (seed 001: on every turn)."""

    context_order = 5

    def begin_unit(self, state: StrategyState) -> None:
        state.store.reset(profile_namespace(state.namespace))
        self._out: Any = None
        self._done = 0

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        self._sync(state)

    def on_invocation_end(self, invocation: Invocation, state: StrategyState) -> None:
        self._sync(state)

    def on_conversation_end(self, state: StrategyState) -> None:
        self._sync(state)

    def _sync(self, state: StrategyState) -> None:
        """Run the sync once for each semantic ADD / UPDATE emitted since the last hand-over."""
        if state.out is not self._out:  # the runner took the previous turn's record: all of this one is new
            self._out, self._done = state.out, 0
        fresh, self._done = state.out.ops[self._done:], len(state.out.ops)
        for op in [op for op in fresh if op.op in (Op.ADD, Op.UPDATE) and op.kind in self.params.sync_kinds]:
            self._apply(state, op)

    def _apply(self, state: StrategyState, memory: MemoryEvent) -> None:
        ns = profile_namespace(state.namespace)
        current = read_profile(state.store, state.namespace)
        try:
            res = self.env.roles.sync_profile(memory=memory.text, profile=current)
        except RoleFailure as exc:  # a failed sync leaves the profile as it was (the seed's background task)
            self.failed("profile sync call failed; profile left as it was", exc)
            return
        proposed = res.get("updates") or {}
        changes = {f: " ".join(str(v).split()) for f, v in dict(proposed).items()
                   if f in self.params.fields and str(v).strip() and current.get(f) != " ".join(str(v).split())}
        if not changes:
            return
        profile = {**current, **changes}
        text = profile_line(profile, self.params.fields)
        sources = sorted(set(memory.source_turn_ids) | set(self._sources(state, ns)))
        item = MemoryItem(id=PROFILE_SESSION, namespace=ns, text=text, kind="profile", metadata={"profile": profile},
                          source_turn_ids=sources, created_at=state.now, updated_at=state.now)
        vec = self.env.embedder.embed([text])
        if current:
            state.store.update(item, vec[0])
        else:
            state.store.add([item], vec)
        state.emit(MemoryEvent(op=Op.UPDATE if current else Op.ADD, item_id=PROFILE_SESSION, namespace=ns, kind="profile",
                               text=text, previous_text=profile_line(current, self.params.fields) or None,
                               source_turn_ids=sources, store=state.store.name,
                               reason=f"profile sync from memory {memory.item_id}: {', '.join(sorted(changes))}"))

    @staticmethod
    def _sources(state: StrategyState, ns: str) -> list[str]:
        found = state.store.get(ns, [PROFILE_SESSION])
        return list(found[0].source_turn_ids) if found else []

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        if not self.params.inject:
            return []
        found = state.store.get(profile_namespace(state.namespace), [PROFILE_SESSION])
        line = profile_line(dict(found[0].metadata.get("profile") or {}), self.params.fields) if found else ""
        if not line:
            return []
        return [ContextSection("Profile", [ContextLine(line, list(found[0].source_turn_ids), kind="profile")])]
