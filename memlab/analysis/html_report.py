"""The design report: one or more run folders as a single document to hand around.

A comparison is only useful to someone who was not there when it ran if the document says what
question it answers, what exactly was compared, on which data, with which models and code, and
lets the reader see *why* a strategy lost (the probes it failed, with the evidence lines marked
in the context it was given). :func:`build_report` reads the runs into a small document model
(sections of tables, plots, facts and probe cases); :func:`render_html` writes it as one
self-contained HTML file (plots as base64 PNGs, inline CSS, no external URL) and
:func:`render_markdown` as markdown with the plots as PNG files beside it.

Everything shown comes from the run records and the manifest (already redacted by the runner,
and redacted again here in case an older memlab wrote it). Dataset text is untrusted: every
string is escaped by the renderer, never interpolated raw.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from memlab.analysis import plots
from memlab.analysis.lifecycle import NOT_FACTS, WRITES, lifecycle_table
from memlab.redact import redact, redact_text
from memlab.analysis.metrics import explain_probe
from memlab.runfolder.probe_record import ProbeRow
from memlab.analysis.report import OFFLINE_MARK, split_columns
from memlab.analysis.report_model import (Caution, ContextLine, Details, Facts, Heading, Plot, ProbeCase,  # noqa: F401
                                           Report, Section, Table, Text)
from memlab.analysis.report_render import render_html, render_markdown  # noqa: F401  (re-exported)
from memlab.analysis.results import RunResults, load_run
from memlab.analysis.view_command import view_command

MAX_FAILED_PER_STRATEGY = 20
"""Failed probes shown per strategy; the rest are counted (all are in the run's probes.jsonl)."""
MAX_CONTEXT_LINES = 60
"""Context lines shown per failed probe: every line from an evidence turn, then the first others up
to this many; a last line says how many were left out (a full history has ~600 per probe, which
made the report of a LoCoMo-sized run tens of megabytes; all are in probes.jsonl)."""

UPDATE_COLORS = {"current_only": "#2e7d32", "both": "#f9a825", "stale_only": "#c62828", "neither": "#9e9e9e"}
OP_COLORS = {"ADD": "#1565c0", "UPDATE": "#6a1b9a", "DELETE": "#c62828", "NOOP": "#9e9e9e"}


# ---- reading the runs ----------------------------------------------------------------------

@dataclass
class _Run:
    """A loaded run and the tag that labels its strategies when several runs are compared."""

    res: RunResults
    tag: str
    multi: bool
    _mt: pd.DataFrame | None = None

    def label(self, strategy: str) -> str:
        return f"{strategy} @ {self.tag}" if self.multi else strategy

    @property
    def manifest(self) -> dict[str, Any]:
        return redact(self.res.manifest)

    def metrics(self) -> pd.DataFrame:
        """The run's long metrics table (every metric, by category and 'all'), computed once."""
        if self._mt is None:
            self._mt = self.res.metrics_table()
        return self._mt

    def overall(self, metric: str) -> pd.DataFrame:
        mt = self.metrics()
        return mt[(mt["category"] == "all") & (mt["metric"] == metric)].set_index("strategy")

    def footer(self) -> str:
        prov = self.res.provenance()
        return (f"run {prov['run_id']} · model: {prov['model']} · code {prov['code_version']} · {prov['datasets']} · "
                f"{self.res.intervals.caption()}")


def _load(run_dirs: list[str | Path | RunResults]) -> list[_Run]:
    """The runs, read from their folders (a run given already loaded is used as it is: its scored
    probes and tables are not computed again)."""
    if not run_dirs:
        raise ValueError("give at least one run folder")
    paths = [p.path if isinstance(p, RunResults) else Path(p) for p in run_dirs]
    seen: set[Path] = set()
    for p in paths:
        if p.resolve() in seen:
            raise ValueError(f"{p}: run folder given twice")
        seen.add(p.resolve())
    results = [r if isinstance(r, RunResults) else load_run(r) for r in run_dirs]
    names = [str(r.manifest.get("name")) for r in results]
    multi = len(results) > 1
    unique_names = len(set(names)) == len(names)
    return [_Run(r, names[i] if unique_names else str(r.manifest.get("run_id")), multi) for i, r in enumerate(results)]


def _labels(runs: list[_Run]) -> list[str]:
    """Every strategy label of the report, in report order (runs, then each run's strategies)."""
    return [r.label(s) for r in runs for s in r.res.strategies]


def _colors(runs: list[_Run]) -> dict[str, Any]:
    """One colour per strategy label, the same in every plot of the report."""
    return plots.strategy_colors(_labels(runs))


def _offline(runs: list[_Run]) -> bool:
    return any(r.res.offline_answers for r in runs)


def _footer(runs: list[_Run]) -> str:
    return runs[0].footer() if len(runs) == 1 else " | ".join(f"{r.tag}: code {r.res.provenance()['code_version']}" for r in runs)


def _num(v: Any, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, (int, float)) and abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def _with_ci(v: Any, ci: Any) -> str:
    s = _num(v)
    if isinstance(ci, tuple) and len(ci) == 2 and not any(isinstance(c, float) and math.isnan(c) for c in ci):
        s += f" [{ci[0]:.2f},{ci[1]:.2f}]"
    return s


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


# ---- sections ------------------------------------------------------------------------------

def _question(runs: list[_Run]) -> Section:
    s = Section("question", "The question")
    for r in runs:
        m = r.manifest
        desc = m.get("description") or (m.get("config") or {}).get("description")
        prefix = f"{r.tag}: " if r.multi else ""
        s.blocks.append(Text(prefix + (desc or "(the run config has no `description:`; add one to say what this "
                                               "comparison answers)")))
        if m.get("status") != "completed":
            failed = len((m.get("units") or {}).get("failed") or [])
            s.blocks.append(Text(f"{r.res.manifest.get('run_id')} is not complete (status {m.get('status')}, {failed} failed "
                                 "unit(s)): its numbers cover only the units that finished; `memlab run ... --resume` "
                                 "completes it."))
    s.blocks.append(Text("Every probe, its contexts side by side and each user's memory timeline: "
                         + view_command(r.res.path for r in runs)))
    s.blocks.append(Facts([("runs", ", ".join(f"{r.res.manifest.get('run_id')} ({r.res.manifest.get('status')})" for r in runs)),
                           ("strategies", str(sum(len(r.res.strategies) for r in runs))),
                           ("probes scored", str(sum(len(r.res.probes) for r in runs)))]))
    return s


def _strategies(runs: list[_Run]) -> Section:
    s = Section("strategies", "Strategies and their resolved components")
    comps_cols = ["strategy", "preset", "description", "components"]
    rows = []
    for r in runs:
        comps = r.res.components()
        for spec in r.manifest.get("strategies", []):
            rows.append([r.label(spec["name"]), str(spec.get("preset") or "–"), str(spec.get("description") or ""),
                         comps.get(spec["name"], "")])
    s.blocks.append(Table(comps_cols, rows, "components as resolved from presets and overrides (every default filled in)"))
    for r in runs:
        built = r.manifest.get("strategies_resolved") or {}
        if built:
            s.blocks.append(Details(f"as built{' — ' + r.tag if r.multi else ''} (manifest strategies_resolved)",
                                    json.dumps(built, indent=2, sort_keys=True, default=str, ensure_ascii=False)))
    return s


def _datasets(runs: list[_Run]) -> Section:
    s = Section("datasets", "Datasets")
    seen: set[str] = set()
    for r in runs:
        probes = r.res.probes
        first = probes[probes["strategy"] == probes["strategy"].iloc[0]] if not probes.empty else probes
        for d in r.manifest.get("datasets", []):
            if d.get("hash") in seen:
                continue
            seen.add(d.get("hash"))
            mine = first[first["dataset"] == d["name"]] if not first.empty else first
            cats = mine["category"].value_counts().sort_index() if not mine.empty else pd.Series(dtype=int)
            tpc = d.get("tokens_per_conversation")
            s.blocks.append(Facts([
                ("dataset", f"{d['name']} v{d.get('version', '?')}"), ("path", str(d.get("path", ""))),
                ("hash", str(d.get("hash", ""))), ("conversations", str(d.get("conversations", "?"))),
                ("probes", str(d.get("probes", "?"))),
                ("categories", ", ".join(f"{c} {n}" for c, n in cats.items()) or "–"),
                ("tokens", f"{tpc:,} per conversation (cl100k), ~{tpc * int(d.get('conversations') or 0):,} in all"
                 if isinstance(tpc, (int, float)) else "–"),
            ]))
    return s


def _metrics(runs: list[_Run]) -> Section:
    """The metric table: what the memory held (with costs), and apart from it what the answering
    model made of it — marked, with a warning, when that model is the offline stand-in."""
    s = Section("metrics", "Metrics")
    memory: list[tuple[str, str, bool | None]] = []
    answers: list[tuple[str, str, bool | None]] = []
    for r in runs:
        mem, ans = split_columns(r.res)
        memory += [c for c in mem if c[0] not in [x[0] for x in memory]]
        answers += [c for c in ans if c[0] not in [x[0] for x in answers]]
    arrow = {True: " ↑", False: " ↓"}
    header = ["strategy", *[f"{label}{arrow.get(hib, '')}" for _, label, hib in memory],
              "ctx tok/probe ↓", "model tok/conv ↓", "calls/conv", "failed calls", "search ms"]
    rows, answer_rows = [], []
    for r in runs:
        summary = r.res.summary()
        for strategy, row in summary.iterrows():
            cells = [_with_ci(row.get(col), row.get(f"{col}_ci")) for col, _, _ in memory]
            tok = (row.get("prompt_tokens_per_conv") or 0) + (row.get("completion_tokens_per_conv") or 0)
            search = row.get("retrieval_latency_s")
            rows.append([r.label(str(strategy)), *cells, _num(row.get("context_tokens"), 0), f"{tok:,.0f}",
                         _num(row.get("calls_per_conv"), 0), _num(row.get("failed_calls"), 0),
                         "–" if _missing(search) or not search else f"{1000 * search:.1f}"])
            if answers:
                answer_rows.append([r.label(str(strategy)),
                                    *[_with_ci(row.get(col), row.get(f"{col}_ci")) for col, _, _ in answers]])
        if not summary.empty:
            ceilings = []
            for col, _, _ in memory:
                key = f"{col}_ceiling"
                v = float(summary[key].max()) if key in summary and not summary[key].isna().all() else None
                ceilings.append("" if v is None or v >= 0.995 else f"≤{v:.2f}")
            if any(ceilings):
                rows.append([f"ceiling{' @ ' + r.tag if r.multi else ''}", *ceilings, "", "", "", "", ""])
    caption = f"mean [95% CI]: {runs[0].res.intervals.caption()}; ↑ higher is better, ↓ lower"
    s.blocks.append(Heading("What the memory held"))
    s.blocks.append(Table(header, rows, caption + "; ceiling: the share of probes that can be scored a hit at all "
                                                  "(see docs/metrics.md)"))
    if answers:
        s.blocks.append(Heading("What the answering model made of it"))
        if _offline(runs):
            s.blocks.append(Caution(f"{OFFLINE_MARK} {runs[0].res.answer_warning.lstrip('⚠ ')}"))
        s.blocks.append(Table(["strategy", *[f"{label}{arrow.get(hib, '')}" for _, label, hib in answers]], answer_rows,
                              caption))
    return s


def _recall_points(runs: list[_Run]) -> pd.DataFrame:
    rows = []
    for r in runs:
        rec, tok = r.overall("evidence_recall"), r.overall("context_tokens")
        for strategy in r.res.strategies:
            if strategy in rec.index:
                rows.append({"strategy": r.label(strategy), "recall": rec.loc[strategy, "mean"],
                             "ci_low": rec.loc[strategy, "ci_low"], "ci_high": rec.loc[strategy, "ci_high"],
                             "tokens": float(tok["mean"].get(strategy, 0.0)) if not tok.empty else 0.0})
    return pd.DataFrame(rows, columns=["strategy", "recall", "ci_low", "ci_high", "tokens"]).set_index("strategy")


def _recall_vs_tokens(runs: list[_Run]) -> Section:
    s = Section("recall-vs-tokens", "Recall vs memory tokens")
    points = _recall_points(runs)
    if points.empty:
        s.blocks.append(Text("No answerable probes: nothing to plot."))
        return s
    front = plots.pareto_front(points)
    fig = plots.recall_vs_tokens_figure(points, "String recall vs memory context tokens per probe", _footer(runs),
                                        mark_pareto=True, colors=_colors(runs))
    s.blocks.append(Plot("recall_vs_tokens", "String recall vs memory context tokens per probe (Pareto front ringed)",
                         plots.png_bytes(fig)))
    s.blocks.append(Text("Pareto front (no other strategy has at least the recall for at most the tokens): "
                         + ", ".join(sorted(front, key=lambda x: points.loc[x, "tokens"])) + "."))
    return s


def _categories(runs: list[_Run]) -> Section:
    s = Section("categories", "Recall by category")
    frames = []
    for r in runs:
        mt = r.metrics()
        sub = mt[(mt["metric"] == "evidence_recall") & (mt["category"] != "all")]
        if sub.empty:
            continue
        t = sub.pivot_table(index="strategy", columns="category", values="mean").reindex(
            [x for x in r.res.strategies if x in set(sub["strategy"])])
        t.index = [r.label(x) for x in t.index]
        frames.append(t)
    if not frames:
        s.blocks.append(Text("No answerable probes: nothing to plot."))
        return s
    table = pd.concat(frames)
    fig = plots.grouped_bars_figure(table, "String recall by probe category", "string recall", _footer(runs),
                                    rotation=15, colors=_colors(runs))
    s.blocks.append(Plot("recall_by_category", "String recall by probe category", plots.png_bytes(fig)))
    s.blocks.append(Table(["strategy", *map(str, table.columns)],
                          [[str(i), *(_num(v) for v in row)] for i, row in table.iterrows()],
                          "string recall per category (intervals in each run's metrics.csv)"))
    return s


def _forgetting(runs: list[_Run]) -> Section:
    """Recall by evidence age: the forgetting curve of each design (memlab.analysis.forgetting)."""
    s = Section("forgetting", "Recall by evidence age")
    frames = []
    for r in runs:
        frame = r.res.recall_by_age()
        if not frame.empty:
            frames.append(frame.assign(strategy=[r.label(x) for x in frame["strategy"]]))
    if not frames:
        s.blocks.append(Text("These runs did not record how long ago each probe's evidence was said (runs before "
                             "evidence ages were recorded, or no probe with evidence): no forgetting curves."))
        return s
    frame = pd.concat(frames, ignore_index=True)
    fig = plots.forgetting_figure(frame, "Forgetting curves: recall by how long ago the evidence was said", _footer(runs),
                                  colors=_colors(runs))
    s.blocks.append(Plot("recall_by_age", "String (solid) and provenance (dashed) recall by evidence age, tokens of the "
                         "user's history since the earliest evidence turn", plots.png_bytes(fig)))
    string = frame[frame["metric"] == "evidence_recall"]
    order = string.sort_values("bin")["age"].drop_duplicates().tolist()
    rows = []
    for strategy, g in string.groupby("strategy", sort=False):
        cells = {a: f"{m:.2f} ({n})" for a, m, n in zip(g["age"], g["mean"], g["n"])}
        rows.append([str(strategy), *[cells.get(a, "–") for a in order]])
    s.blocks.append(Table(["strategy", *order], rows, "string recall by evidence age (probes); intervals in each run's "
                          "recall_by_age.csv. A curve that falls where provenance stays flat is a memory that still "
                          "cites the source but lost the value (a summary under a budget)."))
    return s


def _levels(runs: list[_Run], metric: str) -> pd.DataFrame:
    rows = {}
    for r in runs:
        mt = r.metrics()
        sub = mt[(mt["category"] == "all") & mt["metric"].str.startswith(f"{metric}.")]
        for strategy, g in sub.groupby("strategy", sort=False):
            rows[r.label(strategy)] = {m.split(".", 1)[1]: (v, lo, hi, n) for m, v, lo, hi, n
                                       in g[["metric", "mean", "ci_low", "ci_high", "n"]].itertuples(index=False)}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    return frame.reindex([x for x in _labels(runs) if x in frame.index])


def _updates_and_abstention(runs: list[_Run]) -> Section:
    s = Section("updates-abstention", "Stale leakage and abstention")
    ctx, ans = _levels(runs, "update_context"), _levels(runs, "update_answer")
    levels = [lv for lv in UPDATE_COLORS if lv in ctx.columns or lv in ans.columns]
    if _offline(runs):
        s.blocks.append(Caution(f"{OFFLINE_MARK} the answer panels and abstention: "
                                f"{runs[0].res.answer_warning.lstrip('⚠ ')}"))
    if ctx.empty and ans.empty:
        s.blocks.append(Text("No knowledge-update probes (probes with superseded values) in these datasets."))
    else:
        mean = {name: f.map(lambda c: c[0] if isinstance(c, tuple) else float("nan"))[[lv for lv in levels if lv in f.columns]]
                for name, f in (("context holds", ctx), ("answer asserts", ans)) if not f.empty}
        fig = plots.stacked_bars_figure(mean, "Knowledge updates: current vs superseded value", "share of update probes",
                                        _footer(runs), colors=UPDATE_COLORS)
        s.blocks.append(Plot("stale_leakage", "Knowledge updates: which value the context holds and the answer asserts",
                             plots.png_bytes(fig)))
        rows = []
        for label in [x for x in _labels(runs) if x in ctx.index or x in ans.index]:
            cells = []
            for f in (ctx, ans):
                for lv in levels:
                    c = f.loc[label, lv] if label in f.index and lv in f.columns else None
                    cells.append(_with_ci(c[0], (c[1], c[2])) if isinstance(c, tuple) else "–")
            n = next((int(c[3]) for c in ctx.loc[label] if isinstance(c, tuple)), 0) if label in ctx.index else 0
            rows.append([label, str(n), *cells])
        s.blocks.append(Table(["strategy", "n", *[f"context: {lv}" for lv in levels], *[f"answer: {lv}" for lv in levels]], rows,
                              "stale leakage = both + stale_only (the superseded value reached the context / the answer); "
                              "mean [95% CI]"))
    rows, bars = [], {}
    for r in runs:
        should, false = r.overall("abstain_when_should"), r.overall("false_abstention")
        for strategy in r.res.strategies:
            if strategy not in should.index and strategy not in false.index:
                continue
            cell = {}
            for name, f in (("abstained when it should ↑", should), ("abstained wrongly ↓", false)):
                cell[name] = (f.loc[strategy, "mean"], f.loc[strategy, "ci_low"], f.loc[strategy, "ci_high"]) if strategy in f.index else None
            bars[r.label(strategy)] = {k: (v[0] if v else float("nan")) for k, v in cell.items()}
            rows.append([r.label(strategy), *(_with_ci(v[0], (v[1], v[2])) if v else "–" for v in cell.values())])
    if rows:
        table = pd.DataFrame.from_dict(bars, orient="index")
        fig = plots.grouped_bars_figure(table, "Abstention" + (f" ({OFFLINE_MARK} offline answerer)" if _offline(runs) else ""),
                                        "share of probes", _footer(runs), rotation=0, colors=_colors(runs))
        s.blocks.append(Plot("abstention", "Abstention: on unanswerable probes, and wrongly on answerable ones", plots.png_bytes(fig)))
        s.blocks.append(Table(["strategy", "abstained when it should ↑", "abstained wrongly ↓"], rows,
                              "abstention probes: the agent said it does not know; answerable probes: it wrongly did"))
    else:
        s.blocks.append(Text("No abstention results."))
    return s


def _cost(runs: list[_Run]) -> Section:
    s = Section("cost", "Cost by purpose")
    frames = []
    for r in runs:
        cost = r.res.cost()
        cols = [c for c in cost.columns if c.startswith("tokens_") and c.endswith("_per_conv")]
        if not cols:
            continue
        f = cost[cols + ["calls_per_conv"]].copy()
        f.columns = [c.removeprefix("tokens_").removesuffix("_per_conv") for c in cols] + ["calls/conv"]
        f.index = [r.label(str(i)) for i in f.index]
        frames.append(f)
    if not frames:
        s.blocks.append(Text("No model calls recorded."))
        return s
    table = pd.concat(frames).fillna(0.0)
    purposes = [c for c in table.columns if c != "calls/conv"]
    fig = plots.stacked_bars_figure({"model tokens per conversation": table[purposes]}, "Model tokens by purpose",
                                    "tokens (prompt + completion) per conversation", _footer(runs))
    s.blocks.append(Plot("cost_by_purpose", "Model tokens per conversation, stacked by purpose", plots.png_bytes(fig)))
    s.blocks.append(Table(["strategy", *purposes, "total", "calls/conv"],
                          [[str(i), *(f"{row[p]:,.0f}" for p in purposes), f"{row[purposes].sum():,.0f}", f"{row['calls/conv']:.1f}"]
                           for i, row in table.iterrows()],
                          "every model call of a conversation (prompt + completion tokens), split by its purpose tag"))
    return s


def _not_from_user(ops: pd.DataFrame, turns: pd.DataFrame) -> pd.Series:
    """Per fact write: True when none of its source turns is a user turn (or it cites none) — the
    memory stored what the assistant or a tool said, not what the user stated."""
    roles = {(d, c, t): role for d, c, t, role in turns[["dataset", "conversation_id", "turn_id", "role"]].itertuples(index=False)}
    return ops.apply(lambda o: not any(roles.get((o["dataset"], o["conversation_id"], t)) == "user"
                                       for t in (o["source_turn_ids"] or [])), axis=1)


def _write_path(runs: list[_Run]) -> Section:
    s = Section("write-path", "Write path")
    per_turn, rows = {}, []
    for r in runs:
        ops, turns = r.res.memory_ops, r.res.turns
        if ops.empty:
            continue
        life = lifecycle_table(r.res)
        for strategy in r.res.strategies:
            o = ops[ops["strategy"] == strategy]
            if o.empty:
                continue
            t = turns[turns["strategy"] == strategy] if not turns.empty else turns
            n_turns = max(len(t), 1)
            counts = o["op"].value_counts()
            per_turn[r.label(strategy)] = (counts / n_turns).to_dict()
            facts = o[o["op"].isin(WRITES) & ~o["kind"].isin(NOT_FACTS)]
            foreign = int(_not_from_user(facts, t).sum()) if not facts.empty and not t.empty else 0
            lrow = life.loc[strategy] if strategy in life.index else pd.Series(dtype=float)
            rows.append([r.label(strategy), str(n_turns), *(str(int(counts.get(op, 0))) for op in OP_COLORS),
                         str(len(facts)), str(int(lrow.get("duplicate_writes", 0) or 0)),
                         f"{foreign} ({foreign / len(facts):.0%})" if len(facts) else "–",
                         _num(lrow.get("stated_never_stored"))])
    if not rows:
        s.blocks.append(Text("No strategy wrote to long-term memory."))
        return s
    frame = pd.DataFrame.from_dict(per_turn, orient="index").fillna(0.0)
    frame = frame[[c for c in [*OP_COLORS, *sorted(set(frame.columns) - set(OP_COLORS))] if c in frame.columns]]
    fig = plots.stacked_bars_figure({"memory operations per turn": frame}, "Write path: operations per turn by type",
                                    "operations per turn", _footer(runs), colors=OP_COLORS)
    s.blocks.append(Plot("write_path", "Memory operations per turn, by type", plots.png_bytes(fig)))
    s.blocks.append(Table(["strategy", "turns", *OP_COLORS, "fact writes", "duplicates", "not from a user turn",
                           "evidence never stored"], rows,
                          "fact writes: ADD + UPDATE of facts (summaries and episodes excluded); duplicates: ADDs repeating an "
                          "earlier ADD of the namespace (normalised text); not from a user turn: fact writes citing no user "
                          "turn (stored from assistant or tool text, or unsourced); evidence never stored: share of probe "
                          "evidence turns no stored memory cites (strategies with an extractor)"))
    return s


def _compression(runs: list[_Run]) -> Section:
    s = Section("compression", "Compression and evidence survival")
    rows, events = [], {}
    for r in runs:
        comps, probes = r.res.compressions, r.res.probes
        if comps.empty:
            continue
        n_conv = r.res.conversations_per_strategy()
        for strategy in r.res.strategies:
            c = comps[comps["strategy"] == strategy]
            if c.empty:
                continue
            ok = c[c["ok"].astype(bool)] if "ok" in c else c
            if len(ok):
                events[r.label(strategy)] = ok[["tokens_before", "tokens_after"]].astype(float)
            surv = [x for lst in probes.loc[probes["strategy"] == strategy, "survival"] if isinstance(lst, list) for x in lst] \
                if "survival" in probes else []
            rows.append([r.label(strategy), ", ".join(sorted(set(c["trigger"].astype(str)))), str(len(ok)),
                         str(len(c) - len(ok)), _num(len(ok) / max(float(n_conv.get(strategy, 1) or 1), 1.0)),
                         f"{ok['tokens_before'].mean():,.0f} → {ok['tokens_after'].mean():,.0f}" if len(ok) else "–",
                         _num(ok["folded_turn_ids"].map(len).mean()) if len(ok) else "–", str(len(surv)),
                         _num(sum(x["survived"] for x in surv) / len(surv)) if surv else "–",
                         _num(sum(x["in_context"] for x in surv) / len(surv)) if surv else "–"])
    if not rows:
        s.blocks.append(Text("No strategy compressed its history or working memory in these runs."))
        return s
    if events:
        fig = plots.compression_figure(events, "Compression events: tokens before and after", _footer(runs),
                                       colors=_colors(runs))
        s.blocks.append(Plot("compression", "Each compression's size before and after (dashed: no reduction)",
                             plots.png_bytes(fig)))
    s.blocks.append(Table(["strategy", "trigger", "compressions", "failed", "per conv", "tokens before → after (mean)",
                           "turns folded (mean)", "probes with folded evidence", "evidence value survived",
                           "summary in context"], rows,
                          "evidence value survived: of probe evidence folded into a summary before the probe, the share "
                          "whose gold value is still in that summary; summary in context: it was injected for the probe"))
    return s


def _fmt_gold(gold: Any, match: str) -> str:
    parts = [" / ".join(map(str, forms)) for forms in (gold or [])]
    return (" AND " if match == "all" else " OR ").join(parts) if parts else "(none: should abstain)"


def failure_reasons(p: dict[str, Any]) -> list[str]:
    """Why a scored probe counts as failed (empty: it did not fail); one short phrase each."""
    out = []
    if p.get("error"):
        out.append(f"errored: {redact_text(str(p['error']))}")
    if p.get("answer_correct") == 0.0 and not p.get("error"):
        out.append("did not abstain" if p.get("abstain") else "answer wrong")
    if p.get("evidence_recall") == 0.0:
        out.append("gold not in context")
    if p.get("update_answer") in ("both", "stale_only"):
        out.append(f"stale value in answer ({p['update_answer']})")
    if p.get("forbidden_leak") == 1.0:
        out.append("injected string leaked")
    return out


def context_lines(p: dict[str, Any]) -> list[ContextLine]:
    """A probe record's context as lines: one per recorded context item (marked when derived from
    one of the probe's evidence turns), else the context text split at line breaks."""
    ev = {str(e) for e in (p.get("evidence") or [])}
    items = p.get("context_items") if isinstance(p.get("context_items"), list) else []
    if items:
        return [ContextLine(str(i.get("section", "")), str(i.get("text", "")),
                            bool(ev & set(i.get("source_turn_ids") or [])), list(i.get("source_turn_ids") or []))
                for i in items]
    # split on "\n" only, as the context was joined: str.splitlines() also breaks at U+2028 & co.
    return [ContextLine("", line, False, []) for line in str(p.get("context") or "").split("\n") if line.strip()]


def _case(label: str, p: dict[str, Any]) -> ProbeCase:
    evidence = [str(e) for e in (p.get("evidence") or [])]
    lines = context_lines(p)
    total = len(lines)
    if len(lines) > MAX_CONTEXT_LINES:
        room = max(0, MAX_CONTEXT_LINES - sum(x.evidence for x in lines))
        shown = [x for x in lines if x.evidence or (room := room - 1) >= 0]
        lines = shown + [ContextLine(shown[-1].section if shown else "",
                                     f"… {len(lines) - len(shown)} more context lines not shown (the report shows "
                                     f"{MAX_CONTEXT_LINES} per probe, evidence lines first; all are in probes.jsonl)",
                                     False, [])]
    have = set(p.get("context_source_turn_ids") or [])
    return ProbeCase(label, str(p["dataset"]), str(p["conversation_id"]), str(p["probe_id"]), str(p["category"]),
                     str(p["question"]), _fmt_gold(p.get("gold"), p.get("gold_match", "any")),
                     "(no answer)" if p.get("answer") is None else str(p["answer"]),
                     redact_text(json.dumps(p["judge"], ensure_ascii=False, default=str)) if p.get("judge") else "",
                     failure_reasons(p), evidence,
                     [e for e in evidence if e not in have], lines, total,
                     [(name, redact_text(why)) for name, why in explain_probe(ProbeRow.from_row(p)).items()])


def _failed_probes(runs: list[_Run]) -> Section:
    s = Section("failed-probes", "Failed probes")
    s.blocks.append(Text("A probe failed when its answer was wrong (for an abstention probe: it did not abstain), the gold "
                         "answer was not in the injected context, it errored, or an injected string leaked. Context lines "
                         "derived from the probe's evidence turns are marked. Shown: the first "
                         f"{MAX_FAILED_PER_STRATEGY} failed probes of each strategy, each with at most "
                         f"{MAX_CONTEXT_LINES} of its context lines (evidence lines first); what is left out is counted, "
                         "and every probe with its whole context is in the run's probes.jsonl."))
    for r in runs:
        probes = r.res.probes
        if probes.empty:
            continue
        records = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in rec.items()}
                   for rec in probes.to_dict("records")]
        for strategy in r.res.strategies:
            failed = [p for p in records if p["strategy"] == strategy and failure_reasons(p)]
            if not failed:
                continue
            s.blocks.append(Heading(f"{r.label(strategy)}: {len(failed)} of "
                                    f"{int((probes['strategy'] == strategy).sum())} probes failed"))
            for p in failed[:MAX_FAILED_PER_STRATEGY]:  # a lean row's whole record, context included
                s.blocks.append(_case(r.label(strategy), {k: (None if isinstance(v, float) and math.isnan(v) else v)
                                                          for k, v in r.res.record(p).items()}))
            if len(failed) > MAX_FAILED_PER_STRATEGY:
                s.blocks.append(Text(f"{r.label(strategy)}: {len(failed) - MAX_FAILED_PER_STRATEGY} more failed probes "
                                     f"not shown (all are in {r.res.path / 'probes.jsonl'})."))
    if len(s.blocks) == 1:
        answered = any(not r.res.probes.empty for r in runs)
        s.blocks.append(Text("No probe failed." if answered else "No probes were answered (every unit failed, or the "
                                                                  "datasets have no probes)."))
    return s


def _model_line(d: dict[str, Any]) -> str:
    keep = [f"{d.get('provider', '?')}: {d.get('model', '?')}"]
    keep += [f"{k}={v}" for k, v in sorted(d.items()) if isinstance(v, (str, int, float)) and k not in ("provider", "model")
             and re.search(r"version|prompt|served|base_url|temperature", k)]
    if d.get("heuristic"):
        keep.append("offline stand-in for an LLM")
    return " · ".join(keep)


def _manifest_facts(runs: list[_Run]) -> Section:
    s = Section("manifest", "Manifest facts")
    for r in runs:
        m = r.manifest
        models = m.get("models") or {}
        git = m.get("git") or {}
        cfg = m.get("config") or {}
        pairs = [("run", f"{m.get('run_id')} · {m.get('name')} · status {m.get('status')}"),
                 ("time", f"{m.get('started_at')} → {m.get('ended_at')}"),
                 ("code", f"{m.get('code_version')} (commit {git.get('commit', '?')}, branch {git.get('branch', '?')}"
                          f"{', uncommitted changes' if git.get('dirty') else ''}) · memlab {(m.get('packages') or {}).get('memlab', '?')}")]
        if isinstance(models.get("default"), dict):
            pairs.append(("model (every role)", _model_line(models["default"])))
        for role, d in sorted((models.get("roles") or {}).items()):
            if isinstance(d, dict) and d != models.get("default"):
                pairs.append((f"model ({role})", _model_line(d)))
        judge = models.get("judge") or m.get("judge") or cfg.get("judge")
        pairs.append(("judge", _model_line(judge) if isinstance(judge, dict) else "none (answers scored by normalised "
                                                                                   "gold containment)"))
        emb = m.get("embedder") or {}
        pairs.append(("embedder", f"{emb.get('model', '?')} ({emb.get('implementation', '?')}, dim {emb.get('dim', '?')})"))
        pairs.append(("tokenizer", str(m.get("tokenizer", "?"))))
        for d in m.get("datasets", []):
            pairs.append((f"dataset {d.get('name')}", str(d.get("hash"))))
        ex = m.get("executor") or {}
        pairs.append(("executor", ", ".join(f"{k}={v}" for k, v in ex.items()) or "?"))
        pairs.append(("seed · intervals", f"{m.get('seed')} · {r.res.intervals.caption()}"))
        pairs.append(("python", str((m.get("environment") or {}).get("python", "?"))))
        if r.multi:
            s.blocks.append(Heading(r.tag))
        s.blocks.append(Facts(pairs))
        s.blocks.append(Details("package versions", json.dumps(m.get("packages") or {}, indent=2, sort_keys=True)))
    return s


SECTIONS = (_question, _strategies, _datasets, _metrics, _recall_vs_tokens, _categories, _forgetting, _updates_and_abstention,
            _cost, _write_path, _compression, _failed_probes, _manifest_facts)
"""The report's sections, in order (docs/report.md describes each)."""


def build_report(run_dirs: list[str | Path | RunResults]) -> Report:
    """Read the run folders into the report's sections (plots drawn, nothing written)."""
    runs = _load(run_dirs)
    names = ", ".join(str(r.res.manifest.get("name")) for r in runs)
    return Report(f"memlab design report — {names}", [fn(runs) for fn in SECTIONS])


def report_html(run_dirs: list[str | Path | RunResults], out: str | Path) -> Path:
    """Write the design report of ``run_dirs`` as one self-contained HTML file ``out``."""
    return write_reports(run_dirs, html=out)[0]


def report_markdown(run_dirs: list[str | Path | RunResults], out: str | Path) -> Path:
    """Write the design report as markdown ``out`` with its plots as PNG files beside it."""
    return write_reports(run_dirs, md=out)[0]


def write_reports(run_dirs: list[str | Path | RunResults], *, html: str | Path | None = None,
                  md: str | Path | None = None) -> list[Path]:
    """Write the design report as HTML (``html``) and/or markdown with its PNGs (``md``), built once:
    reading the runs and drawing the plots is nearly all of a report's cost, the same for both."""
    report = build_report(run_dirs)
    written = []
    if html is not None:
        out = Path(html)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_html(report), encoding="utf-8")
        written.append(out)
    if md is not None:
        out = Path(md)
        out.parent.mkdir(parents=True, exist_ok=True)
        text, files = render_markdown(report, out.stem)
        for name, data in files.items():
            (out.parent / name).write_bytes(data)
        out.write_text(text, encoding="utf-8")
        written.append(out)
    return written
