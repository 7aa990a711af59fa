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

import base64
import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from memlab.analysis import plots
from memlab.analysis.lifecycle import NOT_FACTS, WRITES, lifecycle_table
from memlab.analysis.markup import clean, html_text, md_inline
from memlab.redact import redact, redact_text
from memlab.analysis.report import OFFLINE_MARK, split_columns
from memlab.analysis.results import RunResults, load_run

MAX_FAILED_PER_STRATEGY = 20
"""Failed probes shown per strategy; the rest are counted (all are in the run's probes.jsonl)."""
MAX_CONTEXT_LINES = 60
"""Context lines shown per failed probe: every line from an evidence turn, then the first others up
to this many; a last line says how many were left out (a full history has ~600 per probe, which
made the report of a LoCoMo-sized run tens of megabytes; all are in probes.jsonl)."""

UPDATE_COLORS = {"current_only": "#2e7d32", "both": "#f9a825", "stale_only": "#c62828", "neither": "#9e9e9e"}
OP_COLORS = {"ADD": "#1565c0", "UPDATE": "#6a1b9a", "DELETE": "#c62828", "NOOP": "#9e9e9e"}


# ---- the document model ------------------------------------------------------------------

@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass(frozen=True)
class Plot:
    name: str
    """File-name stem of the PNG in the markdown variant."""
    title: str
    png: bytes


@dataclass(frozen=True)
class Facts:
    """Label → value pairs (a definition list)."""

    pairs: list[tuple[str, str]]


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Caution:
    """A one-line caution shown beside the numbers it concerns (e.g. offline answer metrics)."""

    text: str


@dataclass(frozen=True)
class Heading:
    """A sub-heading inside a section."""

    text: str


@dataclass(frozen=True)
class Details:
    """A folded block of preformatted text (resolved components, package versions)."""

    summary: str
    text: str


@dataclass(frozen=True)
class ContextLine:
    section: str
    text: str
    evidence: bool
    """The line was derived from one of the probe's evidence turns."""
    sources: list[str]


@dataclass(frozen=True)
class ProbeCase:
    """One failed probe, with what the strategy was given to answer it."""

    strategy: str
    dataset: str
    conversation_id: str
    probe_id: str
    category: str
    question: str
    gold: str
    answer: str
    judge: str
    """The LLM judge's verdict when the run had a judge ('' otherwise)."""
    reasons: list[str]
    evidence: list[str]
    missing_evidence: list[str]
    lines: list[ContextLine]
    context_lines: int = 0
    """Lines the probe's context held (``lines`` shows at most MAX_CONTEXT_LINES of them, then a note)."""


@dataclass
class Section:
    id: str
    title: str
    blocks: list[Any] = field(default_factory=list)


@dataclass
class Report:
    title: str
    sections: list[Section]

    @property
    def plots(self) -> list[Plot]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Plot)]


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


def _failure_reasons(p: dict[str, Any]) -> list[str]:
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


def _case(label: str, p: dict[str, Any]) -> ProbeCase:
    evidence = [str(e) for e in (p.get("evidence") or [])]
    ev = set(evidence)
    items = p.get("context_items") if isinstance(p.get("context_items"), list) else []
    if items:
        lines = [ContextLine(str(i.get("section", "")), str(i.get("text", "")),
                             bool(ev & set(i.get("source_turn_ids") or [])), list(i.get("source_turn_ids") or []))
                 for i in items]
    else:
        # split on "\n" only, as the context was joined: str.splitlines() also breaks at U+2028 & co.
        lines = [ContextLine("", line, False, []) for line in str(p.get("context") or "").split("\n") if line.strip()]
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
                     _failure_reasons(p), evidence,
                     [e for e in evidence if e not in have], lines, total)


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
            failed = [p for p in records if p["strategy"] == strategy and _failure_reasons(p)]
            if not failed:
                continue
            s.blocks.append(Heading(f"{r.label(strategy)}: {len(failed)} of "
                                    f"{int((probes['strategy'] == strategy).sum())} probes failed"))
            for p in failed[:MAX_FAILED_PER_STRATEGY]:
                s.blocks.append(_case(r.label(strategy), p))
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


SECTIONS = (_question, _strategies, _datasets, _metrics, _recall_vs_tokens, _categories, _updates_and_abstention,
            _cost, _write_path, _compression, _failed_probes, _manifest_facts)
"""The report's sections, in order (docs/report.md describes each)."""


def build_report(run_dirs: list[str | Path | RunResults]) -> Report:
    """Read the run folders into the report's sections (plots drawn, nothing written)."""
    runs = _load(run_dirs)
    names = ", ".join(str(r.res.manifest.get("name")) for r in runs)
    return Report(f"memlab design report — {names}", [fn(runs) for fn in SECTIONS])


# ---- rendering -----------------------------------------------------------------------------

_CSS = """
*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1400px;padding:1em 2em;color:#222}
h1{font-size:1.6em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.8em}h3{margin:1.2em 0 .3em}
nav a{margin-right:1em;display:inline-block}
.wide{overflow-x:auto;max-width:100%;margin:.6em 0}
table{border-collapse:collapse;font-size:.86em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;overflow-wrap:break-word;min-width:3.5em}
th{background:#f3f3f3}td.long{min-width:14em;max-width:42em}
th:first-child,td:first-child{position:sticky;left:0;background:#fff;z-index:1;min-width:9em;max-width:22em}
th:first-child{background:#f3f3f3}
td .ci{display:block;white-space:nowrap;color:#666;font-size:.85em}
p.caption{font-size:.85em;color:#555;margin:.2em 0 .8em}
p.warn{background:#fff8e1;border-left:4px solid #f9a825;padding:.3em .6em;font-size:.9em}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.15em 1em;font-size:.9em;border:1px solid #ddd;padding:.6em;border-radius:4px}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere;min-width:0}
figure{margin:.8em 0;max-width:100%}img.plot{max-width:100%;height:auto;border:1px solid #eee;margin:.5em 0}
pre{background:#f7f7f7;padding:.6em;overflow:auto;font-size:.8em;max-width:100%}
details{max-width:100%}
.case{border:1px solid #ddd;border-left:4px solid #c62828;margin:.6em 0;padding:.4em .8em;border-radius:3px}
.case .reason{display:inline-block;background:#fdecea;color:#8e0000;border-radius:3px;padding:0 .4em;margin-right:.3em;font-size:.85em}
.ctx{font-family:ui-monospace,monospace;font-size:.82em;white-space:pre-wrap;overflow-wrap:anywhere;margin:.1em 0}
.ctx.evidence{background:#fff3bf;border-left:3px solid #f9a825;padding-left:.3em}
.ctx .src{color:#888}.sec{font-weight:600;font-size:.85em;margin-top:.4em}
"""

_LOADED_SCRIPT = """
window.addEventListener('load', function () {
  var n = 0;
  document.querySelectorAll('img.plot').forEach(function (img) { if (img.complete && img.naturalWidth > 0) { n++; } });
  document.body.setAttribute('data-plots-loaded', String(n));
  var page = document.documentElement.clientWidth, wide = [];
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= page + 1) { return; }
    for (var a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      var o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') { return; }
    }
    wide.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className ? '.' + el.className : ''));
  });
  document.body.setAttribute('data-too-wide', String(wide.length));
  document.body.setAttribute('data-too-wide-first', wide.slice(0, 5).join(' '));
  document.body.setAttribute('data-page-width', String(page));
  document.body.setAttribute('data-scroll-width', String(document.documentElement.scrollWidth));
});
"""
"""Sets on <body>: ``data-plots-loaded`` (how many plots the browser decoded) and the layout facts
``data-too-wide`` (elements reaching past the page's right edge outside a scroll box; their first
five in ``data-too-wide-first``), ``data-page-width`` and ``data-scroll-width``: how a headless
browser (tests/test_html_report.py) checks that every plot rendered and nothing runs off the page."""

_CI = re.compile(r"^(.*\S) (\[[^\]]*\])$")
_LONG_COLUMNS = {"description", "components"}


def _e(text: Any) -> str:
    return html_text(text)


def _html_block(b: Any) -> str:
    if isinstance(b, Text):
        return f"<p>{_e(b.text)}</p>"
    if isinstance(b, Heading):
        return f"<h3>{_e(b.text)}</h3>"
    if isinstance(b, Facts):
        return "<dl>" + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in b.pairs) + "</dl>"
    if isinstance(b, Details):
        return f"<details><summary>{_e(b.summary)}</summary><pre>{html.escape(clean(b.text), quote=False)}</pre></details>"
    if isinstance(b, Caution):
        return f'<p class="warn">⚠ {_e(b.text)}</p>'
    if isinstance(b, Table):
        head = "".join(f"<th>{_e(c)}</th>" for c in b.columns)
        long = [str(c) in _LONG_COLUMNS for c in b.columns]
        body = "".join("<tr>" + "".join(_html_cell(c, long[i] if i < len(long) else False) for i, c in enumerate(row))
                       + "</tr>" for row in b.rows)
        cap = f'<p class="caption">{_e(b.caption)}</p>' if b.caption else ""
        return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{cap}'
    if isinstance(b, Plot):
        data = base64.b64encode(b.png).decode("ascii")
        return f'<figure><img class="plot" alt="{_e(b.title)}" src="data:image/png;base64,{data}"><figcaption>{_e(b.title)}</figcaption></figure>'
    if isinstance(b, ProbeCase):
        return _html_case(b)
    raise TypeError(f"no HTML rendering for {type(b).__name__}")


def _html_cell(text: Any, long: bool) -> str:
    """A table cell: a "mean [low,high]" value keeps its interval on a line of its own (so columns
    stay narrow); long prose columns get room to wrap."""
    m = _CI.match(str(text))
    inner = f'{_e(m.group(1))}<span class="ci">{_e(m.group(2))}</span>' if m else _e(text)
    return f'<td class="long">{inner}</td>' if long else f"<td>{inner}</td>"


def _html_case(c: ProbeCase) -> str:
    reasons = "".join(f'<span class="reason">{_e(x)}</span>' for x in c.reasons)
    lines, section = [], None
    for line in c.lines:
        if line.section != section and line.section:
            lines.append(f'<div class="sec">{_e(line.section)}</div>')
        section = line.section
        cls = "ctx evidence" if line.evidence else "ctx"
        src = f' <span class="src">[{_e(", ".join(line.sources))}]</span>' if line.sources else ""
        lines.append(f'<div class="{cls}" data-evidence="{str(line.evidence).lower()}">{_e(line.text)}{src}</div>')
    missing = f" · not in context: {_e(', '.join(c.missing_evidence))}" if c.missing_evidence else ""
    return (f'<details class="case" data-probe="{_e(c.probe_id)}" data-strategy="{_e(c.strategy)}"><summary><b>{_e(c.strategy)}</b> · '
            f"{_e(c.dataset)}/{_e(c.conversation_id)}/{_e(c.probe_id)} · {_e(c.category)} · {reasons}</summary>"
            f"<dl><dt>question</dt><dd>{_e(c.question)}</dd><dt>gold</dt><dd>{_e(c.gold)}</dd>"
            f"<dt>answer</dt><dd>{_e(c.answer)}</dd>" + (f"<dt>judge</dt><dd>{_e(c.judge)}</dd>" if c.judge else "")
            + f"<dt>evidence turns</dt><dd>{_e(', '.join(c.evidence) or '–')}{missing}</dd></dl>"
            f"<div>injected context ({c.context_lines or len(c.lines)} lines, {sum(x.evidence for x in c.lines)} from evidence turns):</div>"
            + ("".join(lines) or "<div class=\"ctx\">(empty)</div>") + "</details>")


def render_html(report: Report) -> str:
    """One self-contained HTML document: inline CSS, plots as base64 PNGs, no external URL."""
    nav = "".join(f'<a href="#{s.id}">{_e(s.title)}</a>' for s in report.sections)
    body = "".join(f'<section id="{s.id}"><h2>{_e(s.title)}</h2>{"".join(_html_block(b) for b in s.blocks)}</section>'
                   for s in report.sections)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(report.title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}</style></head>'
            f'<body data-plots="{len(report.plots)}"><h1>{_e(report.title)}</h1><nav>{nav}</nav>{body}'
            f"<script>{_LOADED_SCRIPT}</script></body></html>")


def _m(text: Any) -> str:
    """Markdown-safe inline text: HTML and markdown syntax escaped, one line (memlab.analysis.markup)."""
    return md_inline(text)


def _md_block(b: Any, stem: str, files: dict[str, bytes]) -> str:
    if isinstance(b, Text):
        return _m(b.text)
    if isinstance(b, Heading):
        return f"### {_m(b.text)}"
    if isinstance(b, Caution):
        return f"> ⚠️ **{_m(b.text)}**"
    if isinstance(b, Facts):
        return "\n".join(f"- **{_m(k)}**: {_m(v)}" for k, v in b.pairs)
    if isinstance(b, Details):
        return f"<details><summary>{_e(b.summary)}</summary>\n\n<pre>{html.escape(clean(b.text), quote=False)}</pre>\n</details>"
    if isinstance(b, Table):
        out = ["| " + " | ".join(_m(c) for c in b.columns) + " |", "|" + "---|" * len(b.columns)]
        out += ["| " + " | ".join(_m(c) for c in row) + " |" for row in b.rows]
        return "\n".join(out) + (f"\n\n*{_m(b.caption)}*" if b.caption else "")
    if isinstance(b, Plot):
        name = f"{stem}-{b.name}.png"
        files[name] = b.png
        return f"![{_m(b.title)}]({name})"
    if isinstance(b, ProbeCase):
        lines = [f"#### {_m(b.strategy)} · {_m(b.dataset)}/{_m(b.conversation_id)}/{_m(b.probe_id)} ({_m(b.category)})", "",
                 f"- **question**: {_m(b.question)}", f"- **gold**: {_m(b.gold)}", f"- **answer**: {_m(b.answer)}",
                 *([f"- **judge**: {_m(b.judge)}"] if b.judge else []),
                 f"- **why it failed**: {_m('; '.join(b.reasons))}",
                 f"- **evidence turns**: {_m(', '.join(b.evidence) or '–')}"
                 + (f" (not in context: {_m(', '.join(b.missing_evidence))})" if b.missing_evidence else ""),
                 f"- **injected context** ({b.context_lines or len(b.lines)} lines; ▶ = from an evidence turn):", ""]
        lines += [f"  - {'▶ **' if x.evidence else ''}{_m(x.text)}{'**' if x.evidence else ''}" for x in b.lines] or ["  - (empty)"]
        return "\n".join(lines)
    raise TypeError(f"no markdown rendering for {type(b).__name__}")


def render_markdown(report: Report, stem: str) -> tuple[str, dict[str, bytes]]:
    """The report as markdown and its plots as ``{file name: PNG bytes}`` (``<stem>-<plot>.png``)."""
    files: dict[str, bytes] = {}
    parts = [f"# {_m(report.title)}"]
    for s in report.sections:
        parts.append(f"## {_m(s.title)}")
        parts += [_md_block(b, stem, files) for b in s.blocks]
    return "\n\n".join(parts) + "\n", files


def report_html(run_dirs: list[str | Path | RunResults], out: str | Path) -> Path:
    """Write the design report of ``run_dirs`` as one self-contained HTML file ``out``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(build_report(run_dirs)), encoding="utf-8")
    return out


def report_markdown(run_dirs: list[str | Path | RunResults], out: str | Path) -> Path:
    """Write the design report as markdown ``out`` with its plots as PNG files beside it."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    text, files = render_markdown(build_report(run_dirs), out.stem)
    for name, data in files.items():
        (out.parent / name).write_bytes(data)
    out.write_text(text, encoding="utf-8")
    return out
