"""The numpy MiniLM forward pass against vectors produced by the reference implementation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memlab.embeddings import CachedEmbedder, MiniLMEmbedder, shared_embedder

REF = json.loads((Path(__file__).parent / "fixtures" / "minilm_reference.json").read_text())


def test_matches_sentence_transformers_reference():
    # tests/fixtures/minilm_reference.json was produced once by sentence-transformers 6.2 on torch 2.13 (CPU)
    vecs = MiniLMEmbedder().embed(REF["sentences"])  # the numpy pass (the fallback without onnxruntime)
    ref = np.array(REF["embeddings"], dtype=np.float32)
    assert vecs.shape == ref.shape == (len(REF["sentences"]), 384)
    cos = (vecs * ref).sum(axis=1)
    assert cos.min() > 0.99999, cos
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_batching_by_length_does_not_change_vectors():
    e = shared_embedder().inner
    one_by_one = np.stack([e.embed([s])[0] for s in REF["sentences"]])
    batched = e.embed(REF["sentences"])
    assert np.abs(one_by_one - batched).max() < 1e-5


class _Counting:
    """The real MiniLM, counting the texts it is asked to embed."""

    model_id, dim = "counting", 384

    def __init__(self):
        self.inner = shared_embedder().inner
        self.seen = []

    def embed(self, texts):
        self.seen.extend(texts)
        return self.inner.embed(texts)


def test_cache_is_content_addressed_and_persists(tmp_path):
    inner = _Counting()
    path = tmp_path / "cache.npz"
    c = CachedEmbedder(inner, path)
    a = c.embed(["alpha", "beta", "alpha"])
    b = c.embed(["beta", "gamma"])
    assert inner.seen == ["alpha", "beta", "gamma"]
    assert np.array_equal(a[1], b[0]) and np.array_equal(a[0], a[2])
    c.save()
    c2 = CachedEmbedder(inner, path)
    c2.embed(["alpha", "gamma"])
    assert inner.seen == ["alpha", "beta", "gamma"]  # served from the file
    assert c2.hits == 2 and c2.misses == 0


def test_a_saved_cache_loads_the_exact_vectors_with_their_dtype_and_reads_the_former_format(tmp_path):
    """The cache file holds one keys array and one vectors matrix per dtype (one zip member per
    vector took seconds to write and read at LoCoMo size); a loaded vector equals the saved one
    bit for bit, and a file in the former layout (one array per key) still loads."""
    inner = shared_embedder().inner
    path = tmp_path / "cache.npz"
    c = CachedEmbedder(inner, path)
    texts = ["alpha", "beta", "a longer sentence about a cat named Miso"]
    first = c.embed(texts)
    c._cache["f64-entry"] = np.arange(inner.dim, dtype=np.float64) / 7  # a vector of another dtype
    c.save()
    with np.load(path) as data:
        assert {f.split(".")[0] for f in data.files} == {"keys", "vectors"}
    back = CachedEmbedder(inner, path)
    assert set(back._cache) == set(c._cache)
    for k, v in c._cache.items():
        assert back._cache[k].dtype == v.dtype and np.array_equal(back._cache[k], v)
    assert np.array_equal(back.embed(texts), first) and back.misses == 0
    old = tmp_path / "old.npz"
    np.savez(old, **{k: v for k, v in c._cache.items()})  # the layout memlab wrote before
    former = CachedEmbedder(inner, old)
    assert set(former._cache) == set(c._cache) and np.array_equal(former.embed(texts), first) and former.misses == 0


def test_semantic_sanity():
    e: MiniLMEmbedder = shared_embedder().inner
    v = e.embed(["I adopted a puppy last week.", "We got a new dog recently.", "The stock market fell sharply."])
    assert v[0] @ v[1] > v[0] @ v[2] + 0.3


def test_two_caches_saving_one_file_keep_each_others_vectors(tmp_path):
    """Concurrent runs share one cache file: the second save merges, it does not drop the first's."""
    inner = shared_embedder().inner
    path = tmp_path / "cache.npz"
    a, b = CachedEmbedder(inner, path), CachedEmbedder(inner, path)  # both opened before either saved
    a.embed(["only in run a"])
    b.embed(["only in run b"])
    a.save()
    b.save()
    merged = CachedEmbedder(inner, path)
    merged.embed(["only in run a", "only in run b"])
    assert merged.hits == 2 and merged.misses == 0
    assert not list(tmp_path.glob("*.tmp.npz"))


@pytest.mark.slow
def test_a_texts_vector_does_not_depend_on_its_batch_companions():
    """Issue 12 (determinism): serial, parallel and Ray runs, and warm or cold caches, embed a text
    together with different other texts; its vector must be the same bit for bit, or retrieval
    ties can flip between executors. (A padded batch moved vectors by ~1e-8.)"""
    e = MiniLMEmbedder(batch_size=4)
    texts = REF["sentences"] + [s.upper() for s in REF["sentences"]] + ["short", "a much longer sentence " * 6]
    together = e.embed(texts)
    alone = np.stack([e.embed([t])[0] for t in texts])
    reversed_order = e.embed(texts[::-1])[::-1]
    assert np.array_equal(together, alone)
    assert np.array_equal(together, reversed_order)


def test_length_batches_group_equal_lengths_shortest_first():
    from memlab.embeddings import length_batches

    batches = length_batches([5, 3, 5, 3, 5, 9], batch_size=2)
    assert batches == [[1, 3], [0, 2], [4], [5]]
    assert sorted(i for b in batches for i in b) == list(range(6))


@pytest.mark.slow
def test_onnxruntime_pass_matches_the_reference_and_is_batch_invariant():
    """Issue 12: the onnxruntime embedder (graph built from the shipped weights) must give the
    reference vectors, agree with the numpy pass, and — like it — not depend on batch companions."""
    from memlab.embeddings.onnx import OnnxMiniLMEmbedder

    e = OnnxMiniLMEmbedder()
    vecs = e.embed(REF["sentences"])
    ref = np.array(REF["embeddings"], dtype=np.float32)
    assert (vecs * ref).sum(axis=1).min() > 0.99999
    assert np.abs(vecs - MiniLMEmbedder().embed(REF["sentences"])).max() < 1e-5
    texts = REF["sentences"] + ["short", "a much longer sentence " * 6]
    assert np.array_equal(e.embed(texts), np.stack([e.embed([t])[0] for t in texts]))
    assert e.embed([]).shape == (0, 384)


@pytest.mark.slow
def test_the_weights_passed_beside_the_graph_give_the_vectors_of_a_graph_holding_them():
    """The session reads the weights as external initializers (no 90 MB graph to build and serialise
    per process); the same graph with the weights inside it, checked by the ONNX checker, gives the
    same vectors bit for bit."""
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper

    from memlab.embeddings.onnx import OnnxMiniLMEmbedder, minilm_graph

    e = OnnxMiniLMEmbedder()
    graph, weights = minilm_graph(e)
    model = onnx.load_from_string(graph)
    inits = model.graph.initializer
    external = [i for i, t in enumerate(inits) if t.data_location == onnx.TensorProto.EXTERNAL]
    assert {inits[i].name for i in external} == set(weights) and len(weights) > 100
    for i in external:
        inits[i].CopyFrom(numpy_helper.from_array(weights[inits[i].name], inits[i].name))
    onnx.checker.check_model(model)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    inline = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    texts = REF["sentences"] + ["", "x", "é ü 漢字", "a much longer sentence " * 40]
    want = np.stack([inline.run(["vec"], {"ids": np.array([enc.ids], dtype=np.int64)})[0][0]
                     for enc in e.tok.encode_batch(texts)])
    assert np.array_equal(e.embed(texts), want)


def test_the_shared_embedder_is_the_faster_onnxruntime_pass_when_installed():
    from memlab.embeddings import embedder_implementation
    from memlab.embeddings.onnx import OnnxMiniLMEmbedder, available

    assert available()  # onnx + onnxruntime are part of the dev install (memlab[fast])
    assert isinstance(shared_embedder().inner, OnnxMiniLMEmbedder)
    assert embedder_implementation() == OnnxMiniLMEmbedder.implementation


def test_caches_with_different_files_share_one_model(tmp_path):
    """A run's cached embedder and the scorer's (no cache file) are two caches over one model:
    the weights are loaded once per process."""
    a = shared_embedder(tmp_path / "a.npz")
    b = shared_embedder(None)
    assert a is not b and a.inner is b.inner
    assert a.embed(["one model"]).tobytes() == b.embed(["one model"]).tobytes()


def test_a_cache_copies_what_another_cache_of_the_process_holds(tmp_path):
    """Each run has its own cache file, but a process that plays several (a notebook, a test worker) holds
    them all: a text one of them has is copied, not computed again — the same vector, saved with this cache."""
    inner, caches = _Counting(), []
    a = CachedEmbedder(inner, tmp_path / "a.npz", peers=lambda: caches)
    b = CachedEmbedder(inner, tmp_path / "b.npz", peers=lambda: caches)
    caches += [a, b]
    first = a.embed(["alpha", "beta"])
    second = b.embed(["beta", "gamma"])
    assert inner.seen == ["alpha", "beta", "gamma"]
    assert np.array_equal(first[1], second[0]) and b.misses == 2 and b.hits == 0
    b.embed_many(["alpha", "delta"])
    assert inner.seen == ["alpha", "beta", "gamma", "delta"] and b.misses == 4
    b.save()
    assert CachedEmbedder(inner, tmp_path / "b.npz").embed(["alpha", "beta", "gamma", "delta"]).shape == (4, 384)
    assert inner.seen == ["alpha", "beta", "gamma", "delta"], "the copied vectors were saved with b's file"
    # a cache of another model (or implementation) never answers for this one
    other_inner = _Counting()
    other_inner.model_id = "other"
    other = CachedEmbedder(other_inner, None, peers=lambda: caches)
    caches.append(other)
    other.embed(["alpha"])
    assert other_inner.seen == ["alpha"]


def test_the_shared_caches_of_a_process_are_peers(tmp_path):
    one, two = shared_embedder(tmp_path / "one.npz"), shared_embedder(tmp_path / "two.npz")
    vec = one.embed(["a text only these two caches see"])
    assert two.peers is not None and one in two.peers()
    assert two._from_peers(["a text only these two caches see"]) == []
    assert np.array_equal(two.embed(["a text only these two caches see"]), vec)
