"""Strategies composed from components, presets, and spec resolution.

A :class:`StrategySpec` names a preset and/or gives a component spec per slot;
:func:`resolve_spec` merges the preset with the overrides and fills every default, and that
resolved dict is both what gets built and what the manifest records — so any run can be rebuilt
from its manifest. :class:`ComposedStrategy` is generic over the declared slots: it calls each
component's hooks in slot order, assembles the context from their sections, and answers.
"""

from __future__ import annotations

import copy
import re
import time
from datetime import datetime
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memlab.memory.stores.base import STORES, StoreOptions, StoreSpec, typed_options
from memlab.registry import RegistryError
from memlab.strategies.answer.modes import answer_from_context
from memlab.strategies.presets import PRESETS
from memlab.strategies.base import Answer, MemoryContext, StepOutput, TurnEvent
from memlab.strategies.slots import (SLOTS, STORE_SLOT, BuildEnv, Component, Needs, Params, build_component,
                                    declare_slot, load_families, ordered_slots)
from memlab.strategies.state import Invocation, Query, StrategyState
from memlab.strategies.tools import MemoryTool

if TYPE_CHECKING:
    from memlab.strategies.types import ResolvedExternal

declare_slot(STORE_SLOT, "where long-term memories are stored (a storage backend)", order=0, registry=STORES, needs=(
    # a store of facts is written by an extractor and read by a retriever, unless what uses it is
    # the timekeeper's entries or the episodes
    Needs("extractor", why="a long-term store needs both an extractor and a retriever", unless=("timekeeper", "episodes")),
    Needs("retriever", why="a long-term store needs both an extractor and a retriever", unless=("timekeeper", "episodes")),
))

SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+=-]{0,99}$")
"""Strategy and run names become folder names and store namespaces: no path separators or '..'."""


def check_safe_name(value: str, what: str) -> str:
    if not SAFE_NAME.match(value) or ".." in value:
        raise ValueError(f"{what} {value!r} may contain only letters, digits and . _ @ + = - "
                         "(no spaces or path separators; at most 100 characters)")
    return value




class StrategySpec(BaseModel):
    """A strategy as written in a YAML config or a notebook: a name, an optional preset, and a
    component spec (``{type: ..., params...}``) for any declared slot."""

    model_config = ConfigDict(extra="allow")
    validations: ClassVar[Counter] = Counter()
    """How many times each strategy (by name) was validated from data: once per run on every path
    (tests/test_resolve_once.py)."""
    name: str
    type: str | None = Field(default=None, description="Strategy type: `composed` (memlab's components, the default), "
                             "`mem0`, `langmem` or a plugin's (memlab.external); other types take their own parameters.")
    preset: str | None = Field(default=None, description="Preset to start from; defaults to `name` when that is a preset.")
    description: str | None = None

    @field_validator("name")
    @classmethod
    def _safe(cls, v: str) -> str:
        return check_safe_name(v, "strategy name")

    @model_validator(mode="after")
    def _known_slots(self) -> StrategySpec:
        if self.type not in (None, "composed"):
            if self.preset is not None:
                raise ValueError(f"`preset` names a composed strategy's starting point; type {self.type!r} takes its own "
                                 "parameters instead")
            return self  # the type's parameters are checked against its Params when resolved
        load_families()
        for key, value in (self.model_extra or {}).items():
            if key not in SLOTS:
                import difflib

                close = difflib.get_close_matches(key, list(SLOTS), n=2, cutoff=0.5)
                hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
                raise ValueError(f"unknown slot {key!r}.{hint} Slots: {', '.join(sorted(SLOTS))}")
            if value is not None and not isinstance(value, dict):
                raise ValueError(f"slot {key!r} takes a component spec mapping like {{type: ...}}, got {value!r}")
        return self

    def model_post_init(self, _context: Any) -> None:
        StrategySpec.validations[self.name] += 1

    def slot(self, name: str) -> dict[str, Any] | None:
        return (self.model_extra or {}).get(name)


@dataclass(frozen=True)
class ComponentSpec:
    """One slot of a resolved strategy: the component's type and its typed params, validated once
    (when the config was) and handed to the component as they are."""

    type: str
    params: Params

    def json(self) -> dict[str, Any]:
        return {"type": self.type, **self.params.model_dump(mode="json")}


@dataclass(frozen=True)
class ResolvedStrategy:
    """A composed strategy as a config resolves it, once: preset merged with the overrides, every
    component's typed params (defaults filled in, a trigger a typed spec), the store's typed options.
    The runner builds every unit's strategy from this object; :meth:`spec` is its JSON form (the
    manifest's record, from which the run can be rebuilt)."""

    name: str
    preset: str | None
    description: str
    components: dict[str, ComponentSpec]
    store: StoreSpec | None

    def spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "preset": self.preset, "description": self.description}
        for slot in ordered_slots():
            if slot.name == STORE_SLOT:
                out[slot.name] = self.store.json() if self.store else None
            else:
                c = self.components.get(slot.name)
                out[slot.name] = c.json() if c is not None else None
        return out


def _validate_params(slot: str, type_name: str, cls: type[Component], merged: dict[str, Any], strategy: str) -> ComponentSpec:
    try:
        params = cls.Params.model_validate({k: v for k, v in merged.items() if k != "type"})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or '(params)'}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"strategy {strategy!r}: {slot} {type_name!r}: {problems} "
                         f"(its params: {', '.join(cls.Params.model_fields) or 'none'})") from None
    except (RegistryError, ValueError) as exc:  # a nested registry lookup (a trigger's name) said what is wrong
        raise ValueError(f"strategy {strategy!r}: {slot} {type_name!r}: {exc}") from None
    return ComponentSpec(type_name, params)


def resolve_store(written: dict[str, Any], defaults: Mapping[str, StoreOptions], strategy: str) -> StoreSpec:
    """A strategy's ``store:`` resolved once into typed options: the run's ``store_options`` for the
    backend (``defaults``, already typed: handed on as they are when the strategy adds nothing),
    under the options the strategy writes itself."""
    backend = str(written.get("type") or "")
    own = {k: v for k, v in written.items() if k != "type"}
    base = defaults.get(backend)
    if base is not None and not own:
        return StoreSpec(backend, base)
    merged = {**(base.model_dump(exclude_unset=True) if base is not None else {}), **own}
    return StoreSpec(backend, typed_options(backend, merged, f"strategy {strategy!r}"), tuple(own))


def resolve_spec(spec: StrategySpec | dict[str, Any]) -> dict[str, Any]:
    """Preset + overrides, every component's defaults filled in (validated): the JSON form."""
    return resolve_strategy(spec).spec()


def resolve_strategy(spec: StrategySpec | dict[str, Any],
                     store_options: Mapping[str, StoreOptions] | None = None) -> ResolvedStrategy | ResolvedExternal:
    """A strategy spec resolved once into its typed form (an external strategy type:
    :class:`~memlab.external.base.ResolvedExternal`); ``store_options``: the run's typed options
    per store backend, under which the strategy's own ``store:`` options go."""
    load_families()
    spec = spec if isinstance(spec, StrategySpec) else StrategySpec.model_validate(spec)
    if spec.type not in (None, "composed"):
        from memlab.strategies.types import resolve_external

        return resolve_external(spec.name, spec.type, spec.description, dict(spec.model_extra or {}))
    store: StoreSpec | None = None
    preset_name = spec.preset or (spec.name if spec.name in PRESETS else None)
    has_components = any(spec.slot(s) is not None for s in SLOTS)
    if preset_name is None and not has_components:
        from memlab.strategies.types import STRATEGY_TYPES

        if spec.name in STRATEGY_TYPES:
            raise RegistryError(f"{spec.name!r} is not a preset but a strategy type: write `type: {spec.name}`")
        PRESETS.get(spec.name)  # raises "Unknown strategy preset ... Did you mean ...?"
    base = copy.deepcopy(PRESETS.get(preset_name)) if preset_name else {}
    out: dict[str, Any] = {"name": spec.name, "preset": preset_name,
                           "description": spec.description or base.get("description", "")}
    typed: dict[str, ComponentSpec] = {}
    for slot in ordered_slots():
        override = spec.slot(slot.name)
        merged = dict(base.get(slot.name) or {})
        if override is not None:
            if override.get("type") and override.get("type") != merged.get("type"):
                merged = {}
            merged.update(override)
        if not merged or merged.get("type") in (None, "none"):
            out[slot.name] = None
            continue
        if slot.name == STORE_SLOT:
            store = resolve_store(merged, store_options or {}, spec.name)
            out[slot.name] = store.json()
            continue
        cls = slot.registry.get(str(merged["type"]))
        typed[slot.name] = _validate_params(slot.name, str(merged["type"]), cls, merged, spec.name)
        out[slot.name] = typed[slot.name].json()
    apply_needs(out)
    for slot in ordered_slots():  # what the composition rules added (a default consolidator, a store)
        if slot.name == STORE_SLOT:
            if store is None and out.get(slot.name):
                store = resolve_store(out[slot.name], store_options or {}, spec.name)
        elif out.get(slot.name) and slot.name not in typed:
            cls = slot.registry.get(str(out[slot.name]["type"]))
            typed[slot.name] = _validate_params(slot.name, cls.type_name, cls, out[slot.name], spec.name)
    return ResolvedStrategy(spec.name, preset_name, out["description"], typed, store)


def apply_needs(out: dict[str, Any]) -> None:
    """The composition rules the slots and components declare (:class:`~memlab.strategies.slots.Needs`),
    applied to a resolved spec until none changes it: a missing slot with a default is filled in (an
    extractor's store, its consolidator), one without is refused naming why."""
    name = out["name"]
    changed = True
    while changed:
        changed = False
        for slot in ordered_slots():
            spec = out.get(slot.name)
            if not spec:
                continue
            rules = slot.needs
            if slot.name != STORE_SLOT:
                rules += slot.registry.get(str(spec["type"])).needs_for(spec)
            for need in rules:
                if any(out.get(s) for s in need.unless) or any(out.get(s) for s in need.slots):
                    continue
                if need.default is None:
                    raise ValueError(f"strategy {name!r}: " + need.why.format(type=spec.get("type")))
                out[need.slots[0]] = {"type": need.default}
                changed = True


def describe_components(resolved: dict[str, Any]) -> str:
    """``short_term=recent_window(n=6); extractor=post_turn; ...`` from a resolved strategy spec
    (``mem0(infer=False,...) [mem0ai 2.2.1]`` for a strategy of another type)."""
    if resolved.get("type") not in (None, "composed"):
        from memlab.strategies.types import describe_external

        return describe_external(resolved)
    load_families()
    parts = []
    for slot in sorted(SLOTS.values(), key=lambda s: (s.name == STORE_SLOT, s.order, s.name)):
        spec = resolved.get(slot.name)
        if not spec:
            continue
        params = ",".join(f"{k}={_short(v)}" for k, v in spec.items() if k != "type")
        parts.append(f"{slot.name}={spec.get('type')}" + (f"({params})" if params else ""))
    return "; ".join(parts) or "none"


def _short(v: Any) -> str:
    if isinstance(v, dict) and "type" in v:
        inner = ",".join(f"{k}={x}" for k, x in v.items() if k != "type")
        return f"{v['type']}({inner})" if inner else str(v["type"])
    return str(v)


class ComposedStrategy:
    """A strategy assembled from a resolved spec; generic over the declared slots."""

    def __init__(self, resolved: ResolvedStrategy | dict[str, Any], env: BuildEnv, namespace_prefix: str = "") -> None:
        if not isinstance(resolved, ResolvedStrategy):  # a JSON form (a manifest's record): resolved here
            resolved = resolve_strategy(resolved)
        self.typed = resolved
        self.resolved = resolved.spec()
        self.name = resolved.name
        self.env = env
        self.prefix = namespace_prefix
        self.parts: list[Component] = []
        for slot in ordered_slots():
            if slot.name != STORE_SLOT and slot.name in resolved.components:
                self.parts.append(build_component(slot.name, resolved.components[slot.name], env))
        self.store = env.make_store(resolved.store) if resolved.store else None
        self.state = StrategyState(env=env, store=self.store, assemble_context=self.context, tools=self.tools)
        self.agent = next((c for c in self.parts if c.slot == "agent"), None)
        # the components that take part in each turn: most implement only some hooks, and calling
        # every inherited no-op for every turn of a LoCoMo-sized conversation was a visible cost
        self._on_turn = [c for c in self.parts if type(c).on_turn is not Component.on_turn]
        self._on_invocation_end = [c for c in self.parts if type(c).on_invocation_end is not Component.on_invocation_end]
        self._context_parts = sorted(self.parts, key=lambda c: c.context_order)

    def component(self, slot: str) -> Component | None:
        return next((c for c in self.parts if c.slot == slot), None)

    def describe(self) -> dict[str, Any]:
        out = dict(self.resolved)
        if self.store is not None and hasattr(self.store, "describe"):
            out["store_resolved"] = self.store.describe()
        return out

    def failure_report(self) -> list[dict[str, Any]]:
        """The failures the components absorbed in the current unit: one entry per component and
        kind of failure (``component`` as ``slot:type``, ``what``, ``count``, an ``example`` error)."""
        from memlab.redact import redact_text

        return [{"component": f"{c.slot}:{c.type_name}", "what": what, "count": f.count, "example": redact_text(f.example)}
                for c in self.parts for what, f in sorted(c.failures.items())]

    # -- lifecycle -------------------------------------------------------------------------------
    def begin_unit(self, namespace: str) -> None:
        st = self.state
        st.namespace = f"{self.prefix}{namespace}"
        # ids hash the logical namespace (dataset/namespace), not the run's store prefix: identical
        # runs then assign identical ids, so every tie broken by id breaks the same way (stores
        # key items by (namespace, id), so runs still never collide)
        st.ids.reset(namespace)
        if self.store is not None:
            self.store.reset(st.namespace)
        for c in self.parts:
            c.failures = {}  # a unit's record counts its own failures (the strategy object serves many units)
            c.begin_unit(st)

    def begin_conversation(self, conversation_id: str) -> StepOutput:
        st = self.state
        st.conversation_id = conversation_id
        st.invocation = None
        st.event = None
        st.candidates = []
        for c in self.parts:
            c.begin_conversation(st)
        return st.take()

    def observe(self, event: TurnEvent) -> StepOutput:
        st = self.state
        st.now = event.timestamp
        if st.invocation is None or st.invocation.index != event.invocation:
            st.invocation = Invocation(event.invocation)
        st.invocation.events.append(event)
        st.event = event
        for c in self._on_turn:
            c.on_turn(event, st)
        if event.ends_invocation:
            for c in self._on_invocation_end:
                c.on_invocation_end(st.invocation, st)
        return self._take()

    def end_conversation(self) -> StepOutput:
        for c in self.parts:
            c.on_conversation_end(self.state)
        return self._take()

    def _take(self) -> StepOutput:
        out = self.state.take()
        if self.agent is not None:
            out.working_memory_tokens = getattr(self.agent, "working_memory_tokens", None)
        return out

    # -- context and answers ---------------------------------------------------------------------
    def tools(self, *, phase: str = "invocation") -> list[MemoryTool]:
        """Every memory tool the components offer (write tools withheld while answering a probe)."""
        tools = [t for c in self.parts for t in c.tools(self.state)]
        return [t for t in tools if not (phase == "probe" and t.writes)]

    def context(self, query: Query, skip_slots: tuple[str, ...] = ()) -> MemoryContext:
        """The context every component contributes for ``query`` (those of ``skip_slots`` left out:
        an ``answer: {type: tools}`` strategy searches long-term memory instead of injecting it)."""
        st = self.state
        ctx = MemoryContext()
        timed = _SearchTimer(self.store) if self.store is not None else None
        st.store = timed if timed is not None else self.store
        t0 = time.perf_counter()
        try:
            for c in self._context_parts:
                if c.slot not in skip_slots:
                    ctx.sections.extend(c.context_sections(query, st))
        finally:
            st.store = self.store
        ctx.retrieval_total_s = time.perf_counter() - t0
        ctx.retrieval_latency_s = timed.elapsed_s if timed is not None else 0.0
        return ctx

    def answer(self, question: str, now: datetime, evidence: list[str] | None = None) -> Answer:
        """Answer a probe the way the strategy's ``answer`` slot decides (``inject`` when it has none)."""
        query = Query(question, now, self.env.embedder, evidence=evidence)
        answerer = self.component("answer")
        if answerer is not None:
            return answerer.answer(self, query)
        return answer_from_context(self.env.roles, self.context(query), question, now)

    def close(self) -> None:
        for c in self.parts:
            c.close()
        if self.store is not None:
            self.store.close()


class _SearchTimer:
    """Store proxy that adds up the time spent in ``search``.

    Retrieval latency is reported per backend, so it must not include the question's
    embedding, which the shared cache makes slow for whichever strategy asks first."""

    def __init__(self, store) -> None:
        self._store = store
        self.elapsed_s = 0.0

    def search(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return self._store.search(*args, **kwargs)
        finally:
            self.elapsed_s += time.perf_counter() - t0

    def __getattr__(self, name: str):
        return getattr(self._store, name)


def build_strategy(spec: StrategySpec | dict[str, Any], env: BuildEnv, namespace_prefix: str = "") -> ComposedStrategy:
    return ComposedStrategy(resolve_spec(spec), env, namespace_prefix)


__all__ = ["PRESETS", "ComponentSpec", "ComposedStrategy", "ResolvedStrategy", "StrategySpec", "build_strategy",
           "describe_components", "resolve_spec", "resolve_strategy",
           "RegistryError", "check_safe_name", "resolve_store"]
