"""The presets ranking table of ``evals/presets/README.md``, from a run of ``evals/presets.yaml``.

    PYTHONPATH=$PWD .venv/bin/python evals/presets/ranking.py results/<run>

One markdown row per strategy, best evidence recall first: evidence recall (all probes, then only
the probes whose evidence lies in an earlier thread of the user: what only long-term memory can
carry — a design that keeps memory per conversation, not per user, shows it here), knowledge-update
handling (the answer gives the current value and no superseded one), stale leakage (the answer
asserts a superseded value: ``stale_only`` or ``both`` — ``memlab report`` prints the two levels
apart, not their sum), abstention when it should, memory-context tokens per probe, and write-path
model tokens per conversation (every purpose but ``answer`` and ``judge``: extraction, gating,
consolidation, summaries, the agent's steps). Each value has its 95% interval by the run's own
interval method (cluster-robust t over users, as ``memlab report`` does), so the table and the report
agree on every shared column.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from memlab.analysis.results import load_run
from memlab.analysis.stats import cluster_interval

READ_PATH = ("answer", "judge")
"""Model purposes that answer a question rather than write memory."""


def _cell(values: pd.Series, clusters: pd.Series, spec, digits: int = 2) -> str:
    mean, lo, hi = cluster_interval(values.to_numpy(dtype=float), list(clusters), spec)
    if pd.isna(mean):
        return "–"
    fmt = f"{{:.{digits}f}}" if digits else "{:,.0f}"
    interval = "" if pd.isna(lo) else f" [{fmt.format(lo)}, {fmt.format(hi)}]"
    return fmt.format(mean) + interval


def ranking(run_dir: str | Path) -> str:
    res = load_run(run_dir)
    spec = res.intervals
    probes = res.probes.copy()
    probes["conv"] = [res.cluster_of(ds, cid) for ds, cid in zip(probes["dataset"], probes["conversation_id"])]
    probes["user"] = list(zip(probes["dataset"], probes["namespace"] if "namespace" in probes else probes["conversation_id"]))
    cross = probes["evidence_scope"].isin(["earlier_threads", "mixed"]) if "evidence_scope" in probes else probes["dataset"] != probes["dataset"]
    stale = probes["update_answer"].map(lambda v: None if v is None or pd.isna(v) else float(v in ("stale_only", "both")))
    probes["stale_leak"] = stale.astype(float)
    calls = res.calls
    writes = calls[~calls["purpose"].isin(READ_PATH)] if not calls.empty else calls
    rows = []
    for strategy in res.strategies:
        p = probes[probes["strategy"] == strategy]
        convs = p[["dataset", "conversation_id"]].drop_duplicates()
        w = writes[writes["strategy"] == strategy] if not writes.empty else writes
        per_conv = (w.assign(t=w["prompt_tokens"] + w["completion_tokens"]).groupby(["dataset", "conversation_id"])["t"].sum()
                    if not w.empty else pd.Series(dtype=float))
        write_tokens = convs.apply(lambda r: float(per_conv.get((r["dataset"], r["conversation_id"]), 0.0)), axis=1)
        recall_mean = float(p["evidence_recall"].mean())
        pc = p[cross.loc[p.index]]
        rows.append((recall_mean, [
            f"`{strategy}`",
            _cell(p["evidence_recall"], p["conv"], spec),
            _cell(pc["evidence_recall"], pc["user"], spec) if not pc.empty else "–",
            _cell(p["update_correct"], p["conv"], spec),
            _cell(p["stale_leak"], p["conv"], spec),
            _cell(p["abstain_when_should"], p["conv"], spec),
            _cell(p["context_tokens"], p["conv"], spec, digits=0),
            _cell(write_tokens, [res.cluster_of(d, c) for d, c in zip(convs["dataset"], convs["conversation_id"])], spec, digits=0),
        ]))
    head = ["strategy", "evidence recall ↑", "recall, earlier threads ↑", "update correct ↑", "stale leak ↓", "abstains when it should ↑",
            "context tokens / probe ↓", "write-path tokens / conv ↓"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(cells) + " |" for _, cells in sorted(rows, key=lambda r: -r[0])]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: ranking.py RUN_DIR")
    print(ranking(sys.argv[1]))
