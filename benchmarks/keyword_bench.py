"""Keyword vs vector search latency per backend, on one namespace of ~600 and ~10k memories.

Why: keyword retrieval used to re-tokenise every document of the namespace on every query
(15.7 ms against 2.3 ms for vector search at ~600 items). This script measures both search
paths on the same store so a change to the keyword engine can be judged before/after.

For each size N and backend, one namespace is loaded with N synthetic memories (topic words
+ filler, the texts of ``store_bench.py``) and their clustered 384-d vectors, then:

* ``vector p50/p95``: ``search(embedding=...)``, k=10, ``--queries`` queries;
* ``keyword p50/p95``: ``search(text=...)``, k=10, the same number of two-word queries;
* ``kw after write p50``: one ``add`` of a new item, then one keyword query, repeated
  ``--write-rounds`` times, timing only the query: what a run pays when memories change
  between questions (an index that is rebuilt lazily pays its rebuild here).

Run (postgres needs ``scripts/pg.sh start``)::

    .venv/bin/python benchmarks/keyword_bench.py
    .venv/bin/python benchmarks/keyword_bench.py --sizes 600 --backends in_memory chroma

Results are printed and written to ``results/bench/keyword_bench_<time>.csv``.
"""

from __future__ import annotations

import argparse
import csv
import gc
import shutil
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/keyword_bench.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.store_bench import DIM, WORDS, make_items, mixture, pct  # noqa: E402
from memlab.memory.item import MemoryItem  # noqa: E402
from memlab.memory.stores.base import make_store  # noqa: E402


def open_store(backend: str, tmp: Path, pg_dsn: str | None) -> Any:
    tag = uuid.uuid4().hex[:8]
    if backend == "in_memory":
        return make_store("in_memory")
    if backend == "chroma":
        return make_store("chroma", path=str(tmp / f"chroma-{tag}"))
    if backend == "postgres":
        return make_store("postgres", dsn=pg_dsn, table=f"kwbench_{tag}", pool_size=2)
    raise ValueError(backend)


def close_store(backend: str, store: Any) -> None:
    try:
        if backend == "postgres":
            store.drop_table()
    finally:
        store.close()


def timed(fn: Any) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def bench(backend: str, n: int, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    rng = np.random.default_rng(args.seed)
    centres = rng.normal(size=(100, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    vecs, labels = mixture(rng, n, centres, 1.0)
    queries, _ = mixture(rng, args.queries, centres, 1.0)
    items = make_items(n, "100%", 1, labels, np.random.default_rng(args.seed + 1))
    kw_queries = [" ".join(np.random.default_rng(j).choice(WORDS, size=2)) for j in range(args.queries)]
    store = open_store(backend, tmp, args.pg_dsn)
    try:
        for lo in range(0, n, 1000):
            store.add(items[lo : lo + 1000], vecs[lo : lo + 1000])
        for j in range(5):  # warm-up: pools, caches, lazily built indexes
            store.search("all", embedding=queries[j], k=10)
            store.search("all", text=kw_queries[j], k=10)
        vec = [timed(lambda q=q: store.search("all", embedding=q, k=10)) for q in queries]
        kw = [timed(lambda t=t: store.search("all", text=t, k=10)) for t in kw_queries]
        after_write = []
        t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
        new_vecs, _ = mixture(rng, args.write_rounds, centres, 1.0)
        for j in range(args.write_rounds):
            ts = t0 + timedelta(seconds=j)
            store.add([MemoryItem(id=f"w{j}", namespace="all", text=f"{WORDS[j % len(WORDS)]} written later {j}",
                                  created_at=ts, updated_at=ts)], new_vecs[j : j + 1])
            after_write.append(timed(lambda j=j: store.search("all", text=kw_queries[j % len(kw_queries)], k=10)))
        return {
            "backend": backend, "n": n,
            "vector_p50_ms": round(pct(vec, 50), 2), "vector_p95_ms": round(pct(vec, 95), 2),
            "keyword_p50_ms": round(pct(kw, 50), 2), "keyword_p95_ms": round(pct(kw, 95), 2),
            "kw_after_write_p50_ms": round(pct(after_write, 50), 2),
            "keyword_engine": str(store.describe().get("keyword", "")),
        }
    finally:
        close_store(backend, store)
        gc.collect()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[600, 10000])
    ap.add_argument("--backends", nargs="+", default=["in_memory", "chroma", "postgres"],
                    choices=["in_memory", "chroma", "postgres"])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--write-rounds", type=int, default=30)
    ap.add_argument("--pg-dsn", default=None, help="default: $MEMLAB_PG_DSN or .memlab/pg/dsn")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--label", default="", help="free text stored with each row (e.g. before/after)")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench"))
    args = ap.parse_args(argv)
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="memlab-kwbench-"))
    try:
        for n in args.sizes:
            for backend in args.backends:
                row = bench(backend, n, args, tmp)
                row["label"] = args.label
                rows.append(row)
                print(
                    f"{backend:10s} n={n:<6d} vector p50 {row['vector_p50_ms']:7.2f} p95 {row['vector_p95_ms']:7.2f} | "
                    f"keyword p50 {row['keyword_p50_ms']:7.2f} p95 {row['keyword_p95_ms']:7.2f} | "
                    f"kw after write p50 {row['kw_after_write_p50_ms']:7.2f} ms",
                    flush=True,
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"keyword_bench_{datetime.now().strftime('%Y%m%d_%H%M%S')}.csv"
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
