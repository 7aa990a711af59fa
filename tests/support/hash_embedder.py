"""Test double for the embedder: a bag of hashed words, so texts that share words are similar.

Cheap (no model) and deterministic in every process (blake2b, not ``hash``). Tests that play
thousands of turns through every preset use it where MiniLM would cost most of their time; the
strategies see vectors of the same shape and a similarity that still follows shared wording."""

from __future__ import annotations

import hashlib
import re

import numpy as np

_WORD = re.compile(r"[a-z0-9']+")


class HashEmbedder:
    dim = 384
    model_name = "hash-bag-of-words (test double)"

    def __init__(self) -> None:
        self._cache: dict[str, np.ndarray] = {}

    def _vector(self, text: str) -> np.ndarray:
        v = self._cache.get(text)
        if v is None:
            v = np.zeros(self.dim, dtype=np.float32)
            for w in _WORD.findall(text.lower()):
                h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
                v[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
            n = float(np.linalg.norm(v))
            v = v / n if n else v
            self._cache[text] = v
        return v

    def embed(self, texts, *args, **kwargs) -> np.ndarray:
        if not len(texts):
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])
