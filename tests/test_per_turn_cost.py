"""Every preset's cost per turn stays flat as a conversation grows (issue 22).

An 833-turn LoCoMo-shaped conversation (``benchmarks/locomo_like.py``: new people, places, dates
and topics every session) is played through every preset and bound (``benchmarks/per_turn.py``),
and the amortised cost of turns 601–800 is compared with that of turns 1–200 — a ratio, not a
time (a cost linear in the turns played is 7× there, as it was at 900–1,200 against 1–300, for two
thirds of the turns). The work counts are deterministic (the same on any machine, under any load): model calls,
model tokens (a prompt that carries everything seen so far grows there), store items handed out
or checked one by one in Python (a namespace listed per turn grows there) and texts embedded.
CPU time is checked too, with a generous factor on medians of 50-turn blocks, so another
process's burst cannot fail it. Embeddings come from a hashed bag of words (a test double: MiniLM
would be most of the test's time, and its cost per text does not depend on the turn).

Also checked on the way: no preset changes an item a store handed out (stores give read-only
views, not copies).
"""

from __future__ import annotations

import copy

import pytest

from benchmarks import locomo_like, per_turn
from memlab.strategies.composed import PRESETS
from tests.support.hash_embedder import HashEmbedder

EARLY, LATE = (0, 200), (600, 800)
WORK_FACTOR = 2.0
"""Deterministic counts: turns 601–800 may cost at most twice turns 1–200 (plus a small floor).
A cost linear in the turns played would be ~7× (the windows' mean turn indexes are 100 and 700)."""
CPU_FACTOR = 3.0


class _ViewGuard:
    """A store proxy that keeps a deep copy of everything written and, at the end, checks that the
    items the store holds (and handed out) still equal what was written: nobody changed a view."""

    def __init__(self, store) -> None:
        self._store = store
        self.written: dict[tuple[str, str], object] = {}

    def add(self, items, embeddings=None):
        self._store.add(items, embeddings)
        for it in items:
            self.written[(it.namespace, it.id)] = copy.deepcopy(it.model_dump())

    def update(self, item, embedding=None):
        self._store.update(item, embedding)
        self.written[(item.namespace, item.id)] = copy.deepcopy(item.model_dump())

    def delete(self, namespace, ids):
        for i in ids:
            self.written.pop((namespace, i), None)
        return self._store.delete(namespace, ids)

    def reset(self, namespace=None):
        self.written = {k: v for k, v in self.written.items() if namespace is not None and k[0] != namespace}
        return self._store.reset(namespace)

    def changed(self) -> list[str]:
        out = []
        for (ns, item_id), dump in self.written.items():
            got = self._store.get(ns, [item_id])
            if got and got[0].model_dump() != dump:
                out.append(f"{ns}/{item_id}")
        return out

    def __getattr__(self, name):
        return getattr(self._store, name)


@pytest.fixture(scope="module")
def conversation():
    from memlab.datasets.locomo import convert

    conv = convert(locomo_like.generate(conversations=1, sessions=40, probes=0, seed=0), "long.json")[0].conversations[0]
    assert len(conv.turns()) >= LATE[1]
    return conv


@pytest.mark.slow
@pytest.mark.parametrize("preset", [  # agent_memory_pg runs on its default store, the project's PostgreSQL
    pytest.param(p, marks=pytest.mark.postgres) if p == "agent_memory_pg" else p for p in PRESETS.names()])
def test_cost_per_turn_does_not_grow_with_the_conversation(preset, conversation, request):
    if preset == "agent_memory_pg":
        request.getfixturevalue("postgres")
    guards: list[_ViewGuard] = []

    def guard(store):
        from memlab.memory.stores.in_memory import InMemoryStore

        if not isinstance(store, InMemoryStore):  # a server store returns fresh rows: nothing is shared
            return store
        guards.append(_ViewGuard(store))
        return guards[-1]

    changed: list[str] = []
    costs = per_turn.play(preset, conversation, embedder=HashEmbedder(), wrap_store=guard,
                          before_close=lambda: changed.extend(c for g in guards for c in g.changed()))
    report = []
    for name in per_turn.WORK:
        early, late = per_turn.windows(costs.series(name), [EARLY, LATE])
        report.append(f"{name} {early:.2f} → {late:.2f}")
        assert late <= WORK_FACTOR * early + 1.0, (
            f"{preset}: {name} per turn grew from {early:.2f} (turns {EARLY[0] + 1}–{EARLY[1]}) to {late:.2f} "
            f"(turns {LATE[0] + 1}–{LATE[1]})")
    cpu = costs.series("cpu_ms")
    early, late = (per_turn.block_median(cpu, *w) for w in (EARLY, LATE))
    report.append(f"cpu ms (median of 50-turn blocks) {early:.2f} → {late:.2f}")
    assert late <= CPU_FACTOR * early + 0.2, f"{preset}: CPU per turn grew from {early:.2f} ms to {late:.2f} ms"
    print(f"{preset}: " + "; ".join(report))
    assert guards or preset in ("no_memory", "full_context", "all_threads", "recent_window", "oracle", "react", "agent_memory_pg"), \
        "no in-memory store was built"
    assert not changed, f"{preset} changed items a store handed out: {changed[:5]}"
