"""Garbage-collector settings while a run plays its units.

A run's process holds a large, long-lived heap before the first unit starts — DSPy, pydantic
schemas, the datasets, the embedding model and its cache — and the unit loop then allocates
millions of short-lived objects (records, prompts, parsed outputs). With CPython's defaults each
full collection walks that whole long-lived heap again: on the LoCoMo-sized benchmark 20 full
collections took 4.0 s of a 76 CPU-s run, charged to whatever line happened to allocate (mostly
the unit player's records). :func:`quiet_gc` moves what exists when units start into the
permanent generation (``gc.freeze``) so collections only walk what the run itself allocates, and
collects the young generation less often. Collection never changes what a run computes — only
when memory held by unreachable cycles is returned — so records and metrics stay identical.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 20_000
"""Allocations (minus deallocations) between young-generation collections (CPython's default: 700)."""


def freeze_heap() -> None:
    """Collect once, then exempt every object alive now from later collections (a worker process
    calls this after building its workbench, and keeps it for its life)."""
    gc.collect()
    gc.freeze()
    _, g1, g2 = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, g1, g2)


@contextmanager
def quiet_gc() -> Iterator[None]:
    """:func:`freeze_heap` for the duration of a block; the previous settings come back after it
    (a notebook or test process runs many runs and must get its collector back as it was)."""
    thresholds = gc.get_threshold()
    freeze_heap()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
