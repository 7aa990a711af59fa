"""Recall by evidence age: each design's forgetting curve.

A memory that is bounded — a summary with a token budget, a store with a cap, a window — has to choose
what to keep, and what it drops is old. Averaged over every probe, that loss hides among the probes
asked right after their evidence. Binned by **how long ago the evidence was said** it is the curve every
memory design has: flat for one that keeps what matters, falling for one that forgets by age.

Two clocks, both recorded in every probe row by the run (``evidence_age_tokens``,
``evidence_age_threads``; :class:`memlab.harness.units.HistoryClock`): the tokens of the user's history
from the start of the earliest evidence turn to the probe (what a budget measures), and the threads in
between (what a per-thread memory loses at each new thread). Each cell has its 95% interval clustered by
user, as every memlab table; a bin with no probe is left out.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from memlab.analysis.stats import cluster_interval

RunResults = Any
"""A :class:`memlab.analysis.results.RunResults` (not imported: results imports this module)."""

TOKEN_EDGES = (0, 500, 2_000, 8_000, 32_000, 128_000, 512_000)
"""Bins of ``evidence_age_tokens``: [0, 500), [500, 2k), … [512k, ∞) — fourfold steps, so a 25k-token user and a
400k-token user fall in comparable bins."""
THREAD_BINS = ((0, 0), (1, 2), (3, 5), (6, 10), (11, 20), (21, None))
"""Bins of ``evidence_age_threads`` (inclusive): the same thread, then ever wider spans."""
METRICS = ("evidence_recall", "provenance_recall")
"""String recall (the value is in the context) and provenance recall (the evidence turns are among the
context's sources — a summary that cites them but lost the value still counts): their gap is what a
lossy memory keeps of the source but not of the fact."""
COLUMNS = {"tokens": "evidence_age_tokens", "threads": "evidence_age_threads"}


def _token_label(lo: int, hi: int | None) -> str:
    def k(n: int) -> str:
        return f"{n // 1000}k" if n >= 1000 else str(n)
    return f"≥{k(lo)}" if hi is None else f"{k(lo)}–{k(hi)}"


def bins(by: str) -> list[tuple[str, float, float]]:
    """(label, low, high) of each bin of clock ``by`` (``tokens`` or ``threads``); high is exclusive."""
    if by == "tokens":
        edges = list(TOKEN_EDGES) + [None]
        return [(_token_label(lo, hi), lo, math.inf if hi is None else hi) for lo, hi in zip(edges[:-1], edges[1:])]
    if by == "threads":
        return [(("same thread" if lo == 0 else f"{lo}" if lo == hi else f"{lo}+" if hi is None else f"{lo}–{hi}"),
                 lo, math.inf if hi is None else hi + 1) for lo, hi in THREAD_BINS]
    raise ValueError(f"unknown evidence age clock {by!r}; one of: tokens, threads")


def has_ages(res: RunResults) -> bool:
    """Whether the run recorded evidence ages (runs before they were recorded did not) for some probe."""
    probes = res.probes
    return not probes.empty and "evidence_age_tokens" in probes and probes["evidence_age_tokens"].notna().any()


def recall_by_age(res: RunResults, by: str = "tokens", metrics: tuple[str, ...] | list[str] = METRICS,
                  strategies: list[str] | None = None) -> pd.DataFrame:
    """Long frame: strategy × age bin × metric → mean, 95% CI (clustered by user), probes, users.

    ``by``: ``tokens`` (tokens of history since the earliest evidence turn) or ``threads``. Only probes
    with evidence and a recorded age count; bins are ordered youngest first (``bin`` is their position)."""
    cols = ["strategy", "by", "bin", "age", "age_low", "age_high", "metric", "mean", "ci_low", "ci_high", "n", "users"]
    if not has_ages(res):
        return pd.DataFrame(columns=cols)
    probes = res.probes
    scored = res._scored()
    ages = probes[COLUMNS[by]].astype(float)
    rows: list[dict[str, Any]] = []
    for strategy in strategies or res.strategies:
        mine = probes["strategy"] == strategy
        for i, (label, lo, hi) in enumerate(bins(by)):
            index = probes.index[mine & (ages >= lo) & (ages < hi)]
            if index.empty:
                continue
            clusters = res._clusters(probes.loc[index])
            for metric in metrics:
                vals = scored.loc[index, metric].to_numpy(dtype=float)
                keep = ~np.isnan(vals)
                if not keep.any():
                    continue
                mean, ci_lo, ci_hi = cluster_interval(vals, clusters, res.intervals)
                rows.append({"strategy": strategy, "by": by, "bin": i, "age": label, "age_low": lo, "age_high": hi,
                             "metric": metric, "mean": mean, "ci_low": ci_lo, "ci_high": ci_hi, "n": int(keep.sum()),
                             "users": len({c for c, k in zip(clusters, keep) if k})})
    out = pd.DataFrame(rows, columns=cols)
    out.attrs["caption"] = (f"recall by evidence age ({'tokens of the user history' if by == 'tokens' else 'threads'} "
                            f"between the earliest evidence turn and the probe); {res.intervals.caption()}")
    return out


def age_pivot(frame: pd.DataFrame, metric: str = "evidence_recall") -> pd.DataFrame:
    """strategy × age bin: ``mean (n)`` cells of one metric, bins in age order (for tables)."""
    sub = frame[frame["metric"] == metric]
    if sub.empty:
        return pd.DataFrame()
    order = sub.sort_values("bin")["age"].drop_duplicates().tolist()
    cells = sub.assign(cell=[f"{m:.2f} ({n})" for m, n in zip(sub["mean"], sub["n"])])
    out = cells.pivot(index="strategy", columns="age", values="cell").reindex(columns=order)
    return out.reindex([s for s in dict.fromkeys(sub["strategy"])]).fillna("–")


def print_recall_by_age(res: RunResults, console: Any = None, by: str = "tokens") -> pd.DataFrame:
    """The forgetting-curve table of ``memlab report``: string recall per strategy and evidence-age bin
    (probes in brackets), then provenance recall; nothing when the run recorded no ages."""
    from rich.console import Console
    from rich.table import Table

    frame = recall_by_age(res, by=by)
    if frame.empty:
        return frame
    console = console or Console()
    for metric, what in (("evidence_recall", "string recall"), ("provenance_recall", "provenance recall")):
        pivot = age_pivot(frame, metric)
        if pivot.empty:
            continue
        table = Table(title=f"{what} by evidence age ({by})", title_style="bold", caption=frame.attrs["caption"])
        table.add_column("strategy")
        for col in pivot.columns:
            table.add_column(str(col), justify="right")
        for name, row in pivot.iterrows():
            table.add_row(str(name), *[str(v) for v in row])
        console.print(table)
    return frame


def plot_recall_by_age(frame: pd.DataFrame, path: Any, title: str = "", footer: str = "") -> Any:
    """Write the forgetting curves of ``frame`` (:func:`recall_by_age`) to ``path`` (PNG)."""
    from memlab.analysis.plots import forgetting_figure, save_png

    if frame.empty:
        return None
    return save_png(forgetting_figure(frame, title or "Forgetting curves: recall by evidence age", footer), path)
