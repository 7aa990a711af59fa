"""Exact in-process store: numpy cosine search, BM25 keyword index. The recall reference for other backends.

**Cost per call does not grow with the namespace in Python.** A namespace keeps its items in
insertion order beside parallel arrays (a float32 matrix of unit vectors, validity, kind codes,
whether an item has an expiry), so a vector search is a few numpy operations over the rows —
eligibility as a mask, scores as one matrix-vector product, the top k by partition — and only
the k best items are touched in Python. Listing a kind walks that kind's ids only. (Before, every
search and listing visited every item of the namespace in Python and deep-copied what it
returned; the strategies that list or search per turn were quadratic in a conversation's length.)

**Items handed out are read-only views.** ``get``, ``list`` and ``search`` return the stored
objects themselves, not copies: a caller that wants a changed item makes one with
``item.model_copy(update=...)`` and writes it back with ``update`` — every component does.
Writes still copy what they are given (``add``/``update`` deep-copy the caller's item), so a
caller's later change to its own object never reaches the store.

Results are those of the former implementation to the last bit: the candidates of a vector
search are stacked in the same (insertion) order and multiplied by the same unit query, so every
score is the same float, and ties are ranked by the same rule (:func:`~memlab.memory.stores.base.top_k`).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memlab.memory.item import MemoryItem, ScoredItem, utcnow
from memlab.memory.keyword import KeywordIndex
from memlab.memory.stores.base import StoreOptions, Where, matches, newest_first, top_k, where_without_nul, without_nul


class _Space:
    """One namespace: items by id in insertion order, and per row the arrays a search masks.

    A row is given to an id when it is first added and kept by updates; a deleted id's row is
    freed (dead) and an id added again gets a new row at the end — so row order is always the
    items' insertion order, which is the candidate order every search uses."""

    def __init__(self) -> None:
        self.items: dict[str, MemoryItem] = {}
        self.row: dict[str, int] = {}
        self.ids: list[str | None] = []
        self.by_kind: dict[str, dict[str, None]] = {}
        self.kind_code: dict[str, int] = {}
        cap = 16
        self.vecs: np.ndarray | None = None
        self.alive = np.zeros(cap, dtype=bool)
        self.has_vec = np.zeros(cap, dtype=bool)
        self.valid = np.zeros(cap, dtype=bool)
        self.expiring = np.zeros(cap, dtype=bool)
        self.kind = np.zeros(cap, dtype=np.int32)
        self.dead = 0
        self.rev = 0

    @property
    def n(self) -> int:
        return len(self.ids)

    def _grow(self) -> None:
        cap = max(16, 2 * len(self.alive))
        for name in ("alive", "has_vec", "valid", "expiring", "kind"):
            old = getattr(self, name)
            new = np.zeros(cap, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)
        if self.vecs is not None:
            vecs = np.zeros((cap, self.vecs.shape[1]), dtype=np.float32)
            vecs[: len(self.vecs)] = self.vecs
            self.vecs = vecs

    def put(self, item: MemoryItem, vec: np.ndarray | None) -> None:
        """Insert or replace ``item`` (a private copy); ``vec`` (a unit vector) replaces its
        vector when given, else an existing one is kept."""
        old = self.items.get(item.id)
        r = self.row.get(item.id)
        if r is None:
            if self.n == len(self.alive):
                self._grow()
            r = self.n
            self.row[item.id] = r
            self.ids.append(item.id)
            self.alive[r] = True
        if old is not None and old.kind != item.kind:
            self.by_kind[old.kind].pop(item.id, None)
        self.items[item.id] = item
        self.by_kind.setdefault(item.kind, {})[item.id] = None
        self.valid[r] = item.valid
        self.expiring[r] = item.expires_at is not None
        self.kind[r] = self.kind_code.setdefault(item.kind, len(self.kind_code))
        if vec is not None:
            if self.vecs is None:
                self.vecs = np.zeros((len(self.alive), vec.shape[0]), dtype=np.float32)
            self.vecs[r] = vec
            self.has_vec[r] = True

    def remove(self, item_id: str) -> bool:
        item = self.items.pop(item_id, None)
        if item is None:
            return False
        self.by_kind[item.kind].pop(item_id, None)
        r = self.row.pop(item_id)
        self.ids[r] = None
        self.alive[r] = self.has_vec[r] = False
        self.dead += 1
        if self.dead > max(64, len(self.items)):
            self._compact()
        return True

    def _compact(self) -> None:
        """Drop dead rows, keeping the live ones in order (amortised: at most one row moved per delete)."""
        keep = np.flatnonzero(self.alive[: self.n])
        self.ids = [self.ids[r] for r in keep]
        self.row = {i: k for k, i in enumerate(self.ids)}
        cap = max(16, len(keep) * 2)
        for name in ("alive", "has_vec", "valid", "expiring", "kind"):
            old = getattr(self, name)
            new = np.zeros(cap, dtype=old.dtype)
            new[: len(keep)] = old[keep]
            setattr(self, name, new)
        if self.vecs is not None:
            vecs = np.zeros((cap, self.vecs.shape[1]), dtype=np.float32)
            vecs[: len(keep)] = self.vecs[keep]
            self.vecs = vecs
        self.dead = 0

    def eligible_rows(self, where: Where | None, include_invalid: bool, now: datetime) -> np.ndarray:
        """Rows (in insertion order) of the items a read may return: valid and unexpired unless
        ``include_invalid``, and matching ``where``. Vectorised except for the rare rows with an
        expiry and for metadata filters, which are checked item by item."""
        n = self.n
        mask = self.alive[:n].copy()
        if not include_invalid:
            mask &= self.valid[:n]
        rest = dict(where or {})
        if "kind" in rest:
            want = rest.pop("kind")
            kinds = want if isinstance(want, (list, tuple, set)) else [want]
            codes = [self.kind_code[k] for k in kinds if isinstance(k, str) and k in self.kind_code]
            mask &= np.isin(self.kind[:n], codes) if len(codes) != 1 else self.kind[:n] == codes[0]
        rows = np.flatnonzero(mask)
        if not include_invalid:
            timed = rows[self.expiring[rows]]
            if len(timed):  # the rare items with a (wall-clock) expiry, checked one by one
                gone = [r for r in timed if not self.items[self.ids[r]].expires_at > now]
                if gone:
                    rows = rows[~np.isin(rows, gone)]
        if rest:
            rows = np.array([r for r in rows if matches(self.items[self.ids[r]], rest)], dtype=np.int64)
        return rows


class _Rows(Sequence):
    """The items of some rows, materialised only when indexed (a search touches the top k only)."""

    def __init__(self, space: _Space, rows: np.ndarray) -> None:
        self.space, self.rows = space, rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i):  # type: ignore[override]
        return self.space.items[self.space.ids[int(self.rows[i])]]


class InMemoryStore:
    name = "in_memory"

    class Options(StoreOptions):
        """The in-memory store takes no options."""

    def __init__(self, options: Options | None = None) -> None:
        self._spaces: dict[str, _Space] = {}
        self._kw = KeywordIndex()
        self._lock = threading.Lock()
        self._writes = 0
        self.work: Counter[str] = Counter()
        """Deterministic work counts (benchmarks/tests of per-turn cost): ``items_out`` items handed
        out, ``python_scanned`` items checked one by one in Python, ``rows_scored`` vector rows
        scored in numpy, ``writes`` items written."""

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
                space = self._spaces.setdefault(item.namespace, _Space())
                space.put(item.model_copy(deep=True), _unit(embeddings[i]) if embeddings is not None else None)
                self._kw.put(item.namespace, item.id, item.text, item.created_at)
                space.rev = self._writes = self._writes + 1
            self.work["writes"] += len(items)

    def get(self, namespace: str, ids: Sequence[str]) -> list[MemoryItem]:
        space = self._spaces.get(namespace)
        if space is None:
            return []
        out = [space.items[i] for i in ids if i in space.items]
        self.work["items_out"] += len(out)
        return out

    def update(self, item: MemoryItem, embedding: np.ndarray | None = None) -> None:
        item = without_nul(item, self.name)
        with self._lock:
            space = self._spaces.get(item.namespace)
            if space is None or item.id not in space.items:
                raise KeyError(f"no item {item.id!r} in namespace {item.namespace!r}")
            space.put(item.model_copy(deep=True), _unit(embedding) if embedding is not None else None)
            self._kw.put(item.namespace, item.id, item.text, item.created_at)
            space.rev = self._writes = self._writes + 1
            self.work["writes"] += 1

    def delete(self, namespace: str, ids: Sequence[str]) -> int:
        with self._lock:
            space = self._spaces.get(namespace)
            n = sum(space.remove(i) for i in ids) if space is not None else 0
            if n:
                space.rev = self._writes = self._writes + 1
            self._kw.remove(namespace, ids)
            self.work["writes"] += n
            return n

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
        space = self._spaces.get(namespace)
        if space is None:
            return []
        rows = space.eligible_rows(where_without_nul(where), include_invalid, utcnow())
        if embedding is not None:
            rows = rows[space.has_vec[rows]] if len(rows) else rows
            if not len(rows):
                return []
            # the candidates' vectors stacked in insertion order (as np.stack of them was), times the unit
            # query. BLAS results depend on the matrix's row count, so the candidates are multiplied on
            # their own, not picked out of all rows' scores; a contiguous run of rows needs no copy
            first, last = int(rows[0]), int(rows[-1])
            mat = space.vecs[first:last + 1] if last - first + 1 == len(rows) else space.vecs[rows]
            with _one_blas_thread():  # a small product: BLAS threads only spin (same scores either way)
                scores = mat @ _unit(embedding)
            self.work["rows_scored"] += len(rows)
            hits = top_k(_Rows(space, rows), scores, k)
            self.work["items_out"] += len(hits)
            return hits
        cands = [space.items[space.ids[r]] for r in rows]
        self.work["python_scanned"] += len(cands)
        hits = [ScoredItem(item=c, score=0.0) for c in newest_first(cands)[:k]]
        self.work["items_out"] += len(hits)
        return hits

    def _keyword_search(
        self, namespace: str, text: str, k: int, where: Where | None, include_invalid: bool
    ) -> list[ScoredItem]:
        """Hits of the namespace's BM25 index, best first, filtered until k are eligible."""
        space = self._spaces.get(namespace)
        items = space.items if space is not None else {}
        now, where = utcnow(), where_without_nul(where)
        out: list[ScoredItem] = []
        for item_id, score in self._kw.ranked(namespace, text):
            it = items.get(item_id)
            self.work["python_scanned"] += 1
            if it is not None and _eligible(it, where, include_invalid, now):
                out.append(ScoredItem(item=it, score=score))
                if len(out) == k:
                    break
        self.work["items_out"] += len(out)
        return out

    def list(self, namespace: str, *, where: Where | None = None, include_invalid: bool = True) -> list[MemoryItem]:
        space = self._spaces.get(namespace)
        if space is None:
            return []
        where = where_without_nul(where)
        kind = (where or {}).get("kind")
        if isinstance(kind, str):  # walk that kind's ids only
            rest = {k: v for k, v in where.items() if k != "kind"}
            now = utcnow()
            pool = [space.items[i] for i in space.by_kind.get(kind, ())]
            items = [it for it in pool if _eligible(it, rest, include_invalid, now)]
        else:
            rows = space.eligible_rows(where, include_invalid, utcnow())
            pool = items = [space.items[space.ids[r]] for r in rows]
        self.work["python_scanned"] += len(pool)
        items.sort(key=lambda it: (it.created_at, it.id))
        self.work["items_out"] += len(items)
        return items

    def revision(self, namespace: str) -> int:
        """A number that changes whenever the namespace does (0: empty, never written). A component
        that keeps an index of what it read can tell whether anyone wrote since (see
        :class:`~memlab.strategies.consolidator.conflict_resolve.ConflictResolve`); other backends do not offer it."""
        space = self._spaces.get(namespace)
        return space.rev if space is not None else 0

    def count(self, namespace: str | None = None) -> int:
        if namespace is None:
            return sum(len(s.items) for s in self._spaces.values())
        space = self._spaces.get(namespace)
        return len(space.items) if space is not None else 0

    def reset(self, namespace: str | None = None) -> None:
        with self._lock:
            if namespace is None:
                self._spaces.clear()
            else:
                self._spaces.pop(namespace, None)
            self._kw.drop(namespace)

    def close(self) -> None:
        pass


_BLAS: Any = None


def _one_blas_thread() -> Any:
    """One BLAS thread for a search's matrix-vector product. With the default (a thread per core)
    OpenBLAS splits a few thousand rows across threads that spin waiting for each other, which on
    a busy machine made a search over 2,000 memories cost more than the rest of a turn."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


def _eligible(it: MemoryItem, where: Where | None, include_invalid: bool, now: datetime) -> bool:
    live = include_invalid or (it.valid and (it.expires_at is None or it.expires_at > now))
    return live and matches(it, where)


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    n = float(np.linalg.norm(v))
    return v / n if n else v
