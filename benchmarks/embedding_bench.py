"""Embedding throughput (issue 12): memlab's numpy MiniLM forward pass vs onnxruntime, same weights.

Builds an ONNX graph of all-MiniLM-L6-v2 offline from the shipped safetensors weights (the
``onnx`` package's graph helpers; no download, no torch), runs it with onnxruntime (installed
with chromadb) on the same token batches memlab uses (equal-length groups), and prints:
parity with the sentence-transformers reference vectors (tests/fixtures/minilm_reference.json)
and with the numpy pass, and texts/s for both at 1 thread. One command::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/embedding_bench.py [--texts 600]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    from memlab.embeddings import MiniLMEmbedder, length_batches
    from memlab.embeddings.onnx import minilm_session

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--texts", type=int, default=600)
    args = ap.parse_args()
    emb = MiniLMEmbedder()
    session = minilm_session(emb)

    def ort_embed(texts: list[str]) -> np.ndarray:
        encs = emb.tok.encode_batch(texts)
        out = np.zeros((len(texts), 384), np.float32)
        for idx in length_batches([len(e.ids) for e in encs], emb.batch_size):
            out[idx] = session.run(["vec"], {"ids": np.array([encs[i].ids for i in idx], np.int64)})[0]
        return out

    ref = json.loads((ROOT / "tests" / "fixtures" / "minilm_reference.json").read_text())
    ref_vecs = np.array(ref["embeddings"], np.float32)
    for name, fn in (("numpy", emb.embed), ("onnxruntime", ort_embed)):
        cos = (fn(ref["sentences"]) * ref_vecs).sum(1)
        print(f"{name:<12} parity with sentence-transformers: min cosine {cos.min():.7f}")
    rng = random.Random(0)
    words = "the a my our cat dog bike train Lisbon code locker rain sun went saw is was note every morning".split()
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(4, 60))) for _ in range(args.texts)]
    a, b = emb.embed(texts), ort_embed(texts)
    print(f"numpy vs onnxruntime on {len(texts)} texts: max |diff| {np.abs(a - b).max():.2e}")
    for name, fn in (("numpy", emb.embed), ("onnxruntime", ort_embed)):
        t0 = time.perf_counter()
        fn(texts)
        dt = time.perf_counter() - t0
        print(f"{name:<12} {len(texts) / dt:7.1f} texts/s (1 thread, {dt:.2f} s)")


if __name__ == "__main__":
    main()
