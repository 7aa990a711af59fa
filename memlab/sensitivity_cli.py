"""The ``memlab sensitivity`` and ``memlab profile`` commands (docs/sensitivity.md).

Registered on memlab's command line by :func:`register`, like the datasets commands, so the
main CLI module stays small.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def _cmd_sensitivity(args: argparse.Namespace) -> int:
    from memlab.analysis.sensitivity import check_contrasts, write_sweep_report
    from memlab.harness.config import read_config, validate_config, written_block
    from memlab.harness.runner import EXIT_CODES, RunAborted
    from memlab.harness.sensitivity import SensitivityFailed, parse_vary, run_sensitivity

    data = read_config(args.config)  # the flags change the file's mapping, validated once below
    if args.workers is not None:
        data["executor"] = {**written_block(data, "executor"), "workers": args.workers}
    if args.output_dir:
        data["output_dir"] = args.output_dir
    block = dict(written_block(data, "sensitivity"))
    if args.vary:
        block["vary"] = parse_vary(args.vary)
    if args.contrast:
        block["contrasts"] = [tuple(c) for c in args.contrast]
    for key in ("reference", "metric", "by"):
        if getattr(args, key):
            block[key] = getattr(args, key)
    if not block.get("vary"):
        raise ValueError(f"{args.config}: nothing to vary: give --vary KNOB=v1,v2,… or a `sensitivity: {{vary: …}}` block")
    data["sensitivity"] = block
    config = validate_config(data, str(args.config))
    spec = config.sensitivity
    names = [s.name for s in config.strategies]
    if spec.contrasts:
        check_contrasts([tuple(c) for c in spec.contrasts], names)
    if spec.reference and spec.reference not in names:
        check_contrasts([(spec.reference, names[0] if names[0] != spec.reference else names[-1])], names)
    t0 = time.perf_counter()
    try:
        out = run_sensitivity(config, spec.vary, out_dir=args.resume or args.out, resume=bool(args.resume),
                              progress=not args.no_progress)
    except KeyboardInterrupt:
        print(f"interrupted — continue with: memlab sensitivity {args.config} --resume <the sweep folder>", file=sys.stderr)
        return EXIT_CODES["interrupted"]
    except (SensitivityFailed, RunAborted) as exc:
        print(f"memlab sensitivity: {exc}", file=sys.stderr)
        return EXIT_CODES["failed"]
    played = time.perf_counter() - t0
    files = write_sweep_report(out)
    _print_verdicts(out)
    print(f"sweep in {out} · contrasts.csv, verdicts.csv, plots/, report.html, report.md · "
          f"wall time {played:.0f} s playing, {time.perf_counter() - t0 - played:.0f} s reporting")
    return 0 if files else 1


def report_sweep(path: Path, html: str | None = None, md: str | None = None) -> int:
    """``memlab report SWEEP_DIR [--html OUT] [--md OUT]``: the sweep's tables, plots and design
    report written again from its records (into the sweep folder; copies to ``--html`` / ``--md``)."""
    import shutil

    from memlab.analysis.sensitivity import write_sweep_report

    files = write_sweep_report(path)
    _print_verdicts(path)
    for key, target in (("html", html), ("md", md)):
        if target:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(files[key], target)
            if key == "md":  # its plots are PNGs beside it
                for png in path.glob("report-*.png"):
                    shutil.copyfile(png, Path(target).parent / png.name)
    print("wrote " + ", ".join(str(p) for p in [files["contrasts"], files["verdicts"], files["html"], files["md"],
                                                 *[t for t in (html, md) if t]]))
    return 0


def _print_verdicts(out: Path) -> None:
    import pandas as pd

    verdicts = pd.read_csv(out / "verdicts.csv")
    for _, v in verdicts.iterrows():
        print(f"  [{v['status']}] {v['statement']}")


def _cmd_profile(args: argparse.Namespace) -> int:
    from memlab.profiling.estimate import estimate_profile, write_profile

    estimate = estimate_profile(Path(args.run_dir), strategies=args.strategy or None)
    out = Path(args.out) if args.out else Path(args.run_dir) / "profile.yaml"
    write_profile(estimate, out)
    for name, e in estimate.knobs.items():
        if e.value is None:
            print(f"  {name:38} not estimated: {e.reason}")
        else:
            print(f"  {name:38} {e.value:.3f} [{e.ci_low:.3f}, {e.ci_high:.3f}]  ({e.items} items, {e.users} users)")
    print(f"profile of {estimate.model} → {out}  (use it as model: {{provider: offline, profile: {out}}})")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("sensitivity", help="play a comparison once per behaviour profile of the offline model and "
                                           "say which contrasts hold over the grid (docs/sensitivity.md)")
    p.add_argument("config", help="run config YAML (its `sensitivity:` block, if any, gives the grid and contrasts)")
    p.add_argument("--vary", action="append", metavar="KNOB=v1,v2,…",
                   help="a behaviour knob and its values (repeatable; the grid is every combination)")
    p.add_argument("--contrast", action="append", nargs=2, metavar=("A", "B"), help="report A − B (repeatable)")
    p.add_argument("--reference", help="without --contrast: every strategy against this one (default: the first)")
    p.add_argument("--metric", help="the metric compared (default evidence_recall)")
    p.add_argument("--by", help="also report each contrast per value of this probe column (evidence_scope, dataset, category)")
    p.add_argument("--workers", type=int, help="units played at once")
    p.add_argument("--out", help="the sweep folder (default <output_dir>/<stamp>-<name>-sensitivity)")
    p.add_argument("--output-dir", help="parent folder of new sweeps (default from config: results)")
    p.add_argument("--resume", metavar="SWEEP_DIR", help="continue an interrupted sweep")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(fn=_cmd_sensitivity)

    p = sub.add_parser("profile", help="estimate the behaviour profile of the model that produced a run (offline or "
                                       "a real endpoint) and write it as a file the offline model accepts")
    p.add_argument("run_dir")
    p.add_argument("--out", help="the profile file to write (default RUN_DIR/profile.yaml)")
    p.add_argument("--strategy", action="append", help="read only this strategy's records (repeatable)")
    p.set_defaults(fn=_cmd_profile)
