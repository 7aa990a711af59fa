"""Every plot memlab draws, in one place: the run folder's PNGs and the design report's figures.

Figure builders take plain frames (one row per labelled strategy) so the same drawing serves one
run (``write_report``'s PNGs) and several runs side by side (the design report). They return a
matplotlib ``Figure``; :func:`save_png` writes one to a file and :func:`png_bytes` gives its
bytes for embedding. matplotlib is imported lazily (Agg backend) so importing memlab stays cheap.
"""

from __future__ import annotations

import io
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import pandas as pd

DPI = 120


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _finish(fig: Any, footer: str) -> Any:
    """Provenance in small print at the bottom (what produced the numbers), wrapped to the figure's
    width so none of it is cut, then a tight layout above it."""
    import textwrap

    width_in, height_in = fig.get_size_inches()
    bottom = 0.02
    if footer:
        lines = textwrap.wrap(footer, width=max(int(width_in * 21), 40))
        fig.text(0.01, 0.005, "\n".join(lines), fontsize=6, alpha=0.7, va="bottom")
        bottom = min(0.3, (len(lines) * 6 * 1.35 / 72 + 0.04) / height_in)
    fig.tight_layout(rect=(0, bottom, 1, 1))
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


MANY = 8
"""Above this many strategies a scatter's labels and a group of bars stop being readable: the
figures switch to ranked dot plots with the strategies as labelled rows."""


def strategy_colors(labels: Sequence[str]) -> dict[str, Any]:
    """One colour per strategy label, in report order, the same in every plot of a report.

    Up to 10: matplotlib's tab10; up to 20: tab20's ten strong colours, then its ten light ones
    (so the first ten keep the colours they would have in a small report); beyond: evenly spaced
    on the ``turbo`` colormap. Labels that repeat keep their first colour."""
    import matplotlib

    unique = list(dict.fromkeys(str(x) for x in labels))
    n = len(unique)
    if n <= 10:
        palette = list(matplotlib.colormaps["tab10"].colors)
    elif n <= 20:
        tab20 = list(matplotlib.colormaps["tab20"].colors)
        palette = tab20[0::2] + tab20[1::2]
    else:
        cmap = matplotlib.colormaps["turbo"]
        palette = [cmap(0.05 + 0.9 * i / (n - 1)) for i in range(n)]
    return {label: palette[i] for i, label in enumerate(unique)}


def _colors_for(labels: Sequence[str], colors: dict[str, Any] | None) -> dict[str, Any]:
    """``colors`` where it names a label, else a palette over ``labels`` (a standalone figure)."""
    own = strategy_colors(labels)
    return {str(x): (colors or {}).get(str(x), own[str(x)]) for x in labels}


def pareto_front(points: pd.DataFrame, x: str = "tokens", y: str = "recall") -> set[str]:
    """Labels (the index) of the points no other point beats: none has at least their ``y`` with at
    most their ``x`` and is strictly better in one of them (more recall for fewer tokens)."""
    front = set()
    for label, p in points.iterrows():
        dominated = ((points[y] >= p[y]) & (points[x] <= p[x]) & ((points[y] > p[y]) | (points[x] < p[x]))).any()
        if not dominated:
            front.add(label)
    return front


def _overlaps(box: Any, others: list[Any], pad: float = 2.0) -> bool:
    return any(box.x0 < o.x1 + pad and box.x1 > o.x0 - pad and box.y0 < o.y1 + pad and box.y1 > o.y0 - pad for o in others)


def place_labels(ax: Any, xs: Sequence[float], ys: Sequence[float], labels: Sequence[str], *, fontsize: float = 9) -> list[Any]:
    """Label points without two labels overlapping each other, a marker or the axes' edge: each
    label tries offsets around its point, nearest first, and takes the first free one (a leader
    line joins a label set further away). Returns the text artists."""
    from matplotlib.transforms import Bbox

    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axbox = ax.get_window_extent(renderer)
    points = [ax.transData.transform((x, y)) for x, y in zip(xs, ys)]
    taken = [Bbox.from_bounds(px - 6, py - 6, 12, 12) for px, py in points]
    offsets = [(7, 5), (7, -14), (-7, 5), (-7, -14)]
    offsets += [(dx, dy) for r in (1, 2, 3, 4, 5) for dx, dy in ((7, 5 + 13 * r), (7, -14 - 13 * r),
                                                              (-7, 5 + 13 * r), (-7, -14 - 13 * r))]
    texts = []
    order = sorted(range(len(labels)), key=lambda i: (-points[i][1], points[i][0]))
    for i in order:
        chosen = None
        for dx, dy in offsets:
            t = ax.annotate(labels[i], (xs[i], ys[i]), textcoords="offset points", xytext=(dx, dy), fontsize=fontsize,
                            ha="left" if dx > 0 else "right", va="bottom")
            box = t.get_window_extent(renderer)
            inside = box.x0 >= axbox.x0 and box.x1 <= axbox.x1 and box.y0 >= axbox.y0 and box.y1 <= axbox.y1
            if inside and not _overlaps(box, taken):
                chosen = (t, box, dy)
                break
            t.remove()
        if chosen is None:  # nowhere free: the nearest spot, kept inside the axes
            dx, dy = offsets[0]
            t = ax.annotate(labels[i], (xs[i], ys[i]), textcoords="offset points", xytext=(dx, dy), fontsize=fontsize,
                            ha="left", va="bottom", annotation_clip=True)
            chosen = (t, t.get_window_extent(renderer), dy)
        t, box, dy = chosen
        if abs(dy) > 14:  # set away from its point: a thin leader line says whose label it is
            xy, xytext, ha = t.xy, t.xyann, t.get_ha()
            t.remove()
            t = ax.annotate(labels[i], xy, textcoords="offset points", xytext=xytext, fontsize=fontsize, ha=ha,
                            va="bottom", arrowprops={"arrowstyle": "-", "color": "0.5", "lw": 0.6, "shrinkA": 0,
                                                     "shrinkB": 4})
        taken.append(box)
        texts.append(t)
    return texts


def recall_vs_tokens_figure(points: pd.DataFrame, title: str, footer: str, *, mark_pareto: bool = False,
                            colors: dict[str, Any] | None = None) -> Any:
    """String recall (with its CI) against memory context tokens per probe, one point per index
    label (columns ``recall``, ``ci_low``, ``ci_high``, ``tokens``), coloured by ``colors``. With
    ``mark_pareto`` the points no other beats on both axes are ringed and joined by a step line.

    Up to :data:`MANY` strategies: a scatter whose labels never overlap (:func:`place_labels`), the
    legend outside the axes. More: :func:`ranked_recall_figure`, a ranked dot plot with the same facts."""
    if len(points) > MANY:
        return ranked_recall_figure(points, title, footer, mark_pareto=mark_pareto, colors=colors)
    plt = _pyplot()
    labels = [str(x) for x in points.index]
    col = _colors_for(labels, colors)
    fig, ax = plt.subplots(figsize=(8.5, 5))
    xs, ys = [], []
    for label, p in points.iterrows():
        x = max(float(p["tokens"]), 1.0)
        yerr = None if pd.isna(p["ci_low"]) else [[p["recall"] - p["ci_low"]], [p["ci_high"] - p["recall"]]]
        ax.errorbar([x], [p["recall"]], yerr=yerr, fmt="o", capsize=4, markersize=8, color=col[str(label)], zorder=3)
        xs.append(x)
        ys.append(float(p["recall"]))
    front: list[str] = []
    if mark_pareto and not points.empty:
        front = sorted(pareto_front(points), key=lambda s: points.loc[s, "tokens"])
        f = points.loc[front]
        fx = f["tokens"].clip(lower=1.0)
        ax.step(fx, f["recall"], where="post", color="black", alpha=0.4, linestyle="--", label="Pareto front")
        ax.scatter(fx, f["recall"], s=260, facecolors="none", edgecolors="black", linewidths=1.2, zorder=5)
    ax.set_xscale("log")
    lo, hi = min(xs, default=1.0), max(xs, default=10.0)
    ax.set_xlim(lo / 2.5, hi * 6)  # room on the right for the labels of the largest contexts
    ax.set_xlabel("memory context tokens per probe (log scale, cl100k; 0 is drawn at 1)")
    ax.set_ylabel("string recall (gold answer in injected context)")
    ax.set_ylim(-0.08, 1.12)
    ax.grid(True, alpha=0.3)
    ax.set_title(title)
    if mark_pareto:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig = _finish(fig, footer)
    place_labels(ax, xs, ys, labels)  # after the layout: labels are placed where the points finally are
    return fig


def ranked_recall_figure(points: pd.DataFrame, title: str, footer: str, *, mark_pareto: bool = False,
                         colors: dict[str, Any] | None = None) -> Any:
    """Many strategies: one labelled row each, ranked by recall — its recall with the 95% interval
    on the left, its memory tokens per probe on the right (log); Pareto-front rows ringed and
    their names in bold. Nothing overlaps however many rows there are."""
    plt = _pyplot()
    ranked = points.assign(_t=points["tokens"]).sort_values(["recall", "_t"], ascending=[False, True])
    labels = [str(x) for x in ranked.index]
    col = _colors_for(labels, colors)
    front = pareto_front(points) if mark_pareto else set()
    n = len(ranked)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 1.4 + 0.32 * n), sharey=True,
                                   gridspec_kw={"width_ratios": [3, 2]})
    ys = list(range(n))[::-1]
    for y, (label, p) in zip(ys, ranked.iterrows()):
        c = col[str(label)]
        xerr = None if pd.isna(p["ci_low"]) else [[p["recall"] - p["ci_low"]], [p["ci_high"] - p["recall"]]]
        ax1.errorbar([p["recall"]], [y], xerr=xerr, fmt="o", color=c, capsize=3, markersize=6)
        ax2.plot([max(float(p["tokens"]), 1.0)], [y], "o", color=c, markersize=6)
        if label in front:
            for ax, x in ((ax1, p["recall"]), (ax2, max(float(p["tokens"]), 1.0))):
                ax.scatter([x], [y], s=150, facecolors="none", edgecolors="black", linewidths=1.1, zorder=5)
    ax1.set_yticks(ys)
    ax1.set_yticklabels(labels, fontsize=8)
    for tick, label in zip(ax1.get_yticklabels(), labels):
        if label in front:
            tick.set_fontweight("bold")
    ax1.set_xlim(-0.03, 1.03)
    ax1.set_xlabel("string recall [95% CI]")
    ax2.set_xscale("log")
    ax2.set_xlabel("memory context tokens per probe (log; 0 at 1)")
    for ax in (ax1, ax2):
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_ylim(-0.7, n - 0.3)
    fig.suptitle(title + (" — ranked; Pareto front ringed, in bold" if mark_pareto else " — ranked"))
    return _finish(fig, footer)


def dot_panels_figure(table: pd.DataFrame, title: str, xlabel: str, footer: str, *, xlim: tuple[float, float] = (0, 1.05),
                      colors: dict[str, Any] | None = None) -> Any:
    """One panel per column of ``table`` (a category, a measure), one labelled row per index label
    (a strategy, in the table's order), a dot at its value with the value written beside it: how
    :func:`grouped_bars_figure` shows many strategies."""
    plt = _pyplot()
    labels = [str(x) for x in table.index]
    col = _colors_for(labels, colors)
    n, k = len(labels), max(len(table.columns), 1)
    fig, axes = plt.subplots(1, k, figsize=(2.2 + 2.1 * k, 1.4 + 0.3 * n), sharey=True, squeeze=False)
    ys = list(range(n))[::-1]
    for ax, column in zip(axes[0], table.columns):
        for y, label in zip(ys, labels):
            v = table.loc[label, column] if label in table.index else float("nan")
            if isinstance(v, pd.Series):
                v = v.iloc[0]
            if pd.isna(v):
                continue
            ax.plot([v], [y], "o", color=col[label], markersize=6)
            ax.annotate(f"{v:.2f}", (v, y), textcoords="offset points", xytext=(5, -3), fontsize=7)
        ax.set_title(str(column), fontsize=9)
        span = xlim[1] - xlim[0]
        ax.set_xlim(xlim[0] - 0.06 * span, xlim[1] + 0.2 * span)  # room for a dot at 0 and the value beside it
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_ylim(-0.7, n - 0.3)
        ax.set_xlabel(xlabel, fontsize=8)
    axes[0][0].set_yticks(ys)
    axes[0][0].set_yticklabels(labels, fontsize=8)
    fig.suptitle(title)
    return _finish(fig, footer)


def grouped_bars_figure(table: pd.DataFrame, title: str, ylabel: str, footer: str, *, ylim: tuple[float, float] = (0, 1.05),
                        rotation: int = 90, colors: dict[str, Any] | None = None) -> Any:
    """One group of bars per column of ``table`` (e.g. a category), one bar per index label, each
    label in its colour. More than :data:`MANY` labels: :func:`dot_panels_figure` instead."""
    if len(table.index) > MANY:
        return dot_panels_figure(table, title, ylabel, footer, xlim=ylim, colors=colors)
    plt = _pyplot()
    labels = [str(x) for x in table.index]
    col = _colors_for(labels, colors)
    fig, ax = plt.subplots(figsize=(10, 4.8))
    table.T.plot.bar(ax=ax, width=0.8, rot=rotation, color=[col[x] for x in labels])
    ax.set_ylabel(ylabel)
    ax.set_ylim(*ylim)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # outside: bars reach the top
    return _finish(fig, footer)


def stacked_bars_figure(panels: dict[str, pd.DataFrame], title: str, xlabel: str, footer: str,
                        colors: dict[str, str] | None = None) -> Any:
    """Horizontal stacked bars, one panel per entry: each row of a frame is a bar (a labelled
    strategy), each column a segment (a purpose, an op type, an outcome level). One legend, right
    of the panels, never over a bar."""
    plt = _pyplot()
    rows = max((len(f) for f in panels.values()), default=1)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels) + 2, 1.8 + 0.32 * rows), squeeze=False)
    for ax, (name, frame) in zip(axes[0], panels.items()):
        frame = frame.iloc[::-1]  # first strategy on top
        left = pd.Series(0.0, index=frame.index)
        for col in frame.columns:
            ax.barh([str(i) for i in frame.index], frame[col], left=left, label=str(col),
                    color=(colors or {}).get(str(col)))
            left = left + frame[col].fillna(0)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(True, axis="x", alpha=0.3)
    # one legend for every panel (they share their segments), right of the last one: never over a bar
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.suptitle(title)
    return _finish(fig, footer)


def compression_figure(events: dict[str, pd.DataFrame], title: str, footer: str,
                       colors: dict[str, Any] | None = None) -> Any:
    """One point per compression event (columns ``tokens_before``, ``tokens_after``), coloured by
    strategy, against the no-compression diagonal: how far each trigger shrinks what it folds."""
    plt = _pyplot()
    col = _colors_for(list(events), colors)
    fig, ax = plt.subplots(figsize=(8.5, 5))
    top = 1.0
    for label, frame in events.items():
        ax.scatter(frame["tokens_before"], frame["tokens_after"], s=18, alpha=0.7, label=label, color=col[str(label)])
        top = max(top, float(frame["tokens_before"].max()))
    ax.plot([0, top], [0, top], color="black", alpha=0.3, linestyle="--", label="no reduction")
    ax.set_xlabel("tokens before the compression")
    ax.set_ylabel("tokens after the compression")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.set_title(title)
    return _finish(fig, footer)


# ---- the run folder's PNGs (memlab.analysis.report.write_report and the length sweep) ----

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
    return save_png(recall_vs_tokens_figure(points, f"Recall vs context tokens — {res.manifest.get('name')}", footer,
                                            colors=strategy_colors(res.strategies)), path)


def plot_category_recall(res: Any, path: Path) -> Path:
    """``recall_by_category.png``: string recall per probe category, one bar per strategy."""
    prov = res.provenance()
    footer = f"run {prov['run_id']} · model: {prov['model']} · code {prov['code_version']} · {prov['datasets']}"
    fig = grouped_bars_figure(res.category_table(), f"Evidence recall by probe category — {res.manifest.get('name')}",
                              "evidence recall", footer, colors=strategy_colors(res.strategies))
    return save_png(fig, path)


def plot_recall_vs_length(res: Any, table: pd.DataFrame, path: Path) -> Path:
    """Two panels over history length (tokens per user): evidence recall (with CIs) and memory tokens per probe.
    A dataset lengthened both ways (``memlab datasets scale --mode``) gets two lines per strategy from the
    same unscaled point: informative sessions solid, filler dashed."""
    plt = _pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.6))
    colors = strategy_colors(res.strategies)
    x_col = "history_tokens_per_user" if "history_tokens_per_user" in table and table["history_tokens_per_user"].notna().all() \
        else "history_tokens_per_conv"
    modes = [m for m in ("informative", "filler") if "mode" in table and (table["mode"] == m).any()] or [None]
    for strategy in [s for s in res.strategies if s in set(table["strategy"])]:
        t = table[table["strategy"] == strategy]
        for mode in modes:
            part = t if mode is None else t[t["mode"].isin([mode, "original"])]
            part = part.sort_values(x_col)
            x = part[x_col]
            style = "--" if mode == "filler" else "-"
            label = strategy if mode in (None, modes[0]) else None
            ax1.errorbar(x, part["evidence_recall"], yerr=[part["evidence_recall"] - part["ci_low"],
                                                           part["ci_high"] - part["evidence_recall"]],
                         marker="o", capsize=3, label=label, color=colors[strategy], linestyle=style)
            ax2.plot(x, part["context_tokens_per_probe"].clip(lower=1), marker="o", label=label, color=colors[strategy],
                     linestyle=style)
    per = "user" if x_col == "history_tokens_per_user" else "conversation"
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlabel(f"history length (cl100k tokens per {per}, log)")
        ax.grid(True, alpha=0.3)
    ax1.set_ylabel("evidence recall (gold answer in injected context)")
    ax1.set_ylim(-0.05, 1.05)
    ax2.set_yscale("log")
    ax2.set_ylabel("memory context tokens per probe (log)")
    ax1.legend(fontsize=8)
    how = " · solid: informative sessions, dashed: filler" if len(modes) > 1 else ""
    fig.suptitle(f"Recall and cost vs history length — {res.manifest.get('name')}{how}")
    prov = res.provenance()
    return save_png(_finish(fig, f"run {prov['run_id']} · model: {prov['model']} · code {prov['code_version']}"), path)


def forgetting_figure(frame: pd.DataFrame, title: str, footer: str, *, colors: dict[str, Any] | None = None) -> Any:
    """Recall against evidence age (:func:`memlab.analysis.forgetting.recall_by_age`): one line per strategy,
    string recall solid and provenance recall dashed in the strategy's colour, each point with its interval.
    Bins are categories in age order (fourfold token steps, or thread spans)."""
    plt = _pyplot()
    order = frame.sort_values("bin")["age"].drop_duplicates().tolist()
    x_of = {a: i for i, a in enumerate(order)}
    labels = list(dict.fromkeys(str(s) for s in frame["strategy"]))
    col = _colors_for(labels, colors)
    fig, ax = plt.subplots(figsize=(max(7.0, 1.2 * len(order) + 4), 5.0))
    for i, strategy in enumerate(labels):
        for metric, style in (("evidence_recall", "-"), ("provenance_recall", "--")):
            g = frame[(frame["strategy"] == strategy) & (frame["metric"] == metric)].sort_values("bin")
            if g.empty:
                continue
            xs = [x_of[a] + (i - len(labels) / 2) * 0.015 for a in g["age"]]  # a little apart: intervals stay visible
            lo = (g["mean"] - g["ci_low"]).clip(lower=0).fillna(0)
            hi = (g["ci_high"] - g["mean"]).clip(lower=0).fillna(0)
            ax.errorbar(xs, g["mean"], yerr=[lo, hi], linestyle=style, marker="o", markersize=3, capsize=2, linewidth=1.2,
                        color=col[strategy], label=strategy if metric == "evidence_recall" else None)
    by = frame["by"].iloc[0]
    ax.set_xticks(range(len(order)), order)
    ax.set_xlabel("evidence age: " + ("tokens of the user's history since the evidence was said" if by == "tokens"
                                       else "threads since the evidence was said"))
    ax.set_ylabel("recall (solid: string · dashed: provenance)")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _finish(fig, footer)
