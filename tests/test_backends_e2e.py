"""Backend invariance: one strategy, unchanged, on every store gives the same memory and recall."""

from __future__ import annotations

from pathlib import Path

from memlab.harness.config import RunConfig
from memlab.analysis.results import load_run
from memlab.harness.runner import Runner

ROOT = Path(__file__).resolve().parent.parent


def test_fact_rag_is_backend_invariant(tmp_path: Path, postgres: str):
    backends = ["in_memory", "chroma", "postgres"]
    cfg = RunConfig.model_validate({
        "name": "backends", "datasets": [str(ROOT / "datasets" / "starter.yaml")], "limit_conversations": 2,
        "output_dir": str(tmp_path), "embedding_cache": str(tmp_path / "emb.npz"),
        "strategies": [{"name": f"fact_rag@{b}", "preset": "fact_rag", "store": {"type": b}} for b in backends],
    })
    res = load_run(Runner(cfg, progress=False).run())
    assert res.manifest["units"]["failed"] == [], res.manifest["units"]["failed"]
    ops = res.memory_ops
    seqs = {s: list(zip(g["turn_id"], g["op"], g["text"])) for s, g in ops.groupby("strategy")}
    ref = seqs["fact_rag@in_memory"]
    assert len(ref) > 10
    for b in backends[1:]:
        assert seqs[f"fact_rag@{b}"] == ref, f"{b} diverged from the exact in-memory reference"
    probes = res.probes
    ctx = {s: list(g.sort_values("probe_id")["context_source_turn_ids"].map(tuple)) for s, g in probes.groupby("strategy")}
    for b in backends[1:]:
        assert ctx[f"fact_rag@{b}"] == ctx["fact_rag@in_memory"]
    recall = res.summary()["evidence_recall"]
    assert recall.nunique() == 1
    stores = {s: res.manifest["strategies_resolved"][s]["store_resolved"]["backend"] for s in res.strategies}
    assert stores == {f"fact_rag@{b}": b for b in backends}
