"""Where a run's time goes: exclusive time in model calls, DSPy roles, embeddings and store calls.

Shared by the benchmarks. :class:`TimeShare` patches the classes that do the work so each call
adds its *exclusive* time (its own time minus the time of wrapped calls inside it) to a
(strategy, category) total — a role call that calls the model that calls the embedder counts
each part once. What no category claims, inside a unit's wall time, is harness overhead: the
runner, strategies' own logic, records, token counting. Only works in the process it is
installed in (serial runs), which is why the benchmarks profile serially and time executors
by wall clock.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from typing import Any

CATEGORIES = ("model", "roles", "embedding", "store")


class TimeShare:
    def __init__(self) -> None:
        self.totals: Counter[tuple[str, str]] = Counter()
        self._local = threading.local()
        self._patched: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> TimeShare:
        from memlab.embeddings import MiniLMEmbedder
        from memlab.embeddings_onnx import OnnxMiniLMEmbedder
        from memlab.llm.heuristic_model import HeuristicChatModel
        from memlab.llm.openai_model import OpenAIChatModel
        from memlab.memory.stores.chroma import ChromaStore
        from memlab.memory.stores.in_memory import InMemoryStore
        from memlab.roles.program import Role

        self._wrap(Role, "forward", "roles")
        self._wrap(HeuristicChatModel, "complete", "model")
        self._wrap(OpenAIChatModel, "complete", "model")
        self._wrap(MiniLMEmbedder, "embed", "embedding")
        self._wrap(OnnxMiniLMEmbedder, "embed", "embedding")
        for store in (InMemoryStore, ChromaStore):
            for name in ("add", "get", "update", "delete", "search", "list", "count", "reset"):
                if name in store.__dict__:
                    self._wrap(store, name, "store")
        return self

    def __exit__(self, *exc: Any) -> None:
        for owner, name, fn in reversed(self._patched):
            setattr(owner, name, fn)
        self._patched.clear()

    def _wrap(self, owner: Any, name: str, category: str) -> None:
        from memlab.llm import calls

        fn = owner.__dict__[name]
        share = self

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            stack = getattr(share._local, "stack", None)
            if stack is None:
                stack = share._local.stack = []
            stack.append(0.0)
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - t0
                inner = stack.pop()
                share.totals[(calls.current_scope().get("strategy", "-"), category)] += elapsed - inner
                if stack:
                    stack[-1] += elapsed

        setattr(owner, name, timed)
        self._patched.append((owner, name, fn))

    def of(self, strategy: str) -> dict[str, float]:
        return {c: self.totals[(strategy, c)] for c in CATEGORIES}
