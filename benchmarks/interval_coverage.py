"""Coverage of memlab's 95% intervals at its sizes: the table in docs/metrics.md.

Seeded simulation (:mod:`memlab.analysis.interval_coverage`): G users × binary probes, a user effect
N(0, 1) on the logit scale around p = 0.6; for paired differences a probe difficulty N(0, 1)
shared by both strategies and a user-specific shift N(0, 0.5) for B. Rows: the old percentile
cluster bootstrap, the alternatives measured, and the new cluster-robust t interval; columns: G
users with 10 probes each, then unequal sizes (3–30 probes per user).

Run::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/interval_coverage.py [--reps 2000]
"""

from __future__ import annotations

import argparse
import time

from memlab.analysis.interval_coverage import METHODS, Design, coverage

LABELS = {
    "bootstrap": "percentile cluster bootstrap, 1000 resamples (old)",
    "cr1_z": "CR1 SE × normal quantile (inspect_ai's clustered stderr)",
    "cr1_t": "CR1 SE × t(G−1)",
    "studentized": "studentized cluster bootstrap (CR2 SE), 1000 resamples",
    "bca": "BCa cluster bootstrap, 1000 resamples",
    "cluster_t": "**CR2 SE × t(Bell–McCaffrey df) (new, `cluster_t`)**",
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    sizes = (4, 8, 16, 32)
    t0 = time.process_time()
    for kind in ("mean", "paired"):
        for probes in (10, (3, 30)):
            label = "10 probes per user" if probes == 10 else "3–30 probes per user"
            results = {g: coverage(Design(g, kind, probes), METHODS, reps=args.reps, seed=args.seed) for g in sizes}
            print(f"\n{kind}, {label} ({args.reps} simulated evaluations per cell, seed {args.seed})\n")
            print("| method | " + " | ".join(f"G = {g}" for g in sizes) + " |")
            print("| --- | " + " | ".join("--:" for _ in sizes) + " |")
            for m in METHODS:
                print(f"| {LABELS[m]} | " + " | ".join(f"{results[g][m]:.3f}" for g in sizes) + " |")
    print(f"\n{time.process_time() - t0:.0f} s CPU")


if __name__ == "__main__":
    main()
