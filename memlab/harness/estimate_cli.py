"""``memlab estimate``: the command line of :mod:`memlab.harness.estimate` (registered by memlab/cli.py)."""

from __future__ import annotations

import argparse
from typing import Any


def _money(value: float) -> str:
    if value != value:
        return "?"
    return f"${value:,.2f}" if value >= 1 else f"${value:,.4f}"


def _tokens(value: float) -> str:
    return f"{value / 1e6:,.2f}M" if value >= 1e6 else f"{value / 1e3:,.1f}k" if value >= 1e3 else f"{value:,.0f}"


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"


def print_estimate(est: Any, console: Any = None) -> None:
    """Per strategy: calls and tokens (typical, and output at max_tokens), then the USD range per model."""
    from rich.console import Console
    from rich.table import Table

    console = console or (Console() if Console().is_terminal else Console(width=200))
    if est.rows.empty:
        console.print(f"memlab estimate: the run makes no model call (from {est.source.get('run')}): it costs nothing")
        return
    per = est.by_strategy()
    models = list(dict.fromkeys(per["model"]))
    first = per[per["model"] == models[0]].set_index("strategy")
    table = Table(title="memlab estimate · projected per strategy (typical – output at max_tokens)", title_style="bold")
    for col in ("strategy", "calls", "input tok", "output tok", *[f"{m} $" for m in models]):
        table.add_column(col, justify="left" if col == "strategy" else "right")
    for strategy, row in first.iterrows():
        cells = [str(strategy), f"{row['calls']:,.0f}", _tokens(row["input_tokens"]),
                 f"{_tokens(row['output_tokens'])} – {_tokens(row['output_tokens_max'])}"]
        for m in models:
            r = per[(per["model"] == m) & (per["strategy"] == strategy)].iloc[0]
            cells.append(f"{_money(r['usd'])} – {_money(r['usd_max'])}")
        table.add_row(*cells)
    totals = est.totals().set_index("model")
    t0 = totals.loc[models[0]]
    table.add_row("[bold]total[/bold]", f"{t0['calls']:,.0f}", _tokens(t0["input_tokens"]),
                  f"{_tokens(t0['output_tokens'])} – {_tokens(t0['output_tokens_max'])}",
                  *[f"[bold]{_money(totals.loc[m, 'usd'])} – {_money(totals.loc[m, 'usd_max'])}[/bold]" for m in models],
                  end_section=True)
    tok = "; ".join(f"{m}: {t}" for m, t in dict(zip(est.rows["model"], est.rows["tokenizer"])).items())
    table.caption = (f"tokens of the first model's tokenizer ({tok}) · prices: {'; '.join(est.source.get('prices') or [])}"
                     f" · from {est.source.get('run')}")
    console.print(table)
    purposes = est.rows[est.rows["model"] == models[0]].groupby("purpose")[["calls", "input_tokens", "output_tokens"]].sum()
    console.print("by purpose (" + models[0] + "): " + " · ".join(
        f"{p} {r['calls']:,.0f} calls, {_tokens(r['input_tokens'])} in / {_tokens(r['output_tokens'])} out"
        for p, r in purposes.iterrows()))
    for m in models:
        w = totals.loc[m]
        console.print(f"wall time with {m}: ~{_duration(w['wall_s'])} (bound: {w['wall_bound']}; "
                      f"{est.source.get('latency_s')} s + output at {est.source.get('output_tps'):g} tok/s a call)")
    for note in est.notes:
        console.print(f"[yellow]note: {note}[/yellow]")


def _cmd_estimate(args: argparse.Namespace) -> int:
    import time

    from memlab.harness.estimate import estimate

    t0 = time.perf_counter()
    est = estimate(args.config, args.model, judge_model=args.judge_model, limit=args.limit, run_dir=args.run,
                   prices=args.prices, output_dir=args.dry_run_dir, latency_s=args.latency_s, output_tps=args.output_tps,
                   progress=not args.no_progress)
    print_estimate(est)
    if args.csv:
        print(f"wrote {est.to_csv(args.csv)}")
    print(f"estimated in {time.perf_counter() - t0:.1f} s from {est.source.get('run')} "
          f"(re-estimate without a new dry run: --run {est.source.get('run')})")
    return 0


def register(sub: Any) -> None:
    from memlab.harness.estimate import DEFAULT_LATENCY_S, DEFAULT_OUTPUT_TPS

    p = sub.add_parser("estimate", help="project a config's tokens, cost range and wall time per model from an offline "
                                        "dry run (or a recorded run) before paying for it (docs/cost.md)")
    p.add_argument("config", help="run config YAML")
    p.add_argument("--model", action="append", metavar="M",
                   help="price every call as model M (repeatable: one cost column each; default: the config's own models)")
    p.add_argument("--judge-model", metavar="J", help="price the judge's and ragas's calls as J instead")
    p.add_argument("--limit", type=int, metavar="N", help="dry-run only the first N users of each dataset, then scale by turns")
    p.add_argument("--run", metavar="RUN_DIR", help="estimate from this recorded run instead of a dry run")
    p.add_argument("--prices", metavar="FILE", help="price table (YAML/CSV, USD per million tokens) before LiteLLM's map")
    p.add_argument("--csv", metavar="OUT.csv", help="also write one row per model × strategy × dataset × purpose")
    p.add_argument("--dry-run-dir", metavar="DIR", help="where the dry run's folder goes (default: a temporary folder)")
    p.add_argument("--latency-s", type=float, default=DEFAULT_LATENCY_S,
                   help=f"seconds per call before its first output token (default {DEFAULT_LATENCY_S})")
    p.add_argument("--output-tps", type=float, default=DEFAULT_OUTPUT_TPS,
                   help=f"output tokens per second (default {DEFAULT_OUTPUT_TPS:g})")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(fn=_cmd_estimate)
