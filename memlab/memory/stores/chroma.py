"""Chroma memory store: embedded (``PersistentClient``) or client/server (``HttpClient``).

Design, and why:

* **One collection, namespace in every filter.** All namespaces share one collection and
  every read carries an equality condition on the namespace (built in one place,
  :meth:`_base`: ``_ns``, or ``_s`` = ``[namespace, state]``, so one selective condition
  replaces namespace AND valid AND has-vector), and results are re-checked in Python
  against the item's own namespace.
  Collection-per-namespace was rejected: collection names are limited to 3-512 chars of
  ``[a-zA-Z0-9._-]`` (namespaces are arbitrary strings: ``a%``, quotes, unicode), and a run
  with thousands of conversations would create thousands of HNSW segments and file handles.
  The price, measured at 10k rows: chroma evaluates a where-condition against the whole
  collection, so a filtered query costs ~15-20 ms where an unfiltered one costs ~4 ms (see
  benchmarks/store_bench.py and docs/backends.md).
* **Namespaced record ids.** Chroma ids are unique per collection while memlab ids are
  unique per namespace, so the chroma id is a hash of ``[namespace, id]``. ``get``/``delete``
  of another namespace's id therefore cannot address it (and are also filtered on ``_ns``).
* **Exact round-trip.** Chroma metadata values must be scalars, so the full item is kept as
  JSON in ``_item``; the few other keys exist only for filtering (``_kind`` and string-valued
  user metadata ``m.<key>`` are stored as the JSON pair ``[namespace, value]`` so each filter
  condition is selective). Timestamps are not copied into scalar keys: recency order and
  expiry are evaluated in Python on the decoded items (chroma metadata reads cost per key, see
  :meth:`_meta`). Where filters on string values (and ``kind``) are pushed into chroma; any other
  value type is filtered in Python with :func:`memlab.memory.stores.base.matches` and the
  vector query is restricted to the surviving ids, so results stay exact.
* **No embedding function.** Chroma's ``DefaultEmbeddingFunction`` downloads an ONNX model
  (fails offline), so the collection is created and reopened with ``embedding_function=None``
  and embeddings are always passed. Items added without an embedding get a placeholder
  vector and the state ``n`` (no vector) in ``_s``, so vector search never returns them.
* **Complete top-k.** If chroma returns fewer than ``k`` hits while more rows are eligible,
  the query is answered exactly in numpy over the eligible rows.
* **Keyword search** uses the same BM25 index as the in-memory store
  (:class:`memlab.memory.keyword.KeywordIndex`, in this process): a namespace's documents
  are read from chroma once, on its first keyword query, and the index then follows this
  store's own add/update/delete/reset. Hits are fetched by id, best first, and filtered
  (validity, expiry, ``where``) until k pass. A write by *another* process to the same
  namespace on a shared chroma server is not seen by this index until the store is reopened
  (memlab gives concurrent units separate namespaces).
* **One writer per directory.** Two processes writing one persistent directory corrupt it
  (chroma's ``Error finding id``), so the embedded store takes a non-blocking ``flock`` on
  ``<path>/memlab.lock`` and a second opener gets a :class:`StoreError` naming the
  directory and the holder's pid. Use a directory per concurrent run, or a chroma server.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from pydantic import Field, field_validator

from memlab.memory.item import MemoryItem, ScoredItem, utcnow
from memlab.memory.keyword import KeywordIndex
from memlab.memory.stores.base import (
    StoreError,
    StoreOptions,
    Where,
    matches,
    newest_first,
    ranked,
    top_k,
    where_without_nul,
    without_nul,
)

_COLLECTION_RE = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$")
LOCK_NAME = "memlab.lock"


_F = TypeVar("_F", bound=Callable[..., Any])


def _store_op(what: str) -> Callable[[_F], _F]:
    """Turn any chromadb/httpx failure inside a store method into a StoreError that names the
    backend, its address and the operation (a server that went away mid-run, a full disk...).

    StoreError and KeyError (an unknown item on ``update``) are the store's own answers and
    pass through unchanged."""

    def deco(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(self: ChromaStore, *args: Any, **kwargs: Any) -> Any:
            try:
                return fn(self, *args, **kwargs)
            except (StoreError, KeyError):
                raise
            except Exception as e:
                raise StoreError(f"chroma at {self.address}: {what} failed: {type(e).__name__}: {e}") from e

        return wrapper  # type: ignore[return-value]

    return deco


def chroma_id(namespace: str, item_id: str) -> str:
    """Collection-wide record id for a (namespace, id) pair."""
    return hashlib.blake2b(json.dumps([namespace, item_id]).encode(), digest_size=16).hexdigest()


class ChromaStore:
    """Memory store on chromadb, embedded by default, or against a chroma server with ``host``."""

    name = "chroma"

    class Options(StoreOptions):
        """``store_options.chroma`` / ``store: {type: chroma, ...}`` (docs/backends.md)."""

        path: str | None = Field(default=None, description="Persistent directory (default: inside the run folder).")
        host: str | None = Field(default=None, description="A chroma server to use instead of an embedded store.")
        port: int = Field(default=8000, ge=1, le=65_535)
        collection: str = Field(default="memlab", description="Collection name (3-512 chars of [a-zA-Z0-9._-]).")
        dim: int = Field(default=384, ge=1, le=16_000, description="Embedding dimension (MiniLM: 384).")
        ef_search: int = Field(default=100, ge=1, le=10_000, description="HNSW candidates per query.")
        ef_construction: int = Field(default=100, ge=1, le=10_000, description="HNSW candidates while indexing.")
        max_neighbors: int = Field(default=16, ge=2, le=1_000, description="HNSW graph degree (M).")

        @field_validator("collection")
        @classmethod
        def _collection_name(cls, v: str) -> str:
            if not _COLLECTION_RE.match(v) or ".." in v:
                raise ValueError(f"invalid collection name {v!r} (3-512 chars of [a-zA-Z0-9._-], "
                                 "starting and ending alphanumeric)")
            return v

        def in_folder(self, folder: Path) -> ChromaStore.Options:
            """An embedded store (no ``host``) without a ``path`` keeps its files in the run's folder."""
            if self.host or self.path is not None:
                return self
            return self.model_copy(update={"path": str(folder / "chroma")})

    def __init__(self, options: Options | None = None) -> None:
        try:
            import chromadb
            from chromadb.config import Settings
        except ImportError as e:  # pragma: no cover - optional extra
            raise StoreError("chroma: chromadb is not installed; pip install 'memlab[chroma]'") from e
        options = options or self.Options()
        path, host, collection = options.path, options.host, options.collection
        self.collection_name = collection
        self.dim = options.dim
        self._hnsw = {
            "space": "cosine",
            "ef_search": options.ef_search,
            "ef_construction": options.ef_construction,
            "max_neighbors": options.max_neighbors,
        }
        self._lock_fh: Any = None
        self._mu = threading.RLock()
        self._kw = KeywordIndex()
        self._closed = False
        self.host = host
        self.port = options.port
        settings = Settings(anonymized_telemetry=False)
        self._chromadb_version = getattr(chromadb, "__version__", "?")
        if host:
            self.path = None
            try:
                self._client = chromadb.HttpClient(host=host, port=self.port, settings=settings)
                self._client.heartbeat()
            except Exception as e:
                raise StoreError(
                    f"chroma: cannot reach the chroma server at {host}:{self.port} ({type(e).__name__}: {e}). "
                    "Start one with `scripts/chroma_server.sh start` or use the embedded store (no host)."
                ) from e
        else:
            self.path = str(Path(path or ".memlab/chroma").expanduser().resolve())
            os.makedirs(self.path, exist_ok=True)
            self._acquire_lock()
            try:
                self._client = chromadb.PersistentClient(path=self.path, settings=settings)
            except Exception as e:
                self._release_lock()
                raise StoreError(f"chroma: cannot open persistent directory {self.path}: {e}") from e
        try:
            self._col = self._open_collection()
        except Exception as e:
            self.close()
            raise StoreError(f"chroma at {self.address}: cannot open collection {collection!r}: {e}") from e

    # ------------------------------------------------------------------ setup

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}" if self.host else str(self.path)

    def _acquire_lock(self) -> None:
        assert self.path is not None
        lock_path = os.path.join(self.path, LOCK_NAME)
        fh = open(lock_path, "a+")  # noqa: SIM115 - held for the store's lifetime
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            fh.close()
            raise StoreError(
                f"chroma: persistent directory {self.path} is already opened by pid {holder}; "
                "use a separate directory per concurrent run (chroma supports one writer process per "
                "directory), or run a chroma server (scripts/chroma_server.sh) and pass host=..."
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        self._lock_fh = fh

    def _release_lock(self) -> None:
        if self._lock_fh is not None:
            try:
                fcntl.flock(self._lock_fh.fileno(), fcntl.LOCK_UN)
            finally:
                self._lock_fh.close()
                self._lock_fh = None

    def _open_collection(self) -> Any:
        try:
            return self._client.get_collection(self.collection_name, embedding_function=None)
        except Exception:
            return self._client.get_or_create_collection(
                self.collection_name, embedding_function=None, configuration={"hnsw": dict(self._hnsw)}
            )

    def describe(self) -> dict[str, object]:
        cfg: Any = dict(self._hnsw)
        try:
            with warnings.catch_warnings():  # chroma warns about the (absent) embedding function config
                warnings.simplefilter("ignore")
                cfg = (self._col.configuration or {}).get("hnsw") or cfg
        except Exception:
            pass
        return {
            "backend": self.name,
            "mode": "http" if self.host else "embedded",
            "address": self.address,
            "collection": self.collection_name,
            "chromadb": self._chromadb_version,
            "index": f"hnsw {cfg}",
            "keyword": "BM25 (bm25s, lucene, k1=1.2 b=0.75) over English-stemmed terms, in-process index per namespace",
            "namespace_isolation": "single collection, namespace condition on every read, namespaced record ids",
        }

    # ------------------------------------------------------------------ encoding

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"chroma store at {self.address} is closed")

    def _meta(self, item: MemoryItem, has_vec: bool) -> dict[str, Any]:
        """Chroma metadata for an item: as few keys as possible.

        Chroma stores metadata one row per key and its reads cost roughly linear in the number
        of keys (10k rows: a 100-row read took 4 ms with 2 keys, 17 ms with 15), and every
        where-condition is evaluated against the whole collection, so a non-selective one such
        as ``valid == True`` costs ~10 ms per 10k rows. Hence: no redundant scalar copies of the
        item's fields, and one selective ``_s`` key ``[namespace, state]`` (state: l/i = valid or
        invalid, v/n = has a vector or not) so a query needs one equality condition instead of
        namespace AND valid AND has-vector. Expiry is checked in Python."""
        ns = item.namespace
        md: dict[str, Any] = {
            "_ns": ns,
            "_s": _scoped(ns, ("l" if item.valid else "i") + ("v" if has_vec else "n")),
            "_kind": _scoped(ns, item.kind),
            "_item": item.model_dump_json(),
        }
        for k, v in item.metadata.items():
            if isinstance(v, str):
                md["m." + k] = _scoped(ns, v)
        return md

    @staticmethod
    def _has_vec(md: dict[str, Any]) -> bool:
        try:
            return str(json.loads(md["_s"])[1]).endswith("v")
        except (KeyError, ValueError, IndexError, TypeError):
            return False

    @staticmethod
    def _item(md: dict[str, Any]) -> MemoryItem:
        return MemoryItem.model_validate_json(md["_item"])

    def _vecs(self, embeddings: np.ndarray | None, n: int) -> np.ndarray:
        if embeddings is None:
            out = np.zeros((n, self.dim), dtype=np.float32)
            out[:, 0] = 1.0  # placeholder (cosine needs a non-zero vector); state "n" in _s hides it
            return out
        arr = np.asarray(embeddings, dtype=np.float32).reshape(n, -1)
        if arr.shape[1] != self.dim:
            raise StoreError(f"chroma: embeddings have {arr.shape[1]} dims, store expects {self.dim}")
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return arr / norms

    @staticmethod
    def _base(namespace: str, include_invalid: bool, need_vec: bool = False) -> list[dict[str, Any]]:
        """The namespace condition every read starts from (expiry is checked in Python)."""
        if need_vec:
            states = ["lv", "iv"] if include_invalid else ["lv"]
        elif include_invalid:
            return [{"_ns": {"$eq": namespace}}]
        else:
            states = ["lv", "ln"]
        vals = [_scoped(namespace, st) for st in states]
        return [{"_s": {"$eq": vals[0]}} if len(vals) == 1 else {"_s": {"$in": vals}}]

    @staticmethod
    def _pushdown(namespace: str, where: Where | None) -> tuple[list[dict[str, Any]], bool]:
        """Chroma conditions for the part of ``where`` chroma can evaluate exactly; flag = all of it.

        Only string values are pushed down (chroma keeps int/float/bool types apart, Python's
        ``==`` does not); values are namespace-scoped so each condition is selective."""
        conds: list[dict[str, Any]] = []
        exact = True
        for key, want in (where or {}).items():
            field = "_kind" if key == "kind" else "m." + key
            if isinstance(want, str):
                conds.append({field: {"$eq": _scoped(namespace, want)}})
            elif isinstance(want, (list, tuple, set)) and want and all(isinstance(w, str) for w in want):
                conds.append({field: {"$in": [_scoped(namespace, w) for w in want]}})
            else:
                exact = False
        return conds, exact

    @staticmethod
    def _and(conds: list[dict[str, Any]]) -> dict[str, Any]:
        return conds[0] if len(conds) == 1 else {"$and": conds}

    def _live(self, item: MemoryItem, where: Where | None, include_invalid: bool) -> bool:
        if not include_invalid and (not item.valid or (item.expires_at is not None and item.expires_at <= utcnow())):
            return False
        return matches(item, where)

    def _candidates(
        self, namespace: str, where: Where | None, include_invalid: bool, *, need_vec: bool = False
    ) -> list[tuple[str, MemoryItem]]:
        """(chroma id, item) of every eligible row, filtered exactly in Python."""
        push, _ = self._pushdown(namespace, where)
        res = self._col.get(
            where=self._and(self._base(namespace, include_invalid, need_vec) + push), include=["metadatas"]
        )
        out = []
        for cid, md in zip(res["ids"], res["metadatas"] or []):
            if md is None or md.get("_ns") != namespace:
                continue
            it = self._item(md)
            if self._live(it, where, include_invalid):
                out.append((cid, it))
        return out

    def _existing(self, cids: list[str], include: list[str]) -> dict[str, tuple[dict[str, Any], Any]]:
        """Stored metadata/embeddings by chroma id (chunked: chroma bounds ids per request)."""
        out: dict[str, tuple[dict[str, Any], Any]] = {}
        for lo in range(0, len(cids), 5000):
            res = self._col.get(ids=cids[lo : lo + 5000], include=include)
            mds = res.get("metadatas") or [None] * len(res["ids"])
            embs = res.get("embeddings")
            if embs is None:
                embs = [None] * len(res["ids"])
            out.update({cid: (md or {}, emb) for cid, md, emb in zip(res["ids"], mds, embs)})
        return out

    # ------------------------------------------------------------------ protocol

    @_store_op("add")
    def add(self, items: Sequence[MemoryItem], embeddings: np.ndarray | None = None) -> None:
        self._check_open()
        if not items:
            return
        if embeddings is not None and len(embeddings) != len(items):
            raise StoreError(f"chroma: {len(items)} items but {len(embeddings)} embeddings")
        items = [without_nul(it, self.name) for it in items]
        vecs = self._vecs(embeddings, len(items))
        batch = max(1, int(self._client.get_max_batch_size()) if hasattr(self._client, "get_max_batch_size") else 4000)
        with self._mu:
            for lo in range(0, len(items), batch):
                chunk = list(items[lo : lo + batch])
                cvecs = vecs[lo : lo + batch].copy()
                cids = [chroma_id(it.namespace, it.id) for it in chunk]
                # chroma keeps the first copy of a duplicate id within one call; the reference store keeps the last
                last = {cid: i for i, cid in enumerate(cids)}
                keep = sorted(last.values())
                chunk, cids, cvecs = [chunk[i] for i in keep], [cids[i] for i in keep], cvecs[keep]
                has_vec = [embeddings is not None] * len(chunk)
                old = self._existing(cids, ["metadatas", "embeddings"] if embeddings is None else ["metadatas"])
                metas = []
                for i, (cid, it) in enumerate(zip(cids, chunk)):
                    omd, oemb = old.get(cid, ({}, None))
                    if embeddings is None and self._has_vec(omd):  # re-add without a vector keeps the old one
                        cvecs[i] = np.asarray(oemb, dtype=np.float32)
                        has_vec[i] = True
                    md = self._meta(it, has_vec[i])
                    if cid in old:  # upsert merges metadata: clear keys the new version lacks
                        for k in omd:
                            if k not in md:
                                md[k] = None
                    metas.append(md)
                self._col.upsert(ids=cids, embeddings=cvecs, documents=[it.text for it in chunk], metadatas=metas)
                for it in chunk:
                    if self._kw.loaded(it.namespace):
                        self._kw.put(it.namespace, it.id, it.text, it.created_at)

    @_store_op("get")
    def get(self, namespace: str, ids: Sequence[str]) -> list[MemoryItem]:
        self._check_open()
        if not ids:
            return []
        res = self._col.get(ids=[chroma_id(namespace, i) for i in dict.fromkeys(ids)], where={"_ns": {"$eq": namespace}}, include=["metadatas"])
        by_id: dict[str, MemoryItem] = {}
        for md in res["metadatas"] or []:
            if md and md.get("_ns") == namespace:
                it = self._item(md)
                by_id[it.id] = it
        return [by_id[i].model_copy(deep=True) for i in ids if i in by_id]

    @_store_op("update")
    def update(self, item: MemoryItem, embedding: np.ndarray | None = None) -> None:
        self._check_open()
        item = without_nul(item, self.name)
        cid = chroma_id(item.namespace, item.id)
        with self._mu:
            old = self._existing([cid], ["metadatas", "embeddings"])
            if cid not in old or old[cid][0].get("_ns") != item.namespace:
                raise KeyError(f"no item {item.id!r} in namespace {item.namespace!r}")
            omd, oemb = old[cid]
            if embedding is not None:
                vec, has_vec = self._vecs(np.asarray(embedding).reshape(1, -1), 1), True
            else:
                vec, has_vec = np.asarray(oemb, dtype=np.float32).reshape(1, -1), self._has_vec(omd)
            md = self._meta(item, has_vec)
            for k in omd:
                if k not in md:
                    md[k] = None
            self._col.update(ids=[cid], embeddings=vec, documents=[item.text], metadatas=[md])
            if self._kw.loaded(item.namespace):
                self._kw.put(item.namespace, item.id, item.text, item.created_at)

    @_store_op("delete")
    def delete(self, namespace: str, ids: Sequence[str]) -> int:
        self._check_open()
        if not ids:
            return 0
        with self._mu:
            cids = [chroma_id(namespace, i) for i in dict.fromkeys(ids)]
            res = self._col.get(ids=cids, where={"_ns": {"$eq": namespace}}, include=[])
            found = list(res["ids"])
            if found:
                self._col.delete(ids=found)
                self._kw.remove(namespace, list(ids))
            return len(found)

    @_store_op("search")
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
        self._check_open()
        if k <= 0:
            return []
        where = where_without_nul(where)
        if embedding is not None:
            return self._vector_search(namespace, embedding, k, where, include_invalid)
        if text is not None:
            return self._keyword_search(namespace, text, k, where, include_invalid)
        cands = [it for _, it in self._candidates(namespace, where, include_invalid)]
        return [ScoredItem(item=c, score=0.0) for c in newest_first(cands)[:k]]

    def _keyword_search(
        self, namespace: str, text: str, k: int, where: Where | None, include_invalid: bool
    ) -> list[ScoredItem]:
        """BM25 hits best first; items are fetched by id in growing chunks until k pass the filters."""
        with self._mu:
            if not self._kw.loaded(namespace):
                res = self._col.get(where={"_ns": {"$eq": namespace}}, include=["metadatas"])
                items = [self._item(md) for md in res["metadatas"] or [] if md and md.get("_ns") == namespace]
                self._kw.load(namespace, ((it.id, it.text, it.created_at) for it in items))
        hits = self._kw.ranked(namespace, text)
        out: list[ScoredItem] = []
        lo, chunk = 0, max(2 * k, 32)
        while lo < len(hits) and len(out) < k:
            part = hits[lo : lo + chunk]
            got = self._existing([chroma_id(namespace, i) for i, _ in part], ["metadatas"])
            for item_id, score in part:
                md = got.get(chroma_id(namespace, item_id), ({}, None))[0]
                if md.get("_ns") != namespace:
                    continue
                it = self._item(md)
                if self._live(it, where, include_invalid):
                    out.append(ScoredItem(item=it, score=score))
                    if len(out) == k:
                        break
            lo, chunk = lo + len(part), chunk * 2
        return out

    def _vector_search(
        self, namespace: str, embedding: np.ndarray, k: int, where: Where | None, include_invalid: bool
    ) -> list[ScoredItem]:
        q = self._vecs(np.asarray(embedding).reshape(1, -1), 1)
        push, exact = self._pushdown(namespace, where)
        conds = self._base(namespace, include_invalid, need_vec=True) + push
        out: list[ScoredItem] = []
        if exact:
            # one hit more than asked: a tie at the k-th place means HNSW chose among equals by
            # graph layout (insertion order), so the exact scan below decides instead
            res = self._col.query(
                query_embeddings=q, n_results=k + 1, where=self._and(conds), include=["metadatas", "distances"]
            )
            returned = len(res["ids"][0])
            for md, dist in zip(res["metadatas"][0], res["distances"][0]):
                if md and md.get("_ns") == namespace:
                    it = self._item(md)
                    if self._live(it, where, include_invalid):
                        out.append(ScoredItem(item=it, score=float(1.0 - dist)))
            out = ranked(out)
            if len(out) > k and out[k - 1].score != out[k].score:
                return out[:k]
            if len(out) > k:
                out = []  # tie at the boundary: decide exactly
            elif len(out) == returned:
                # Nothing was dropped in Python: short only if chroma's filtered HNSW walk gave
                # up early. Counting the matching ids (cheap) tells.
                n_match = len(self._col.get(where=self._and(conds), include=[])["ids"])
                if n_match <= len(out):
                    return out
        # short answer, expired rows in the top-k, or a filter chroma cannot express:
        # exact scan over the eligible rows
        eligible = self._candidates(namespace, where, include_invalid, need_vec=True)
        if exact and out and len(eligible) <= len(out):
            return out
        if not eligible:
            return []
        got = self._existing([cid for cid, _ in eligible], ["embeddings"])
        mat = np.stack([np.asarray(got[cid][1], dtype=np.float32) for cid, _ in eligible])
        scores = mat @ q[0]
        return top_k([it for _, it in eligible], scores, k)

    @_store_op("list")
    def list(self, namespace: str, *, where: Where | None = None, include_invalid: bool = True) -> list[MemoryItem]:
        self._check_open()
        items = [it for _, it in self._candidates(namespace, where_without_nul(where), include_invalid)]
        items.sort(key=lambda it: (it.created_at, it.id))
        return items

    @_store_op("count")
    def count(self, namespace: str | None = None) -> int:
        self._check_open()
        if namespace is None:
            return int(self._col.count())
        return len(self._col.get(where={"_ns": {"$eq": namespace}}, include=[])["ids"])

    @_store_op("reset")
    def reset(self, namespace: str | None = None) -> None:
        self._check_open()
        with self._mu:
            self._kw.drop(namespace)
            if namespace is None:
                self._client.delete_collection(self.collection_name)
                self._col = self._open_collection()
            else:
                self._col.delete(where={"_ns": {"$eq": namespace}})

    @_store_op("purge")
    def purge_prefix(self, prefix: str, *, dry_run: bool = False) -> int:
        """Delete (or with ``dry_run`` count) the items of every namespace that starts with ``prefix``
        (a finished run's memories, ``memlab stores purge``). Chroma cannot filter metadata by prefix,
        so the collection's namespaces are read page by page."""
        self._check_open()
        page, offset, ids = 5000, 0, []
        with self._mu:
            while True:
                got = self._col.get(include=["metadatas"], limit=page, offset=offset)
                if not got["ids"]:
                    break
                ids += [i for i, md in zip(got["ids"], got["metadatas"]) if str((md or {}).get("_ns", "")).startswith(prefix)]
                offset += len(got["ids"])
            if not dry_run:
                for start in range(0, len(ids), page):
                    self._col.delete(ids=ids[start:start + page])
                self._kw.drop(None)
        return len(ids)

    def close(self) -> None:
        with self._mu:
            if self._closed:
                return
            self._closed = True
            try:
                close = getattr(self._client, "close", None) if hasattr(self, "_client") else None
                if close is not None:
                    close()
            finally:
                self._release_lock()

    def __enter__(self) -> ChromaStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _scoped(namespace: str, value: str) -> str:
    """A string metadata value qualified by its namespace (injective: a JSON pair)."""
    return json.dumps([namespace, value], ensure_ascii=False)


