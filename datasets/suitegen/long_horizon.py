"""The long_horizon suites (S, M, L): users as long as real ones, one module for the three sizes.

Unlike the other suites (``build(rng) -> list[Conv]`` over the shared conversation builder), these are
written by the long-horizon generator (:mod:`suitegen.longhorizon`), which the LoCoMo-shaped speed
benchmark (``benchmarks/locomo_like.py``) shares: the same world, episodes and vocabulary, told between
a user and their assistant as threads here and between two friends in LoCoMo's format there.
"""

from __future__ import annotations

from typing import Any

from suitegen.longhorizon.native import SIZES, build

PURPOSE = (
    "Users as long as real ones: each user chats with their assistant over months in 20-40 threads, with about 25k "
    "(S), 100k (M) or 400k (L) tokens of history, and probes asked at the ends of threads all through it. The data "
    "has the density of real chat rather than filler: hundreds of distinct people, places, titles, organisations and "
    "pets per user; facts said once early and asked much later; values that change two to four times (employer and "
    "job, manager, home city and street, car; knowledge-update probes carry every earlier value as `superseded`); "
    "relatives' and friends' news that shares words with the user's own facts (distractors); chains across threads "
    "(someone met at a place in one thread, what they do said in a later one; a pet adopted in one thread, its vet "
    "named in another); long assistant answers, things the assistant recommended by name, tool tasks whose "
    "observations hold values the assistant does not always repeat; and questions about what the user never "
    "mentioned. A bounded memory must choose what to keep here, and what it drops shows in recall by evidence age "
    "(`res.recall_by_age()`): the gap between evidence and probe runs from the same thread to the whole history.")

ON_DEMAND = {"long_horizon_l"}
"""Generated on demand (``--only long_horizon_l --out DIR``), not shipped: the repository stays small."""


def size_of(name: str) -> str:
    """``long_horizon_m`` → ``M``."""
    size = name.rsplit("_", 1)[-1].upper()
    if size not in SIZES:
        raise ValueError(f"unknown long-horizon size in {name!r}; one of: {', '.join(SIZES)}")
    return size


def build_dataset(name: str, seed: int, users: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The suite's dataset mapping and the per-user figures its card reports."""
    size = size_of(name)
    convs, stats = build(size, seed, users=users)
    data = {"name": f"suite-{name.replace('_', '-')}", "version": "1",
            "description": f"Long-horizon users, size {size}: about {SIZES[size].tokens // 1000}k tokens of history per "
                           "user over 20-40 threads, with the density of real chat.",
            "conversations": convs,
            "meta": {"generator": "datasets/generate_suites.py", "seed": seed, "suite": name, "size": size,
                     "split": "eval"}}
    return data, stats
