"""Per-turn cost of each preset as a function of the turns already played (issue 22).

Plays one long conversation through a preset the way the unit player does (``begin_unit``,
``begin_conversation``, ``observe`` per turn; no probes: this is the cost of *keeping* memory)
and records for every turn:

* ``cpu_s`` — the thread's CPU time inside ``observe`` (what the turn cost this process, which a
  busy machine changes far less than wall time);
* deterministic work counts, the same on any machine and under any load:
  ``calls``, ``prompt_tokens`` and ``completion_tokens`` of the model calls the turn made (a
  prompt that carries everything seen so far grows here); ``store_items`` — items the store
  handed out (``get``/``list``/``search``) plus items it checked one by one in Python (a
  namespace listed per turn grows here); ``rows_scored`` — vector rows an exact search scored in
  numpy (linear in the namespace by nature, at ~0.1 µs a row; reported, not a Python cost);
  ``embedded`` — texts given to the embedder.

:func:`windows` averages a counter over turn windows; the per-turn test
(``tests/test_per_turn_cost.py``) and the realistic benchmark (``benchmarks/realistic_bench.py``)
compare turns 1,500–2,000 with turns 1–500.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

COUNTERS = ("calls", "prompt_tokens", "completion_tokens", "store_items", "rows_scored", "embedded")
WORK = ("calls", "tokens", "store_items", "embedded")
"""The counters a linear preset must keep flat (``tokens`` = prompt + completion)."""


@dataclass
class TurnCosts:
    """One preset's per-turn costs over a conversation (lists indexed by turn)."""

    preset: str
    cpu_s: list[float] = field(default_factory=list)
    counts: dict[str, list[float]] = field(default_factory=lambda: {c: [] for c in COUNTERS})

    def series(self, name: str) -> list[float]:
        if name == "cpu_ms":
            return [1000 * x for x in self.cpu_s]
        if name == "tokens":
            return [a + b for a, b in zip(self.counts["prompt_tokens"], self.counts["completion_tokens"], strict=True)]
        return self.counts[name]


class _CountingStore:
    """A store proxy counting the items it hands out (any backend), and adding an in-memory store's
    own counts (items checked in Python, vector rows scored)."""

    def __init__(self, store: Any, tally: Counter[str]) -> None:
        self._store, self._tally = store, tally

    def get(self, *a: Any, **k: Any) -> Any:
        out = self._store.get(*a, **k)
        self._tally["store_items"] += len(out)
        return out

    def list(self, *a: Any, **k: Any) -> Any:
        out = self._store.list(*a, **k)
        self._tally["store_items"] += len(out)
        return out

    def search(self, *a: Any, **k: Any) -> Any:
        out = self._store.search(*a, **k)
        self._tally["store_items"] += len(out)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


class _CountingEmbedder:
    def __init__(self, inner: Any, tally: Counter[str]) -> None:
        self._inner, self._tally = inner, tally

    def embed(self, texts: Sequence[str], *a: Any, **k: Any) -> Any:
        self._tally["embedded"] += len(texts)
        return self._inner.embed(texts, *a, **k)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def play(preset: str | dict[str, Any], conversation: Any, *, embedder: Any = None, model: Any = None,
         store_options: dict[str, dict[str, Any]] | None = None, namespace: str = "bench/c1",
         wrap_store: Any = None, before_close: Any = None) -> TurnCosts:
    """Play ``conversation`` (a :class:`~memlab.datasets.models.Conversation`) through a preset
    (name or strategy spec) on the offline model and return its per-turn costs. ``wrap_store``
    (optional) wraps each store the strategy builds (a test's guard); ``before_close`` is called
    after the conversation, while the stores are still open."""
    from memlab.embeddings import shared_embedder
    from memlab.llm import calls
    from memlab.llm.base import make_model
    from memlab.memory.stores.base import typed_options
    from memlab.roles.program import MemoryRoles
    from memlab.strategies.composed import ComposedStrategy, resolve_strategy
    from memlab.strategies.slots import BuildEnv
    from memlab.harness.units import turn_events

    spec = {"name": preset} if isinstance(preset, str) else dict(preset)
    tally: Counter[str] = Counter()
    inner_stores: list[Any] = []

    def store_factory(store_spec: Any) -> Any:  # a StoreSpec: the backend and its typed options
        store = store_spec.build()
        inner_stores.append(store)
        return _CountingStore(wrap_store(store) if wrap_store is not None else store, tally)

    emb = _CountingEmbedder(embedder if embedder is not None else shared_embedder(None), tally)
    model = model if model is not None else make_model({"provider": "offline"}, embedder=emb)
    env = BuildEnv(roles=MemoryRoles(model), embedder=emb, strategy_name=spec["name"], make_store=store_factory)
    typed = {backend: typed_options(backend, options, f"store_options.{backend}")
             for backend, options in (store_options or {}).items()}
    strategy = ComposedStrategy(resolve_strategy(spec, typed), env)
    out = TurnCosts(spec["name"])

    def sink(rec: Any) -> None:
        tally["calls"] += 1
        tally["prompt_tokens"] += rec.prompt_tokens
        tally["completion_tokens"] += rec.completion_tokens

    def own_work() -> Counter[str]:
        w: Counter[str] = Counter()
        for s in inner_stores:
            w.update(getattr(s, "work", {}))
        return w

    try:
        with calls.call_sink(sink):
            strategy.begin_unit(namespace)
            strategy.begin_conversation(conversation.id)
            for event in turn_events(conversation):
                before, work0 = Counter(tally), own_work()
                t0 = time.thread_time()
                strategy.observe(event)
                out.cpu_s.append(time.thread_time() - t0)
                work = own_work()
                for c in COUNTERS:
                    n = tally[c] - before[c]
                    if c == "store_items":
                        n += work["python_scanned"] - work0["python_scanned"]
                    elif c == "rows_scored":
                        n = work["rows_scored"] - work0["rows_scored"]
                    out.counts[c].append(float(n))
            strategy.end_conversation()
        if before_close is not None:
            before_close()
    finally:
        strategy.close()
    return out


def windows(values: Sequence[float], bounds: Iterable[tuple[int, int]]) -> list[float]:
    """The mean per turn of each ``[start, end)`` window of turn indexes (amortised cost)."""
    out = []
    for a, b in bounds:
        part = values[a:b]
        out.append(sum(part) / len(part) if part else float("nan"))
    return out


def block_median(values: Sequence[float], start: int, end: int, block: int = 50) -> float:
    """The median over ``block``-turn blocks of their mean: an amortised per-turn cost that one
    slow block (a collection, another process's burst) does not move."""
    import statistics

    parts = [values[i:i + block] for i in range(start, end, block)]
    return statistics.median(sum(p) / len(p) for p in parts if p)
