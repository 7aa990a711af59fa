"""Benchmark 1 (issue 12): a LoCoMo-sized comparison, serial vs parallel, and where the time goes.

Builds a synthetic dataset the size of LoCoMo — ``--conversations`` (10) conversations padded
by the length scaler (``memlab datasets scale``) to ``--tokens`` (25k) tokens each — from
generated facts about invented people (not evaluation data), with ``--probes`` questions per
conversation. Runs the bounds and every preset (``--strategies`` for a subset; ``agent_memory_pg``
needs Postgres: ``scripts/pg.sh start``) on the default config's model (``provider: offline``,
the offline stand-in) with a cold embedding cache:

1. serially, profiled (``benchmarks/timeshare.py``): per strategy, its units' time and the split
   into model calls (the offline model's compute), DSPy roles (prompt formatting, parsing),
   embeddings, store calls, the strategies' own logic (``logic``: their components and
   composition), probe-time scoring and the rest — harness overhead (unit player, records,
   runner start-up and finalize) — by CPU time (what the run's
   code cost, which holds on a loaded machine) and by wall time; load averages are printed;
2. with the process executor (``--workers``, default 2), wall time only;

and checks both give the same metrics. One command::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/locomo_scale_bench.py [--conversations 10 --tokens 25000 --probes 50]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/locomo_scale_bench.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))

NAMES = ["Ada", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kira", "Luis"]
THINGS = {"pet": ["cat", "dog", "parrot", "tortoise", "ferret"], "city": ["Lisbon", "Oslo", "Quito", "Hanoi", "Perth"],
          "job": ["nurse", "welder", "pilot", "baker", "chemist"], "car": ["Volvo", "Fiat", "Skoda", "Mazda", "Kia"],
          "sport": ["rowing", "judo", "curling", "squash", "fencing"]}


def base_dataset(n_conv: int, n_probes: int, seed: int = 0) -> dict:
    """Conversations that plant ``n_probes`` facts each (one session per fact), one probe per fact."""
    rng = random.Random(seed)
    convs = []
    for c in range(n_conv):
        person = NAMES[c % len(NAMES)]
        sessions, probes = [], []
        for f in range(n_probes):
            kind = rng.choice(sorted(THINGS))
            value = f"{rng.choice(THINGS[kind])}-{c}-{f}"
            sid = f"s{f:03d}"
            sessions.append({"id": sid, "timestamp": f"2024-{1 + f // 28 % 12:02d}-{1 + f % 28:02d}T10:00:00", "turns": [
                {"id": f"{sid}-1", "role": "user", "text": f"Note {f}: my {kind} this time is {value}."},
                {"id": f"{sid}-2", "role": "assistant", "text": f"Got it, your {kind} is {value}."}]})
            probes.append({"id": f"c{c}-q{f}", "after_turn": f"s{n_probes - 1:03d}-2", "question": f"In note {f}, what was my {kind}?",
                           "category": "single_hop", "gold": value, "evidence": [f"{sid}-1"]})
        convs.append({"id": f"c{c}", "namespace": f"c{c}", "speakers": {"user": person}, "sessions": sessions, "probes": probes})
    return {"name": "locomo-sized", "conversations": convs}


def build(work: Path, n_conv: int, tokens: int, n_probes: int) -> Path:
    from memlab.datasets.scale import scale_file

    base = work / "base.json"
    base.write_text(json.dumps(base_dataset(n_conv, n_probes)))
    out = work / "scaled.json"
    scale_file(base, tokens * n_conv, out)
    return out


def run(dataset: Path, work: Path, name: str, executor: dict, strategies: list[str], *, profile: bool,
        cprofile: Path | None = None) -> dict:
    """One run of the comparison; with ``profile`` (serial only) the per-strategy time shares."""
    from benchmarks.timeshare import TimeShare

    from memlab.harness.config import RunConfig, load_config
    from memlab.analysis.results import load_run
    from memlab.harness.runner import Runner

    default = load_config("evals/default.yaml")
    cache = work / f"emb-{name}.npz"
    cache.unlink(missing_ok=True)  # cold cache
    cfg = RunConfig.model_validate({
        "name": name, "datasets": [str(dataset)], "output_dir": str(work / "runs"),
        "embedding_cache": str(cache), "model": default.model.model_dump(mode="json"),
        "strategies": [{"name": s} for s in strategies], "executor": executor})
    load0 = os.getloadavg()
    t0, c0 = time.perf_counter(), time.process_time()
    share = None
    if profile:
        import cProfile

        prof = cProfile.Profile() if cprofile else None
        with TimeShare() as share:
            if prof:
                prof.enable()
            run_dir = Runner(cfg, progress=False).run()
            if prof:
                prof.disable()
                prof.dump_stats(str(cprofile))
    else:
        run_dir = Runner(cfg, progress=False).run()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    load1 = os.getloadavg()
    t1, c1 = time.perf_counter(), time.process_time()
    results = load_run(run_dir)
    summary = results.summary()
    overhead = TimeShare.overhead_per_call() if profile else None
    return {"wall": wall, "cpu": cpu, "load": (load0, load1), "run_dir": run_dir, "summary": summary, "share": share,
            "overhead_per_call": overhead,
            "scoring_wall": time.perf_counter() - t1, "scoring_cpu": time.process_time() - c1}


COLUMNS = ("model", "roles", "embedding", "store", "logic", "scoring", "harness")


def print_shares(res: dict, strategies: list[str], clock: str) -> float:
    """Per strategy: its units' seconds and each category's share; returns the overall harness share."""
    share = res["share"]
    total = res[clock]
    print(f"\n{clock} time: {'strategy':<16}{'s':>8}" + "".join(f"{c:>10}" for c in COLUMNS) + f"{'(records)':>11}")
    tot = {c: 0.0 for c in (*COLUMNS, "unit", "records")}
    for strategy in strategies:
        split = share.of(strategy, clock)
        for k in tot:
            tot[k] += split[k]
        unit = split["unit"] or 1e-9
        print(f"{'':<12}{strategy:<16}{split['unit']:>8.1f}" + "".join(f"{100 * split[c] / unit:>9.1f}%" for c in COLUMNS)
              + f"{100 * split['records'] / unit:>10.1f}%")
    # outside units: start-up, workbench, manifest, finalize — harness, except the model, embedding
    # and store calls made there (loading the embedding model, connecting to a store)
    before = share.of("-", clock)
    for c in COLUMNS[:-1]:
        tot[c] += before[c]
    outside = total - tot["unit"] - sum(before[c] for c in COLUMNS[:-1])
    harness = tot["harness"] + outside
    print(f"{'':<12}{'all':<16}{total:>8.1f}" + "".join(f"{100 * tot[c] / total:>9.1f}%" for c in COLUMNS[:-1])
          + f"{100 * harness / total:>9.1f}%" + f"{100 * tot['records'] / total:>10.1f}%")
    print(f"{'':<12}harness overhead ({clock}): {100 * harness / total:.1f}% "
          f"({harness:.1f} s; {outside:.1f} s of it outside units: imports, workbench, manifest, finalize)")
    print(f"{'':<12}harness + the strategies' own logic: {100 * (harness + tot['logic']) / total:.1f}% "
          f"(everything but model, roles, embedding, store and scoring calls)")
    # the profiler's own timing around calls made straight from harness code is counted as harness
    per_call = res["overhead_per_call"][clock]
    n_top = sum(share.top_calls[s] for s in strategies)
    own = per_call * n_top
    print(f"{'':<12}of which this profiler's own timing: ~{own:.1f} s ({n_top:,} timed calls from harness code × "
          f"{1e6 * per_call:.2f} µs); harness without it: {100 * (harness - own) / (total - own):.1f}%")
    return 100 * harness / total


def main() -> None:
    from memlab.strategies import PRESETS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--tokens", type=int, default=25_000, help="tokens per conversation after scaling")
    ap.add_argument("--probes", type=int, default=50, help="probes (and planted facts) per conversation")
    ap.add_argument("--workers", type=int, default=2, help="workers of the parallel run (0: no parallel run)")
    ap.add_argument("--no-serial", action="store_true", help="skip the profiled serial run")
    ap.add_argument("--strategies", default="", help="comma-separated presets (default: every preset)")
    ap.add_argument("--cprofile", type=Path, help="also write a cProfile of the serial run here")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (runs, dataset)")
    args = ap.parse_args()
    strategies = args.strategies.split(",") if args.strategies else PRESETS.names()
    work = Path(tempfile.mkdtemp(prefix="memlab-bench1-"))
    try:
        dataset = build(work, args.conversations, args.tokens, args.probes)
        from memlab.datasets.io import load_dataset

        ds = load_dataset(dataset)
        turns = sum(len(c.turns()) for c in ds.conversations)
        print(f"dataset: {len(ds.conversations)} conversations, {turns} turns, {len(ds.probes())} probes, "
              f"~{ds.meta.get('tokens')} tokens; {len(strategies)} strategies; {os.cpu_count()} cores; work folder {work}",
              flush=True)
        runs = {}
        if not args.no_serial:
            runs["serial"] = res = run(dataset, work, "serial", {"type": "serial"}, strategies, profile=True,
                                       cprofile=args.cprofile)
            print(f"\nserial: {res['wall']:.1f} s wall, {res['cpu']:.1f} s CPU; load average "
                  f"{res['load'][0][0]:.1f} at start, {res['load'][1][0]:.1f} at end; metrics from the run folder "
                  f"(scoring) {res['scoring_wall']:.1f} s")
            print_shares(res, strategies, "cpu")
            print_shares(res, strategies, "wall")
        if args.workers:
            name = f"processes{args.workers}"
            runs[name] = res = run(dataset, work, name, {"type": "processes", "workers": args.workers}, strategies,
                                   profile=False)
            print(f"\n{name}: {res['wall']:.1f} s wall; load average {res['load'][0][0]:.1f} at start, "
                  f"{res['load'][1][0]:.1f} at end; metrics {res['scoring_wall']:.1f} s")
            from memlab.runfolder.recorder import read_jsonl

            ends = [r for r in read_jsonl(res["run_dir"] / "units.jsonl") if r.get("event") == "end"]
            walls = {s: sum(r["wall_s"] for r in ends if r["strategy"] == s) for s in strategies}
            print("unit wall s per strategy (summed over units): "
                  + ", ".join(f"{s} {w:.1f}" for s, w in sorted(walls.items(), key=lambda kv: -kv[1])))
        if len(runs) == 2:
            from benchmarks.same_results import differences

            a, b = runs.values()
            diffs = differences(a["run_dir"], b["run_dir"])
            print(f"\nserial {a['wall']:.1f} s vs {name} {b['wall']:.1f} s (x{a['wall'] / b['wall']:.2f}); "
                  f"identical records and metrics: {not diffs}" + "".join(f"\n  {d}" for d in diffs[:10]))
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
