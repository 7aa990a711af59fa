"""Reading a finished run back: wall time, CPU time and peak memory of ``memlab report RUN --html``.

Issue 25 sets the budget for a run at real length (the M long-horizon suite through every preset and
bound: a 1 GB ``probes.jsonl``): two minutes and 2 GB on two cores. The report runs in a fresh child
process, so the peak is the child's own (``ru_maxrss`` of the waited-for child); the tables and the
HTML report go to a scratch folder beside nothing the run holds (``--keep`` leaves them). ``--phases``
also reads the run in this process, one table at a time, and prints the resident memory after each:
where the peak comes from.

    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.readback_memory results/presets-long-m [--phases]

The figures for the M run are in docs/scale.md ("Reading a run at real length back").
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not __package__:
    sys.path.insert(0, str(ROOT))


def _rss_mb() -> int:
    """This process's resident set now, in MB (Linux)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return -1


def report_in_child(run_dir: Path, out: Path) -> dict[str, float]:
    """``memlab report RUN --html OUT/report.html`` on a copy-free view of the run: the run folder is
    read in place and the report's files are written to ``out`` (the run's own CSVs are rewritten by
    ``memlab report``, so the command runs on a copy of the folder's small files and a link to its
    streams)."""
    work = out / run_dir.name
    work.mkdir(parents=True)
    for f in run_dir.iterdir():
        if f.is_file():
            if f.suffix == ".jsonl":
                os.symlink(f.resolve(), work / f.name)
            else:
                shutil.copy2(f, work / f.name)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "memlab.cli", "report", str(work), "--html", str(out / "report.html")],
                          cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"memlab report exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return {"wall_s": wall, "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "peak_mb": after.ru_maxrss / 1024}


def phases(run_dir: Path) -> list[tuple[str, int, float]]:
    """(table, resident MB after reading it, seconds) for the tables ``memlab report`` reads, in its order."""
    from memlab.analysis.results import load_run

    start = time.perf_counter()
    res = load_run(run_dir)
    out = [("load_run", _rss_mb(), time.perf_counter() - start)]
    for name in ("probes", "memory_ops", "calls", "turns", "compressions"):
        getattr(res, name)
        out.append((name, _rss_mb(), time.perf_counter() - start))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--phases", action="store_true", help="also read the tables here and print RSS after each")
    ap.add_argument("--keep", type=Path, help="write the report here and keep it (default: a temporary folder)")
    args = ap.parse_args(argv)
    if not (args.run_dir / "manifest.json").exists():
        ap.error(f"{args.run_dir}: not a run folder (no manifest.json)")
    probes = args.run_dir / "probes.jsonl"
    print(f"run: {args.run_dir} (probes.jsonl {probes.stat().st_size / 1e6:,.0f} MB) · load {os.getloadavg()[0]:.2f}")
    tmp = None if args.keep else tempfile.mkdtemp(prefix="readback-")
    out = args.keep or Path(tmp)
    try:
        r = report_in_child(args.run_dir, out)
        print(f"memlab report RUN --html: {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} CPU s, peak {r['peak_mb'] / 1024:.2f} GB")
        if args.phases:
            for name, rss, t in phases(args.run_dir):
                print(f"  after {name:<13} {rss:>6,} MB resident  {t:6.1f} s")
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
