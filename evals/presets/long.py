"""Presets at real length: the tables and curves of ``evals/presets/README.md`` ("At real length").

    PYTHONPATH=$PWD .venv/bin/python evals/presets/long.py --short results/presets-full \\
        --run S=results/presets-long-s --lifted S=results/presets-long-lifted-s \\
        --run M=results/presets-long-m --lifted M=results/presets-long-lifted-m --out docs/img

Prints (markdown): each long run's ranking (``ranking.py``'s columns, 95% cluster-robust intervals), the
ranking side by side with the short-suite ranking (rank and evidence recall per set), each bounded preset
against itself with the bound lifted (paired over the same probes, overall and by evidence age), and writes
the forgetting curves (``forgetting_<label>.png``: string recall solid, provenance recall dashed, by tokens
of history since the evidence) and the bound-lifted curves (``bound_lifted_<label>.png``) into ``--out``.
Everything comes from the runs' records through memlab's analysis code: nothing here is computed twice.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, Path(__file__).resolve().parent):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from memlab.analysis.forgetting import recall_by_age  # noqa: E402
from memlab.analysis.plots import forgetting_figure, save_png  # noqa: E402
from memlab.analysis.results import RunResults, load_run  # noqa: E402
from memlab.analysis.stats import cluster_interval, paired_compare  # noqa: E402
from ranking import ranking  # noqa: E402

LIFTED = {"agent_chat": "agent_chat_unbounded", "react_mem": "react_mem_unbounded"}
"""Each bounded preset and its twin with ``max_tokens: null`` (evals/presets_long_lifted.yaml)."""
CURVES = ["all_threads", "oracle", "full_context", "react_mem", "supervisor", "agent_chat", "son_of_andrew",
          "agent_memory_pg", "turns_vector", "turns_bm25", "turns_hybrid"]
"""The strategies drawn in a forgetting-curve figure (no_memory is flat at 0)."""


def _recall(res: RunResults) -> pd.DataFrame:
    """Per strategy: evidence recall with its interval, and its rank (1 = best)."""
    probes = res.probes
    rows = []
    for strategy in res.strategies:
        g = probes[probes["strategy"] == strategy]
        mean, lo, hi = cluster_interval(g["evidence_recall"].to_numpy(float), res._clusters(g), res.intervals)
        rows.append({"strategy": strategy, "recall": mean, "lo": lo, "hi": hi})
    out = pd.DataFrame(rows).set_index("strategy")
    out["rank"] = out["recall"].rank(ascending=False, method="min").astype(int)
    return out


def side_by_side(sets: dict[str, RunResults]) -> str:
    """Rank and evidence recall [95% CI] of every strategy in each set of runs, ordered by the last set."""
    tables = {label: _recall(res) for label, res in sets.items()}
    last = list(tables.values())[-1]
    order = list(last.sort_values("recall", ascending=False).index)
    order += [s for t in tables.values() for s in t.index if s not in order]
    head = ["strategy", *[f"{label}: rank · evidence recall" for label in tables]]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---|" * len(tables)]
    for s in dict.fromkeys(order):
        cells = []
        for t in tables.values():
            if s not in t.index:
                cells.append("–")
                continue
            r = t.loc[s]
            cells.append(f"{int(r['rank'])} · {r['recall']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]")
        lines.append(f"| `{s}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _aligned(a: RunResults, sa: str, b: RunResults, sb: str, metric: str) -> pd.DataFrame:
    key = ["dataset", "conversation_id", "probe_id"]
    pa = a.probes[a.probes["strategy"] == sa].set_index(key)
    pb = b.probes[b.probes["strategy"] == sb].set_index(key)
    common = pa.index.intersection(pb.index)
    out = pd.DataFrame({"bounded": pa.loc[common, metric].astype(float), "lifted": pb.loc[common, metric].astype(float),
                        "age": pa.loc[common, "evidence_age_tokens"]})
    out["user"] = [a.cluster_of(d, c) for d, c, _ in common]
    return out


def lifted_table(run: RunResults, lifted: RunResults) -> str:
    """Each bounded preset minus itself with the bound lifted: evidence recall overall and for probes whose
    evidence is older than 8k tokens of history, paired over the same probes, clustered by user."""
    lines = ["| preset | bounded | lifted | bounded − lifted [95% CI] | evidence ≥ 8k tokens old: bounded − lifted | "
             "provenance, bounded − lifted |", "|---|--:|--:|--:|--:|--:|"]
    for bounded, twin in LIFTED.items():
        if bounded not in run.strategies or twin not in lifted.strategies:
            continue
        d = _aligned(run, bounded, lifted, twin, "evidence_recall")
        p = paired_compare(d["bounded"], d["lifted"], list(d["user"]), True, run.intervals)
        old = d[d["age"].astype(float) >= 8000]
        po = paired_compare(old["bounded"], old["lifted"], list(old["user"]), True, run.intervals)
        dp = _aligned(run, bounded, lifted, twin, "provenance_recall")
        pp = paired_compare(dp["bounded"], dp["lifted"], list(dp["user"]), True, run.intervals)
        cell = lambda x: f"{x.diff:+.2f} [{x.ci_low:+.2f}, {x.ci_high:+.2f}] (n {x.n})"  # noqa: E731
        lines.append(f"| `{bounded}` | {p.mean_a:.2f} | {p.mean_b:.2f} | {cell(p)} | {cell(po)} | {cell(pp)} |")
    return "\n".join(lines)


def plots(label: str, run: RunResults, lifted: RunResults | None, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    foot = " · ".join(f"{k}: {v}" for k, v in run.provenance().items() if k in ("model", "code_version", "datasets"))
    frame = recall_by_age(run, strategies=[s for s in CURVES if s in run.strategies])
    if not frame.empty:
        written.append(save_png(forgetting_figure(frame, f"Forgetting curves at real length ({label})", foot),
                                out / f"forgetting_{label.lower()}.png"))
    if lifted is not None:
        frames = [recall_by_age(run, strategies=[s for s in LIFTED if s in run.strategies])]
        twins = recall_by_age(lifted, strategies=[t for t in LIFTED.values() if t in lifted.strategies])
        frames.append(twins)
        both = pd.concat(frames, ignore_index=True)
        if not both.empty:
            both = both[both["metric"] == "evidence_recall"]
            written.append(save_png(forgetting_figure(both, f"The price of the 2,000-token bounds ({label}): string recall "
                                                            f"by evidence age, bounded vs lifted", foot),
                                    out / f"bound_lifted_{label.lower()}.png"))
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--short", help="a run of evals/presets.yaml (the short suites), for the side-by-side ranking")
    ap.add_argument("--run", action="append", default=[], metavar="LABEL=RUN_DIR", help="a run of evals/presets_long.yaml")
    ap.add_argument("--lifted", action="append", default=[], metavar="LABEL=RUN_DIR",
                    help="a run of evals/presets_long_lifted.yaml on the same suite as --run LABEL")
    ap.add_argument("--out", default="docs/img", help="folder for the PNGs")
    args = ap.parse_args(argv)
    runs = {k: load_run(v) for k, v in (x.split("=", 1) for x in args.run)}
    lifted = {k: load_run(v) for k, v in (x.split("=", 1) for x in args.lifted)}
    for label, res in runs.items():
        print(f"### Ranking on long_horizon_{label.lower()}\n\n{ranking(res.path)}\n")
    sets = ({"short suites": load_run(args.short)} if args.short else {}) | runs
    print(f"### Side by side\n\n{side_by_side(sets)}\n")
    for label, res in runs.items():
        if label in lifted:
            print(f"### Bounds lifted on long_horizon_{label.lower()}\n\n{lifted_table(res, lifted[label])}\n")
        for path in plots(label, res, lifted.get(label), Path(args.out)):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
