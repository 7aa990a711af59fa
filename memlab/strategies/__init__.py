"""Memory strategies: a small core plus one folder per slot family.

Core: ``base`` (what a strategy is to the runner: turn events, contexts, answers), ``slots`` (slot
declaration, the component base class, registries, family discovery), ``state`` (what components
share), ``composed`` (a strategy spec resolved once into typed components, and the strategy that
plays them), ``presets`` (named strategies, seed systems included), ``triggers`` and ``summarizers``
(when and how working memory is compressed), ``tools`` (memory tools an agent may call).

Families (each folder's ``__init__`` declares its slot; its modules register components):
``short_term``, ``agent``, ``extractor``, ``consolidator``, ``episodes``, ``lifecycle``, ``profile``,
``retriever``, ``timekeeper``, ``answer``. The store slot's types are the storage backends
(:mod:`memlab.memory.stores`). Names below are loaded lazily, so importing a family module does not
import the composition layer.
"""

from __future__ import annotations

from typing import Any

_LAZY = {
    "Answer": "memlab.strategies.base", "ContextLine": "memlab.strategies.base", "ContextSection": "memlab.strategies.base",
    "MemoryContext": "memlab.strategies.base", "StepOutput": "memlab.strategies.base", "Strategy": "memlab.strategies.base",
    "TurnEvent": "memlab.strategies.base",
    "PRESETS": "memlab.strategies.presets",
    "ComposedStrategy": "memlab.strategies.composed", "StrategySpec": "memlab.strategies.composed",
    "build_strategy": "memlab.strategies.composed", "resolve_spec": "memlab.strategies.composed",
    "SLOTS": "memlab.strategies.slots", "BuildEnv": "memlab.strategies.slots", "Component": "memlab.strategies.slots",
    "Params": "memlab.strategies.slots", "component": "memlab.strategies.slots", "declare_slot": "memlab.strategies.slots",
    "load_families": "memlab.strategies.slots",
}

__all__ = sorted([*_LAZY, "REGISTRIES"])


def __getattr__(name: str) -> Any:
    import importlib

    if name == "REGISTRIES":
        from memlab.strategies.slots import registries

        return registries()
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'memlab.strategies' has no attribute {name!r}")
