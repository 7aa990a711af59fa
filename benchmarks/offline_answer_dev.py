"""Is the offline extractive answerer context-robust? Measured on the offline model's own
development set only (datasets/dev; never on evaluation data — datasets/dev/README.md).

The question: when the evidence is in the context, does a *longer* context make the answerer
worse? For each dev probe the same questions are answered from

* ``oracle``: exactly the probe's evidence turns (the shortest context that holds the answer),
* ``full_context``: the whole conversation so far,
* ``recent_window`` and ``message_rag``: the usual middle ground,

on the dev set as written and padded with filler sessions (``memlab datasets scale``): generated
chit-chat, and other dev conversations (distractors: other people's facts of the same kinds, told
in this user's voice). The numbers that must be 0 — **worse with more context**: probes that
``oracle`` answers right and ``full_context`` answers wrong although its context holds the gold
answer; and probes that ``full_context`` answers right on the dev set as written and wrong once
padded, the gold answer still in its context.

Run (before/after numbers go to docs/offline-model.md)::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/offline_answer_dev.py [--lengths 0,16k,48k]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd  # noqa: F401 (frames come from memlab)

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "datasets" / "dev" / "dev.yaml"
STRATEGIES = [{"name": "oracle"}, {"name": "full_context"},
              {"name": "recent_window", "short_term": {"type": "recent_window", "n": 10}}, {"name": "message_rag"}]


def _tokens(text: str) -> int:
    text = text.strip().lower()
    return int(float(text[:-1]) * 1000) if text.endswith("k") else int(text)


def variants(tmp: Path, lengths: list[str]) -> list[tuple[str, Path]]:
    """(label, dataset path): the dev set, then padded copies per length and filler kind."""
    from memlab.datasets.io import load_dataset
    from memlab.datasets.scale import scale_dataset, write_scaled

    out = [("dev as written", DEV)]
    base = load_dataset(DEV)
    for length in lengths:
        if _tokens(length) == 0:
            continue
        for kind, mode in (("chit-chat", "chitchat"), ("other dev conversations", "conversations")):
            ds = scale_dataset(base, _tokens(length), seed=0, mode=mode)
            path = tmp / f"dev-{length}-{mode}.yaml"
            write_scaled(ds, path)
            out.append((f"padded to {length} with {kind}", path))
    return out


def measure(path: Path, tmp: Path, name: str) -> tuple[pd.DataFrame, int, int, pd.DataFrame]:
    """(answer accuracy per strategy, probes worse with more context, probes where it could be,
    the full_context probes)."""
    import memlab
    from memlab.harness.config import RunConfig
    from memlab.analysis.results import load_run

    cfg = RunConfig.model_validate({"name": name, "datasets": [str(path)], "model": {"provider": "offline"},
                                    "strategies": STRATEGIES, "output_dir": str(tmp / "runs"),
                                    "embedding_cache": str(ROOT / ".memlab" / "embeddings.npz")})
    res = load_run(memlab.run(cfg, progress=False))
    p = res.probes
    acc = p.groupby("strategy")["answer_correct"].mean().reindex([s["name"] for s in STRATEGIES])
    key = ["dataset", "conversation_id", "probe_id"]
    oracle = p[p["strategy"] == "oracle"]
    full = p[p["strategy"] == "full_context"]
    both = oracle.merge(full, on=key, suffixes=("_o", "_f"))
    could = both[(both["answer_correct_o"] == 1) & (both["evidence_recall_f"] == 1)]
    worse = int((could["answer_correct_f"] == 0).sum())
    return acc.to_frame("answer_correct"), worse, len(could), full.set_index("probe_id")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lengths", default="0,16k,48k", help="total dataset tokens of the padded copies (0: as written)")
    args = ap.parse_args()
    from memlab.offline.version import model_id

    print(f"offline model {model_id()}")
    rows = []
    written = None
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for label, path in variants(tmp, args.lengths.split(",")):
            t0 = time.process_time()
            acc, worse, could, full = measure(path, tmp, "answer-dev")
            if written is None:
                written, padded = full, "–"
            else:  # full_context right on the dev set as written, wrong once padded, the gold still in context
                both = written.join(full, rsuffix="_p", how="inner")
                hit = both[(both["answer_correct"] == 1) & (both["evidence_recall_p"] == 1)]
                padded = f"{int((hit['answer_correct_p'] == 0).sum())} of {len(hit)}"
            row = {"context": label, **{f"answer {s}": round(float(v), 3) for s, v in acc["answer_correct"].items()},
                   "oracle right, full_context wrong": f"{worse} of {could}",
                   "full_context right as written, wrong padded": padded, "cpu_s": round(time.process_time() - t0, 1)}
            rows.append(row)
            print(row, flush=True)
    cols = [c for c in rows[0] if c != "cpu_s"]
    print()
    print("| " + " | ".join(cols) + " |")
    print("| " + " | ".join("---" for _ in cols) + " |")
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in cols) + " |")


if __name__ == "__main__":
    main()
