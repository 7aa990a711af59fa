"""Memory strategies: components in declared slots (short-term, agent, extractor, consolidator,
retriever, store, ...), presets, and the composed strategy that plays them."""

from memlab.strategies.base import Answer, ContextLine, ContextSection, MemoryContext, StepOutput, Strategy, TurnEvent
from memlab.strategies.composed import PRESETS, ComposedStrategy, StrategySpec, build_strategy, resolve_spec
from memlab.strategies.slots import SLOTS, BuildEnv, Component, Params, component, declare_slot, load_families


class _Registries(dict):
    """``REGISTRIES[slot]``: each component slot's registry (kept for callers of the old API)."""

    def __missing__(self, key):
        load_families()
        if key in SLOTS:
            return SLOTS[key].registry
        raise KeyError(key)


REGISTRIES = _Registries()

__all__ = [
    "PRESETS", "REGISTRIES", "SLOTS", "Answer", "BuildEnv", "ComposedStrategy", "Component", "ContextLine", "ContextSection",
    "MemoryContext", "Params", "StepOutput", "Strategy", "StrategySpec", "TurnEvent", "build_strategy", "component",
    "declare_slot", "load_families", "resolve_spec",
]
