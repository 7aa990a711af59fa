"""Report-time scoring cost: value normalisation, per-probe metrics and clustered bootstraps.

Metrics are computed when a run folder is read, so their cost is paid on every report. This
measures, on synthetic text (no evaluation data): :func:`memlab.scoring.canonical` throughput
on contexts of growing length, :func:`memlab.analysis.metrics.score_probe` per probe with a context of
that length, and :func:`memlab.analysis.stats.cluster_bootstrap` / :func:`memlab.analysis.stats.paired_compare`
for a table cell of 500 probes in 10 conversations.

Run::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/scoring_bench.py
"""

from __future__ import annotations

import random
import time

import numpy as np

from memlab.analysis.metrics import score_probe
from memlab.runfolder.probe_record import ProbeRow
from memlab.scoring import canonical
from memlab.analysis.stats import Intervals, cluster_bootstrap, paired_compare

WORDS = ("we moved to Lisbon on 8 May 2023 and walked three kilometres to a café that seats 1,200 people "
         "she said she is not sure which one she picked in March 2021 after twenty-one days").split()


def text_of(n_words: int, rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def timed(fn, repeat: int) -> float:
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat


def main() -> None:
    rng = random.Random(0)
    print("context words | canonical (uncached) ms | words/s | score_probe ms (cold cache)")
    for n in (100, 1_000, 10_000, 100_000):
        texts = [text_of(n, rng) for _ in range(5)]
        repeat = max(1, 2_000 // max(n // 100, 1))

        def norm() -> None:
            canonical.cache_clear()
            for t in texts:
                canonical(t)

        per_text = timed(norm, repeat) / len(texts)
        probe = ProbeRow.from_row({"gold": [["8 May 2023"], ["Lisbon"]], "gold_match": "all", "superseded": ["Porto"], "forbidden": ["pw"],
                 "evidence": ["t1"], "context": texts[0], "answer": "Lisbon", "gold_written": True,
                 "context_items": [{"text": t, "source_turn_ids": ["t1"], "kind": "message", "section": "s"} for t in texts[:2]]})

        def score() -> None:
            canonical.cache_clear()
            score_probe(probe)  # values; each explanation is a closure, not run

        print(f"{n:>13,} | {1000 * per_text:>23.2f} | {n / per_text:>7,.0f} | {1000 * timed(score, repeat):.2f}")
    x = np.random.default_rng(0).integers(0, 2, 500).astype(float)
    y = np.random.default_rng(1).integers(0, 2, 500).astype(float)
    clusters = [i % 10 for i in range(500)]
    spec = Intervals(1000, seed=0)
    print(f"cluster_bootstrap (500 probes, 10 conversations, 1000 resamples): "
          f"{1000 * timed(lambda: cluster_bootstrap(x, clusters, spec), 20):.2f} ms")
    print(f"paired_compare    (500 probes, 10 conversations, 1000 resamples): "
          f"{1000 * timed(lambda: paired_compare(x, y, clusters, True, spec), 20):.2f} ms")


if __name__ == "__main__":
    main()
