"""Memory strategies: components (short-term, extraction, consolidation, retrieval) and presets."""

from memlab.strategies.base import ContextLine, ContextSection, MemoryContext, Strategy, TurnEvent
from memlab.strategies.composed import PRESETS, ComposedStrategy, StrategySpec, build_strategy, resolve_spec
from memlab.strategies.components import REGISTRIES, BuildEnv, Component, Params, component

__all__ = [
    "PRESETS", "REGISTRIES", "BuildEnv", "ComposedStrategy", "Component", "ContextLine", "ContextSection",
    "MemoryContext", "Params", "Strategy", "StrategySpec", "TurnEvent", "build_strategy", "component", "resolve_spec",
]
