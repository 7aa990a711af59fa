"""Benchmark 1 (issue 12): a LoCoMo-sized comparison, serial vs parallel, and where the time goes.

Builds a synthetic dataset the size of LoCoMo — ``--conversations`` (10) conversations padded
by the length scaler (``memlab datasets scale``) to ``--tokens`` (25k) tokens each — from
generated facts about invented people (not evaluation data), with ``--probes`` questions per
conversation. Runs the bounds and every preset on the default config's model (today
``provider: heuristic``, the offline stand-in) with a cold embedding cache:

1. serially, profiled (``benchmarks/timeshare.py``): per strategy, the wall time and its split
   into model calls, DSPy roles (prompt formatting, parsing), embeddings, store calls and the
   rest — harness overhead (runner, strategies' own logic, records);
2. with the process executor (``--workers``, default 2), wall time only;

and checks both give the same metrics. One command::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/locomo_scale_bench.py [--conversations 10 --tokens 25000 --probes 50]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

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


def run(dataset: Path, work: Path, name: str, executor: dict, profile: bool) -> tuple[float, object, dict]:
    from timeshare import TimeShare

    from memlab.config import RunConfig, load_config
    from memlab.results import load_run
    from memlab.runner import Runner
    from memlab.strategies import PRESETS

    default = load_config("evals/default.yaml")
    cache = work / f"emb-{name}.npz"
    cache.unlink(missing_ok=True)  # cold cache
    cfg = RunConfig.model_validate({
        "name": name, "datasets": [str(dataset)], "output_dir": str(work / "runs"), "bootstrap": 0,
        "embedding_cache": str(cache), "model": default.model.model_dump(mode="json"),
        "strategies": [{"name": p} for p in PRESETS.names()], "executor": executor})
    t0 = time.perf_counter()
    if profile:
        with TimeShare() as share:
            run_dir = Runner(cfg, progress=False).run()
        shares = {s: share.of(s) for s in PRESETS.names()}
    else:
        run_dir = Runner(cfg, progress=False).run()
        shares = {}
    return time.perf_counter() - t0, load_run(run_dir), shares


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--tokens", type=int, default=25_000, help="tokens per conversation after scaling")
    ap.add_argument("--probes", type=int, default=50, help="probes (and planted facts) per conversation")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the work folder (runs, dataset)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memlab-bench1-"))
    try:
        dataset = build(work, args.conversations, args.tokens, args.probes)
        from memlab.datasets.io import load_dataset

        ds = load_dataset(dataset)
        turns = sum(len(c.turns()) for c in ds.conversations)
        print(f"dataset: {len(ds.conversations)} conversations, {turns} turns, {len(ds.probes())} probes, "
              f"~{ds.meta.get('tokens')} tokens")
        serial_s, serial, shares = run(dataset, work, "serial", {"type": "serial"}, profile=True)
        par_s, par, _ = run(dataset, work, "processes", {"type": "processes", "workers": args.workers}, profile=False)
        print(f"\nserial: {serial_s:.1f} s   processes({args.workers}): {par_s:.1f} s   speed-up {serial_s / par_s:.2f}x")
        from memlab.recorder import read_jsonl

        ends = [r for r in read_jsonl(serial.path / "units.jsonl") if r.get("event") == "end"]
        print(f"\n{'strategy':<16}{'wall s':>9}{'model':>8}{'roles':>8}{'embed':>8}{'store':>8}{'harness':>9}")
        tot = {"wall": 0.0, "model": 0.0, "roles": 0.0, "embedding": 0.0, "store": 0.0}
        for strategy, split in shares.items():
            wall = sum(r["wall_s"] for r in ends if r["strategy"] == strategy)
            harness = wall - sum(split.values())
            tot["wall"] += wall
            for k, v in split.items():
                tot[k] += v
            pct = {k: 100 * v / wall if wall else 0 for k, v in split.items()}
            print(f"{strategy:<16}{wall:>9.1f}{pct['model']:>7.1f}%{pct['roles']:>7.1f}%{pct['embedding']:>7.1f}%"
                  f"{pct['store']:>7.1f}%{100 * harness / wall if wall else 0:>8.1f}%")
        outside = serial_s - tot["wall"]
        harness_all = tot["wall"] - tot["model"] - tot["roles"] - tot["embedding"] - tot["store"] + outside
        print(f"{'all':<16}{serial_s:>9.1f}{100 * tot['model'] / serial_s:>7.1f}%{100 * tot['roles'] / serial_s:>7.1f}%"
              f"{100 * tot['embedding'] / serial_s:>7.1f}%{100 * tot['store'] / serial_s:>7.1f}%{100 * harness_all / serial_s:>8.1f}%")
        print(f"harness overhead (benchmark 4): {100 * harness_all / serial_s:.1f}% of serial wall time "
              f"({outside:.1f} s of it outside units: start-up, manifest, finalize)")
        timing = [c for c in serial.summary().columns if "latency" in c or c.endswith("_s") or "wall" in c]
        same = serial.summary().drop(columns=timing).equals(par.summary().drop(columns=timing))
        print(f"identical metrics serial vs processes({args.workers}): {same}")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
