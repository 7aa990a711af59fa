"""What each page of the viewer shows, as JSON-ready dicts: the runs' overview, the probe list with
its filters, one probe across strategies, A against B, and the probes that flipped between runs.

Every number comes from the analysis code the reports use — the overview tables precomputed in the
index by :class:`~memlab.analysis.results.RunResults`, paired comparisons by
:meth:`~memlab.analysis.results.RunResults.compare`, explanations by
:func:`~memlab.analysis.metrics.explain_probe`, failure reasons by the design report's
:func:`~memlab.analysis.html_report.failure_reasons`, flips by :func:`memlab.analysis.flips.flipped`
— so the viewer and ``memlab report`` / ``memlab check`` never disagree. Text from the run (questions,
answers, contexts) is data: the front-end puts it in the page as text, never as markup.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.analysis.baseline import ProbeOutcome, load_baseline, probe_outcomes
from memlab.analysis.flips import flipped, gated_column_names
from memlab.analysis.html_report import failure_reasons
from memlab.scoring.metric_registry import METRICS
from memlab.analysis.metrics import explain_probe
from memlab.analysis.results import score_missed
from memlab.runfolder.probe_record import ProbeRow
from memlab.redact import redact_text
from memlab.view.lines import WINDOW, mark_difference, probe_lines, window
from memlab.view.run import Runs, ViewedRun

PER_PAGE = 50
FULL_SIDES = 4
MAX_PER_PAGE = 500
FILTERS = ("strategy", "dataset", "user", "thread", "category", "scope")
"""Probe-list filters on a field (``user`` is the memory namespace; ``scope`` the evidence scope)."""
_FIELD = {"user": "namespace", "scope": "evidence_scope"}


def _num(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, (np.floating, np.integer)):
        return _num(v.item())
    return v


def _clip(text: Any, n: int) -> str:
    text = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def metric_catalogue() -> list[dict[str, Any]]:
    """Every registered metric: name, description, direction, aggregation, levels."""
    return [{"name": n, "description": m.description, "higher_is_better": m.higher_is_better,
             "aggregation": m.aggregation, "levels": [list(lv) for lv in m.levels], "scores_answer": m.scores_answer}
            for n in METRICS.names() for m in [METRICS.get(n)]]


def outcome(metric: str, value: Any) -> str:
    """``hit`` (the metric's best), ``miss`` (anything else) or ``na`` (does not apply)."""
    value = _num(value)
    if value is None:
        return "na"
    return "miss" if score_missed(METRICS.get(metric), value) else "hit"


# ---- runs ------------------------------------------------------------------------------------------

def overview(runs: Runs) -> dict[str, Any]:
    """Every run of the viewer with its overview tables (summary, metrics by category, by scope)."""
    out = []
    for i in range(len(runs)):
        run = runs.get(i)
        m = run.manifest
        out.append({"i": i, "label": run.label, "path": str(run.path), "run_id": m.get("run_id"), "name": m.get("name"),
                    "description": m.get("description") or (m.get("config") or {}).get("description"),
                    "started_at": m.get("started_at"), "ended_at": m.get("ended_at"), "strategies": run.strategies,
                    "probes": int(len(run.probes)), "problems": run.problems, "text_notes": run.text_notes,
                    **run.tables})
    return {"runs": out, "metrics": metric_catalogue()}


def facets(run: ViewedRun) -> dict[str, Any]:
    """The values each probe-list filter can take in this run."""
    p = run.probes

    def values(col: str) -> list[Any]:
        if p.empty or col not in p:
            return []
        return sorted({_num(v) for v in p[col].tolist() if _num(v) is not None}, key=lambda v: (str(type(v)), v))

    return {"strategy": run.strategies, "dataset": values("dataset"), "user": values("namespace"),
            "thread": values("thread"), "category": values("category"), "scope": values("evidence_scope"),
            "headline": run.tables.get("headline") or [], "metrics": [x for x in metric_catalogue() if x["name"] in p]}


# ---- probes ------------------------------------------------------------------------------------------

def _matches(run: ViewedRun, filters: dict[str, str]) -> pd.DataFrame:
    p = run.probes
    if p.empty:
        return p
    keep = np.ones(len(p), dtype=bool)
    for name in FILTERS:
        value = filters.get(name)
        if value in (None, ""):
            continue
        col = _FIELD.get(name, name)
        if col not in p:
            keep &= False
            continue
        keep &= p[col].map(lambda v: "" if _num(v) is None else str(_num(v))).to_numpy() == str(value)
    metric, want = filters.get("metric"), filters.get("outcome")
    if metric and want and metric in p:
        keep &= np.array([outcome(metric, v) == want for v in p[metric].tolist()])
    q = (filters.get("q") or "").strip().lower()
    if q:
        keep &= run.search_text().str.contains(q, regex=False).to_numpy()
    return p[keep]


def probe_list(run: ViewedRun, filters: dict[str, str], page: int = 0, per_page: int = PER_PAGE) -> dict[str, Any]:
    """One page of the probes (one row per strategy × probe) that pass the filters."""
    per_page = min(max(int(per_page), 1), MAX_PER_PAGE)
    hits = _matches(run, filters)
    pages = max(1, -(-len(hits) // per_page))
    page = min(max(int(page), 0), pages - 1)
    shown = hits.iloc[page * per_page:(page + 1) * per_page]
    headline = [n for n in (run.tables.get("headline") or []) if n in run.probes]
    rows = []
    for r in shown.to_dict("records"):
        rows.append({"strategy": r["strategy"], "dataset": r["dataset"], "conversation_id": r["conversation_id"],
                     "probe_id": r["probe_id"], "user": _num(r.get("namespace")), "thread": _num(r.get("thread")),
                     "category": r.get("category"), "scope": _num(r.get("evidence_scope")),
                     "question": _clip(r.get("question"), 240), "answer": _clip(r.get("answer"), 160),
                     "error": bool(_num(r.get("error"))),
                     "scores": {n: {"value": _num(r.get(n)), "outcome": outcome(n, r.get(n))} for n in headline}})
    return {"total": int(len(hits)), "of": int(len(run.probes)), "page": page, "pages": pages, "per_page": per_page,
            "rows": rows, "headline": headline}


def _evidence_turns(run: ViewedRun, row: pd.Series, rec: dict[str, Any]) -> list[dict[str, Any]]:
    """The probe's evidence turns with their thread, session and date (text from the dataset file,
    else the text the run recorded)."""
    ids = [str(e) for e in rec.get("evidence") or []]
    recorded = list(rec.get("evidence_texts") or [])
    texts = run.text_of(str(row["dataset"]), str(_num(row.get("namespace")) or row["conversation_id"]))
    out = []
    for k, e in enumerate(ids):
        hit = texts[texts["turn_id"] == e] if not texts.empty else texts
        if len(hit) > 1:
            own = hit[hit["conversation_id"] == row["conversation_id"]]
            hit = own if not own.empty else hit
        t = hit.iloc[0] if not hit.empty else None
        text = str(t["text"]) if t is not None else (str(recorded[k]) if k < len(recorded) else "")
        out.append({"turn_id": e, "conversation_id": None if t is None else t["conversation_id"],
                    "thread": None if t is None else _num(t["thread"]), "session_id": None if t is None else t["session_id"],
                    "at": None if t is None else t["at"], "role": None if t is None else t["role"],
                    "speaker": None if t is None else _num(t["speaker"]), "text": _clip(text, 4000), "chars": len(text)})
    return out


def _calls(run: ViewedRun, attempt: str, probe_id: str) -> list[dict[str, Any]]:
    out = []
    for rec in run.records("calls", run.calls_at.get((attempt, probe_id), np.zeros((0, 2), dtype=np.int64))):
        err = rec.get("error")
        out.append({"call_id": rec.get("call_id"), "purpose": rec.get("purpose"), "model": rec.get("model"),
                    "signature": rec.get("signature"), "ok": rec.get("ok", True), "cached": rec.get("cached"),
                    "attempts": rec.get("attempts"), "prompt_tokens": rec.get("prompt_tokens"),
                    "completion_tokens": rec.get("completion_tokens"), "latency_s": _num(rec.get("latency_s")),
                    "tool_calls": len(rec.get("tool_calls") or []), "error": redact_text(str(err))[:300] if err else None})
    return out


def _side(run: ViewedRun, row: pd.Series, *, start: int = 0, count: int = WINDOW,
          other: list[dict[str, Any]] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """One strategy's handling of a probe: its context lines (windowed), scores, explanations,
    answer, verdict and model calls; also the whole marked line list and the record."""
    rec = run.record(row)
    lines = probe_lines(rec)
    scores = {n: _num(row.get(n)) for n in METRICS.names() if n in row.index and _num(row.get(n)) is not None}
    judge = rec.get("judge")
    side = {"strategy": row["strategy"], "attempt": row["attempt"], "answer": rec.get("answer"),
            "error": redact_text(str(rec["error"])) if rec.get("error") else None,
            "judge": json.loads(redact_text(json.dumps(judge, ensure_ascii=False, default=str))) if judge else None,
            "scores": scores, "outcomes": {n: outcome(n, v) for n, v in scores.items()},
            "reasons": failure_reasons({**rec, **scores}),
            "explanations": [[n, redact_text(w)] for n, w in explain_probe(ProbeRow.from_row(rec)).items()],
            "context_tokens": rec.get("context_tokens"), "total_lines": len(lines),
            "evidence_lines": sum(1 for x in lines if x.get("evidence")),
            "gold_lines": sum(1 for x in lines if x.get("gold")),
            "calls": _calls(run, str(row["attempt"]), str(row["probe_id"])),
            "survival": rec.get("survival") or []}
    return side, lines, rec


def _common(run: ViewedRun, row: pd.Series, rec: dict[str, Any]) -> dict[str, Any]:
    return {"run": run.label, "dataset": row["dataset"], "conversation_id": row["conversation_id"],
            "probe_id": row["probe_id"], "user": _num(row.get("namespace")), "thread": _num(row.get("thread")),
            "category": row.get("category"), "scope": _num(row.get("evidence_scope")), "question": rec.get("question"),
            "gold": rec.get("gold") or [], "gold_match": rec.get("gold_match") or "any",
            "superseded": rec.get("superseded") or [], "abstain": bool(rec.get("abstain")),
            "after_turn": rec.get("after_turn"), "asked_at": rec.get("asked_at"),
            "evidence": _evidence_turns(run, row, rec)}


def full_sides() -> int:
    """Strategies a probe page sends whole at once (``MEMLAB_VIEW_FULL_SIDES``, default 4); with more,
    the one asked for is whole and the others are summaries whose context loads when opened — a
    page of 12 strategies reads one context, not 12."""
    return max(1, int(os.environ.get("MEMLAB_VIEW_FULL_SIDES") or FULL_SIDES))


def _light_side(row: pd.Series) -> dict[str, Any]:
    """A strategy's handling of a probe from the index alone: answer, scores, verdict."""
    scores = {n: _num(row.get(n)) for n in METRICS.names() if n in row.index and _num(row.get(n)) is not None}
    light = {k: _num(v) if not isinstance(v, (list, dict)) else v for k, v in row.items()}
    return {"strategy": row["strategy"], "attempt": row["attempt"], "lazy": True, "answer": _num(row.get("answer")),
            "error": redact_text(str(row["error"])) if _num(row.get("error")) else None, "scores": scores,
            "outcomes": {n: outcome(n, v) for n, v in scores.items()}, "reasons": failure_reasons(light),
            "context_tokens": _num(row.get("context_tokens")), "total_lines": _num(row.get("context_lines"))}


def probe_page(run: ViewedRun, dataset: str, conversation: str, probe: str, strategy: str | None = None,
               focus: str | None = None) -> dict[str, Any]:
    """One probe as every strategy handled it (``strategy``: only that one, whole). With more
    strategies than :func:`full_sides`, only ``focus`` (else the first) comes whole."""
    rows = run.rows_of(dataset, conversation, probe)
    if strategy:
        rows = rows[rows["strategy"] == strategy]
    if rows.empty:
        raise KeyError(f"no probe {dataset}/{conversation}/{probe}" + (f" of {strategy}" if strategy else "") + f" in {run.label}")
    whole = set(rows["strategy"]) if len(rows) <= full_sides() else {focus if focus in set(rows["strategy"]) else rows.iloc[0]["strategy"]}
    sides, common = [], None
    for _, row in rows.iterrows():
        if row["strategy"] not in whole:
            sides.append(_light_side(row))
            continue
        side, lines, rec = _side(run, row)
        side["lines"] = window(lines)
        sides.append(side)
        common = common or _common(run, row, rec)
    return {**common, "strategies": sides}  # type: ignore[dict-item]


def context_page(run: ViewedRun, dataset: str, conversation: str, probe: str, strategy: str, start: int, count: int,
                 line: int | None = None) -> dict[str, Any]:
    """More lines of one strategy's context (``start`` … ``start + count``), or one line whole."""
    rows = run.rows_of(dataset, conversation, probe)
    rows = rows[rows["strategy"] == strategy]
    if rows.empty:
        raise KeyError(f"no probe {dataset}/{conversation}/{probe} of {strategy} in {run.label}")
    rec = run.record(rows.iloc[0])
    lines = probe_lines(rec)
    if line is not None:
        from memlab.analysis.html_report import context_lines

        full = context_lines(rec)
        if not 0 <= line < len(full):
            raise KeyError(f"no line {line} in that context ({len(full)} lines)")
        return {"i": line, "text": full[line].text}
    count = min(max(int(count), 1), 2000)
    return {"total": len(lines), "lines": window(lines, max(int(start), 0), count, pinned=False)}


def turn_text(run: ViewedRun, dataset: str, user: str, conversation: str, turn: str) -> dict[str, Any]:
    """A dataset turn's whole text (pages show the first characters of a long one)."""
    t = run.text_of(dataset, user)
    hit = t[(t["conversation_id"] == conversation) & (t["turn_id"] == turn)] if not t.empty else t
    if hit.empty:
        raise KeyError(f"no text for turn {turn} of {dataset}/{conversation}")
    return {"turn_id": turn, "text": str(hit.iloc[0]["text"])}


# ---- compare -----------------------------------------------------------------------------------------

def compare(run: ViewedRun, a: str, b: str, metric: str = "evidence_recall", page: int = 0,
            per_page: int = PER_PAGE, filters: dict[str, str] | None = None) -> dict[str, Any]:
    """A against B over the probes both answered: the paired comparison (``RunResults.compare``),
    then the probes, the discordant ones on ``metric`` first (A hit and B missed, then the reverse)."""
    if metric not in run.probes:
        raise KeyError(f"no metric {metric!r} in {run.label}")
    stats = run.res.compare(a, b, metrics=[n for n in run.tables.get("headline") or [] if n in run.probes] or None)
    p = _matches(run, {**(filters or {}), "strategy": ""})
    key = ["dataset", "conversation_id", "probe_id"]
    pa = p[p["strategy"] == a].set_index(key)
    pb = p[p["strategy"] == b].set_index(key)
    common = pa.index.intersection(pb.index)
    oa = [outcome(metric, v) for v in pa.loc[common, metric].tolist()]
    ob = [outcome(metric, v) for v in pb.loc[common, metric].tolist()]
    rank = {("hit", "miss"): 0, ("miss", "hit"): 1, ("miss", "miss"): 2, ("hit", "hit"): 3}
    order = sorted(range(len(common)), key=lambda k: (rank.get((oa[k], ob[k]), 4), k))
    per_page = min(max(int(per_page), 1), MAX_PER_PAGE)
    pages = max(1, -(-len(order) // per_page))
    page = min(max(int(page), 0), pages - 1)
    rows = []
    for k in order[page * per_page:(page + 1) * per_page]:
        ds, conv, probe = common[k]
        rows.append({"dataset": ds, "conversation_id": conv, "probe_id": probe,
                     "question": _clip(pa.loc[(ds, conv, probe), "question"], 240), "a": oa[k], "b": ob[k],
                     "a_value": _num(pa.loc[(ds, conv, probe), metric]), "b_value": _num(pb.loc[(ds, conv, probe), metric])})
    counts = {"a_only": sum(1 for x, y in zip(oa, ob) if (x, y) == ("hit", "miss")),
              "b_only": sum(1 for x, y in zip(oa, ob) if (x, y) == ("miss", "hit")), "both": len(common)}
    return {"run": run.label, "a": a, "b": b, "metric": metric, "stats": _frame(stats), "caption": stats.attrs.get("caption"),
            "counts": counts, "rows": rows, "page": page, "pages": pages, "total": len(order)}


def _frame(df: pd.DataFrame) -> dict[str, Any]:
    return {"columns": list(map(str, df.columns)),
            "rows": [[_num(v) if not isinstance(v, (list, tuple)) else list(v) for v in row]
                     for row in df.itertuples(index=False, name=None)]}


def compare_probe(run_a: ViewedRun, a: str, run_b: ViewedRun, b: str, dataset: str, conversation: str,
                  probe: str) -> dict[str, Any]:
    """One probe's two contexts side by side, the lines each holds that the other does not marked."""
    sides, lines, common = [], [], None
    for run, strategy in ((run_a, a), (run_b, b)):
        rows = run.rows_of(dataset, conversation, probe)
        rows = rows[rows["strategy"] == strategy]
        if rows.empty:
            raise KeyError(f"no probe {dataset}/{conversation}/{probe} of {strategy} in {run.label}")
        side, ls, rec = _side(run, rows.iloc[0])
        side["run"] = run.label
        sides.append(side)
        lines.append(ls)
        common = common or _common(run, rows.iloc[0], rec)
    only_a, only_b = mark_difference(lines[0], lines[1])
    for side, ls in zip(sides, lines):
        side["lines"] = window(ls)
    return {**common, "a": sides[0], "b": sides[1], "only_a": only_a, "only_b": only_b}  # type: ignore[dict-item]


# ---- two runs: what flipped ------------------------------------------------------------------------

def _outcomes(run: ViewedRun) -> dict[tuple[str, str, str, str], ProbeOutcome]:
    cached = getattr(run, "_outcomes", None)
    if cached is None:
        cached = {o.key: o for o in probe_outcomes(run.res)}
        run._outcomes = cached  # type: ignore[attr-defined]
    return cached


def flips(runs: Runs, current: int, base: int | None = None, baseline: str | Path | None = None,
          page: int = 0, per_page: int = PER_PAGE) -> dict[str, Any]:
    """The probes whose score on a gated column flipped between a base (another run of the viewer,
    or a baseline file) and ``current``, as ``memlab check`` finds them: its gated columns (the
    current run's ``gate.metrics``, else the headline metrics' directed columns), worse first."""
    cur = runs.get(current)
    new = _outcomes(cur)
    if baseline is not None:
        base_label = str(baseline)
        old = {o.key: o for o in load_baseline(baseline).probes}
    elif base is not None:
        base_run = runs.get(base)
        base_label = base_run.label
        old = _outcomes(base_run)
    else:
        raise KeyError("flips: name the base run (or start the viewer with --baseline FILE)")
    gate = ((cur.manifest.get("config") or {}).get("gate") or {})
    columns = gated_column_names(gate.get("metrics"), cur.res.headline_metrics())
    common = [k for k in old if k in new]
    found = flipped([(old[k], new[k]) for k in common], columns)
    found.sort(key=lambda f: (not f.worse, f.old.strategy, f.old.probe_id))
    per_page = min(max(int(per_page), 1), MAX_PER_PAGE)
    pages = max(1, -(-len(found) // per_page))
    page = min(max(int(page), 0), pages - 1)
    rows = [{"strategy": f.old.strategy, "dataset": f.old.dataset, "conversation_id": f.old.conversation_id,
             "probe_id": f.old.probe_id, "question": _clip(f.old.question, 240), "worse": f.worse, "better": f.better,
             "old_answer": _clip(f.old.answer or f.old.error, 200), "new_answer": _clip(f.new.answer or f.new.error, 200),
             "old_excerpt": _clip(f.old.context_excerpt, 320)} for f in found[page * per_page:(page + 1) * per_page]]
    return {"base": base_label, "base_run": base, "baseline": str(baseline) if baseline else None, "current": cur.label,
            "columns": columns, "compared": len(common), "only_base": len(old) - len(common), "only_current": len(new) - len(common),
            "worse": sum(1 for f in found if f.worse), "better": sum(1 for f in found if f.better and not f.worse),
            "total": len(found), "rows": rows, "page": page, "pages": pages}
