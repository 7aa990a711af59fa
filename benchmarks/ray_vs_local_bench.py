"""Benchmark 3 (issue 12): the same config run serially, with local processes and on Ray.

A small LoCoMo-like dataset (generated facts padded by the length scaler, as in
``locomo_scale_bench.py``; ``--conversations`` × ``--tokens``) through the bounds and two
long-term presets on the default config's model, with a cold embedding cache each time. Prints
each executor's wall time (Ray's includes starting a local Ray, as a first run on a laptop
would) and whether its metrics equal the serial run's to the last digit. ``--ray-address``
runs the Ray leg on an existing cluster instead. One command::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/ray_vs_local_bench.py [--workers 2 --ray-address auto]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/ray_vs_local_bench.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))

STRATEGIES = ["no_memory", "full_context", "message_rag", "fact_rag"]


def main() -> None:
    from benchmarks.locomo_scale_bench import build
    from benchmarks.same_results import differences

    from memlab.harness.config import RunConfig, load_config
    from memlab.analysis.results import load_run
    from memlab.harness.runner import Runner

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=4)
    ap.add_argument("--tokens", type=int, default=4000)
    ap.add_argument("--probes", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--ray-address")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memlab-bench3-"))
    try:
        dataset = build(work, args.conversations, args.tokens, args.probes)
        model = load_config("evals/default.yaml").model.model_dump(mode="json")
        executors = {"serial": {"type": "serial"}, "processes": {"type": "processes", "workers": args.workers},
                     "ray": {"type": "ray", "workers": args.workers, "ray_address": args.ray_address}}
        run_dirs = {}
        for name, executor in executors.items():
            cfg = RunConfig.model_validate({
                "name": name, "datasets": [str(dataset)], "output_dir": str(work / "runs"),
                "embedding_cache": str(work / f"emb-{name}.npz"), "model": model,
                "strategies": [{"name": s} for s in STRATEGIES], "executor": executor})
            t0 = time.perf_counter()
            run_dirs[name] = Runner(cfg, progress=False).run()
            wall = time.perf_counter() - t0
            run = load_run(run_dirs[name])
            # every record stream and the summary, field by field, clock times and ids left out
            # (DataFrame.equals called the summaries different: their bootstrap CIs are (nan, nan)
            # tuples here, and nan != nan)
            diffs = differences(run_dirs["serial"], run_dirs[name])
            print(f"{name:<10} {wall:7.1f} s   status {run.manifest['status']}   identical records and metrics to "
                  f"serial: {not diffs}" + "".join(f"\n    {d}" for d in diffs[:5]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
