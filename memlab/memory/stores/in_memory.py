"""Exact in-process store: numpy cosine search, BM25 keyword index. The recall reference for other backends."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from memlab.memory.item import MemoryItem, ScoredItem, utcnow
from memlab.memory.keyword import KeywordIndex
from memlab.memory.stores.base import Where, matches, newest_first, top_k, where_without_nul, without_nul


class InMemoryStore:
    name = "in_memory"

    def __init__(self, **_: object) -> None:
        self._items: dict[str, dict[str, MemoryItem]] = {}
        self._vecs: dict[str, dict[str, np.ndarray]] = {}
        self._kw = KeywordIndex()
        self._lock = threading.Lock()

    def describe(self) -> dict[str, object]:
        return {
            "backend": self.name,
            "search": "exact cosine (numpy)",
            "keyword": "BM25 (bm25s, lucene, k1=1.2 b=0.75) over English-stemmed terms, index per namespace",
        }

    def add(self, items: Sequence[MemoryItem], embeddings: np.ndarray | None = None) -> None:
        items = [without_nul(it, self.name) for it in items]
        with self._lock:
            for i, item in enumerate(items):
                self._items.setdefault(item.namespace, {})[item.id] = item.model_copy(deep=True)
                self._kw.put(item.namespace, item.id, item.text, item.created_at)
                if embeddings is not None:
                    self._vecs.setdefault(item.namespace, {})[item.id] = _unit(embeddings[i])

    def get(self, namespace: str, ids: Sequence[str]) -> list[MemoryItem]:
        ns = self._items.get(namespace, {})
        return [ns[i].model_copy(deep=True) for i in ids if i in ns]

    def update(self, item: MemoryItem, embedding: np.ndarray | None = None) -> None:
        item = without_nul(item, self.name)
        with self._lock:
            ns = self._items.get(item.namespace, {})
            if item.id not in ns:
                raise KeyError(f"no item {item.id!r} in namespace {item.namespace!r}")
            ns[item.id] = item.model_copy(deep=True)
            self._kw.put(item.namespace, item.id, item.text, item.created_at)
            if embedding is not None:
                self._vecs.setdefault(item.namespace, {})[item.id] = _unit(embedding)

    def delete(self, namespace: str, ids: Sequence[str]) -> int:
        with self._lock:
            ns = self._items.get(namespace, {})
            n = 0
            for i in ids:
                if ns.pop(i, None) is not None:
                    n += 1
                self._vecs.get(namespace, {}).pop(i, None)
            self._kw.remove(namespace, ids)
            return n

    def _live(self, namespace: str, where: Where | None, include_invalid: bool) -> list[MemoryItem]:
        now = utcnow()
        where = where_without_nul(where)
        return [it for it in self._items.get(namespace, {}).values() if _eligible(it, where, include_invalid, now)]

    def search(
        self,
        namespace: str,
        *,
        embedding: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Where | None = None,
        include_invalid: bool = False,
    ) -> list[ScoredItem]:
        if k <= 0:
            return []
        if text is not None and embedding is None:
            return self._keyword_search(namespace, text, k, where, include_invalid)
        cands = self._live(namespace, where, include_invalid)
        if not cands:
            return []
        if embedding is not None:
            vecs = self._vecs.get(namespace, {})
            cands = [c for c in cands if c.id in vecs]
            if not cands:
                return []
            mat = np.stack([vecs[c.id] for c in cands])
            scores = mat @ _unit(embedding)
            hits = top_k(cands, scores, k)
            return [ScoredItem(item=h.item.model_copy(deep=True), score=h.score) for h in hits]
        return [ScoredItem(item=c.model_copy(deep=True), score=0.0) for c in newest_first(cands)[:k]]

    def _keyword_search(
        self, namespace: str, text: str, k: int, where: Where | None, include_invalid: bool
    ) -> list[ScoredItem]:
        """Hits of the namespace's BM25 index, best first, filtered until k are eligible."""
        items = self._items.get(namespace, {})
        now, where = utcnow(), where_without_nul(where)
        out: list[ScoredItem] = []
        for item_id, score in self._kw.ranked(namespace, text):
            it = items.get(item_id)
            if it is not None and _eligible(it, where, include_invalid, now):
                out.append(ScoredItem(item=it.model_copy(deep=True), score=score))
                if len(out) == k:
                    break
        return out

    def list(self, namespace: str, *, where: Where | None = None, include_invalid: bool = True) -> list[MemoryItem]:
        items = self._live(namespace, where, include_invalid)
        items.sort(key=lambda it: (it.created_at, it.id))
        return [i.model_copy(deep=True) for i in items]

    def count(self, namespace: str | None = None) -> int:
        if namespace is None:
            return sum(len(v) for v in self._items.values())
        return len(self._items.get(namespace, {}))

    def reset(self, namespace: str | None = None) -> None:
        with self._lock:
            if namespace is None:
                self._items.clear()
                self._vecs.clear()
            else:
                self._items.pop(namespace, None)
                self._vecs.pop(namespace, None)
            self._kw.drop(namespace)

    def close(self) -> None:
        pass


def _eligible(it: MemoryItem, where: Where | None, include_invalid: bool, now: datetime) -> bool:
    live = include_invalid or (it.valid and (it.expires_at is None or it.expires_at > now))
    return live and matches(it, where)


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    n = float(np.linalg.norm(v))
    return v / n if n else v
