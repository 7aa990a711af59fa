"""Dataset loading benchmark: wall time and peak memory of ``load_dataset`` on a large file.

Why: a 50 MB native dataset used to take minutes and gigabytes to load (parsed twice, with the
pure-Python YAML loader). This script makes the cost visible and comparable between versions.

It generates a native dataset of about ``--size-mb`` megabytes of YAML by padding
``datasets/starter.yaml`` with the deterministic chit-chat scaler (``memlab.datasets.scale``),
writes the same dataset as JSON too, then loads each file with ``load_dataset`` in a fresh child
process and reports the load time and the child's peak RSS (``os.wait4``), next to the peak RSS of
a child that only imports memlab (the baseline to subtract).

``--code DIR`` imports memlab from DIR in the children instead of this checkout, to measure an
older version on the same files::

    mkdir -p /tmp/memlab-before && git archive <commit> memlab | tar -x -C /tmp/memlab-before
    .venv/bin/python benchmarks/dataset_load_bench.py --code /tmp/memlab-before
    .venv/bin/python benchmarks/dataset_load_bench.py

Generated files are cached in ``--work-dir`` (default ``results/bench/dataset_load``) and reused
when present. Results are printed and appended to ``<work-dir>/dataset_load_bench.csv``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/dataset_load_bench.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))

# Runs in the child: import memlab from argv[1], load argv[2] (or nothing), print one JSON line.
_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from memlab.datasets.io import load_dataset
if len(sys.argv) > 2:
    t0 = time.perf_counter()
    ds = load_dataset(sys.argv[2])
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "conversations": len(ds.conversations),
                      "turns": sum(len(s.turns) for c in ds.conversations for s in c.sessions)}))
else:
    print(json.dumps({}))
"""


def generate(work_dir: Path, size_mb: float) -> tuple[Path, Path]:
    """Write ``large.yaml`` / ``large.json`` of about size_mb MB of YAML (cached by size)."""
    from memlab.datasets.io import load_dataset
    from memlab.datasets.scale import scale_dataset, write_scaled

    yaml_path = work_dir / f"large-{size_mb:g}mb.yaml"
    json_path = yaml_path.with_suffix(".json")
    if yaml_path.exists() and json_path.exists():
        return yaml_path, json_path
    work_dir.mkdir(parents=True, exist_ok=True)
    starter = load_dataset(ROOT / "datasets" / "starter.yaml")
    probe_tokens = 200_000  # measure YAML bytes per token on a small scale, then extrapolate
    sample = work_dir / "bytes-per-token.yaml"
    write_scaled(scale_dataset(starter, probe_tokens, seed=0), sample)
    per_token = sample.stat().st_size / probe_tokens
    sample.unlink()
    target = int(size_mb * 1_000_000 / per_token)
    print(f"generating ~{size_mb:g} MB ({target:,} tokens) ...", flush=True)
    ds = scale_dataset(starter, target, seed=0)
    write_scaled(ds, yaml_path)
    write_scaled(ds, json_path)
    return yaml_path, json_path


def measure(code: Path, path: Path | None) -> dict:
    """Load ``path`` (None: import only) in a fresh child; add its wall time and its own peak RSS (MB).

    The child is reaped with ``os.wait4``, which reports that one process's peak RSS."""
    args = [sys.executable, "-c", _CHILD, str(code)] + ([str(path)] if path else [])
    out_r, out_w = os.pipe()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child: exec the loader with stdout on the pipe
        os.close(out_r)
        os.dup2(out_w, 1)
        os.environ["PYTHONPATH"] = str(code)
        os.execv(sys.executable, args)
    os.close(out_w)
    with os.fdopen(out_r) as fh:
        out = fh.read()
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"loading {path} failed (exit {os.waitstatus_to_exitcode(status)}); see the output above")
    report = json.loads(out.strip().splitlines()[-1])
    report.update(wall_s=wall, peak_rss_mb=usage.ru_maxrss / 1024)
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=float, default=50.0, help="size of the generated YAML file (default 50)")
    ap.add_argument("--work-dir", type=Path, default=ROOT / "results" / "bench" / "dataset_load")
    ap.add_argument("--code", type=Path, default=ROOT, help="import memlab from this folder in the children")
    ap.add_argument("--formats", nargs="+", default=["yaml", "json"], choices=["yaml", "json"])
    args = ap.parse_args()

    yaml_path, json_path = generate(args.work_dir, args.size_mb)
    base = measure(args.code, None)
    print(f"code: {args.code}\nbaseline (import only): peak RSS {base['peak_rss_mb']:.0f} MB")
    rows = []
    for fmt in args.formats:
        path = yaml_path if fmt == "yaml" else json_path
        r = measure(args.code, path)
        row = {"code": str(args.code), "file": path.name, "size_mb": round(path.stat().st_size / 1e6, 1),
               "load_s": round(r["seconds"], 1), "peak_rss_mb": round(r["peak_rss_mb"]),
               "baseline_rss_mb": round(base["peak_rss_mb"]), "conversations": r["conversations"], "turns": r["turns"]}
        rows.append(row)
        print(f"{row['file']:>22}  {row['size_mb']:6.1f} MB  load {row['load_s']:7.1f} s  peak RSS {row['peak_rss_mb']:6d} MB  "
              f"({row['turns']:,} turns)", flush=True)
    out = args.work_dir / "dataset_load_bench.csv"
    new = not out.exists()
    with open(out, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        if new:
            w.writeheader()
        w.writerows(rows)
    print(f"appended to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
