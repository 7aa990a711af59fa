"""Benchmark (issue 22): every preset on LoCoMo-shaped conversations with realistic variety.

One command prints every figure ``docs/scale.md`` reports (and writes ``per_turn_cost.png``)::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/realistic_bench.py --out results/bench22

Parts (``--parts``, all by default):

``per-turn``
    One conversation of ``--turns`` (6,000) turns from :mod:`locomo_like` (``--source scaled``:
    the length scaler's filler instead, as benchmark 1 builds it), played through every preset
    serially by :mod:`per_turn` (no probes: the cost of keeping memory). Prints per preset the CPU
    milliseconds and the deterministic work counts per turn over 500-turn windows, the ratios of
    turns 1,500–2,000 and of the last 500 turns to turns 1–500, and plots CPU and model tokens per
    turn against the turn index (``per_turn_cost.png``). Turn texts are embedded before the clock
    starts, so the first preset does not pay for every later one's embeddings.
``comparison``
    ``--conversations`` (10) LoCoMo-sized conversations (27 ± 8 sessions, 199 questions each:
    LoCoMo's 10 / 272 / 5,882 / 1,986), every preset and bound, ``--workers`` (2) processes,
    cold (a new run folder and embedding cache), the default 1,000 bootstrap resamples: wall
    time, CPU time (this process and its workers), load averages, unit seconds per strategy.
``readback``
    On that run, each in a fresh process as a user runs it: metrics from the run folder
    (``load_run(...).summary()``), ``memlab report RUN``, and ``memlab report RUN --html``.
``projection``
    From the comparison: units (one preset × one conversation) per second per core, and the
    time 10× the users (10× the conversations) would take on a Ray cluster of 16 / 64 / 256
    cores (bounded below by the longest unit). ``--ray N`` also plays N conversations of every
    preset on a local Ray (every core here) to measure Ray's own overhead per unit.

Wall-clock figures depend on what else runs on the machine: the load average is printed with
each, and CPU seconds beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/realistic_bench.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))

from benchmarks import locomo_like, per_turn  # noqa: E402

PARTS = ("per-turn", "comparison", "readback", "projection")


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


# ------------------------------------------------------------------------------------------- per turn
def long_conversation(turns: int, source: str, work: Path):
    """One conversation of at least ``turns`` turns (LoCoMo-shaped, or benchmark 1's scaled filler)."""
    from memlab.datasets.locomo import convert

    if source == "realistic":
        sessions = max(2, round(turns / 20.5))
        while True:
            conv = convert(locomo_like.generate(conversations=1, sessions=sessions, probes=0, seed=0), "long.json")[0]
            if len(conv.conversations[0].turns()) >= turns:
                return conv.conversations[0]
            sessions += max(1, sessions // 20)
    from benchmarks import locomo_scale_bench

    from memlab.datasets.io import load_dataset

    path = locomo_scale_bench.build(work, 1, max(1000, turns * 13), 50)  # filler turns are ~13 tokens
    return load_dataset(path).conversations[0]


WINDOW = 500


def run_per_turn(args: argparse.Namespace, presets: list[str], out: Path) -> dict:
    from memlab.embeddings import shared_embedder

    conv = long_conversation(args.turns, args.source, out)
    n = len(conv.turns())
    print(f"\n== per-turn cost: one {args.source} conversation, {n} turns, {len(conv.sessions)} sessions; "
          f"every preset serially; load {_load()}", flush=True)
    emb = shared_embedder(None)
    t0 = time.process_time()
    emb.embed([t.text for _, t in conv.turns()])
    print(f"   turn texts embedded first: {time.process_time() - t0:.1f} CPU s", flush=True)
    bounds = [(a, min(a + WINDOW, n)) for a in range(0, n, WINDOW)]
    results: dict[str, dict] = {}
    store_options = {"postgres": {}} if os.environ.get("MEMLAB_PG_DSN") else None
    for name in presets:
        c0, w0 = time.process_time(), time.perf_counter()
        costs = per_turn.play(name, conv, embedder=emb, store_options=store_options)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        row = {"cpu_s": cpu, "wall_s": wall, "load": _load(), "turns": n}
        for series in ("cpu_ms", *per_turn.WORK, "rows_scored"):
            values = costs.series(series)
            row[series] = per_turn.windows(values, bounds)
            early = per_turn.windows(values, [(0, 500)])[0]
            mid = per_turn.windows(values, [(1500, 2000)])[0] if n >= 2000 else float("nan")
            last = per_turn.windows(values, [(n - 500, n)])[0]
            row[f"{series}_ratio_1500"] = mid / early if early else float("nan")
            row[f"{series}_ratio_last"] = last / early if early else float("nan")
            if series == "cpu_ms":
                row["cpu_block_median"] = [per_turn.block_median(values, a, b) for a, b in bounds]
        results[name] = row
        print(f"   {name:<16} {cpu:7.1f} CPU s {wall:7.1f} wall s (load {row['load']}) · ms/turn per {WINDOW}: "
              + " ".join(f"{x:.2f}" for x in row["cpu_ms"])
              + f" · ×{row['cpu_ms_ratio_1500']:.2f} at 1,500–2,000, ×{row['cpu_ms_ratio_last']:.2f} last 500", flush=True)
    print(f"\n   ratio to turns 1–500 (turns 1,500–2,000 | last {WINDOW} turns); work counts are deterministic")
    print(f"   {'preset':<16}" + "".join(f"{s:>22}" for s in ("cpu_ms", *per_turn.WORK)))
    for name, row in results.items():
        cells = []
        for s in ("cpu_ms", *per_turn.WORK):
            a, b = row[f"{s}_ratio_1500"], row[f"{s}_ratio_last"]
            cells.append("–" if a != a and b != b else f"{a:.2f} | {b:.2f}")
        print(f"   {name:<16}" + "".join(f"{c:>22}" for c in cells))
    plot_per_turn(results, bounds, out / "per_turn_cost.png", f"{args.source} conversation, {n} turns")
    print(f"   plot: {out / 'per_turn_cost.png'}")
    return results


def plot_per_turn(results: dict, bounds: list[tuple[int, int]], path: Path, what: str) -> None:
    from memlab.analysis.plots import _pyplot, save_png

    plt = _pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 5.5))
    xs = [(a + b) / 2 for a, b in bounds]
    colors = plt.get_cmap("tab20")
    for i, (name, row) in enumerate(results.items()):
        style = {"marker": "o", "markersize": 3, "label": name, "color": colors(i % 20)}
        if max(row["cpu_ms"]) > 0.05:  # the bounds do nothing per turn
            ax1.plot(xs, row["cpu_ms"], **style)
        if max(row["tokens"]) > 0:
            ax2.plot(xs, row["tokens"], **style)
    ax1.set(title="CPU per turn (mean over 500-turn windows)", xlabel="turn", ylabel="ms / turn", yscale="log")
    ax2.set(title="model tokens per turn (prompt + completion)", xlabel="turn", ylabel="tokens / turn", yscale="log")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(f"Per-turn cost of every preset vs turns played ({what}; offline model)")
    fig.tight_layout()
    save_png(fig, path)


# ------------------------------------------------------------------------------------------- comparison
def build_dataset(args: argparse.Namespace, out: Path) -> Path:
    path = out / "locomo_like.json"
    locomo_like.write(path, conversations=args.conversations, sessions=args.sessions, probes=args.probes, seed=args.seed)
    shape = locomo_like.describe(json.loads(path.read_text()))
    print(f"\n== dataset {path}: " + json.dumps(shape))
    return path


def run_comparison(args: argparse.Namespace, presets: list[str], dataset: Path, out: Path) -> dict:
    from memlab.harness.config import RunConfig, load_config
    from memlab.runfolder.recorder import read_jsonl
    from memlab.harness.runner import Runner

    default = load_config(str(ROOT / "evals" / "default.yaml"))
    cache = out / "embeddings-cold.npz"
    cache.unlink(missing_ok=True)
    cfg = RunConfig.model_validate({
        "name": "realistic", "datasets": [str(dataset)], "output_dir": str(out / "runs"),
        "embedding_cache": str(cache), "model": default.model.model_dump(mode="json"),
        "strategies": [{"name": s} for s in presets],
        "executor": {"type": "processes", "workers": args.workers} if args.workers > 1 else {"type": "serial"}})
    load0 = _load()
    t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
    run_dir = Runner(cfg, progress=False).run()
    wall = time.perf_counter() - t0
    cpu_self, cpu_workers = time.process_time() - c0, _children_cpu() - k0
    ends = [r for r in read_jsonl(run_dir / "units.jsonl") if r.get("event") == "end"]
    per = {}
    for r in ends:
        per.setdefault(r["strategy"], []).append(r["wall_s"])
    res = {"run_dir": str(run_dir), "wall_s": wall, "cpu_self_s": cpu_self, "cpu_workers_s": cpu_workers,
           "load_start": load0, "load_end": _load(), "units": len(ends), "unit_wall_s": per,
           "failed_units": sum(r.get("status") != "ok" for r in ends), "cores": os.cpu_count(), "workers": args.workers}
    print(f"\n== comparison: {len(presets)} presets × {args.conversations} conversations = {len(ends)} units, "
          f"--workers {args.workers}, cold: {wall:.1f} s wall ({wall / 60:.1f} min), CPU {cpu_self:.1f} s here + "
          f"{cpu_workers:.1f} s in workers; load {load0} at start, {res['load_end']} at end; "
          f"failed units {res['failed_units']}")
    print("   unit wall s per strategy (summed over its units; max unit): " + ", ".join(
        f"{s} {sum(v):.1f} ({max(v):.1f})" for s, v in sorted(per.items(), key=lambda kv: -sum(kv[1]))))
    print(f"   run folder: {run_dir}")
    return res


# ------------------------------------------------------------------------------------------- read-back
def _timed(cmd: list[str]) -> tuple[float, float, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    k0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT))
    wall, cpu = time.perf_counter() - t0, _children_cpu() - k0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    return wall, cpu, proc.stdout


def run_readback(run_dir: Path, out: Path) -> dict:
    py = sys.executable
    steps = {
        "metrics (load_run + summary)": [py, "-c", "import sys; from memlab.analysis.results import load_run; "
                                         "load_run(sys.argv[1]).summary()", str(run_dir)],
        "memlab report RUN": [py, "-m", "memlab.cli", "report", str(run_dir)],
        "memlab report RUN --html": [py, "-m", "memlab.cli", "report", str(run_dir), "--html", str(out / "report.html")],
    }
    print(f"\n== read-back of {run_dir} (each in a fresh process; imports included)")
    res = {}
    for label, cmd in steps.items():
        load0 = _load()
        wall, cpu, _ = _timed(cmd)
        res[label] = {"wall_s": wall, "cpu_s": cpu, "load": load0}
        print(f"   {label:<32} {wall:6.1f} s wall, {cpu:6.1f} CPU s (load {load0})", flush=True)
    size = (out / "report.html").stat().st_size
    res["html_bytes"] = size
    print(f"   report.html: {size / 1e6:.1f} MB")
    return res


# ------------------------------------------------------------------------------------------- projection
def run_projection(comp: dict, args: argparse.Namespace, presets: list[str], dataset: Path, out: Path) -> dict:
    units = comp["units"]
    cpu = comp["cpu_self_s"] + comp["cpu_workers_s"]
    per_core = units / cpu
    longest = max(max(v) for v in comp["unit_wall_s"].values())
    print(f"\n== projection: {units} units in {cpu:.0f} CPU s → {per_core:.3f} units per second per core "
          f"({cpu / units:.1f} CPU s per unit); longest unit {longest:.1f} s")
    res = {"units_per_core_s": per_core, "cpu_per_unit_s": cpu / units, "longest_unit_s": longest}
    ray_overhead = 1.0
    if args.ray:
        ray = run_ray_slice(args, presets, out)
        res["ray"] = ray
        ray_overhead = max(1.0, ray["cpu_per_unit_s"] / max(ray["processes_cpu_per_unit_s"], 1e-9))
    users = 10 * units
    print(f"   10× the users: {users} units, {users / per_core / 3600:.2f} core-hours" +
          (f" (× {ray_overhead:.2f} Ray overhead measured)" if args.ray else ""))
    res["rows"] = []
    for cores in (16, 64, 256):
        t = max(users / per_core * ray_overhead / cores, longest)
        res["rows"].append({"cores": cores, "minutes": t / 60})
        print(f"   {cores:>4} cores: ~{t / 60:.1f} min (at least the longest unit, {longest:.0f} s)")
    return res


def run_ray_slice(args: argparse.Namespace, presets: list[str], out: Path) -> dict:
    """The same presets on ``--ray`` conversations, once with processes and once on a local Ray."""
    from memlab.harness.config import RunConfig, load_config
    from memlab.harness.runner import Runner

    path = out / "ray_slice.json"
    locomo_like.write(path, conversations=args.ray, sessions=args.sessions, probes=20, seed=args.seed + 1)
    default = load_config(str(ROOT / "evals" / "default.yaml"))
    res = {}
    for kind in ("processes", "ray"):
        cache = out / f"embeddings-{kind}.npz"
        cache.unlink(missing_ok=True)
        cfg = RunConfig.model_validate({
            "name": f"slice-{kind}", "datasets": [str(path)], "output_dir": str(out / "runs"),
            "embedding_cache": str(cache), "model": default.model.model_dump(mode="json"),
            "strategies": [{"name": s} for s in presets], "executor": {"type": kind, "workers": args.workers}})
        t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
        Runner(cfg, progress=False).run()
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0 + _children_cpu() - k0
        units = len(presets) * args.ray
        res[kind] = {"wall_s": wall, "cpu_s": cpu, "units": units}
        print(f"   {kind}: {units} units in {wall:.1f} s wall, {cpu:.1f} CPU s seen here (load {_load()})")
    # Ray's workers are not this process's children: compare wall × cores instead
    cores = os.cpu_count() or 1
    res["cpu_per_unit_s"] = res["ray"]["wall_s"] * min(cores, args.workers) / res["ray"]["units"]
    res["processes_cpu_per_unit_s"] = res["processes"]["wall_s"] * min(cores, args.workers) / res["processes"]["units"]
    return res


def main() -> None:
    from memlab.strategies import PRESETS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="folder for the dataset, runs, plot and results.json")
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    ap.add_argument("--presets", default="", help="comma-separated (default: every preset and bound)")
    ap.add_argument("--turns", type=int, default=6000, help="per-turn part: turns in the one conversation")
    ap.add_argument("--source", choices=("realistic", "scaled"), default="realistic")
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--sessions", type=int, default=27)
    ap.add_argument("--probes", type=int, default=199)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--run-dir", type=Path, help="readback/projection of an existing comparison run instead")
    ap.add_argument("--ray", type=int, default=0, help="projection: conversations of a local-Ray slice (0: none)")
    args = ap.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        ap.error(f"unknown parts {sorted(unknown)} (of {', '.join(PARTS)})")
    presets = args.presets.split(",") if args.presets else PRESETS.names()
    out = args.out or Path(tempfile.mkdtemp(prefix="memlab-bench22-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"memlab realistic benchmark: {len(presets)} presets, {os.cpu_count()} cores, load {_load()}, output {out}")
    results: dict = {"presets": presets, "cores": os.cpu_count()}
    t_all = time.perf_counter()
    if "per-turn" in parts:
        results["per_turn"] = run_per_turn(args, presets, out)
    comp = None
    if "comparison" in parts:
        results["comparison"] = comp = run_comparison(args, presets, build_dataset(args, out), out)
    run_dir = Path(comp["run_dir"]) if comp else args.run_dir
    if "readback" in parts and run_dir is not None:
        results["readback"] = run_readback(run_dir, out)
    if "projection" in parts and comp is not None:
        results["projection"] = run_projection(comp, args, presets, Path(comp["run_dir"]), out)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    print(f"\nbenchmark done in {(time.perf_counter() - t_all) / 60:.1f} min; figures in {out / 'results.json'}")


if __name__ == "__main__":
    main()
