"""Shared helpers for the preset tests: build a strategy from a spec on the offline model and play
a conversation through it the way the runner does (begin_unit, begin_conversation, observe, end)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memlab.datasets.models import Dataset
from memlab.embeddings import shared_embedder
from memlab.llm.base import make_model
from memlab.memory.item import MemoryEvent
from memlab.roles.program import MemoryRoles
from memlab.strategies.composed import ComposedStrategy, resolve_spec
from memlab.strategies.slots import BuildEnv
from memlab.harness.units import turn_events


def build(spec: dict[str, Any], model: Any = None, embedder: Any = None) -> ComposedStrategy:
    model = model if model is not None else make_model({"provider": "offline"})
    env = BuildEnv(roles=MemoryRoles(model), embedder=embedder or shared_embedder(None), strategy_name=spec["name"],
                   make_store=lambda s: s.build())
    return ComposedStrategy(resolve_spec(spec), env)


def conversation(sessions: list[tuple[str, list[tuple[str, str]]]], cid: str = "c1") -> dict[str, Any]:
    """A one-conversation dataset: sessions of (timestamp, [(role, text), ...]); turn ids t1, t2, ..."""
    n = 0
    out = []
    for si, (ts, turns) in enumerate(sessions, start=1):
        rows = []
        for role, text in turns:
            n += 1
            rows.append({"id": f"t{n}", "role": role, "text": text})
        out.append({"id": f"s{si}", "timestamp": ts, "turns": rows})
    return {"name": "preset-test", "conversations": [{"id": cid, "sessions": out, "probes": []}]}


def play(strategy: ComposedStrategy, data: dict[str, Any], namespace: str = "test/c1",
         after_turn: Any = None) -> list[MemoryEvent]:
    """Replay the conversation; ``after_turn(event, ops_so_far)`` is called after each turn."""
    conv = Dataset.model_validate(data).conversations[0]
    strategy.begin_unit(namespace)
    ops = list(strategy.begin_conversation(conv.id).ops)
    for ev in turn_events(conv):
        ops.extend(strategy.observe(ev).ops)
        if after_turn is not None:
            after_turn(ev, ops)
    ops.extend(strategy.end_conversation().ops)
    return ops


def at(ts: str) -> datetime:
    return datetime.fromisoformat(ts)


class TableEmbedder:
    """Test double: each text's vector is set so its cosine to a reference direction is what the
    test says (``cos[text]``); unlisted texts are orthogonal to everything listed."""

    def __init__(self, cos: dict[str, float], dim: int = 8) -> None:
        import numpy as np

        self.cos, self.dim, self._np = cos, dim, np
        self._extra: dict[str, int] = {}

    def embed(self, texts: list[str]):
        np = self._np
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            if t in self.cos:
                c = self.cos[t]
                out[i, 0], out[i, 1] = c, (1 - c * c) ** 0.5
            else:
                slot = self._extra.setdefault(t, 2 + len(self._extra) % (self.dim - 2))
                out[i, slot] = 1.0
        return out
