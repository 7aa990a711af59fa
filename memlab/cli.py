"""memlab's command line: run, report, view, validate, datasets, components, sensitivity, profile."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

DEFAULT_CONFIG = "evals/default.yaml"


def _cmd_run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from memlab.analysis.report import write_report
    from memlab.harness.config import read_config, validate_config, written_block
    from memlab.harness.runner import EXIT_CODES, RunAborted, Runner

    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    # the flags change the file's mapping, which is then validated once (every strategy resolved once)
    data = read_config(args.config)
    if args.limit is not None:
        data["limit_conversations"] = args.limit
    if args.dataset:
        data["datasets"] = args.dataset
    if args.threads:
        data["threads"] = args.threads
    if args.output_dir:
        data["output_dir"] = args.output_dir
    if args.base_url or args.model or args.cache_mode:
        model = dict(written_block(data, "model"))
        if args.base_url or args.model:
            model.update(provider="openai", model=args.model or model.get("model"), base_url=args.base_url or model.get("base_url"))
        if args.cache_mode:
            model["cache"] = {"mode": args.cache_mode, "path": args.cache_path or written_block(model, "cache").get("path")}
        data["model"] = model
    if args.workers is not None or args.executor or args.ray_address:
        executor = dict(written_block(data, "executor"))  # the flags override the config's block field by field
        if args.workers is not None:
            executor["workers"] = args.workers
        if args.executor:
            executor["type"] = args.executor
        elif args.ray_address:
            executor["type"] = "ray"
        if args.ray_address:
            executor["ray_address"] = args.ray_address
        data["executor"] = executor
    if args.budget:
        from memlab.cost.budget import parse_budget_flags

        data["budget"] = parse_budget_flags(args.budget, written_block(data, "budget")).model_dump()
    if args.prices:
        data["prices"] = args.prices
    config = validate_config(data, str(args.config))
    t0 = time.perf_counter()
    if args.adopt and not args.resume:
        raise ValueError("--adopt makes a resumed copy of a run folder a run of its own: give it with --resume COPY")
    runner = Runner(config, run_dir=args.resume or args.run_dir, resume=bool(args.resume), progress=not args.no_progress,
                    adopt=args.adopt)
    label = config.model.provider + (" — offline stand-in for an LLM" if config.model.provider == "offline" else "")
    console.print(f"[bold]memlab run[/bold] {config.name} → {runner.run_dir}  (model: {label})")
    try:
        run_dir = runner.run()
    except KeyboardInterrupt:
        console.print(f"[yellow]interrupted — resume with: memlab run {args.config} --resume {runner.run_dir}[/yellow]")
        return EXIT_CODES["interrupted"]
    except RunAborted as exc:
        console.print(f"[red]{exc}[/red]")
        return EXIT_CODES["failed"]
    except Exception as exc:
        if runner.status != "failed":
            raise  # refused before the run started (a resume mismatch, a locked folder): exit 2 in main()
        from memlab.redact import redact_text

        # an unexpected error stopped a started run (a crashed worker, ...): the manifest says failed
        console.print(f"[red]run stopped: {redact_text(f'{type(exc).__name__}: {exc}')} (manifest status 'failed'; "
                      f"fix the cause and resume with --resume {runner.run_dir})[/red]")
        return EXIT_CODES["failed"]
    wall = time.perf_counter() - t0
    if runner.budget_stop:
        console.print(f"[yellow]stopped at the budget: {runner.budget_stop}[/yellow]\n[yellow]resume with a larger budget: "
                      f"memlab run {args.config} --resume {run_dir} --budget max_usd=…[/yellow]")
    for note in runner.notes:
        console.print(f"[yellow]{note}[/yellow]")
    files = write_report(run_dir, console=console)
    from memlab.analysis.results import load_run

    status = load_run(run_dir).manifest.get("status", "failed")
    plot = f" · plot {files['plot'].name}" if files else ""
    console.print(f"wall time {wall:.1f} s · results in {run_dir}{plot} · status {status}")
    return EXIT_CODES.get(status, 1)


def _cmd_report(args: argparse.Namespace) -> int:
    """Write the run's tables and plots; ``--compare A B`` / ``--reference R`` print paired comparisons;
    ``--html`` / ``--md`` write the design report of one or several runs (only that, for several)."""
    from rich.console import Console

    from memlab.analysis.report import category_table, print_comparison, write_report
    from memlab.analysis.results import load_run

    if len(args.run_dirs) == 1 and (Path(args.run_dirs[0]) / "sensitivity.json").is_file():
        from memlab.sensitivity_cli import report_sweep  # a `memlab sensitivity` folder (docs/sensitivity.md)

        return report_sweep(Path(args.run_dirs[0]), args.html, args.md)
    if len(args.run_dirs) > 1:
        if not (args.html or args.md):
            raise ValueError("several run folders are compared only in a design report: add --html OUT.html or --md OUT.md")
        if args.compare or args.reference or args.by_category:
            raise ValueError("--compare, --reference and --by-category read one run folder")
    # every run folder is read (and its probes scored) once, for the design report and the tables;
    # a damaged folder (records missing, wrong types) is refused, not reported as a clean empty run
    loaded = [load_run(p).check_intact() for p in args.run_dirs]
    written = _write_design_reports(args, loaded)
    if len(args.run_dirs) > 1:
        print("wrote " + ", ".join(map(str, written)))
        return 0
    args.run_dir = args.run_dirs[0]
    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    res = loaded[0]
    if args.compare or args.reference:  # check the names before any work or output
        known = set(res.strategies) or set(res.probes["strategy"])
        for name in (args.compare or []) + ([args.reference] if args.reference else []):
            if name not in known:
                import difflib

                close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.5)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"{args.run_dir}: no strategy {name!r} in this run.{hint} Strategies: {', '.join(sorted(known))}")
    files = write_report(res, console=console)
    if args.by_category:
        table = category_table(res)
        console.print(table.round(2).to_string())
        console.print(table.attrs["caption"])
    if args.compare:
        a, b = args.compare
        print_comparison(res.compare(a, b), f"{a} (A) vs {b} (B), paired", console)
    if args.reference:
        print_comparison(res.compare_all(args.reference), f"every strategy (A) vs {args.reference} (B), paired", console)
    print("wrote " + ", ".join(str(p) for p in [*files.values(), *written]))
    return 0


def _write_design_reports(args: argparse.Namespace, loaded: list | None = None) -> list[Path]:
    """The ``--html`` / ``--md`` design reports (memlab.analysis.html_report), when asked for (``loaded``:
    the runs already read, whose scored probes and tables are reused)."""
    if not (args.html or args.md):
        return []
    from memlab.analysis.html_report import write_reports

    return write_reports(loaded or args.run_dirs, html=args.html or None, md=args.md or None)


def _cmd_explain(args: argparse.Namespace) -> int:
    """Print why probes scored what they did (by default only the scores that missed), per probe."""
    from memlab.analysis.results import load_run

    res = load_run(args.run_dir).check_intact()
    if args.strategy and args.strategy not in res.strategies:
        raise ValueError(f"{args.run_dir}: no strategy {args.strategy!r} in this run. Strategies: {', '.join(res.strategies)}")
    if args.probe is not None:
        known = sorted(set(res.probes["probe_id"].astype(str))) if not res.probes.empty else []
        if args.probe not in known:
            import difflib

            close = difflib.get_close_matches(args.probe, known, n=1, cutoff=0.5)
            raise ValueError(f"{args.run_dir}: no probe {args.probe!r} was answered in this run."
                             + (f" Did you mean {close[0]!r}?" if close else "")
                             + (f" ({len(known)} probes answered)" if known else " (no probe was answered)"))
    table = res.explanations(strategy=args.strategy, probe_id=args.probe, missed_only=not args.all)
    print(_run_status_line(res), file=sys.stderr if args.csv else sys.stdout)
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.csv, index=False)
        print(f"wrote {args.csv} ({len(table)} rows)")
        return 0
    if table.empty:
        print("no probe matched" if args.probe or args.all else "no score missed")
        return 0
    for (strategy, dataset, conv, probe), rows in table.groupby(["strategy", "dataset", "conversation_id", "probe_id"], sort=False):
        print(f"{strategy} · {dataset}/{conv}/{probe} ({rows['category'].iloc[0]})")
        for r in rows.itertuples():
            print(f"  {r.metric} = {r.score}: {r.explanation}")
    return 0


def _cmd_view(args: argparse.Namespace) -> int:
    """Serve run folders in the browser (docs/view.md); ``--index-only`` builds their indexes and exits."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"memlab view needs starlette and uvicorn ({exc.name} is missing): "
                           "pip install 'memlab[view]'") from None
    from memlab.view.index import ensure_index

    if args.index_only:
        for run_dir in args.run_dirs:
            if not (Path(run_dir) / "manifest.json").is_file():
                raise FileNotFoundError(f"{run_dir} is not a memlab run folder (no manifest.json)")
            t0 = time.perf_counter()
            index = ensure_index(run_dir, echo=lambda msg: print(msg, flush=True))
            print(f"indexed {run_dir}: {index['probes']['n']:,} probe records "
                  f"({time.perf_counter() - t0:.1f} s)")
        return 0
    from memlab.view.server import serve

    return serve(args.run_dirs, port=args.port, open_browser=not args.no_browser, baseline=args.baseline,
                 echo=lambda msg: print(msg, flush=True))


def _run_status_line(res: object) -> str:
    """``RUN: status completed · 4 of 4 units ok`` (and what failed): explain's first line, so a
    reader knows whether the explanations cover the whole run."""
    manifest = getattr(res, "manifest")
    units = manifest.get("units") if isinstance(manifest.get("units"), dict) else {}
    counts = f" · {units.get('ok')} of {units.get('total')} units ok" if units.get("total") is not None else ""
    failed = f" · {len(units.get('failed') or [])} failed" if units.get("failed") else ""
    return f"{getattr(res, 'path')}: status {manifest.get('status')}{counts}{failed}"


def _cmd_validate(args: argparse.Namespace) -> int:
    """Check every file (folders: their dataset files, recursively) and report each; 1 if any has problems."""
    from memlab.datasets.discover import expand_paths
    from memlab.datasets.io import DatasetError, FormatNotRecognised, check_file

    candidates, notes = expand_paths(args.paths)
    bad = checked = 0
    for cand in candidates:
        warnings: list = []
        try:
            ds, problems = check_file(cand.path, warnings)
        except FormatNotRecognised as exc:
            if cand.from_folder:
                notes.append(f"{cand.path}: skipped, not a dataset (format not recognised)")
                continue
            ds, problems = None, exc.problems
        except DatasetError as exc:
            ds, problems = None, exc.problems
        checked += 1
        if problems or ds is None:
            bad += 1
            print(f"✗ {cand.path}: {len(problems)} problem(s)")
            for p in problems:
                print(f"  {p}")
            for w in warnings:
                print(f"  warning: {w}")
        else:
            fmt = ds.meta.get("source_format")
            origin = f" (converted from {fmt})" if fmt else ""
            print(f"✓ {cand.path}: dataset {ds.name!r} v{ds.version}{origin}: {len(ds.conversations)} conversations, "
                  f"{len(ds.probes())} probes")
            for w in warnings:
                print(f"  warning: {w}")
    for note in notes:
        print(f"note: {note}")
    if not checked:
        print("no dataset files found")
    elif checked > 1:
        print(f"{checked - bad} of {checked} file(s) valid")
    return 1 if bad or not checked else 0


def _judge_spec_from_args(args: argparse.Namespace) -> dict | None:
    """The judge the flags name (None: none named). ``--judge-model``/``--base-url``: an
    OpenAI-compatible judge; ``--offline-judge``: the offline one; cache flags wrap either."""
    spec: dict = {}
    if args.offline_judge:
        spec["provider"] = "offline"
    elif args.judge_model or args.base_url:
        spec.update(provider="openai", model=args.judge_model, base_url=args.base_url)
    if args.cache_mode:
        spec["cache"] = {"mode": args.cache_mode, "path": args.cache_path}
    if args.temperature is not None:
        spec["temperature"] = args.temperature
    return spec or None


def _cmd_rejudge(args: argparse.Namespace) -> int:
    """Re-score an existing run's answers with another judge or prompt into a new run folder."""
    from rich.console import Console

    from memlab.judging.rejudge import rejudge, source_judge_spec
    from memlab.runfolder.records import read_manifest
    from memlab.analysis.report import write_report

    spec = _judge_spec_from_args(args)
    if spec is not None and "provider" not in spec:  # only cache/temperature flags: keep the run's own judge
        spec = {**(source_judge_spec(read_manifest(Path(args.run_dir) / "manifest.json")) or {}), **spec}
    from memlab.llm.types import EndpointDown
    from memlab.harness.runner import EXIT_CODES

    try:
        out = rejudge(args.run_dir, spec, prompt=args.prompt, out=args.out, workers=args.workers)
    except EndpointDown as exc:  # the judge's endpoint stopped (down, or asked to wait too long): nothing written
        print(f"memlab rejudge: stopped: {exc}", file=sys.stderr)
        return EXIT_CODES["failed"]
    console = Console() if Console().is_terminal else Console(width=200)
    write_report(out, console=console)
    manifest = read_manifest(out / "manifest.json")
    status = manifest.get("status")
    console.print(f"re-judged {args.run_dir} with the {args.prompt} prompt → {out} · status {status}"
                  + (f" · the judge failed on {manifest.get('judge_failed')} of {manifest.get('judged')} answers"
                     if manifest.get("judge_failed") else ""))
    return EXIT_CODES.get(str(status), 1)


def _cmd_judge_audit(args: argparse.Namespace) -> int:
    """Measure the judge on the run's answers plus planted wrong and paraphrased-right ones."""
    from rich.console import Console
    from rich.table import Table

    from memlab.judging.audit import judge_audit

    from memlab.llm.types import EndpointDown
    from memlab.harness.runner import EXIT_CODES

    try:
        result = judge_audit(args.run_dir, _judge_spec_from_args(args), repeats=args.repeats, workers=args.workers)
    except EndpointDown as exc:
        print(f"memlab judge-audit: stopped: {exc}", file=sys.stderr)
        return EXIT_CODES["failed"]
    console = Console() if Console().is_terminal else Console(width=200)
    table = Table(title=f"judge audit · {args.run_dir}", title_style="bold")
    for col in result.table.columns:
        table.add_column(col.replace("_", " "), justify="left" if col in ("prompt", "kind", "expected") else "right")
    for row in result.table.itertuples(index=False):
        table.add_row(*("–" if v is None or v != v else f"{v:.2f}" if isinstance(v, float) else str(v) for v in row))
    console.print(table)
    s = result.summary
    for prompt, p in s["prompts"].items():
        console.print(f"{prompt} ({p['prompt_hash'][:12]}): false-accept {p['false_accept']} · false-reject {p['false_reject']} · "
                      f"agrees with containment {p['agreement_with_containment']} · with F1 {p['agreement_with_f1']}"
                      + (f" · variance {p['variance']}" if p["variance"] is not None else ""))
    console.print(f"lenient vs strict agree on {s['prompt_agreement']} of all items, {s['prompt_agreement_run_answers']} "
                  f"of the run's answers · temperature {s['temperature']} · cache {s['cache_mode']} · "
                  f"{s['judge_calls']} judge calls · wrote judge_audit.csv, judge_audit.json in {args.run_dir}")
    if s["judge_failed_calls"]:  # the rates above leave those items out; an audit of nothing must not pass
        console.print(f"[red]{s['judge_failed_calls']} of {s['judge_calls']} judge calls failed after their retries: "
                      "the rates cover the judged items only[/red]")
        return EXIT_CODES["completed_with_failures"]
    return 0


def _add_judge_flags(p: argparse.ArgumentParser, *, prompt: bool = True) -> None:
    from memlab.judging.defaults import DEFAULT_JUDGE_PROMPT  # not .prompts: building the parser imports no dspy

    p.add_argument("--judge-model", help="OpenAI-compatible judge model name (default: the run's judge, else offline)")
    p.add_argument("--base-url", help="the judge's OpenAI-compatible endpoint (key from $OPENAI_API_KEY)")
    p.add_argument("--offline-judge", action="store_true", help="use the offline judge (memlab/scoring/offline_judge.py)")
    p.add_argument("--cache-mode", choices=["off", "record", "replay", "replay-strict"], help="record/replay the judge's calls")
    p.add_argument("--cache-path", help="the record/replay JSONL file")
    p.add_argument("--temperature", type=float, help="the judge's sampling temperature (default 0)")
    p.add_argument("--workers", type=_positive_int, default=1, help="judge calls in flight at once")
    if prompt:
        p.add_argument("--prompt", choices=["lenient", "strict"], default=DEFAULT_JUDGE_PROMPT,
                       help=f"the judge prompt (docs/judging.md; default {DEFAULT_JUDGE_PROMPT})")


def _cmd_components(args: argparse.Namespace) -> int:
    from memlab.memory.stores.base import STORES
    from memlab.analysis.metrics import METRICS
    from memlab.strategies import PRESETS
    from memlab.strategies.slots import STORE_SLOT, ordered_slots
    from memlab.strategies.triggers import TRIGGERS

    def line(name: str, text: str) -> str:
        return f"  {name:<22} {text}"

    print("strategy types (`type:` of a strategy; composed is the default; docs/external.md):")
    from memlab.strategies.types import STRATEGY_TYPES, library_version, missing_extra, summary

    print(line("composed", "memlab's components in slots: the presets and slots below"))
    for name in STRATEGY_TYPES.names():
        cls = STRATEGY_TYPES.get(name)
        missing = missing_extra(cls)
        state = (f"not installed: {missing.split(': ', 1)[-1]}" if missing
                 else f"{cls.library} {library_version(cls)}" if getattr(cls, "library", None) else cls.__module__)
        print(line(name, f"{summary(cls)} [{state}]"))
    print("strategy presets:")
    for name in PRESETS.names():
        print(line(name, PRESETS.get(name).get("description", "")))
    for slot in ordered_slots():
        print(f"{slot.name} ({slot.description}):")
        if slot.name == STORE_SLOT:
            for name in STORES.names():
                print(line(name, "storage backend"))
            continue
        for name in slot.registry.names():
            print(line(name, slot.registry.get(name).summary()))
    print("compression triggers (the `trigger:` of a compressing component):")
    for name in TRIGGERS.names():
        print(line(name, TRIGGERS.get(name).summary()))
    print("memory tools (offered to an agent by the components that carry them out):")
    offered = {}
    for slot in ordered_slots():
        if slot.name == STORE_SLOT:
            continue
        for cname in slot.registry.names():
            for tool, desc in slot.registry.get(cname).offered_tools.items():
                offered.setdefault(tool, (desc, []))[1].append(f"{slot.name}:{cname}")
    for tool, (desc, by) in sorted(offered.items()):
        print(line(tool, f"{desc} [{', '.join(by)}]"))
    from memlab.offline.behaviour import KNOBS

    print("behaviour knobs of the offline model (model.profile, memlab sensitivity --vary; docs/sensitivity.md):")
    for knob in KNOBS:
        print(line(knob.name, f"(as built {knob.default if knob.default is not None else 'null'}) {knob.description}"))
    print("metrics:")
    for name in METRICS.names():
        m = METRICS.get(name)
        arrow = {True: "↑", False: "↓"}.get(m.higher_is_better, "·")
        print(line(name, f"{arrow} {m.aggregation}: {m.description}"))
    return 0


def _cmd_baseline(args: argparse.Namespace) -> int:
    """Write a run's baseline for ``memlab check`` (docs/gate.md)."""
    from memlab.analysis.baseline import write_baseline

    out = write_baseline(args.run_dir, args.out)
    print(f"wrote baseline {out}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    """Gate a run against a baseline: 0 no regression, 1 regression, 2 could not compare (docs/gate.md)."""
    from memlab.analysis.gate import EXIT_CANNOT_COMPARE, check
    from memlab.redact import redact_text

    if args.config is None and args.run is None:
        raise ValueError("memlab check: give a CONFIG to run, or --run RUN_DIR to gate an existing run")
    if args.run and args.run_dir:
        raise ValueError("memlab check: --run gates an existing run, --run-dir names the run it makes; give one")
    try:
        result = check(args.config, args.baseline, run_dir=args.run, progress=not args.no_progress,
                       out_dir=args.run_dir, allow_model_change=args.allow_model_change)
    except Exception as exc:  # whatever stops the gate exits 2 ("could not compare"), never 1 ("regression")
        print(f"memlab check: could not compare: {redact_text(f'{type(exc).__name__}: {exc}')}", file=sys.stderr)
        return EXIT_CANNOT_COMPARE
    print(result.summary())
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(result.to_markdown(), encoding="utf-8")
        print(f"wrote {args.markdown}")
    if args.html:  # the gated run's design report (CI uploads it beside the run folder)
        if result.run_dir and (Path(result.run_dir) / "manifest.json").exists():
            from memlab.analysis.html_report import report_html

            print(f"wrote {report_html([result.run_dir], args.html)}")
        else:
            print(f"memlab check: no run to report on; {args.html} not written", file=sys.stderr)
    return result.exit_code


def _cmd_suite_check(args: argparse.Namespace) -> int:
    """Planted contrasts per dataset: 0 all documented detections hold, 1 one was lost, 2 could not run."""
    import json

    from rich.console import Console
    from rich.table import Table

    from memlab.analysis.suite_check import (check_expected, expectations, load_expectations, lost_detections, markdown_table,
                                    suite_check)

    expected = load_expectations(args.expect) if args.expect else None
    if expected is not None and not args.contrast:  # a CI check plays only what the file says each dataset detects
        check = check_expected(args.paths, expected, output_dir=args.output_dir, workers=args.workers,
                               progress=not args.no_progress, limit_users=args.limit)
    else:
        check = suite_check(args.paths, output_dir=args.output_dir, workers=args.workers, progress=not args.no_progress,
                            limit_users=args.limit, contrasts=args.contrast or None)
    if not check.results:  # every unit failed: nothing was answered, so nothing was measured
        print("suite-check: no probe was answered (every unit failed); nothing could be measured", file=sys.stderr)
        return 2
    console = Console() if Console().is_terminal else Console(width=200)
    table = Table(title="memlab suite-check: planted contrasts (string recall, better − worse, paired, clustered by user)",
                  title_style="bold", caption="✓ detected: the 95% interval excludes 0 in the known direction · "
                                              "MDE: minimum detectable difference at 80% power for this many users")
    for col in ("dataset", "contrast", "users", "probes", "better", "worse", "Δ [95% CI]", "detected", "MDE", "note"):
        table.add_column(col, justify="right" if col in ("users", "probes", "better", "worse", "MDE") else "left")
    for r in check.results:
        if r.probes == 0:
            table.add_row(r.dataset, r.contrast, "–", "0", "–", "–", "–", "–", "–", r.note)
            continue
        table.add_row(r.dataset, r.contrast, str(r.users), str(r.probes), f"{r.mean_better:.2f}", f"{r.mean_worse:.2f}",
                      f"{r.diff:+.2f} [{r.ci_low:+.2f}, {r.ci_high:+.2f}]", "✓" if r.detected else "✗",
                      ("<0.01" if r.mde < 0.005 else f"{r.mde:.2f}") if r.mde == r.mde else "–", r.note)
    console.print(table)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(expectations(check), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    if args.markdown:
        Path(args.markdown).write_text(markdown_table(check) + "\n", encoding="utf-8")
        print(f"wrote {args.markdown}")
    if expected is not None:
        lost = lost_detections(check, expected)
        if lost:
            print("suite-check: documented detections lost (" + args.expect + "): " + "; ".join(lost), file=sys.stderr)
            return 1
        n = sum(1 for ds in expected["datasets"].values() for v in ds.values() if v.get("detected"))
        print(f"suite-check: every documented detection holds ({n} in {args.expect})")
    return 0


def _cmd_stores_purge(args: argparse.Namespace) -> int:
    """Delete the memories finished runs left on Postgres / chroma servers (docs/backends.md)."""
    from memlab.memory.stores.purge import purge_run, runs_older_than

    if not args.run_dirs and args.older_than is None:
        raise ValueError("memlab stores purge: give RUN_DIR(s), or --older-than DAYS (runs under --results)")
    runs = [Path(p) for p in args.run_dirs]
    if args.older_than is not None:
        runs += [r for r in runs_older_than(args.results, args.older_than) if r not in runs]
    verb = "would remove" if args.dry_run else "removed"
    skipped = 0
    for run in runs:
        done = purge_run(run, dsn=args.dsn, dry_run=args.dry_run)
        if done.skipped:
            skipped += 1
            print(f"{run}: skipped: {done.skipped}", file=sys.stderr)
        elif not done.removed:
            print(f"{run}: no store on a server (in memory, or embedded in the run folder)")
        else:
            print(f"{run}: " + "; ".join(f"{verb} {n} memories from {where}" for where, n in done.removed.items()))
    if not runs:
        print(f"no run under {args.results} ended more than {args.older_than:g} day(s) ago")
    if skipped:  # a run left in place (in use, or of unknown namespaces) is not a purge that succeeded
        print(f"memlab stores purge: {skipped} of {len(runs)} run(s) not purged", file=sys.stderr)
        return 1
    return 0


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value:g}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memlab", description="Evaluate agent memory strategies.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="play datasets through strategies and report")
    p.add_argument("config", nargs="?", default=DEFAULT_CONFIG, help=f"run config YAML (default {DEFAULT_CONFIG})")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue an interrupted run in RUN_DIR")
    p.add_argument("--adopt", action="store_true",
                   help="with --resume: RUN_DIR is a copy of a run folder; give it a run_uid of its own instead of "
                        "refusing (its finished units are kept; docs/reliability.md)")
    p.add_argument("--run-dir", help="write to this folder instead of results/<stamp>-<name>")
    p.add_argument("--output-dir", help="parent folder for new runs (default from config: results)")
    p.add_argument("--limit", type=_positive_int, help="only the first N users of each dataset (every thread of each)")
    p.add_argument("--dataset", action="append", metavar="PATH",
                   help="play this dataset instead of the config's (repeatable), e.g. the M long-horizon suite")
    p.add_argument("--threads", choices=["as_is", "per_session"],
                   help="per_session: every session of a multi-session conversation becomes its own thread of the same user")
    p.add_argument("--model", help="use an OpenAI-compatible model with this name for every role")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (key from $OPENAI_API_KEY)")
    p.add_argument("--cache-mode", choices=["off", "record", "replay", "replay-strict"], help="record/replay model calls")
    p.add_argument("--cache-path", help="the record/replay JSONL file")
    p.add_argument("--workers", type=_positive_int, help="units played at once (default from config: 1)")
    p.add_argument("--executor", choices=["auto", "serial", "processes", "threads", "ray"],
                   help="how units run: auto picks serial (1 worker), threads (endpoint models) or processes")
    p.add_argument("--ray-address", help="run units as tasks on this Ray cluster (implies --executor ray)")
    p.add_argument("--budget", action="append", metavar="KEY=VALUE",
                   help="stop before the call that would cross a limit: max_usd=2, max_tokens=500000, max_calls=1000 "
                        "(repeatable; over the config's `budget:`; docs/cost.md)")
    p.add_argument("--prices", metavar="FILE", help="price table (YAML/CSV, USD per million tokens) before LiteLLM's map")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(fn=_cmd_run)

    p = sub.add_parser("report", help="print the table and write metrics.csv + plots for a run folder; "
                                      "--html/--md: the design report of one or several runs")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--html", metavar="OUT.html", help="write the design report as one self-contained HTML file")
    p.add_argument("--md", metavar="OUT.md", help="write the design report as markdown, its plots as PNGs beside it")
    p.add_argument("--by-category", action="store_true", help="also print string recall per category")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="print a paired comparison of strategies A and B (mean A − B, clustered CI, discordant probes)")
    p.add_argument("--reference", metavar="R", help="print a paired comparison of every strategy against R")
    p.set_defaults(fn=_cmd_report)

    p = sub.add_parser("explain", help="why probes scored what they did: which gold form was found where, or the "
                                       "nearest line on a miss (only the scores that missed, unless --all)")
    p.add_argument("run_dir")
    p.add_argument("--strategy", help="only this strategy's probes")
    p.add_argument("--probe", metavar="PROBE_ID", help="only this probe")
    p.add_argument("--all", action="store_true", help="every explained score, not only the misses")
    p.add_argument("--csv", metavar="OUT.csv", help="write the table as CSV instead of printing it")
    p.set_defaults(fn=_cmd_explain)

    p = sub.add_parser("view", help="browse run folders in a local web app: probes, contexts side by side, memory "
                                    "timelines, run-to-run flips (docs/view.md)")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--port", type=int, default=0, help="listen on this port of 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="print the URL, do not open a browser")
    p.add_argument("--baseline", metavar="FILE", help="also show the probes that flipped against this baseline "
                                                      "(as `memlab check --baseline FILE` counts them)")
    p.add_argument("--index-only", action="store_true", help="build or refresh the runs' indexes and exit")
    p.set_defaults(fn=_cmd_view)

    p = sub.add_parser("validate", help="check native dataset files; non-zero exit on any problem")
    p.add_argument("paths", nargs="+")
    p.set_defaults(fn=_cmd_validate)

    p = sub.add_parser("rejudge", help="re-score a run's answers with another judge or judge prompt, into a new run folder")
    p.add_argument("run_dir")
    p.add_argument("--out", help="the new run folder (default <RUN_DIR>-rejudged-<prompt>)")
    _add_judge_flags(p)
    p.set_defaults(fn=_cmd_rejudge)

    p = sub.add_parser("judge-audit", help="measure a judge: false accepts/rejects on planted answers, prompt agreement, variance")
    p.add_argument("run_dir")
    p.add_argument("--repeats", type=_positive_int, default=1, help="judge every item N times to measure variance")
    _add_judge_flags(p, prompt=False)
    p.set_defaults(fn=_cmd_judge_audit)

    p = sub.add_parser("components", help="list registered presets, components, stores and metrics")
    p.set_defaults(fn=_cmd_components)

    p = sub.add_parser("baseline", help="write a run's results as a baseline file for `memlab check`")
    p.add_argument("run_dir")
    p.add_argument("--out", required=True, help="baseline JSON to write (e.g. evals/baselines/ci.json)")
    p.set_defaults(fn=_cmd_baseline)

    p = sub.add_parser("check", help="regression gate: run CONFIG (or take --run) and compare with a baseline; "
                                     "exit 0 no regression, 1 regression, 2 could not compare")
    p.add_argument("config", nargs="?", help="run config YAML (its `gate:` block holds the tolerances)")
    p.add_argument("--baseline", required=True, help="baseline JSON written by `memlab baseline`")
    p.add_argument("--run", metavar="RUN_DIR", help="gate this finished run instead of running CONFIG")
    p.add_argument("--markdown", metavar="FILE", help="also write the diff as markdown (a pull-request comment)")
    p.add_argument("--allow-model-change", action="store_true",
                   help="gate a run whose model differs from the baseline's (refused by default: strategy code is "
                        "gated with the model frozen); an offline-model change only on datasets declared split: dev")
    p.add_argument("--run-dir", metavar="DIR", help="write the run CONFIG makes to this folder (default: a new "
                                                     "<output_dir>/<stamp>-<name>)")
    p.add_argument("--html", metavar="FILE", help="also write the gated run's design report (HTML)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(fn=_cmd_check)

    p = sub.add_parser("suite-check", help="does each dataset detect planted contrasts (extraction, short-term, "
                                           "compression, threads)? exit 1 if a documented detection is lost",
                       description="Play planted contrasts (pairs of strategies whose order is known) on each dataset "
                                   "with the offline model and report the paired difference in string recall, its "
                                   "interval clustered by user, whether it is detected and the minimum detectable "
                                   "difference (datasets/README.md, 'Suite validity').")
    p.add_argument("paths", nargs="+", metavar="DATASET", help="dataset files (any format memlab reads)")
    p.add_argument("--expect", metavar="FILE", help="fail (exit 1) if a contrast FILE documents as detected is not")
    p.add_argument("--out", metavar="FILE", help="write the results as an expectations file (JSON)")
    p.add_argument("--markdown", metavar="FILE", help="write the dataset × contrast table as markdown")
    p.add_argument("--output-dir", help="parent folder of the runs (default: a temporary folder)")
    p.add_argument("--workers", type=_positive_int, default=1, help="units played at once")
    p.add_argument("--limit", type=_positive_int, help="only the first N users of each dataset")
    p.add_argument("--contrast", action="append", metavar="NAME",
                   help="play only this contrast (repeatable): extraction, short_term, compression, threads, capacity")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(fn=_cmd_suite_check)

    p = sub.add_parser("stores", help="manage the memories runs leave on store servers")
    group = p.add_subparsers(dest="stores_command", metavar="COMMAND", required=True)
    p = group.add_parser("purge", help="delete the memories finished runs left on Postgres / chroma servers "
                                       "(their run folders and results are kept)")
    p.add_argument("run_dirs", nargs="*", metavar="RUN_DIR")
    p.add_argument("--older-than", type=_non_negative_float, metavar="DAYS",
                   help="also every run under --results that ended more than DAYS days ago")
    p.add_argument("--results", default="results", help="where --older-than looks for runs (default: results)")
    p.add_argument("--dsn", help="the Postgres DSN to use when the run's was recorded with its password masked")
    p.add_argument("--dry-run", action="store_true", help="count what would be removed, remove nothing")
    p.set_defaults(fn=_cmd_stores_purge)

    from memlab import sensitivity_cli

    sensitivity_cli.register(sub)  # memlab sensitivity, memlab profile (docs/sensitivity.md)
    try:
        from memlab.datasets import cli as datasets_cli
    except ImportError:
        datasets_cli = None
    if datasets_cli is not None and hasattr(datasets_cli, "register"):
        datasets_cli.register(sub)
    from memlab.harness import estimate_cli as cost_cli

    cost_cli.register(sub)  # memlab estimate
    return parser


def main(argv: list[str] | None = None) -> int:
    from memlab.harness.gc_policy import batch_process
    from memlab.registry import RegistryError

    batch_process()  # a command is a batch process over a large heap (memlab.harness.gc_policy)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    args = build_parser().parse_args(argv)
    try:
        fn = getattr(args, "fn", None) or args.func
        return int(fn(args) or 0)
    except (FileNotFoundError, FileExistsError, ValueError, RegistryError, RuntimeError, OSError) as exc:
        from memlab.redact import redact_text

        print(f"memlab: {redact_text(str(exc))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
