"""Every plot memlab draws, in one place: the run folder's PNGs and the design report's figures.

Figure builders take plain frames (one row per labelled strategy) so the same drawing serves one
run (``write_report``'s PNGs) and several runs side by side (the design report). They return a
matplotlib ``Figure``; :func:`save_png` writes one to a file and :func:`png_bytes` gives its
bytes for embedding. matplotlib is imported lazily (Agg backend) so importing memlab stays cheap.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd

DPI = 120


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _finish(fig: Any, footer: str) -> Any:
    """Provenance in small print at the bottom (what produced the numbers), then a tight layout."""
    if footer:
        fig.text(0.01, 0.01, footer, fontsize=6, alpha=0.7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def save_png(fig: Any, path: Path) -> Path:
    """Write ``fig`` as a PNG and release it."""
    fig.savefig(path, dpi=DPI)
    _pyplot().close(fig)
    return path


def png_bytes(fig: Any) -> bytes:
    """``fig`` as PNG bytes (for a base64 ``<img>``), then release it."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    _pyplot().close(fig)
    return buf.getvalue()


def pareto_front(points: pd.DataFrame, x: str = "tokens", y: str = "recall") -> set[str]:
    """Labels (the index) of the points no other point beats: none has at least their ``y`` with at
    most their ``x`` and is strictly better in one of them (more recall for fewer tokens)."""
    front = set()
    for label, p in points.iterrows():
        dominated = ((points[y] >= p[y]) & (points[x] <= p[x]) & ((points[y] > p[y]) | (points[x] < p[x]))).any()
        if not dominated:
            front.add(label)
    return front


def recall_vs_tokens_figure(points: pd.DataFrame, title: str, footer: str, *, mark_pareto: bool = False) -> Any:
    """String recall (with its CI) against memory context tokens per probe, one point per index
    label (columns ``recall``, ``ci_low``, ``ci_high``, ``tokens``). With ``mark_pareto`` the
    points no other beats on both axes are ringed and joined by a step line."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for label, p in points.iterrows():
        x = max(float(p["tokens"]), 1.0)
        ax.errorbar([x], [p["recall"]], yerr=[[p["recall"] - p["ci_low"]], [p["ci_high"] - p["recall"]]], fmt="o",
                    capsize=4, markersize=8, label=label)
        ax.annotate(label, (x, p["recall"]), textcoords="offset points", xytext=(6, 6), fontsize=9)
    if mark_pareto and not points.empty:
        front = points.loc[sorted(pareto_front(points), key=lambda s: points.loc[s, "tokens"])]
        xs = front["tokens"].clip(lower=1.0)
        ax.step(xs, front["recall"], where="post", color="black", alpha=0.4, linestyle="--", label="Pareto front")
        ax.scatter(xs, front["recall"], s=260, facecolors="none", edgecolors="black", linewidths=1.2, zorder=5)
    ax.set_xscale("log")
    ax.set_xlabel("memory context tokens per probe (log scale, cl100k; 0 is drawn at 1)")
    ax.set_ylabel("string recall (gold answer in injected context)")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(True, alpha=0.3)
    ax.set_title(title)
    if mark_pareto:
        ax.legend(fontsize=7, loc="lower right")
    return _finish(fig, footer)


def grouped_bars_figure(table: pd.DataFrame, title: str, ylabel: str, footer: str, *, ylim: tuple[float, float] = (0, 1.05),
                        rotation: int = 90) -> Any:
    """One group of bars per column of ``table`` (e.g. a category), one bar per index label."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 4.8))
    table.T.plot.bar(ax=ax, width=0.8, rot=rotation)
    ax.set_ylabel(ylabel)
    ax.set_ylim(*ylim)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # outside: bars reach the top
    return _finish(fig, footer)


def stacked_bars_figure(panels: dict[str, pd.DataFrame], title: str, xlabel: str, footer: str,
                        colors: dict[str, str] | None = None) -> Any:
    """Horizontal stacked bars, one panel per entry: each row of a frame is a bar (a labelled
    strategy), each column a segment (a purpose, an op type, an outcome level)."""
    plt = _pyplot()
    rows = max((len(f) for f in panels.values()), default=1)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels) + 2, 1.2 + 0.45 * rows), squeeze=False)
    for ax, (name, frame) in zip(axes[0], panels.items()):
        frame = frame.iloc[::-1]  # first strategy on top
        left = pd.Series(0.0, index=frame.index)
        for col in frame.columns:
            ax.barh([str(i) for i in frame.index], frame[col], left=left, label=str(col),
                    color=(colors or {}).get(str(col)))
            left = left + frame[col].fillna(0)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.grid(True, axis="x", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(title)
    return _finish(fig, footer)


def compression_figure(events: dict[str, pd.DataFrame], title: str, footer: str) -> Any:
    """One point per compression event (columns ``tokens_before``, ``tokens_after``), coloured by
    strategy, against the no-compression diagonal: how far each trigger shrinks what it folds."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 5))
    top = 1.0
    for label, frame in events.items():
        ax.scatter(frame["tokens_before"], frame["tokens_after"], s=18, alpha=0.7, label=label)
        top = max(top, float(frame["tokens_before"].max()))
    ax.plot([0, top], [0, top], color="black", alpha=0.3, linestyle="--", label="no reduction")
    ax.set_xlabel("tokens before the compression")
    ax.set_ylabel("tokens after the compression")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title)
    return _finish(fig, footer)


# ---- the run folder's PNGs (memlab.report.write_report and the length sweep) ----

def plot_recall_vs_tokens(res: Any, path: Path) -> Path:
    """``recall_vs_tokens.png``: each strategy's string recall against its context tokens."""
    mt = res.metrics_table(by_category=False)
    rec = mt[mt["metric"] == "evidence_recall"].set_index("strategy")
    tok = mt[mt["metric"] == "context_tokens"].set_index("strategy")["mean"]
    points = pd.DataFrame([{"strategy": s, "recall": rec.loc[s, "mean"], "ci_low": rec.loc[s, "ci_low"],
                            "ci_high": rec.loc[s, "ci_high"], "tokens": float(tok.get(s, 0.0))}
                           for s in res.strategies if s in rec.index],
                          columns=["strategy", "recall", "ci_low", "ci_high", "tokens"]).set_index("strategy")
    prov = res.provenance()
    footer = (f"run {prov['run_id']} (components in manifest.json) · model: {prov['model']} · "
              f"code {prov['code_version']} · {prov['datasets']} · {res.intervals.caption()}")
    return save_png(recall_vs_tokens_figure(points, f"Recall vs context tokens — {res.manifest.get('name')}", footer), path)


def plot_category_recall(res: Any, path: Path) -> Path:
    """``recall_by_category.png``: string recall per probe category, one bar per strategy."""
    from memlab.report import category_table

    prov = res.provenance()
    footer = f"run {prov['run_id']} · model: {prov['model']} · code {prov['code_version']} · {prov['datasets']}"
    fig = grouped_bars_figure(category_table(res), f"Evidence recall by probe category — {res.manifest.get('name')}",
                              "evidence recall", footer)
    return save_png(fig, path)


def plot_recall_vs_length(res: Any, table: pd.DataFrame, path: Path) -> Path:
    """Two panels over history length: evidence recall (with CIs) and memory tokens per probe."""
    plt = _pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.6))
    for strategy in [s for s in res.strategies if s in set(table["strategy"])]:
        t = table[table["strategy"] == strategy]
        x = t["history_tokens_per_conv"]
        ax1.errorbar(x, t["evidence_recall"], yerr=[t["evidence_recall"] - t["ci_low"], t["ci_high"] - t["evidence_recall"]],
                     marker="o", capsize=3, label=strategy)
        ax2.plot(x, t["context_tokens_per_probe"].clip(lower=1), marker="o", label=strategy)
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlabel("history length (cl100k tokens per conversation, log)")
        ax.grid(True, alpha=0.3)
    ax1.set_ylabel("evidence recall (gold answer in injected context)")
    ax1.set_ylim(-0.05, 1.05)
    ax2.set_yscale("log")
    ax2.set_ylabel("memory context tokens per probe (log)")
    ax1.legend(fontsize=8)
    fig.suptitle(f"Recall and cost vs history length — {res.manifest.get('name')}")
    prov = res.provenance()
    return save_png(_finish(fig, f"run {prov['run_id']} · model: {prov['model']} · code {prov['code_version']}"), path)
