"""all-MiniLM-L6-v2 on onnxruntime: the same weights as the numpy pass, ~5x faster on one core.

The ONNX graph is built here, offline, from the shipped safetensors weights with the ``onnx``
package's graph helpers (no download, no torch): BERT encoder, mean pooling, L2 norm — the
operations of :meth:`memlab.embeddings.MiniLMEmbedder._forward`. Each text is its own run: a
batched run's results depend (by ~5e-8) on how many rows share the batch (onnxruntime's matrix
kernels differ by shape), and vectors must not depend on batch companions (see
:mod:`memlab.embeddings`). One text at a time is still ~5x the numpy pass's batched throughput
(benchmarks/embedding_bench.py). onnxruntime runs on one intra-op thread, for the reason the
numpy pass limits BLAS threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memlab.embeddings.minilm import MiniLMEmbedder


def available() -> bool:
    """Whether onnx (to build the graph) and onnxruntime (to run it) are installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("onnx", "onnxruntime"))


class OnnxMiniLMEmbedder(MiniLMEmbedder):
    """all-MiniLM-L6-v2 (mean pooling + L2 norm) run by onnxruntime over the shipped weights."""

    implementation = "onnxruntime (graph built from the shipped weights, memlab.embeddings.onnx)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.session = minilm_session(self)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, enc in enumerate(self.tok.encode_batch(list(texts)) if texts else []):
            out[i] = self.session.run(["vec"], {"ids": np.array([enc.ids], dtype=np.int64)})[0][0]
        return out


def minilm_session(emb: MiniLMEmbedder) -> Any:
    """An onnxruntime session of :func:`minilm_graph` over the embedder's weights, on one thread."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    graph, weights = minilm_graph(emb)
    opts.add_external_initializers(list(weights), [ort.OrtValue.ortvalue_from_numpy(v) for v in weights.values()])
    return ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])


def minilm_graph(emb: MiniLMEmbedder) -> tuple[bytes, dict[str, np.ndarray]]:
    """The BERT encoder + mean pooling + L2 norm as ONNX ops, and the embedder's weights it reads.

    The weights are the graph's initializers stored as *external data*: the graph holds each one's
    name, shape and type, and the arrays reach onnxruntime through
    ``SessionOptions.add_external_initializers``, which puts them in place before any optimisation,
    so the session is the one a graph with the weights inside would give (the vectors are the same
    bit for bit: tests/test_embeddings.py). Copying 90 MB of weights into the graph and serialising
    it (twice, with the checker) took ~1 CPU s of every process that embeds; this takes ~0.1 s."""
    from onnx import TensorProto, helper, numpy_helper

    w, nodes, inits = emb.w, [], []
    weights: dict[str, np.ndarray] = {}
    h, d = emb.n_heads, 384 // emb.n_heads

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    def weight(name: str, value: np.ndarray) -> str:
        value = np.ascontiguousarray(value, dtype=np.float32)
        tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=value.shape)
        tensor.data_location = TensorProto.EXTERNAL
        for key, val in (("location", "memlab-minilm-weights"), ("offset", "0"), ("length", str(value.nbytes))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, val
        inits.append(tensor)
        weights[name] = value
        return name

    def node(op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    for k, v in w.items():
        if k.startswith("pooler.") or k.endswith("position_ids"):
            continue  # not used by sentence embeddings
        weight(k, v if not k.endswith(".weight") or v.ndim != 2 or "embeddings" in k else np.ascontiguousarray(v.T))
    const("scale", np.array(1 / np.sqrt(d), np.float32))
    const("heads_shape", np.array([0, 0, h, d], np.int64))
    const("merge_shape", np.array([0, 0, h * d], np.int64))
    const("zero", np.array([0], np.int64))
    const("one", np.array([1], np.int64))

    def ln(x: str, p: str, out: str) -> str:
        return node("LayerNormalization", [x, p + ".weight", p + ".bias"], out, axis=-1, epsilon=emb.eps)

    def lin(x: str, p: str, out: str) -> str:
        return node("Add", [node("MatMul", [x, p + ".weight"], out + "_mm"), p + ".bias"], out)

    x = node("Gather", ["embeddings.word_embeddings.weight", "ids"], "tok")
    seq = node("Shape", ["ids"], "ids_shape")
    seq_len = node("Slice", [seq, "one", node("Add", ["one", "one"], "two")], "seq_len")
    positions = node("Range", [node("Squeeze", ["zero"], "z0"), node("Squeeze", [seq_len], "s0"), node("Squeeze", ["one"], "o0")], "pos")
    x = node("Add", [x, node("Gather", ["embeddings.position_embeddings.weight", positions], "pos_e")], "x_pos")
    x = node("Add", [x, node("Gather", ["embeddings.token_type_embeddings.weight", "zero"], "type_e")], "x_type")
    x = ln(x, "embeddings.LayerNorm", "x0")
    for i in range(emb.n_layers):
        p = f"encoder.layer.{i}."
        q = node("Transpose", [node("Reshape", [lin(x, p + "attention.self.query", f"q{i}"), "heads_shape"], f"qr{i}")], f"qt{i}", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [lin(x, p + "attention.self.key", f"k{i}"), "heads_shape"], f"kr{i}")], f"kt{i}", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [lin(x, p + "attention.self.value", f"v{i}"), "heads_shape"], f"vr{i}")], f"vt{i}", perm=[0, 2, 1, 3])
        att = node("Softmax", [node("Mul", [node("MatMul", [q, k], f"qk{i}"), "scale"], f"qks{i}")], f"att{i}", axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [att, v], f"av{i}")], f"avt{i}", perm=[0, 2, 1, 3]), "merge_shape"], f"ctx{i}")
        x = ln(node("Add", [lin(ctx, p + "attention.output.dense", f"ao{i}"), x], f"res1_{i}"), p + "attention.output.LayerNorm", f"x1_{i}")
        inter = node("Gelu", [lin(x, p + "intermediate.dense", f"in{i}")], f"gelu{i}")
        x = ln(node("Add", [lin(inter, p + "output.dense", f"out{i}"), x], f"res2_{i}"), p + "output.LayerNorm", f"x2_{i}")
    pooled = node("ReduceMean", [x, "one"], "pooled", keepdims=0)
    node("LpNormalization", [pooled], "vec", axis=-1, p=2)
    graph = helper.make_graph(nodes, "minilm", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["b", "s"])],
                              [helper.make_tensor_value_info("vec", TensorProto.FLOAT, ["b", 384])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 9
    return model.SerializeToString(), weights
