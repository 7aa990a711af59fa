"""What a comparison's conclusions depend on: paired contrasts across a behaviour-profile grid.

Reads a sweep folder written by ``memlab sensitivity`` (:mod:`memlab.harness.sensitivity`): one run
folder per grid point, holding the units played at that point, and ``sensitivity.json`` saying
which folder holds each unit at each point. For every contrast A − B and every point it computes
the paired difference over the same probes with the project's cluster-robust interval
(:func:`memlab.analysis.stats.paired_compare`, clustered by user), then classifies the contrast:

* **robust** — its interval excludes 0 on the same side at every point of the grid;
* **conditional** — shown at some points and not at others (or on the other side): the boundary is
  where, along a knob with the others held, the interval's near end crosses 0, interpolated
  linearly between the two grid points on either side;
* **never shown** — no point's interval excludes 0.

Read only: the analysis never imports the offline model or a strategy (tests/test_import_graph.py).
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.scoring.metric_registry import METRICS
from memlab.analysis.results import RunResults, load_run, paired_rows
from memlab.analysis.stats import Intervals, paired_compare

STATE_FILE = "sensitivity.json"
CONTRAST_COLUMNS = ["a", "b", "group", "point", "n", "users", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "sign"]


@dataclass
class Sweep:
    """A sweep folder read back: its grid, its points and their probe scores."""

    path: Path
    state: dict[str, Any]
    _runs: dict[str, RunResults] = field(default_factory=dict)

    @property
    def knobs(self) -> list[str]:
        return list(self.state["grid"]["knobs"])

    @property
    def points(self) -> list[dict[str, Any]]:
        return list(self.state["points"])

    @property
    def strategies(self) -> list[str]:
        return [s["name"] for s in self.state["config"]["strategies"]]

    @property
    def spec(self) -> dict[str, Any]:
        return self.state.get("sensitivity") or {}

    def run(self, rel: str) -> RunResults:
        if rel not in self._runs:
            self._runs[rel] = load_run(self.path / rel)
        return self._runs[rel]

    @property
    def base(self) -> RunResults:
        """The first point's run: every unit played (the design report's metrics come from it)."""
        return self.run(self.points[0]["run"])

    @cached_property
    def intervals(self) -> Intervals:
        return self.base.intervals

    def scores(self, column: str, by: str | None) -> dict[int, pd.DataFrame]:
        """Point index → one row per (strategy, probe): the metric column, the user cluster and
        the ``by`` group, each row taken from the run that holds its unit at that point."""
        frames: dict[str, pd.DataFrame] = {}
        runs = sorted({self.points[j]["run"] for p in self.points for *_, j in p["sources"]})
        for rel in runs:
            res = self.run(rel)
            probes = res.probes
            if probes.empty:
                frames[rel] = pd.DataFrame(columns=["strategy", "dataset", "conversation_id", "probe_id", "ns", "group", "value"])
                continue
            scored = res._scored()
            if column not in scored.columns:
                raise ValueError(f"{self.path}: no metric column {column!r} in {rel}")
            ns = [res.namespaces.get((str(d), str(c)), str(c)) for d, c in zip(probes["dataset"], probes["conversation_id"])]
            if by and by not in probes.columns:
                raise ValueError(f"{self.path}: cannot group by {by!r}: no such probe column")
            group = [str(g) if g is not None and g == g else "none" for g in probes[by]] if by else ["all"] * len(probes)
            frames[rel] = pd.DataFrame({"strategy": probes["strategy"].astype(str).to_numpy(),
                                        "dataset": probes["dataset"].astype(str).to_numpy(),
                                        "conversation_id": probes["conversation_id"].astype(str).to_numpy(),
                                        "probe_id": probes["probe_id"].astype(str).to_numpy(), "ns": ns, "group": group,
                                        "value": scored[column].to_numpy(dtype=float)})
        out: dict[int, pd.DataFrame] = {}
        for point in self.points:
            parts = []
            by_run: dict[str, set[tuple[str, str, str]]] = {}
            for strategy, dataset, ns, j in point["sources"]:
                by_run.setdefault(self.points[j]["run"], set()).add((strategy, dataset, ns))
            for rel, units in by_run.items():
                f = frames[rel]
                keep = [(s, d, n) in units for s, d, n in zip(f["strategy"], f["dataset"], f["ns"])]
                parts.append(f[keep])
            out[point["index"]] = pd.concat(parts, ignore_index=True) if parts else frames[runs[0]].iloc[:0]
        return out


def load_sweep(path: str | Path) -> Sweep:
    path = Path(path)
    state_file = path / STATE_FILE
    if not state_file.is_file():
        raise ValueError(f"{path}: not a sensitivity sweep (no {STATE_FILE}; `memlab sensitivity` writes one)")
    try:
        state = json.loads(state_file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{state_file}: corrupt ({exc})") from None
    for key in ("grid", "points", "config"):
        if key not in state:
            raise ValueError(f"{state_file}: no `{key}` (is this a sweep written by memlab sensitivity?)")
    if state.get("status") != "completed":
        raise ValueError(f"{path}: the sweep is {state.get('status')!r}, not completed; continue it with "
                         f"`memlab sensitivity CONFIG --resume {path}`")
    return Sweep(path, state)


def default_contrasts(sweep: Sweep) -> list[tuple[str, str]]:
    spec = sweep.spec
    if spec.get("contrasts"):
        return [tuple(c) for c in spec["contrasts"]]  # type: ignore[misc]
    reference = spec.get("reference") or sweep.strategies[0]
    return [(s, reference) for s in sweep.strategies if s != reference]


def check_contrasts(contrasts: list[tuple[str, str]], strategies: list[str]) -> None:
    import difflib

    for a, b in contrasts:
        for name in (a, b):
            if name not in strategies:
                close = difflib.get_close_matches(name, strategies, n=1, cutoff=0.5)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"contrast [{a}, {b}]: no strategy {name!r}.{hint} Strategies: {', '.join(strategies)}")
        if a == b:
            raise ValueError(f"contrast [{a}, {b}]: a strategy against itself")


def _column(metric: str) -> tuple[str, bool | None]:
    cols = METRICS.get(metric).columns()
    return cols[0]


def contrast_table(sweep: Sweep, contrasts: list[tuple[str, str]] | None = None, metric: str | None = None,
                   by: str | None = None) -> pd.DataFrame:
    """One row per contrast × group × grid point: the knob values, A − B over the same probes with
    its interval (clustered by user), and its sign (+1 / −1 when the interval excludes 0, else 0)."""
    contrasts = contrasts or default_contrasts(sweep)
    check_contrasts(contrasts, sweep.strategies)
    metric = metric or sweep.spec.get("metric") or "evidence_recall"
    by = by if by is not None else sweep.spec.get("by")
    column, hib = _column(metric)
    scores = sweep.scores(column, by)
    rows = []
    for point in sweep.points:
        frame = scores[point["index"]]
        key = ["dataset", "conversation_id", "probe_id"]
        for a, b in contrasts:
            pa, pb, common = paired_rows(frame, a, b, key)
            groups = [("all", np.ones(len(common), dtype=bool))]
            if by:
                groups += [(g, (pa["group"] == g).to_numpy()) for g in sorted(set(pa["group"]))]
            clusters = [(d, n) for d, n in zip(pa.index.get_level_values("dataset"), pa["ns"])]
            for group, mask in groups:
                cl = [c for c, k in zip(clusters, mask) if k]
                r = paired_compare(pa["value"].to_numpy()[mask], pb["value"].to_numpy()[mask], cl, hib, sweep.intervals)
                if r.n == 0 and group != "all":
                    continue  # no probe of this group is scored by the metric
                sign = 0 if r.n == 0 or not (r.ci_low > 0 or r.ci_high < 0) else (1 if r.ci_low > 0 else -1)
                rows.append({"a": a, "b": b, "group": group, "point": point["index"], **point["knobs"], "n": r.n,
                             "users": r.conversations, "mean_a": r.mean_a, "mean_b": r.mean_b, "diff": r.diff,
                             "ci_low": r.ci_low, "ci_high": r.ci_high, "sign": sign})
    out = pd.DataFrame(rows, columns=["a", "b", "group", "point", *sweep.knobs, *CONTRAST_COLUMNS[4:]])
    out.attrs.update(metric=metric, column=column, higher_is_better=hib, by=by, caption=(
        f"A − B in {column}, paired over the same probes, per behaviour profile; {sweep.intervals.caption()}"))
    return out


@dataclass(frozen=True)
class Boundary:
    """Where along ``knob`` (the other knobs held at ``held``) the contrast stops being shown."""

    knob: str
    held: dict[str, Any]
    at: float
    shown_side: str
    """``below`` / ``above``: on which side of ``at`` the contrast is shown."""
    sign: int


@dataclass(frozen=True)
class Verdict:
    """A contrast's dependence on the grid."""

    a: str
    b: str
    group: str
    status: str
    """``robust`` | ``conditional`` | ``never shown``."""
    sign: int
    """The sign shown (+1: A higher, −1: B higher; for conditional, the sign where shown; 0: never)."""
    boundaries: list[Boundary]
    flips: list[Boundary]
    """Where the point estimate changes sign (interpolated), when it does."""
    shown_at: int
    points: int

    def statement(self, higher_is_better: bool | None, column: str) -> str:
        """The finding as a sentence with its condition."""
        more = "higher" if higher_is_better is None else "better"
        lead, other = (self.a, self.b) if self.sign >= 0 else (self.b, self.a)
        scope = "" if self.group == "all" else f" on {self.group} probes"
        if self.status == "never shown":
            return f"{self.a} vs {self.b}{scope}: no difference in {column} shown at any of the {self.points} profiles."
        if self.status == "robust":
            return f"{lead} is {more} than {other}{scope} in {column} at every one of the {self.points} profiles (robust)."
        conds = "; ".join(f"{b.knob} {b.shown_side} {_fmt(b.at)}" + (f" (with {_held(b.held)})" if b.held else "")
                          for b in self.boundaries) or "at some profiles"
        return (f"{lead} is {more} than {other}{scope} in {column} while {conds} — shown at {self.shown_at} of "
                f"{self.points} profiles (conditional).")


def _fmt(x: float) -> str:
    return f"{x:.2f}"


def _held(held: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in held.items())


def _crossing(x0: float, y0: float, x1: float, y1: float) -> float:
    """x where the line through (x0, y0), (x1, y1) crosses 0."""
    return x0 + (x1 - x0) * (y0 / (y0 - y1)) if y0 != y1 else (x0 + x1) / 2


def verdicts(table: pd.DataFrame, knobs: list[str]) -> list[Verdict]:
    """Classify every contrast × group of a :func:`contrast_table` (see the module docstring)."""
    out = []
    for (a, b, group), rows in table.groupby(["a", "b", "group"], sort=False):
        signs = [int(s) for s in rows["sign"]]
        shown = [s for s in signs if s]
        if not shown:
            status, sign = "never shown", 0
        elif len(shown) == len(signs) and len(set(shown)) == 1:
            status, sign = "robust", shown[0]
        else:
            status = "conditional"
            sign = max(set(shown), key=shown.count)
        boundaries, flips = [], []
        if status == "conditional":
            for knob in knobs:
                others = [k for k in knobs if k != knob]
                for held, line in (rows.groupby(others, sort=False, dropna=False) if others else [((), rows)]):
                    held = dict(zip(others, held if isinstance(held, tuple) else (held,))) if others else {}
                    line = line[line[knob].notna()].sort_values(knob)
                    xs, lo, hi, d, sg = (line[c].to_numpy(dtype=float) for c in (knob, "ci_low", "ci_high", "diff", "sign"))
                    for i in range(len(xs) - 1):
                        near = lo if sign > 0 else -hi  # the interval's end nearest 0, positive while shown
                        if (sg[i] == sign) != (sg[i + 1] == sign) and np.isfinite(near[i]) and np.isfinite(near[i + 1]):
                            at = _crossing(xs[i], near[i], xs[i + 1], near[i + 1])
                            boundaries.append(Boundary(knob, held, at, "below" if sg[i] == sign else "above", sign))
                        if np.isfinite(d[i]) and np.isfinite(d[i + 1]) and d[i] * d[i + 1] < 0:
                            flips.append(Boundary(knob, held, _crossing(xs[i], d[i], xs[i + 1], d[i + 1]),
                                                  "below" if d[i] * sign > 0 else "above", sign))
        out.append(Verdict(str(a), str(b), str(group), status, sign, boundaries, flips, len(shown), len(signs)))
    return out


def plot_contrast(table: pd.DataFrame, a: str, b: str, group: str, knobs: list[str]) -> bytes:
    """Δ (A − B) with its interval against the first varied knob, one line per setting of the others."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = table[(table["a"] == a) & (table["b"] == b) & (table["group"] == group)]
    knob, others = knobs[0], knobs[1:]
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    series = rows.groupby(others, sort=False, dropna=False) if others else [((), rows)]
    for held, line in series:
        held = held if isinstance(held, tuple) else (held,)
        line = line.sort_values(knob)
        x = line[knob].astype(float).to_numpy()
        label = ", ".join(f"{k}={v}" for k, v in zip(others, held)) or column_label(table)
        err = np.vstack([(line["diff"] - line["ci_low"]).to_numpy(), (line["ci_high"] - line["diff"]).to_numpy()])
        ax.errorbar(x, line["diff"].to_numpy(), yerr=np.nan_to_num(err), marker="o", capsize=3, label=label)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel(knob)
    ax.set_ylabel(f"Δ {table.attrs.get('column', '')} ({a} − {b})")
    ax.set_title(f"{a} − {b}" + ("" if group == "all" else f" · {group}"), fontsize=10)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def column_label(table: pd.DataFrame) -> str:
    return str(table.attrs.get("column", "Δ"))


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "contrast"


def section(table: pd.DataFrame, found: list[Verdict], knobs: list[str], plots: dict[tuple[str, str, str], bytes]) -> Any:
    """The design report's section "What these conclusions depend on"."""
    from memlab.analysis.report_model import Caution, Heading, Plot, Section, Table, Text

    s = Section("depends-on", "What these conclusions depend on")
    hib, column = table.attrs.get("higher_is_better"), table.attrs.get("column", "")
    grid = ", ".join(f"{k} ∈ {{{', '.join(str(v) for v in dict.fromkeys(table[k].tolist()))}}}" for k in knobs)
    s.blocks.append(Text(
        f"The comparison was played once per behaviour profile of the offline stand-in — every combination of "
        f"{grid} — and each "
        f"contrast A − B in {column} is classified: robust (its 95% interval excludes 0 on the same side at every "
        "profile), conditional (shown at some profiles only; the boundary is where the interval's near end crosses 0, "
        "interpolated between grid points), or never shown."))
    s.blocks.append(Caution("A profile moves only the behaviours its knobs name; a real model differs in ways no knob "
                            "names (docs/sensitivity.md)."))
    rows = [[f"{v.a} − {v.b}", v.group, v.status, v.statement(hib, column)] for v in found]
    s.blocks.append(Table(["contrast", "probes", "status", "finding with its condition"], rows))
    grid_rows = []
    order = {key: i for i, key in enumerate(dict.fromkeys(zip(table["a"], table["b"], table["group"])))}
    ordered = table.assign(_o=[order[k] for k in zip(table["a"], table["b"], table["group"])]).sort_values(["_o", "point"])
    for _, r in ordered.iterrows():
        grid_rows.append([f"{r['a']} − {r['b']}", str(r["group"]), *[str(r[k]) for k in knobs],
                          f"{r['diff']:+.3f} [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]" if np.isfinite(r["diff"]) else "–",
                          str(int(r["n"]))])
    s.blocks.append(Heading("Δ per profile"))
    s.blocks.append(Table(["contrast", "probes", *knobs, "Δ [95% CI]", "n"], grid_rows, table.attrs.get("caption", "")))
    for (a, b, group), png in plots.items():
        s.blocks.append(Plot(slug(f"depends-{a}-vs-{b}-{group}"), f"{a} − {b}" + ("" if group == "all" else f" ({group})"), png))
    return s


def write_sweep_report(path: str | Path, contrasts: list[tuple[str, str]] | None = None, metric: str | None = None,
                       by: str | None = None) -> dict[str, Path]:
    """Write the sweep's ``contrasts.csv``, ``verdicts.csv``, a plot per contrast (``plots/``) and
    its design report (``report.html``, ``report.md``: the first profile's report with the section
    "What these conclusions depend on"). Returns the files written."""
    from memlab.analysis.html_report import build_report
    from memlab.analysis.report_render import render_html, render_markdown

    sweep = load_sweep(path)
    table = contrast_table(sweep, contrasts, metric, by)
    found = verdicts(table, sweep.knobs)
    out = sweep.path
    files = {"contrasts": out / "contrasts.csv", "verdicts": out / "verdicts.csv"}
    table.to_csv(files["contrasts"], index=False)
    pd.DataFrame([{"a": v.a, "b": v.b, "group": v.group, "status": v.status, "sign": v.sign,
                   "shown_at": v.shown_at, "points": v.points,
                   "boundaries": "; ".join(f"{b.knob} {b.shown_side} {b.at:.3f}" + (f" ({_held(b.held)})" if b.held else "")
                                           for b in v.boundaries),
                   "flips": "; ".join(f"{b.knob} {b.at:.3f}" + (f" ({_held(b.held)})" if b.held else "") for b in v.flips),
                   "statement": v.statement(table.attrs.get("higher_is_better"), table.attrs.get("column", ""))}
                  for v in found]).to_csv(files["verdicts"], index=False)
    plots: dict[tuple[str, str, str], bytes] = {}
    (out / "plots").mkdir(exist_ok=True)
    for stale in [*(out / "plots").glob("*.png"), *out.glob("report-*.png")]:
        stale.unlink()  # written again below: a contrast no longer asked for leaves no plot behind
    for a, b, group in dict.fromkeys(zip(table["a"], table["b"], table["group"])):
        png = plot_contrast(table, a, b, group, sweep.knobs)
        plots[(a, b, group)] = png
        p = out / "plots" / f"{slug(f'{a}-vs-{b}-{group}')}.png"
        p.write_bytes(png)
        files[f"plot:{a}-{b}-{group}"] = p
    report = build_report([sweep.base])
    report.title = f"memlab design report — {sweep.state.get('name')} (sensitivity sweep, {len(sweep.points)} profiles)"
    at = next((i for i, s in enumerate(report.sections) if s.id == "metrics"), len(report.sections) - 1) + 1
    report.sections.insert(at, section(table, found, sweep.knobs, plots))
    files["html"] = out / "report.html"
    files["html"].write_text(render_html(report), encoding="utf-8")
    text, pngs = render_markdown(report, "report")
    for name, data in pngs.items():
        (out / name).write_bytes(data)
    files["md"] = out / "report.md"
    files["md"].write_text(text, encoding="utf-8")
    return files

