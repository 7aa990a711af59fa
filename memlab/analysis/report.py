"""Reports: the comparison table (rich), metrics.csv, per-category CSV and plots (PNG).

Every exported file says what produced it: CSVs carry run id, code version, model (labelled as the
offline stand-in when it is), embedder and dataset hashes as columns; plots carry them in a footer.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.analysis.failures import failures_table, print_failures
from memlab.analysis.forgetting import plot_recall_by_age, print_recall_by_age, recall_by_age
from memlab.analysis.lifecycle import LIFECYCLE_COLUMNS, lifecycle_table
from memlab.analysis.metrics import METRICS, answer_columns
from memlab.analysis.plots import plot_category_recall, plot_recall_vs_length, plot_recall_vs_tokens  # noqa: F401 (plot_recall_vs_length: re-exported for the length sweep)
from memlab.analysis.results import RunResults, load_run
from memlab.analysis.stats import cluster_interval

HEADLINE = {
    "evidence_recall": "str.recall",
    "content_recall": "content.rec",
    "provenance_recall": "prov.rec",
    "answer_correct": "answer",
    "update_correct": "upd.ok",
    "abstain_when_should": "abst",
    "false_abstention": "false.abst",
    "forbidden_leak": "inj.leak",
    "errored": "err",
}
"""The printed table's metric columns (when the config chooses none) and their short labels."""

WITH_CI = {"evidence_recall", "content_recall", "answer_correct", "update_correct"}
"""Columns printed with their interval (all of them carry one in summary.csv)."""

RECALL_KEY = ("str.recall: a gold answer (normalised) is in the context · content.rec: share of evidence turns "
              "with a context item derived from them that still carries a gold form · prov.rec: share of evidence "
              "turns among the context's source turns (credits lossy summaries) · ceiling: the share of probes that "
              "can be scored a hit at all (blank: all)")


def _fmt(v: Any, ci: Any = None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    s = f"{v:.2f}"
    if isinstance(ci, tuple) and len(ci) == 2 and not any(isinstance(c, float) and math.isnan(c) for c in ci):
        s += f" [{ci[0]:.2f},{ci[1]:.2f}]"
    return s


def _ceiling_cell(summary: pd.DataFrame, col: str) -> str:
    """The column's ceiling (a property of the datasets, the same for every strategy): its
    largest value over strategies, blank when every probe can be a hit."""
    key = f"{col}_ceiling"
    if key not in summary or summary[key].isna().all():
        return ""
    value = float(summary[key].max())
    return "" if value >= 0.995 else f"[dim]≤{value:.2f}[/dim]"


def _fmt_ms(v: Any) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) or not v else f"{1000 * v:.1f}"


def _console(console: Any) -> Any:
    from rich.console import Console

    if console is None:
        console = Console()
        if not console.is_terminal:  # piped/CI output: do not squeeze the table into 80 columns
            console = Console(width=200)
    return console


def headline_columns(res: RunResults) -> list[tuple[str, str, bool | None]]:
    """(column, label, direction) of the printed table: the config's ``metrics:`` when given
    (every reported column of each), else :data:`HEADLINE`."""
    chosen = (res.manifest.get("config") or {}).get("metrics")
    names = res.headline_metrics() if chosen else list(HEADLINE)
    out = []
    for name in names:
        for col, hib in METRICS.get(name).columns():
            out.append((col, HEADLINE.get(col, col), hib))
    return out


OFFLINE_MARK = "†"
"""Marks an answer metric's column when the offline stand-in answered (the caption says why)."""


def split_columns(res: RunResults) -> tuple[list[tuple[str, str, bool | None]], list[tuple[str, str, bool | None]]]:
    """:func:`headline_columns` split into the memory's columns (what the context held) and the
    answer's (what the answering model made of it), which tables show apart; with the offline
    answerer the answer columns' labels carry :data:`OFFLINE_MARK`."""
    answers = answer_columns()
    memory = [c for c in headline_columns(res) if c[0] not in answers]
    mark = OFFLINE_MARK if res.offline_answers else ""
    answer = [(col, f"{label}{mark}", hib) for col, label, hib in headline_columns(res) if col in answers]
    return memory, answer


def _arrow(hib: bool | None) -> str:
    return {True: " ↑", False: " ↓"}.get(hib, "")


def print_table(res: RunResults, console: Any = None) -> pd.DataFrame:
    from rich.table import Table

    console = _console(console)
    summary = res.summary()
    prov = res.provenance()
    title = f"memlab · {res.manifest.get('name')} · {prov['run_id']}"
    caption = (f"model: {prov['model']} · code {prov['code_version']} · {prov['datasets']} · mean "
               f"[{res.intervals.caption()}]; ↑ higher is better, ↓ lower\n{RECALL_KEY}")
    memory, answers = split_columns(res)
    if answers and res.offline_answers:
        caption += f"\n{OFFLINE_MARK} {res.answer_warning}"
    table = Table(title=title, caption=caption, show_lines=False)
    table.add_column("strategy", style="bold", no_wrap=True)  # a name and its "(n/total ok)" stay one line
    for _, label, hib in memory:
        table.add_column(f"{label}{_arrow(hib)}", justify="right")
    table.add_column("ctx tok/probe ↓", justify="right")
    table.add_column("model tok/conv ↓", justify="right")
    table.add_column("calls/conv", justify="right")
    table.add_column("writes/conv", justify="right")
    table.add_column("search ms", justify="right")
    for i, (_, label, hib) in enumerate(answers):  # the answer's metrics, apart: after the memory and its costs
        style = "yellow" if res.offline_answers else None
        table.add_column(f"{'│ ' if i == 0 else ''}{label}{_arrow(hib)}", justify="right", style=style)
    coverage = res.coverage()
    writes = writes_per_conversation(res)
    for strategy in [*summary.index, *[s for s in res.strategies if s not in summary.index]]:
        label = str(strategy)
        if strategy in coverage.index and not coverage.loc[strategy, "complete"]:  # a partial row: n ok/total
            label += f" [yellow]({int(coverage.loc[strategy, 'units_ok'])}/{int(coverage.loc[strategy, 'units_total'])} ok)[/yellow]"
        if strategy not in summary.index:  # no unit finished: a row all the same, so it does not vanish
            table.add_row(label, *["–"] * (len(memory) + 5 + len(answers)))
            continue
        row = summary.loc[strategy]
        cells = [_fmt(row.get(col), row.get(f"{col}_ci") if col in WITH_CI else None) for col, _, _ in memory]
        tok = (row.get("prompt_tokens_per_conv") or 0) + (row.get("completion_tokens_per_conv") or 0)
        w = writes.get(strategy)
        cells += [f"{row.get('context_tokens', float('nan')):.0f}", f"{tok:,.0f}", f"{row.get('calls_per_conv', 0):.0f}",
                  "–" if w is None or math.isnan(w) else f"{w:,.1f}", _fmt_ms(row.get("retrieval_latency_s"))]
        cells += [_fmt(row.get(col), row.get(f"{col}_ci") if col in WITH_CI else None) for col, _, _ in answers]
        table.add_row(label, *cells)
    if not summary.empty:
        ceiling = [_ceiling_cell(summary, col) for col, _, _ in memory]
        table.add_row("[dim]ceiling[/dim]", *ceiling, "", "", "", "", "", *[_ceiling_cell(summary, c) for c, _, _ in answers],
                      end_section=True)
    console.print(table)
    print_cost_table(res, console)
    print_run_notes(res, console)
    return summary


def print_run_notes(res: RunResults, console: Any) -> None:
    """Below a run's table (or in its place, when no probe was answered): the units that failed
    and why, what components absorbed, the judge's failures, and — unless the run completed —
    what can help (``--resume``, ``memlab rejudge``)."""
    failed = (res.manifest.get("units") or {}).get("failed") or []
    if failed:
        from rich.markup import escape

        console.print(f"[red]{len(failed)} unit(s) failed (strategy/dataset/user: error):[/red]")
        for f in failed[:10]:
            console.print(f"  [red]• {escape(str(f))}[/red]")
        if len(failed) > 10:
            console.print(f"  [red]… and {len(failed) - 10} more (manifest.json, units.failed)[/red]")
    print_failures(res, console, units=False)  # what components absorbed (docs/reliability.md)
    judged = judge_coverage(res)
    if not judged.empty and judged["judge_failed"].sum():
        console.print(f"[red]the judge failed on {int(judged['judge_failed'].sum())} of {int(judged['answers'].sum())} "
                      "answers: answer_correct covers the judged ones only (n in metrics.csv)[/red]")
    status = res.manifest.get("status")
    if status != "completed":
        if res.manifest.get("rejudged_from"):  # its records come from another run: only judging again can help
            hint = "judge it again with `memlab rejudge`"
        elif status == "stopped_at_budget":
            spent = (res.manifest.get("budget") or {}).get("spent") or {}
            hint = (f"spent ${spent.get('usd', 0):,.4f}, {spent.get('tokens', 0):,} tokens, {spent.get('calls', 0):,} calls; "
                    f"resume with a larger budget: `memlab run ... --resume {res.path} --budget max_usd=…`")
        else:  # a resume redoes failed, unfinished and failed-call units
            hint = f"resume with `memlab run ... --resume {res.path}`"
        console.print(f"[yellow]run status: {status} — {hint}[/yellow]")


def print_cost_table(res: RunResults, console: Any = None) -> pd.DataFrame | None:
    """What the run's endpoint calls cost per strategy (only for a run that reached an endpoint:
    replayed and offline calls are free): calls, prompt tokens (of which served from the
    provider's prompt cache), completion tokens and USD, per conversation and in total."""
    from rich.table import Table

    calls = res.calls
    if calls.empty or not _billed(calls):
        return None
    cost = res.cost()
    n_conv = res.conversations_per_strategy()
    table = Table(title="model calls and cost (endpoint calls; cached input at the cached rate)", title_style="bold")
    for col in ("strategy", "calls/conv", "input tok/conv", "cached tok/conv", "output tok/conv", "$/conv", "$ total"):
        table.add_column(col, justify="left" if col == "strategy" else "right")
    for strategy, row in cost.iterrows():
        usd = row.get("usd_per_conv")
        total = usd * n_conv.get(strategy, 0) if usd == usd and usd is not None else float("nan")
        table.add_row(str(strategy), f"{row.get('calls_per_conv', 0):,.1f}", f"{row.get('prompt_tokens_per_conv', 0):,.0f}",
                      f"{row.get('cached_tokens_per_conv', 0):,.0f}", f"{row.get('completion_tokens_per_conv', 0):,.0f}",
                      "?" if usd != usd or usd is None else f"{usd:,.4f}", "?" if total != total else f"{total:,.4f}")
    table.caption = "prices: " + "; ".join(res.price_book().sources()) + " · ? = no price for a model"
    _console(console).print(table)
    return cost


def _billed(calls: pd.DataFrame) -> bool:
    from memlab.cost.prices import is_billable

    cached = calls["cached"].fillna(False).astype(bool) if "cached" in calls else pd.Series(False, index=calls.index)
    return any(is_billable({"model": m}) for m in set(calls.loc[~cached, "model"].astype(str)))


def judge_coverage(res: RunResults) -> pd.DataFrame:
    """Per strategy: answers a judge was asked about, how many it judged and how many it failed on
    (empty when the run has no judge). ``answer_correct`` is the judged answers' mean only."""
    probes = res.probes
    if probes.empty or "judge" not in probes or not probes["judge"].map(lambda j: isinstance(j, dict)).any():
        return pd.DataFrame(columns=["answers", "judged", "judge_failed"])
    asked = probes[probes["judge"].map(lambda j: isinstance(j, dict))]
    failed = asked["judge"].map(lambda j: "error" in j)
    out = pd.DataFrame({"answers": asked.groupby("strategy").size(),
                        "judge_failed": failed.groupby(asked["strategy"]).sum().astype(int)})
    out["judged"] = out["answers"] - out["judge_failed"]
    return out[["answers", "judged", "judge_failed"]]


def writes_per_conversation(res: RunResults) -> pd.Series:
    """Per strategy: memory writes (ADD, UPDATE, DELETE operations) per conversation — the write
    volume of a design, whichever system made the writes (an external library's included)."""
    ops = res.memory_ops
    if ops.empty or "op" not in ops:
        return pd.Series(dtype=float)
    writes = ops[ops["op"].isin(("ADD", "UPDATE", "DELETE"))].groupby("strategy").size()
    return writes / res.conversations_per_strategy().reindex(writes.index)


def print_comparison(frame: pd.DataFrame, title: str, console: Any = None) -> None:
    """A paired comparison table (:meth:`RunResults.compare` / ``compare_all``), captioned with its CI method."""
    from rich.table import Table

    console = _console(console)
    table = Table(title=title, caption=frame.attrs.get("caption", ""))
    for col, justify in (("A", "left"), ("B", "left"), ("category", "left"), ("metric", "left"), ("n", "right"),
                         ("users", "right"), ("A", "right"), ("B", "right"), ("A − B [CI]", "right"),
                         ("A+ B− / A− B+", "right"), ("verdict", "left")):
        table.add_column(col, justify=justify)
    for r in frame.itertuples(index=False):
        discordant = "–" if r.a_only is None or (isinstance(r.a_only, float) and math.isnan(r.a_only)) else f"{int(r.a_only)} / {int(r.b_only)}"
        diff = f"{r.diff:+.2f}" + ("" if math.isnan(r.ci_low) else f" [{r.ci_low:+.2f},{r.ci_high:+.2f}]")
        table.add_row(r.a, r.b, r.category, f"{r.metric}{_arrow(r.higher_is_better)}", str(r.n), str(r.conversations),
                      f"{r.mean_a:.2f}", f"{r.mean_b:.2f}", diff, discordant, r.verdict)
    console.print(table)


def category_table(res: RunResults, metric: str = "evidence_recall") -> pd.DataFrame:
    """Per strategy × category: the mean of one reported column (:meth:`RunResults.category_table`)."""
    return res.category_table(metric)


SCOPES = ("thread", "earlier_threads", "mixed")
"""Where a probe's evidence was said (``evidence_scope`` of its record), in table order."""


def scope_table(res: RunResults, metric: str = "evidence_recall") -> pd.DataFrame:
    """Per strategy × evidence scope (own thread / earlier threads / both): the mean of ``metric``
    with its interval and probe count. Empty when no probe's evidence lies in an earlier thread
    (then every probe is answerable from the thread itself and the split says nothing)."""
    probes = res.probes
    if probes.empty or "evidence_scope" not in probes or not probes["evidence_scope"].isin(SCOPES[1:]).any():
        return pd.DataFrame()
    scored = res._scored()
    rows = []
    for strategy in res.strategies:
        row: dict[str, Any] = {"strategy": strategy}
        for scope in SCOPES:
            g = probes[(probes["strategy"] == strategy) & (probes["evidence_scope"] == scope)]
            vals = scored.loc[g.index, metric].to_numpy(dtype=float) if not g.empty else np.array([])
            if not (~np.isnan(vals)).any():
                continue
            mean, lo, hi = cluster_interval(vals, res._clusters(g), res.intervals)
            row[scope] = mean
            row[f"{scope}_ci"] = (round(lo, 3), round(hi, 3))
            row[f"{scope}_n"] = int((~np.isnan(vals)).sum())
        rows.append(row)
    out = pd.DataFrame(rows).set_index("strategy")
    out.attrs["caption"] = (f"{metric} by where the evidence was said: in the probe's own thread, only in the "
                            f"user's earlier threads (only long-term memory can carry it), or both ({res.intervals.caption()})")
    return out


def print_scope_table(res: RunResults, console: Any = None, metric: str = "evidence_recall") -> pd.DataFrame:
    from rich.console import Console
    from rich.table import Table

    frame = scope_table(res, metric)
    if frame.empty:
        return frame
    console = console or Console()
    table = Table(title=f"{metric} by thread scope", title_style="bold", caption=frame.attrs["caption"])
    table.add_column("strategy")
    scopes = [s for s in SCOPES if s in frame.columns]
    for s in scopes:
        table.add_column(s.replace("_", " ") + " [95% CI] (n)", justify="right")
    for name, row in frame.iterrows():
        cells = []
        for s in scopes:
            if pd.isna(row.get(s)):
                cells.append("–")
            else:
                lo, hi = row[f"{s}_ci"]
                ci = "" if pd.isna(lo) else f" [{lo:.2f},{hi:.2f}]"
                cells.append(f"{row[s]:.2f}{ci} ({int(row[f'{s}_n'])})")
        table.add_row(str(name), *cells)
    console.print(table)
    return frame


def length_table(res: RunResults) -> pd.DataFrame:
    """Per (dataset, strategy): history length and what memory recovered and cost at that length.

    Meant for runs over one dataset scaled to several lengths (``memlab datasets scale``): the
    manifest's datasets give each one's mean conversation length in tokens."""
    probes = res.probes
    if probes.empty:
        return pd.DataFrame()
    lengths = {d["name"]: d.get("tokens_per_conversation") for d in res.manifest.get("datasets", [])}
    per_user = {d["name"]: d.get("tokens_per_user") for d in res.manifest.get("datasets", [])}
    modes = {d["name"]: ("filler" if (d.get("scaled") or {}).get("mode") == "chitchat" else (d.get("scaled") or {}).get("mode"))
             or "original" for d in res.manifest.get("datasets", [])}
    cost = res.calls
    components = res.components()
    rows = []
    for (ds, strategy), g in probes.groupby(["dataset", "strategy"]):
        rec = g["evidence_recall"].to_numpy(dtype=float)
        mean, lo, hi = cluster_interval(rec, [res.cluster_of(ds, c) for c in g["conversation_id"]], res.intervals)
        c = cost[(cost["dataset"] == ds) & (cost["strategy"] == strategy)] if not cost.empty else cost
        n_conv = g["conversation_id"].nunique()
        rows.append({
            "dataset": ds, "strategy": strategy, "mode": modes.get(ds, "original"),
            "history_tokens_per_conv": lengths.get(ds), "history_tokens_per_user": per_user.get(ds),
            "evidence_recall": mean, "ci_low": lo, "ci_high": hi,
            "answer_correct": float(g["answer_correct"].mean()),
            "context_tokens_per_probe": float(g["context_tokens"].mean()),
            "model_tokens_per_conv": float((c["prompt_tokens"] + c["completion_tokens"]).sum() / max(n_conv, 1)) if not c.empty else 0.0,
            "probes": len(g), "components": components.get(strategy), "ci_method": res.intervals.caption(),
        })
    out = pd.DataFrame(rows).sort_values(["strategy", "mode", "history_tokens_per_conv"]).reset_index(drop=True)
    for k, v in res.provenance().items():
        out[k] = v
    return out


def print_lifecycle(res: RunResults, console: Any = None) -> pd.DataFrame:
    """What each design did (compressions, working memory, writes, lost facts, tokens by purpose)."""
    from rich.console import Console
    from rich.table import Table

    frame = lifecycle_table(res)
    console = console or Console(width=200)
    table = Table(title="memory lifecycle (memlab.analysis.lifecycle)", title_style="bold")
    table.add_column("strategy")
    cols = [c for c in [*LIFECYCLE_COLUMNS, *sorted(c for c in frame.columns if c.startswith("tokens_"))] if c in frame.columns]
    for c in cols:
        table.add_column(c.replace("_", " "), justify="right")
    for name, row in frame.iterrows():
        table.add_row(str(name), *("–" if pd.isna(row[c]) else f"{row[c]:,.2f}" if abs(row[c]) < 100 else f"{row[c]:,.0f}"
                                  for c in cols))
    console.print(table)
    return frame


def write_report(run_dir: str | Path | RunResults, *, console: Any = None, quiet: bool = False) -> dict[str, Path]:
    """Print the table and write metrics.csv, summary.csv, category_recall.csv, ceilings.csv and two
    PNG plots. Every CSV with intervals carries a ``ci_method`` column saying how they were made.

    ``run_dir`` may be a run already loaded (its scored probes and tables are reused)."""
    res = run_dir if isinstance(run_dir, RunResults) else load_run(run_dir)
    run_dir = res.path
    if res.probes.empty:  # a dataset without probes, or every unit failed: nothing to score or plot
        msg = f"{run_dir}: no probes were answered (status {res.manifest.get('status')}): no tables or plots written"
        if not quiet:
            (console.print if console is not None else print)(msg)
            if console is None:
                from rich.console import Console

                console = Console(width=200)
            print_run_notes(res, console)  # which units failed and why, and what can help
        return {}
    summary = print_table(res, console) if not quiet else res.summary()
    out = {
        "metrics": run_dir / "metrics.csv",
        "summary": run_dir / "summary.csv",
        "category_recall": run_dir / "category_recall.csv",
        "ceilings": run_dir / "ceilings.csv",
        "plot": run_dir / "recall_vs_tokens.png",
        "category_plot": run_dir / "recall_by_category.png",
    }
    res.metrics_table().to_csv(out["metrics"], index=False)
    missing = [s for s in res.strategies if s not in summary.index]  # no unit finished: kept, not dropped
    marked = summary.reindex([*summary.index, *missing]).rename_axis("strategy")
    marked = marked.join(res.coverage()[["units_ok", "units_total"]], how="left")  # partial rows: n ok/total
    judged = judge_coverage(res)
    if not judged.empty:
        marked = marked.join(judged.add_prefix("judge_").rename(columns={"judge_judge_failed": "judge_failed"}), how="left")
    for frame, key in ((marked, "summary"), (category_table(res), "category_recall")):
        frame["components"] = frame.index.map(res.components())
        frame["ci_method"] = res.intervals.caption()
        frame["answers_by"] = "offline stand-in (answer metrics measure it, not the memory)" if res.offline_answers \
            else "a real model"
        for k, v in res.provenance().items():
            frame[k] = v
        frame.to_csv(out[key])
    ceilings = res.ceilings()
    for k, v in res.provenance().items():
        ceilings[k] = v
    ceilings.to_csv(out["ceilings"])
    scopes = print_scope_table(res, console) if not quiet else scope_table(res)
    if not scopes.empty:
        out["scope_recall"] = run_dir / "scope_recall.csv"
        scopes["ci_method"] = res.intervals.caption()
        for k, v in res.provenance().items():
            scopes[k] = v
        scopes.to_csv(out["scope_recall"])
    ages = print_recall_by_age(res, console) if not quiet else recall_by_age(res)
    if not ages.empty:  # the forgetting curves: recall by how long ago the evidence was said
        out["recall_by_age"] = run_dir / "recall_by_age.csv"
        out["age_plot"] = run_dir / "recall_by_age.png"
        both = pd.concat([ages, recall_by_age(res, by="threads")], ignore_index=True)
        both["ci_method"] = res.intervals.caption()
        for k, v in res.provenance().items():
            both[k] = v
        both.to_csv(out["recall_by_age"], index=False)
        plot_recall_by_age(ages, out["age_plot"], title=f"Forgetting curves: {res.manifest.get('name', run_dir.name)}",
                           footer=" · ".join(f"{k}: {v}" for k, v in res.provenance().items()))
    failures = failures_table(res)
    if not failures.empty:
        out["failures"] = run_dir / "failures.csv"
        for k, v in res.provenance().items():
            failures[k] = v
        failures.to_csv(out["failures"], index=False)
    out["lifecycle"] = run_dir / "lifecycle.csv"
    lifecycle = lifecycle_table(res)
    for k, v in res.provenance().items():
        lifecycle[k] = v
    lifecycle.to_csv(out["lifecycle"], index_label="strategy")
    if not quiet and (not res.compressions.empty or not res.agent_steps.empty):
        print_lifecycle(res, console)
    plot_recall_vs_tokens(res, out["plot"])
    plot_category_recall(res, out["category_plot"])
    return out
