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
OLD_THRESHOLD = 100
"""Middle-generation collections between full ones (CPython's default: 10). With most of the heap
frozen, CPython's other condition for a full collection (new long-lived objects > 25% of the
unfrozen ones) is nearly always true, so without this a full collection came every 2M
allocations; :func:`unit_boundary` collects fully between units anyway."""


_active = False


def batch_process() -> None:
    """The collector of a process that plays or reads runs from start to end (a ``memlab`` command, a test
    worker): young collections every :data:`YOUNG_THRESHOLD` allocations instead of CPython's 700.

    Outside a run's units (:func:`quiet_gc`) such a process still builds large, long-lived structures —
    a long-horizon dataset's conversations, a run's records read back — and with CPython's defaults the
    middle generation filled every 7,000 allocations, so a full collection of the whole heap came every
    ~70,000 once the heap had grown by a quarter: 23 of them, 3.0 CPU s of a 15 CPU-s ``memlab
    suite-check`` of the M suite's capacity contrast on three users, against 0.03 s with this setting (peak
    memory 754 → 762 MB; measured 2026-11-29). The middle and old thresholds stay CPython's; cyclic garbage
    is freed later, never not at all."""
    _, g1, g2 = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, g1, g2)


def freeze_heap() -> None:
    """Collect the young generations, then exempt every object alive now from later collections (a
    worker process calls this after building its workbench, and keeps it for its life).

    Only the young generations: a full collection here walks the whole long-lived heap, which is
    what freezing is meant to spare. In a process that has already run runs (a notebook, a test
    worker) that heap is large — 0.28 CPU s per run start in a test worker, 5.6 s of a 74 CPU-s
    slice of the test suite (measured 2026-11-29) — and it would be walked again at every run. Old
    cyclic garbage that is frozen with the rest is freed when :func:`quiet_gc` unfreezes the heap
    after the run (in a worker process: what its imports left, once)."""
    global _active
    gc.collect(1)
    gc.freeze()
    _, g1, _ = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, g1, OLD_THRESHOLD)
    _active = True


def unit_boundary() -> None:
    """Between units, while the heap is frozen: collect what the last unit left behind, then
    freeze what survives (caches, stores, lazily imported modules), so the next unit's
    collections walk only its own objects. The collection is cheap — it walks only what was
    allocated since the last freeze. (Cyclic garbage among frozen objects waits for the end of
    the run; records, stores and caches are freed by reference counting as before.)"""
    if _active:
        gc.collect()
        gc.freeze()


@contextmanager
def quiet_gc() -> Iterator[None]:
    """:func:`freeze_heap` for the duration of a block; the previous settings come back after it
    (a notebook or test process runs many runs and must get its collector back as it was)."""
    thresholds = gc.get_threshold()
    freeze_heap()
    try:
        yield
    finally:
        global _active
        _active = False
        gc.unfreeze()
        gc.set_threshold(*thresholds)
