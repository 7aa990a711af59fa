"""Memory-store benchmark: insert throughput, search latency and recall@k per backend.

For each size N and backend, two stores are loaded with the same N vectors:

* ``1%`` layout: items spread evenly over ``--namespaces`` (default 100) namespaces, queries
  go to one namespace — the multi-tenant case, where the namespace filter keeps 1% of rows.
* ``100%`` layout: all N items in one namespace. The interface always filters by namespace,
  so this is the honest "without filter" case: the filter matches every row.

Reported per backend/size/layout: batched insert throughput (items/s, ``--batch`` items per
``add``), vector search p50/p95 latency (k=10), recall@k against the exact in-memory store,
and keyword-search p50 on the 1% layout.

Vectors: 384-d mixture of Gaussians (``--clusters`` unit centres, noise so that two items of
a cluster have cosine ~0.5 and an item ~0.7 with its centre). Uniform random vectors are a
worst case for HNSW (no structure, every neighbour nearly equidistant) and would understate
recall; real MiniLM embeddings are clustered by topic. Queries are fresh draws from the
same mixture. Texts are synthetic (cluster topic words + filler) so keyword search has work.

Run (defaults: N=10000, in_memory + chroma embedded + postgres; needs scripts/pg.sh start)::

    .venv/bin/python benchmarks/store_bench.py
    .venv/bin/python benchmarks/store_bench.py --sizes 10000 100000 --backends in_memory postgres
    .venv/bin/python benchmarks/store_bench.py --chroma-http   # also a server from scripts/chroma_server.sh

On the 2-core dev machine N=10000 for the three backends takes ~2-3 minutes; N=100000 for
in_memory + postgres takes ~15 minutes (dominated by HNSW inserts and the exact reference).
Results are printed as a table and written to ``results/bench/store_bench_<time>.csv``.
"""

from __future__ import annotations

import argparse
import csv
import gc
import os
import shutil
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/store_bench.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))

from memlab.memory.item import MemoryItem  # noqa: E402
from memlab.memory.stores.base import MemoryStore, make_store  # noqa: E402
from memlab.memory.stores.in_memory import InMemoryStore  # noqa: E402

DIM = 384
WORDS = (
    "coffee tea dog cat paris berlin nurse teacher guitar piano running swimming python java garden kitchen "
    "movie novel travel beach mountain winter summer doctor dentist birthday wedding salary budget car bike "
    "train flight hotel pizza sushi vegan allergy gym yoga chess soccer tennis painting camera phone laptop "
    "sister brother mother father friend neighbor manager project deadline meeting holiday museum concert"
).split()
FILLER = "user said that they really like the idea of going there again soon with family".split()


@dataclass
class Row:
    backend: str
    n: int
    layout: str
    ns_rows: int
    insert_s: float
    insert_per_s: float
    p50_ms: float
    p95_ms: float
    recall_at_k: float
    kw_p50_ms: float | None
    k: int
    queries: int
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def mixture(rng: np.random.Generator, n: int, centres: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """n unit vectors from a Gaussian mixture around unit ``centres``; also returns cluster ids."""
    lab = rng.integers(0, len(centres), size=n)
    x = centres[lab] + sigma * rng.normal(size=(n, DIM)).astype(np.float32) / np.sqrt(DIM)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x.astype(np.float32), lab


def make_items(n: int, layout: str, n_ns: int, labels: np.ndarray, rng: np.random.Generator) -> list[MemoryItem]:
    t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
    topic = {c: rng.choice(WORDS, size=3, replace=False) for c in np.unique(labels)}
    out = []
    for i in range(n):
        ns = "all" if layout == "100%" else f"ns{i % n_ns:03d}"
        w = topic[labels[i]]
        text = f"{w[0]} {w[1]} {' '.join(rng.choice(FILLER, size=4))} {w[2]} note {i}"
        ts = t0 + timedelta(seconds=i)
        out.append(
            MemoryItem(
                id=f"m{i}", namespace=ns, text=text, kind="fact" if i % 4 else "preference",
                metadata={"cluster": int(labels[i])}, created_at=ts, updated_at=ts,
            )
        )
    return out


def open_store(backend: str, args: argparse.Namespace, tag: str, tmp: Path) -> MemoryStore:
    if backend == "in_memory":
        return make_store("in_memory")
    if backend == "chroma":
        return make_store("chroma", path=str(tmp / f"chroma-{tag}"))
    if backend == "chroma_http":
        return make_store("chroma", host=args.chroma_host, port=args.chroma_port, collection=f"bench-{tag}")
    if backend == "postgres":
        return make_store("postgres", dsn=args.pg_dsn, table=f"bench_{tag}", pool_size=2)
    raise ValueError(backend)


def cleanup(backend: str, store: Any) -> None:
    try:
        if backend == "postgres":
            store.drop_table()
        elif backend == "chroma_http":
            store._client.delete_collection(store.collection_name)
    finally:
        store.close()


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q)) if xs else float("nan")


def bench_one(
    backend: str,
    args: argparse.Namespace,
    n: int,
    layout: str,
    items: list[MemoryItem],
    vecs: np.ndarray,
    queries: np.ndarray,
    q_ns: list[str],
    kw_queries: list[str],
    truth: list[list[str]],
    tmp: Path,
) -> Row:
    tag = f"{n}_{'p1' if layout == '1%' else 'p100'}_{uuid.uuid4().hex[:6]}"
    store = open_store(backend, args, tag, tmp)
    try:
        t = time.perf_counter()
        for lo in range(0, n, args.batch):
            store.add(items[lo : lo + args.batch], vecs[lo : lo + args.batch])
        insert_s = time.perf_counter() - t
        assert store.count() == n, (backend, store.count(), n)
        # warm-up (connection pools, caches, lazy index loads)
        for j in range(min(5, len(queries))):
            store.search(q_ns[j], embedding=queries[j], k=args.k)
        lat, hits = [], 0
        for j, q in enumerate(queries):
            t = time.perf_counter()
            res = store.search(q_ns[j], embedding=q, k=args.k)
            lat.append((time.perf_counter() - t) * 1000)
            hits += len({r.item.id for r in res} & set(truth[j]))
        recall = hits / max(1, sum(len(tr) for tr in truth))
        kw_lat: list[float] = []
        if layout == "1%":
            for j, text in enumerate(kw_queries):
                t = time.perf_counter()
                store.search(q_ns[j], text=text, k=args.k)
                kw_lat.append((time.perf_counter() - t) * 1000)
        ns_rows = n if layout == "100%" else n // args.namespaces
        desc = store.describe() if hasattr(store, "describe") else {}
        return Row(
            backend, n, layout, ns_rows, round(insert_s, 2), round(n / insert_s, 1), round(pct(lat, 50), 2),
            round(pct(lat, 95), 2), round(recall, 4), round(pct(kw_lat, 50), 2) if kw_lat else None, args.k,
            len(queries), str(desc.get("index", "")),
        )
    finally:
        cleanup(backend, store)
        gc.collect()


def run(args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    tmp = Path(tempfile.mkdtemp(prefix="memlab-bench-"))
    try:
        for n in args.sizes:
            rng = np.random.default_rng(args.seed)
            centres = rng.normal(size=(args.clusters, DIM)).astype(np.float32)
            centres /= np.linalg.norm(centres, axis=1, keepdims=True)
            vecs, labels = mixture(rng, n, centres, args.sigma)
            queries, qlab = mixture(rng, args.queries, centres, args.sigma)
            for layout in args.layouts:
                items = make_items(n, layout, args.namespaces, labels, np.random.default_rng(args.seed + 1))
                if layout == "100%":
                    q_ns = ["all"] * len(queries)
                else:
                    q_ns = [f"ns{int(x):03d}" for x in rng.integers(0, args.namespaces, size=len(queries))]
                kw_queries = [" ".join(np.random.default_rng(j).choice(WORDS, size=2)) for j in range(len(queries))]
                # exact reference (the in-memory store is the recall oracle)
                ref = InMemoryStore()
                t = time.perf_counter()
                for lo in range(0, n, args.batch):
                    ref.add(items[lo : lo + args.batch], vecs[lo : lo + args.batch])
                ref_insert = time.perf_counter() - t
                truth, ref_lat = [], []
                for j, q in enumerate(queries):
                    t = time.perf_counter()
                    truth.append([r.item.id for r in ref.search(q_ns[j], embedding=q, k=args.k)])
                    ref_lat.append((time.perf_counter() - t) * 1000)
                for backend in args.backends:
                    if backend == "in_memory":
                        kw = []
                        if layout == "1%":
                            for j, text in enumerate(kw_queries):
                                t = time.perf_counter()
                                ref.search(q_ns[j], text=text, k=args.k)
                                kw.append((time.perf_counter() - t) * 1000)
                        row = Row(
                            "in_memory", n, layout, n if layout == "100%" else n // args.namespaces,
                            round(ref_insert, 2), round(n / ref_insert, 1), round(pct(ref_lat, 50), 2),
                            round(pct(ref_lat, 95), 2), 1.0, round(pct(kw, 50), 2) if kw else None, args.k,
                            len(queries), "exact cosine (numpy)",
                        )
                    else:
                        print(f"[bench] n={n} layout={layout} backend={backend} ...", file=sys.stderr, flush=True)
                        row = bench_one(backend, args, n, layout, items, vecs, queries, q_ns, kw_queries, truth, tmp)
                    rows.append(row)
                    print(
                        f"[bench] {row.backend:12s} n={n:<7d} {layout:>4s} insert {row.insert_per_s:>9.1f}/s "
                        f"p50 {row.p50_ms:7.2f} ms p95 {row.p95_ms:7.2f} ms recall {row.recall_at_k:.4f}",
                        file=sys.stderr,
                        flush=True,
                    )
                del ref
                gc.collect()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def report(rows: list[Row], args: argparse.Namespace) -> Path:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"memory store benchmark (k={args.k}, {args.queries} queries, clustered 384-d vectors)")
    for col in ["backend", "N", "namespace", "rows/ns", "insert items/s", "insert s", "p50 ms", "p95 ms",
                f"recall@{args.k}", "keyword p50 ms"]:
        table.add_column(col, justify="right" if col not in ("backend", "namespace") else "left")
    for r in rows:
        table.add_row(
            r.backend, str(r.n), r.layout, str(r.ns_rows), f"{r.insert_per_s:,.0f}", f"{r.insert_s:.1f}",
            f"{r.p50_ms:.2f}", f"{r.p95_ms:.2f}", f"{r.recall_at_k:.3f}",
            "-" if r.kw_p50_ms is None else f"{r.kw_p50_ms:.2f}",
        )
    Console(width=max(150, shutil.get_terminal_size().columns)).print(table)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"store_bench_{datetime.now().strftime('%Y%m%d_%H%M%S')}.csv"
    with open(path, "w", newline="") as fh:
        fields = [f for f in asdict(rows[0]) if f != "extra"] if rows else []
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for r in rows:
            d = asdict(r)
            d.pop("extra")
            w.writerow(d)
    print(f"wrote {path}", file=sys.stderr)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000])
    ap.add_argument("--backends", nargs="+", default=["in_memory", "chroma", "postgres"],
                    choices=["in_memory", "chroma", "chroma_http", "postgres"])
    ap.add_argument("--chroma-http", action="store_true", help="also bench a chroma server (scripts/chroma_server.sh)")
    ap.add_argument("--chroma-host", default=os.environ.get("MEMLAB_CHROMA_HOST", "127.0.0.1"))
    ap.add_argument("--chroma-port", type=int, default=int(os.environ.get("MEMLAB_CHROMA_PORT", "8765")))
    ap.add_argument("--pg-dsn", default=None, help="default: $MEMLAB_PG_DSN or .memlab/pg/dsn")
    ap.add_argument("--layouts", nargs="+", default=["1%", "100%"], choices=["1%", "100%"])
    ap.add_argument("--namespaces", type=int, default=100)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--clusters", type=int, default=100)
    ap.add_argument("--sigma", type=float, default=1.0, help="noise scale: within-cluster cosine ~ 1/(1+sigma^2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench"))
    args = ap.parse_args(argv)
    if args.chroma_http and "chroma_http" not in args.backends:
        args.backends.append("chroma_http")
    t = time.perf_counter()
    rows = run(args)
    report(rows, args)
    print(f"total {time.perf_counter() - t:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
