"""Where a run's time goes: exclusive wall *and CPU* time in model calls, DSPy roles, embeddings,
store calls, the strategies' own logic and probe-time scoring.

Shared by the benchmarks. :class:`TimeShare` patches the classes that do the work so each call
adds its *exclusive* time (its own time minus the time of wrapped calls inside it) to a
(strategy, category) total — a role call that calls the model that calls the embedder counts
each part once. It also times every unit as a whole (:meth:`UnitPlayer.play`); what no category
claims inside a unit is **harness overhead**: the unit player (replaying turns, asking probes),
records, token counting of contexts. Only works in the process it is installed in (serial runs), which is
why the benchmarks profile serially and time executors by wall clock.

CPU time (``time.process_time``: this process, every thread) is measured beside wall time
because the development machine is shared: under load a wall-clock share mostly says who else
was running, while CPU time says what this run's code cost.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from typing import Any

CATEGORIES = ("model", "roles", "embedding", "store", "logic", "scoring")
"""What is not harness: the offline model's compute, DSPy prompt formatting and parsing, the
embedder, store calls, the strategy's own logic, and the scoring primitives the unit player
calls at probe time.

``logic`` is the system under test's own compute outside those calls — its components
(extraction rules, consolidation, reranking, an agent's loop, rendering its context) and their
composition (:class:`~memlab.strategies.composed.ComposedStrategy`): work the memory design
does in production too. **Harness** is what memlab adds to evaluate it: replaying turns, asking
probes, records, token accounting of contexts, run start-up and finalize."""

RECORDS = "records"
"""Harness time spelled out: turning records into JSON lines and writing them (part of harness)."""

UNIT = "unit"
"""Pseudo-category: a unit's whole time (its harness share is this minus the categories)."""


class TimeShare:
    """Exclusive wall and CPU seconds per (strategy, category), while installed (a context manager)."""

    def __init__(self) -> None:
        self.wall: Counter[tuple[str, str]] = Counter()
        self.cpu: Counter[tuple[str, str]] = Counter()
        self.top_calls: Counter[str] = Counter()
        """Per strategy: timed calls made straight from harness code (the unit player, a strategy's
        own logic). The timing around each of those is itself counted as harness."""
        self._local = threading.local()
        self._patched: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> TimeShare:
        from memlab.embeddings import CachedEmbedder, MiniLMEmbedder
        from memlab.embeddings.onnx import OnnxMiniLMEmbedder
        from memlab.llm.offline_model import OfflineChatModel
        from memlab.llm.openai_model import OpenAIChatModel
        from memlab.memory.stores.chroma import ChromaStore
        from memlab.memory.stores.in_memory import InMemoryStore
        from memlab.memory.stores.postgres import PostgresStore
        from memlab.roles.program import Role
        from memlab.scoring import attestation, matching
        from memlab.runfolder.recorder import RunRecorder
        from memlab.strategies.composed import ComposedStrategy
        from memlab.harness.units import UnitPlayer, _CallSink

        self._wrap(UnitPlayer, "play", UNIT)
        # the strategy's entry points as the unit player calls them (building it included); what
        # they spend in roles, the model, embeddings, stores and records is subtracted as usual
        for name in ("__init__", "begin_unit", "begin_conversation", "observe", "end_conversation", "answer"):
            self._wrap(ComposedStrategy, name, "logic")
        self._wrap(Role, "__call__", "roles")  # dspy.Module.__call__: callbacks and settings around forward
        self._wrap(_CallSink, "__call__", RECORDS)
        self._wrap(RunRecorder, "write", RECORDS)
        self._wrap(OfflineChatModel, "complete", "model")
        self._wrap(OpenAIChatModel, "complete", "model")
        self._wrap(CachedEmbedder, "embed", "embedding")  # the embedding layer: its cache lookups, then the model
        for embedder in (MiniLMEmbedder, OnnxMiniLMEmbedder):
            self._wrap(embedder, "__init__", "embedding")  # loading the model is embedding work too
            self._wrap(embedder, "embed", "embedding")
        for store in (InMemoryStore, ChromaStore, PostgresStore):
            # connecting (a Postgres pool, a Chroma client) and closing are store calls too
            for name in ("__init__", "add", "get", "update", "delete", "search", "list", "count", "reset", "close"):
                if name in store.__dict__:
                    self._wrap(store, name, "store")
        # the unit player imports these by name at call time, so patching the modules reaches it
        self._wrap(attestation, "gold_written", "scoring", module=True)
        self._wrap(matching, "gold_present", "scoring", module=True)
        import memlab.scoring as scoring
        import memlab.harness.units as units

        # a probe's context_tokens (the token-cost metric's input) is measured at probe time
        self._wrap(units, "count_tokens", "scoring", module=True)

        self._wrap(scoring, "gold_written", "scoring", module=True)
        self._wrap(scoring, "gold_present", "scoring", module=True)
        return self

    def __exit__(self, *exc: Any) -> None:
        for owner, name, fn in reversed(self._patched):
            if fn is None:
                delattr(owner, name)  # was inherited: remove the wrapper to uncover it again
            else:
                setattr(owner, name, fn)
        self._patched.clear()

    def _wrap(self, owner: Any, name: str, category: str, module: bool = False) -> None:
        own = module or name in owner.__dict__
        fn = getattr(owner, name)

        local = self._local
        wall_totals, cpu_totals, top_calls = self.wall, self.cpu, self.top_calls
        perf_counter, process_time = time.perf_counter, time.process_time

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            stack = getattr(local, "stack", None)
            if stack is None:
                stack = local.stack = []
                local.strategy = "-"
            frame = [0.0, 0.0]
            if len(stack) == 1 and category != UNIT:
                top_calls[local.strategy] += 1
            stack.append(frame)
            if category == UNIT:
                outer_strategy, local.strategy = local.strategy, args[1].strategy
            t0, c0 = perf_counter(), process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                wall, cpu = perf_counter() - t0, process_time() - c0
                stack.pop()
                if category == UNIT:  # a unit's total is inclusive; it does not hide time from an outer frame
                    key = (local.strategy, UNIT)
                    local.strategy = outer_strategy
                    wall_totals[key] += wall
                    cpu_totals[key] += cpu
                else:
                    key = (local.strategy, category)
                    wall_totals[key] += wall - frame[0]
                    cpu_totals[key] += cpu - frame[1]
                    if stack:
                        outer = stack[-1]
                        outer[0] += wall
                        outer[1] += cpu

        setattr(owner, name, timed)
        self._patched.append((owner, name, fn if own else None))

    @staticmethod
    def overhead_per_call(n: int = 200_000) -> dict[str, float]:
        """Seconds (wall, cpu) the timing wrapper adds to one call, measured on a no-op method
        called ``n`` times with and without it, as if straight from a unit's harness code."""

        class Probe:
            def noop(self) -> None:
                return None

        bare = Probe().noop
        share = TimeShare()
        share._wrap(Probe, "noop", "model")
        share._local.stack, share._local.strategy = [[0.0, 0.0]], "calibration"
        timed = Probe().noop
        out = {}
        for clock, now in (("wall", time.perf_counter), ("cpu", time.process_time)):
            best = float("inf")
            for _ in range(3):
                t0 = now()
                for _ in range(n):
                    bare()
                t1 = now()
                for _ in range(n):
                    timed()
                t2 = now()
                best = min(best, ((t2 - t1) - (t1 - t0)) / n)
            out[clock] = max(best, 0.0)
        return out

    def of(self, strategy: str, clock: str = "wall") -> dict[str, float]:
        """Seconds per category, plus ``unit`` (the strategy's units in all) and ``harness`` (the rest)."""
        totals = self.wall if clock == "wall" else self.cpu
        out = {c: totals[(strategy, c)] for c in CATEGORIES}
        out[UNIT] = totals[(strategy, UNIT)]
        out["harness"] = out[UNIT] - sum(out[c] for c in CATEGORIES)
        out[RECORDS] = totals[(strategy, RECORDS)]
        return out
