"""Every extension point of memlab: the registries a plugin adds to.

Each is a :class:`memlab.registry.Registry` (lazy entries, did-you-mean, checks at registration,
installed plugins), so adding any kind of thing works the same way: a plugin module registers it
with the registry's decorator and a run config lists the module under ``plugins:`` (or the module
is installed under the ``memlab.plugins`` entry point). docs/architecture.md ("Extension points")
names each registry's decorator.

The registries are lazy entries here: naming them imports nothing until one is asked for."""

from __future__ import annotations

from typing import Any

from memlab.registry import Registry

EXTENSION_POINTS: Registry[Registry[Any]] = Registry("extension point")
EXTENSION_POINTS.register("strategy type", "memlab.strategies.types:STRATEGY_TYPES")
EXTENSION_POINTS.register("strategy preset", "memlab.strategies.presets:PRESETS")
EXTENSION_POINTS.register("compression trigger", "memlab.strategies.triggers:TRIGGERS")
EXTENSION_POINTS.register("store", "memlab.memory.stores.base:STORES")
EXTENSION_POINTS.register("metric", "memlab.scoring.metric_registry:METRICS")
EXTENSION_POINTS.register("model provider", "memlab.llm.base:MODELS")
EXTENSION_POINTS.register("dataset format", "memlab.datasets.loaders:FORMATS")


def extension_points() -> dict[str, Registry[Any]]:
    """Name → registry of every extension point; each slot's components as ``component:<slot>``
    (the store slot's types are the ``store`` registry)."""
    from memlab.strategies.slots import STORE_SLOT, registries

    out = {name: EXTENSION_POINTS.get(name) for name in EXTENSION_POINTS.names()}
    out.update({f"component:{slot}": reg for slot, reg in sorted(registries().items()) if slot != STORE_SLOT})
    return out
