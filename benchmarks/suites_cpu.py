"""CPU cost of the suites comparison with a cold embedding cache (issue 8: ≤ 5 CPU-minutes).

Runs ``memlab run CONFIG`` in a child process with a fresh, empty embedding cache and output
folder, then prints the child's CPU time (user + system, from ``resource.getrusage``), its wall
time, and per strategy the summed unit wall time from ``units.jsonl``. CPU time is the figure to
compare across machines: wall time on a shared machine includes waiting for the cores.

    .venv/bin/python benchmarks/suites_cpu.py [--config evals/suites.yaml] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "evals" / "suites.yaml"))
    ap.add_argument("--limit", type=int, default=None, help="conversations per dataset (default: all)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memlab-suites-bench-") as tmp:
        import yaml

        cfg = yaml.safe_load(Path(args.config).read_text())
        cfg.update({"output_dir": f"{tmp}/results", "embedding_cache": f"{tmp}/embeddings.npz"})
        cfg["datasets"] = [str(ROOT / d) if not Path(d).is_absolute() else d for d in cfg["datasets"]]
        if args.limit:
            cfg["limit_conversations"] = args.limit
        path = Path(tmp) / "config.yaml"
        path.write_text(yaml.safe_dump(cfg))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "memlab.cli", "run", str(path)], cwd=ROOT,
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        run_dir = next((Path(tmp) / "results").iterdir(), None)
        per: dict[str, float] = defaultdict(float)
        if run_dir is not None and (run_dir / "units.jsonl").exists():
            for line in (run_dir / "units.jsonl").read_text().splitlines():
                rec = json.loads(line)
                if rec.get("event") == "end":
                    per[rec["strategy"]] += rec.get("wall_s") or 0.0
        print(f"config {args.config} (cold embedding cache) exit {proc.returncode}")
        print(f"CPU {cpu / 60:.2f} min (user+sys) · wall {wall / 60:.2f} min")
        for name, secs in sorted(per.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<16} {secs:8.1f} s unit wall")
        if proc.returncode not in (0, 3):
            print(proc.stdout[-2000:], proc.stderr[-2000:])
        return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
