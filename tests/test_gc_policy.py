"""memlab.harness.gc_policy: the collector is quieted only while a run plays its units, then restored."""

from __future__ import annotations

import gc

from memlab.harness import gc_policy


def test_quiet_gc_freezes_and_restores_the_collector():
    before = gc.get_threshold()
    garbage_holder = [object() for _ in range(100)]  # alive before: frozen inside the block
    with gc_policy.quiet_gc():
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] == gc_policy.YOUNG_THRESHOLD
        assert gc.get_threshold()[2] == gc_policy.OLD_THRESHOLD
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0, "objects frozen by the run are collectable again afterwards"
    del garbage_holder


def test_unit_boundary_does_nothing_outside_a_run():
    gc.unfreeze()
    gc_policy.unit_boundary()
    assert gc.get_freeze_count() == 0


def test_unit_boundary_collects_cycles_and_freezes_survivors_inside_a_run():
    import weakref

    class Node:
        pass

    with gc_policy.quiet_gc():
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle: only the collector frees it
        dead = weakref.ref(a)
        del a, b
        kept = [Node() for _ in range(10)]
        frozen_before = gc.get_freeze_count()
        gc_policy.unit_boundary()
        assert dead() is None, "the last unit's cyclic garbage was collected"
        assert gc.get_freeze_count() > frozen_before, "what survived is frozen"
    del kept


def test_a_run_start_does_not_walk_the_old_generation():
    """Freezing at a run's start collects only the young generations: a full collection would walk the
    whole long-lived heap (large in a notebook or test process) at every run."""
    generations = []

    def seen(phase, info):
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        with gc_policy.quiet_gc():
            pass
    finally:
        gc.callbacks.remove(seen)
    assert generations and max(generations) <= 1, f"collections of generations {generations} at a run's start"


def test_a_memlab_command_collects_young_objects_less_often(capsys):
    """A ``memlab`` command sets the batch-process collector before it does anything else (CPython's
    default walked a long-horizon dataset's heap in full dozens of times)."""
    from memlab.cli import main

    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # CPython's defaults
    try:
        assert main(["components"]) == 0
        assert gc.get_threshold() == (gc_policy.YOUNG_THRESHOLD, 10, 10)
    finally:
        gc.set_threshold(*saved)
