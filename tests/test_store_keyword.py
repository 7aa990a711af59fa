"""The BM25 keyword index (memlab/memory/keyword.py) and hybrid retrieval's rank fusion."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from memlab.memory import keyword
from memlab.memory.item import MemoryItem, ScoredItem
from memlab.memory.keyword import KeywordIndex
from memlab.strategies.retriever.basic import HybridRetriever
from memlab.strategies.state import Query

T0 = datetime(2025, 3, 1, tzinfo=timezone.utc)


def test_index_is_built_once_per_change(monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[int] = []
    real_build = keyword._build

    def counting_build(space: Any) -> Any:
        builds.append(len(space.docs))
        return real_build(space)

    monkeypatch.setattr(keyword, "_build", counting_build)
    idx = KeywordIndex()
    for i in range(20):
        idx.put("ns", f"d{i}", f"note {i} about the garden", T0 + timedelta(seconds=i))
    idx.put("ns", "tea", "user drinks green tea", T0)
    for _ in range(5):
        assert [h[0] for h in idx.ranked("ns", "tea")] == ["tea"]
    assert builds == [21]  # five queries, one build
    idx.put("ns", "tea2", "more tea please", T0)
    idx.remove("ns", ["d0"])
    assert {h[0] for h in idx.ranked("ns", "tea")} == {"tea", "tea2"}
    assert {h[0] for h in idx.ranked("ns", "garden")} == {f"d{i}" for i in range(1, 20)}
    assert builds == [21, 21]  # a put and a remove: one rebuild, at the next query
    idx.ranked("other", "tea")  # another namespace: nothing to build
    assert builds == [21, 21]


def test_stemming_and_stopwords() -> None:
    idx = KeywordIndex()
    idx.put("ns", "run", "User runs every morning", T0)
    idx.put("ns", "pref", "User prefers the window seat", T0)
    assert [h[0] for h in idx.ranked("ns", "running")] == ["run"]
    assert [h[0] for h in idx.ranked("ns", "preference")] == ["pref"]
    assert idx.ranked("ns", "the of and") == []


def test_scores_do_not_depend_on_insertion_order() -> None:
    docs = [(f"id{i}", f"{'tea ' * (i % 3 + 1)} garden {i % 2}", T0 + timedelta(seconds=i % 2)) for i in range(12)]
    a, b = KeywordIndex(), KeywordIndex()
    a.load("ns", docs)
    b.load("ns", list(reversed(docs)))
    assert a.ranked("ns", "tea garden") == b.ranked("ns", "tea garden")
    hits = a.ranked("ns", "tea")
    created = dict((d[0], d[2]) for d in docs)
    keys = [(-s, created[i], i) for i, s in hits]
    assert keys == sorted(keys)


class _FixedStore:
    """A store whose vector and keyword searches return fixed rankings."""

    def __init__(self, by_vec: list[MemoryItem], by_kw: list[MemoryItem]) -> None:
        self.by_vec, self.by_kw = by_vec, by_kw

    def search(self, namespace: str, *, embedding: Any = None, text: str | None = None, k: int = 10) -> list[ScoredItem]:
        ranked = self.by_vec if embedding is not None else self.by_kw
        return [ScoredItem(item=it, score=100.0 - r) for r, it in enumerate(ranked[:k])]


def test_rrf_fuses_the_two_rankings() -> None:
    """vector: a b c d; keyword: c a e. RRF (k=60): a = 1/61 + 1/62, c = 1/63 + 1/61, b = 1/62,
    e = 1/63, d = 1/64, so a > c > b > e > d. The same store under the weighted sum follows the
    weights instead (keyword only: c first)."""
    mem = {n: MemoryItem(id=n, namespace="ns", text=n, created_at=T0, updated_at=T0) for n in "abcde"}
    store = _FixedStore([mem[n] for n in "abcd"], [mem[n] for n in "cae"])
    env = SimpleNamespace(embedder=SimpleNamespace(embed=lambda texts: np.zeros((len(texts), 4), dtype=np.float32)))
    query = Query("q", T0, env.embedder)
    rrf = HybridRetriever(HybridRetriever.Params(k=5, fusion="rrf"), env)
    hits = rrf.retrieve(store, "ns", query)
    assert [h.item.id for h in hits] == ["a", "c", "b", "e", "d"]
    assert hits[0].score == pytest.approx(1 / 61 + 1 / 62) and hits[-1].score == pytest.approx(1 / 64)
    weighted = HybridRetriever(HybridRetriever.Params(k=5, w_similarity=0.0, w_keyword=1.0, w_recency=0.0), env)
    assert [h.item.id for h in weighted.retrieve(store, "ns", query)][0] == "c"
    # equal fused scores fall back to created_at, then id
    tie = _FixedStore([mem["b"], mem["a"]], [mem["a"], mem["b"]])
    assert [h.item.id for h in rrf.retrieve(tie, "ns", query)] == ["a", "b"]
    with pytest.raises(ValueError):
        HybridRetriever.Params(fusion="borda")
