"""Do two run folders hold the same results? For checking that a speed change changed nothing.

Compares every record stream (probes with their contexts, turns, calls, memory operations,
compressions, agent steps) field by field, leaving out only what differs between any two runs:
ids (run, attempt, call, the run uid in store namespaces), clock times and latencies; and the
summary table without its timing columns. ``--ignore model`` also leaves out the model label,
which for the offline model is a hash of its source, so any edit to it (a speed-up included)
changes the label. Prints each difference found (up to ``--show``) and exits 1 if there is one::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/same_results.py RUN_A RUN_B
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

VOLATILE = {"run_id", "attempt", "call_id", "at", "wall_s", "latency_s", "retrieval_latency_s", "retrieval_total_s",
            "answer_latency_s", "started_at", "ended_at", "resolved"}
STREAMS = ("probes", "turns", "calls", "memory_ops", "compressions", "agent_steps")


def _stable(rec: dict[str, Any], ignore: set[str]) -> dict[str, Any]:
    out = {k: v for k, v in rec.items() if k not in ignore}
    if isinstance(out.get("namespace"), str) and "/" in out["namespace"]:
        out["namespace"] = out["namespace"].split("/", 1)[1]  # store namespaces start with the run's uid
    if isinstance(out.get("scope"), dict):
        out["scope"] = {k: v for k, v in out["scope"].items() if k not in ignore}
    return out


def _in_unit_order(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records grouped by unit in a fixed order. A parallel run writes whole units in the order
    they finish, so two runs' files list the same units in different orders; the sort is stable,
    so each unit's own records keep the order they were written in."""
    return sorted(records, key=lambda r: (str(r.get("strategy")), str(r.get("dataset")), str(r.get("namespace") or ""),
                                          str(r.get("conversation_id"))))


def differences(a: Path, b: Path, ignore: set[str] = frozenset()) -> list[str]:
    """Human-readable differences between the two runs' results (empty: the same results)."""
    from memlab.runfolder.recorder import read_jsonl
    from memlab.analysis.results import load_run

    diffs = []
    ignore = VOLATILE | set(ignore)
    for stream in STREAMS:
        ra = _in_unit_order([_stable(r, ignore) for r in read_jsonl(a / f"{stream}.jsonl")])
        rb = _in_unit_order([_stable(r, ignore) for r in read_jsonl(b / f"{stream}.jsonl")])
        if len(ra) != len(rb):
            diffs.append(f"{stream}: {len(ra)} records vs {len(rb)}")
            continue
        for i, (x, y) in enumerate(zip(ra, rb)):
            if x != y:
                fields = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
                diffs.append(f"{stream} record {i + 1} ({x.get('strategy')}): fields {fields} differ")
    sa, sb = load_run(a).summary(), load_run(b).summary()
    timing = [c for c in sa.columns if "latency" in c or c.endswith("_s") or "wall" in c]
    # as summary.csv writes them: a (nan, nan) interval (no bootstrap) never equals itself as a tuple
    if sa.drop(columns=timing).to_csv() != sb.drop(columns=timing, errors="ignore").to_csv():
        diffs.append("summary tables differ")
    return diffs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--ignore", action="append", default=[], help="another field to leave out (repeatable)")
    args = ap.parse_args()
    diffs = differences(args.a, args.b, set(args.ignore))
    for d in diffs[: args.show]:
        print(d)
    print(f"{len(diffs)} difference(s)" if diffs else "same results: every record stream and the summary")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
