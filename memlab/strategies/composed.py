"""Strategies composed from components, presets, and spec resolution.

A :class:`StrategySpec` names a preset and/or lists components per slot; :func:`resolve_spec`
merges the preset with the overrides and fills every default, and that resolved dict is both
what gets built and what the manifest records — so any run can be rebuilt from its manifest.
"""

from __future__ import annotations

import copy
import time
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memlab.memory.item import MemoryEvent
from memlab.registry import Registry
from memlab.strategies import consolidation, extraction, retrieval, short_term  # noqa: F401  (register components)
from memlab.strategies.base import ContextLine, ContextSection, MemoryContext, TurnEvent
from memlab.strategies.components import REGISTRIES, SLOTS, BuildEnv, build_component

PRESETS: Registry[dict[str, Any]] = Registry("strategy preset")
PRESETS.register("no_memory", {"description": "Lower bound: the agent sees only the question."})
PRESETS.register("full_context", {
    "description": "Upper bound: the whole conversation so far goes into the prompt.",
    "short_term": {"type": "full_history"},
})
PRESETS.register("recent_window", {
    "description": "Last N messages only; no long-term memory.",
    "short_term": {"type": "recent_window", "n": 10},
})
PRESETS.register("fact_rag", {
    "description": "Post-turn fact extraction → vector store → top-k retrieval injected into the prompt, plus a short window.",
    "short_term": {"type": "recent_window", "n": 6},
    "extractor": {"type": "post_turn"},
    "consolidator": {"type": "reconcile"},
    "store": {"type": "in_memory"},
    "retriever": {"type": "vector", "k": 8},
})
PRESETS.register("message_rag", {
    "description": "Every user message stored verbatim → vector top-k (raw RAG baseline, no model calls to write).",
    "short_term": {"type": "recent_window", "n": 6},
    "extractor": {"type": "verbatim"},
    "consolidator": {"type": "append"},
    "store": {"type": "in_memory"},
    "retriever": {"type": "vector", "k": 8},
})


class StrategySpec(BaseModel):
    """A strategy as written in a YAML config or a notebook."""

    model_config = ConfigDict(extra="forbid")
    name: str
    preset: str | None = Field(default=None, description="Preset to start from; defaults to `name` when that is a preset.")
    description: str | None = None
    short_term: dict[str, Any] | None = None
    extractor: dict[str, Any] | None = None
    consolidator: dict[str, Any] | None = None
    store: dict[str, Any] | None = None
    retriever: dict[str, Any] | None = None


def resolve_spec(spec: StrategySpec | dict[str, Any]) -> dict[str, Any]:
    """Preset + overrides, every component's defaults filled in (validated)."""
    spec = spec if isinstance(spec, StrategySpec) else StrategySpec.model_validate(spec)
    preset_name = spec.preset or (spec.name if spec.name in PRESETS else None)
    has_components = any(getattr(spec, slot) is not None for slot in (*SLOTS, "store"))
    if preset_name is None and not has_components:
        PRESETS.get(spec.name)  # raises "Unknown strategy preset ... Did you mean ...?"
    base = copy.deepcopy(PRESETS.get(preset_name)) if preset_name else {}
    out: dict[str, Any] = {"name": spec.name, "preset": preset_name,
                           "description": spec.description or base.get("description", "")}
    for slot in (*SLOTS, "store"):
        override = getattr(spec, slot)
        merged = dict(base.get(slot) or {})
        if override is not None:
            if override.get("type") and override.get("type") != merged.get("type"):
                merged = {}
            merged.update(override)
        if not merged or merged.get("type") in (None, "none"):
            out[slot] = None
            continue
        if slot == "store":
            out[slot] = merged
            continue
        cls = REGISTRIES[slot].get(merged["type"])
        try:
            params = cls.Params.model_validate({k: v for k, v in merged.items() if k != "type"})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or '(params)'}: {e['msg']}" for e in exc.errors())
            raise ValueError(f"strategy {spec.name!r}: {slot} {merged['type']!r}: {problems} "
                             f"(its params: {', '.join(cls.Params.model_fields) or 'none'})") from None
        out[slot] = {"type": merged["type"], **params.model_dump(mode="json")}
    if (out["extractor"] or out["retriever"]) and not out["store"]:
        out["store"] = {"type": "in_memory"}
    if out["store"] and not (out["extractor"] and out["retriever"]):
        raise ValueError(f"strategy {spec.name!r}: a long-term store needs both an extractor and a retriever")
    if out["extractor"] and not out["consolidator"]:
        out["consolidator"] = {"type": "append"}
    return out


class ComposedStrategy:
    """A strategy assembled from a resolved spec. Namespaces are scoped per run and strategy."""

    def __init__(self, resolved: dict[str, Any], env: BuildEnv, namespace_prefix: str = "") -> None:
        self.resolved = resolved
        self.name = resolved["name"]
        self.env = env
        self.prefix = namespace_prefix
        self.short_term = build_component("short_term", resolved.get("short_term"), env)
        self.extractor = build_component("extractor", resolved.get("extractor"), env)
        self.consolidator = build_component("consolidator", resolved.get("consolidator"), env)
        self.retriever = build_component("retriever", resolved.get("retriever"), env)
        self.store = env.make_store(resolved["store"]) if resolved.get("store") else None
        self.namespace = ""
        self.store_ns = ""

    def describe(self) -> dict[str, Any]:
        out = dict(self.resolved)
        if self.store is not None and hasattr(self.store, "describe"):
            out["store_resolved"] = self.store.describe()
        return out

    def begin(self, conversation_id: str, namespace: str, *, fresh: bool) -> None:
        self.namespace = namespace
        self.store_ns = f"{self.prefix}{namespace}"
        self.conversation_id = conversation_id
        for comp in (self.short_term, self.extractor):
            if comp is not None:
                comp.begin(namespace)
        if self.store is not None and fresh:
            self.store.reset(self.store_ns)

    def observe(self, event: TurnEvent) -> list[MemoryEvent]:
        events: list[MemoryEvent] = []
        if self.short_term is not None:
            events += self.short_term.observe(event)
        if self.extractor is not None:
            cands = self.extractor.candidates(event)
            if cands:
                events += self.consolidator.apply(self.store, self.store_ns, cands, event.timestamp)
        return events

    def context(self, question: str, now: datetime) -> MemoryContext:
        ctx = MemoryContext()
        if self.retriever is not None:
            timed = _SearchTimer(self.store)
            t0 = time.perf_counter()
            hits = self.retriever.retrieve(timed, self.store_ns, question, now)
            ctx.retrieval_total_s = time.perf_counter() - t0
            ctx.retrieval_latency_s = timed.elapsed_s
            lines = [
                ContextLine(text=_memory_line(h.item), source_turn_ids=list(h.item.source_turn_ids), kind=h.item.kind, score=h.score)
                for h in hits
            ]
            ctx.sections.append(ContextSection("Long-term memory", lines))
        if self.short_term is not None:
            ctx.sections.extend(self.short_term.sections())
        return ctx

    def end(self) -> list[MemoryEvent]:
        return []

    def failures(self) -> int:
        return sum(getattr(c, "failures", 0) for c in (self.short_term, self.extractor, self.consolidator) if c is not None)

    def close(self) -> None:
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


def _memory_line(item) -> str:
    date = item.metadata.get("date")
    return f"[{date}] {item.text}" if date else item.text


def build_strategy(spec: StrategySpec | dict[str, Any], env: BuildEnv, namespace_prefix: str = "") -> ComposedStrategy:
    return ComposedStrategy(resolve_spec(spec), env, namespace_prefix)
