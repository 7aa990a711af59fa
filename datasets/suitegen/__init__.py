"""The suite generators of ``datasets/generate_suites.py``: one module per suite over a small core.

Each suite module defines ``build(rng) -> list[Conv]`` and ``PURPOSE`` (its card's purpose
paragraph). The shared core: :mod:`suitegen.vocab` (value pools and impersonal chit-chat),
:mod:`suitegen.core` (seeded RNG, gold forms for dates and numbers, personas and styles),
:mod:`suitegen.facts` (the fact catalog) and :mod:`suitegen.conv` (the conversation builder:
sessions, planting facts, distractors, probes, scheduling).
"""

from __future__ import annotations

import importlib
from types import ModuleType

SEED = 20240611
SUITES = ["recall", "multi_session", "temporal", "knowledge_update", "abstention", "preference", "agentic", "injection",
          "cross_thread", "long_task", "long_horizon_s", "long_horizon_m"]
"""Every shipped generated suite, in the order they are written (and listed in cards and tables)."""
ON_DEMAND = ["long_horizon_l"]
"""Suites generated only when asked for (``--only``): too large to ship, the same bytes every time."""


def suite_module(name: str) -> ModuleType:
    """The module that builds suite ``name``: ``build`` (or ``build_dataset``, the long-horizon sizes) and ``PURPOSE``."""
    if name not in SUITES + ON_DEMAND:
        raise ValueError(f"unknown suite {name!r}; one of: {', '.join(SUITES + ON_DEMAND)}")
    if name.startswith("long_horizon_"):
        return importlib.import_module("suitegen.long_horizon")
    return importlib.import_module(f"suitegen.{name}")
