"""The regression gate: does a run fall behind a committed baseline by more than its tolerances?

``check`` runs a config (or takes a finished run) and compares it with a baseline
(:mod:`memlab.analysis.baseline`) probe by probe. For every gated strategy and metric column:

* **floor** — the new value is worse than the configured absolute bound: a regression;
* **max_drop** — the new value is worse than the baseline's by more than ``max_drop`` *and*, by
  default, the paired test over the same probes (clustered by user, the run's interval method,
  :func:`memlab.analysis.stats.paired_compare`) shows it after the **Holm** correction over all of the
  check's gated comparisons: a regression. Without the test a handful of flipped probes in a
  small eval would fail CI on noise; without the correction a check of 36 comparisons, each at
  95%, would fail on noise far more often than 5% of the time.

Both verdicts are reported: the *raw* one (this comparison's interval excludes 0 on the worse
side) and the *adjusted* one (its Holm-adjusted p-value is at most 1 − confidence), which is the
one that fails the check. Holm's step-down keeps the family-wise error — the chance that a check
in which nothing got worse reports any regression — at most 1 − confidence (docs/gate.md).

Metrics that score the answer (``scores_answer``) are shown but not gated when the answers came
from the offline stand-in (``gate.answer_metrics: auto``): they measure that extractive answerer,
not the memory.

Direction is the metric's declaration (``higher_is_better``). Before anything is compared, the
two sides must have been measured with the same yardstick: another dataset hash, judge prompt
hash or definition of a gated metric makes the comparison meaningless, so the gate stops with
exit 2 and says what differs. A different model version is reported at the top of the output
and, by default, gated anyway (``gate.on_model_change: error`` makes it exit 2): in CI the model
is often the very thing a change touches — the offline stand-in's version is a hash of its own
source — and the gate's job is to say whether that change made things worse.

Exit codes (:attr:`GateResult.exit_code`): 0 no regression, 1 regression, 2 could not compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from memlab.analysis.baseline import Baseline, JudgePin, ProbeOutcome, load_baseline, snapshot
from memlab.analysis.flips import Flip, flipped, gated_column_names
from memlab.scoring.metric_registry import directed_columns
from memlab.harness.config import GateSpec, RunConfig, load_config, recorded_config, validate_config
from memlab.analysis.stats import Intervals, holm_adjusted, paired_compare

EXIT_OK, EXIT_REGRESSION, EXIT_CANNOT_COMPARE = 0, 1, 2
Status = Literal["pass", "regression", "error"]


def gated_columns(spec: GateSpec, headline: list[str]) -> dict[str, Any]:
    """Column → tolerance: the config's ``gate.metrics``, else every directed column of the headline
    metrics with the default tolerance."""
    from memlab.harness.config import Tolerance

    if spec.metrics is not None:
        return dict(spec.metrics)
    return {col: Tolerance() for col in gated_column_names(None, headline)}


@dataclass(frozen=True)
class MetricDelta:
    """One strategy × category × column: baseline against this run over the probes both scored."""

    strategy: str
    category: str
    metric: str
    higher_is_better: bool
    old: float
    new: float
    diff: float
    """new − old."""
    ci_low: float
    ci_high: float
    n: int
    conversations: int
    gated: bool
    """False for a per-category row when only 'all' is gated, or an answer metric with the offline
    answerer: shown, never a regression."""
    regression: bool
    """The check's verdict: after the multiple-testing correction (``gate.correction``)."""
    reason: str
    """Why it is (or, for a drop the test did not show, is not) a regression; empty otherwise."""
    raw_regression: bool = False
    """The uncorrected verdict: a floor broken, or worse beyond max_drop with this comparison's own
    interval excluding 0."""
    p_value: float = float("nan")
    """Two-sided p-value of "no change" (paired, clustered by user)."""
    p_adjusted: float = float("nan")
    """Holm-adjusted over the check's gated comparisons (NaN when not gated or no test)."""
    not_gated_because: str = ""


@dataclass(frozen=True)
class CostDelta:
    strategy: str
    context_tokens_per_probe: tuple[float | None, float | None]
    model_tokens_per_conv: tuple[float | None, float | None]
    p95_latency_s: tuple[float | None, float | None]


@dataclass
class GateResult:
    """What ``memlab check`` decided and why; :meth:`to_markdown` is the pull-request comment."""

    status: Status
    baseline_path: str
    run_dir: str | None
    problems: list[str] = field(default_factory=list)
    """Why the gate could not compare (status ``error``)."""
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    deltas: list[MetricDelta] = field(default_factory=list)
    flips: list[Flip] = field(default_factory=list)
    costs: list[CostDelta] = field(default_factory=list)
    context_token_deltas: list[tuple[ProbeOutcome, ProbeOutcome]] = field(default_factory=list)
    """(old, new) for the probes whose context tokens changed, largest change first."""
    caption: str = ""
    correction_label: str = ""
    """How the verdicts were corrected for the number of comparisons, e.g. "(Holm over 36 gated
    comparisons, family-wise 95%)"."""

    @property
    def exit_code(self) -> int:
        return {"pass": EXIT_OK, "regression": EXIT_REGRESSION, "error": EXIT_CANNOT_COMPARE}[self.status]

    @property
    def regressions(self) -> list[MetricDelta]:
        return [d for d in self.deltas if d.regression]

    def summary(self) -> str:
        """Plain-text verdict for a terminal or a CI log."""
        lines = [f"memlab check: {_HEADLINE[self.status]} (exit {self.exit_code})",
                 f"  baseline {self.baseline_path}" + (f" · run {self.run_dir}" if self.run_dir else "")]
        lines += [f"  cannot compare: {p}" for p in self.problems]
        lines += [f"  WARNING: {w}" for w in self.warnings]
        lines += [f"  note: {n}" for n in self.notes]
        for d in self.regressions:
            lines.append(f"  REGRESSION {d.strategy} · {d.category} · {d.metric}: {_f(d.old)} → {_f(d.new)} "
                         f"(Δ {_d(d.diff)} [{_d(d.ci_low)}, {_d(d.ci_high)}], n={d.n}): {d.reason}")
        for d in self.deltas:
            if d.gated and not d.regression and d.reason:
                lines.append(f"  not a regression: {d.strategy} · {d.category} · {d.metric}: {_f(d.old)} → {_f(d.new)}: {d.reason}")
        if self.deltas:
            worse = sum(1 for f in self.flips if f.worse)
            raw = sum(1 for d in self.deltas if d.raw_regression)
            lines.append(f"  {len([d for d in self.deltas if d.gated])} gated comparisons, {len(self.regressions)} "
                         f"regression(s) {self.correction_label} ({raw} uncorrected); {len(self.flips)} probe(s) flipped "
                         f"({worse} for the worse)")
        if self.caption:
            lines.append(f"  {self.caption}")
        return "\n".join(lines)

    def to_markdown(self, max_flips: int = 30, max_token_rows: int = 10) -> str:
        """A pull-request comment: verdict, metric table with Δ and CI, costs, flipped probes."""
        return _markdown(self, max_flips, max_token_rows)


_HEADLINE = {"pass": "no regression", "regression": "REGRESSION", "error": "could not compare"}


def _f(x: float | None) -> str:
    return "–" if x is None or np.isnan(x) else f"{x:.3f}"


def _d(x: float | None) -> str:
    return "–" if x is None or np.isnan(x) else f"{x:+.3f}"


# -- compatibility ---------------------------------------------------------------------------------------
def dataset_problems(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """What differs between the baseline's datasets and the run's (name → content hash)."""
    problems = []
    for name in sorted(set(old) | set(new)):
        if name not in new:
            problems.append(f"dataset {name!r} is in the baseline but not in this run")
        elif name not in old:
            problems.append(f"dataset {name!r} is in this run but not in the baseline")
        elif old[name] != new[name]:
            problems.append(f"dataset {name!r} changed: hash {old[name][:23]} in the baseline, {new[name][:23]} now "
                            "(its turns, probes or gold answers differ; write a new baseline if that is intended)")
    return problems


def model_change(base: Baseline, models: dict[str, str], judge: JudgePin | None, eval_data: list[str],
                 spec: GateSpec) -> tuple[list[str], list[str]]:
    """(problems, warnings) of a change of any role's model or of the judge model since ``base``:
    refused under ``on_model_change: error``; a new version of the offline stand-in is refused on
    evaluation data (``eval_data``: the datasets not declared ``split: dev``) — the evaluation
    firewall; otherwise a warning. Used on a finished run and, by :func:`check`, before playing one."""
    problems: list[str] = []
    warnings: list[str] = []
    old_j, new_j = base.judge, judge
    changed = [f"{role}: {base.models.get(role)} → {model}" for role, model in models.items()
               if base.models.get(role) != model]
    judge_changed = (old_j.model if old_j else None) != (new_j.model if new_j else None)
    if changed or judge_changed:
        what = "; ".join(changed + ([f"judge: {old_j.model if old_j else None} → {new_j.model if new_j else None}"]
                                    if judge_changed else []))
        message = f"model changed since the baseline ({what})"
        offline = [c for c in changed if _is_offline_model(c)] + (
            [f"judge: {new_j.model}"] if judge_changed and new_j and _is_offline_model(str(new_j.model)) else [])
        if spec.on_model_change == "error":
            problems.append(message + " and gate.on_model_change is 'error': strategy code is gated with the model "
                            "frozen (write a new baseline for a deliberate model change, or pass --allow-model-change)")
        elif offline and eval_data:
            problems.append(message + f"; a change of the offline stand-in model is judged on development data only "
                            f"(datasets declared split: dev, e.g. evals/dev.yaml), and {', '.join(eval_data)} "
                            "is not (the evaluation firewall, docs/offline-model.md)")
        else:
            warnings.append(message + "; gated anyway (gate.on_model_change: warn)")
    return problems, warnings


def compatibility(base: Baseline, new: Baseline, spec: GateSpec, columns: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(problems, warnings, notes) about comparing ``new`` with ``base`` at all.

    Problems (exit 2): another dataset or dataset hash, another judge prompt hash, a gated metric
    missing or defined differently, a gated strategy missing from the run, a model change when
    ``on_model_change`` is ``error``. Warnings: a model, judge model, embedder or scoring-code change."""
    problems = dataset_problems({d.name: d.hash for d in base.datasets}, {d.name: d.hash for d in new.datasets})
    warnings, notes = [], []
    old_j, new_j = base.judge, new.judge
    if (old_j and old_j.prompt_hash) or (new_j and new_j.prompt_hash):
        a, b = old_j.prompt_hash if old_j else None, new_j.prompt_hash if new_j else None
        if a != b:
            problems.append(f"judge prompt changed: prompt hash {a} in the baseline, {b} now "
                            f"(prompt {old_j.prompt if old_j else None!r} → {new_j.prompt if new_j else None!r})")
    metric_names = {c.split(".", 1)[0] for c in columns}
    for name in sorted(metric_names & set(new.metrics)):
        if name not in base.metrics:
            problems.append(f"metric {name!r} is gated but the baseline has no such metric")
        elif base.metrics[name] != new.metrics[name]:
            old_m, new_m = base.metrics[name], new.metrics[name]
            what = ("its direction" if old_m.higher_is_better != new_m.higher_is_better else
                    "its declaration" if old_m.description != new_m.description or old_m.levels != new_m.levels
                    else "its scoring code")
            problems.append(f"metric {name!r} is defined differently from the baseline's ({what} changed; "
                            f"definition {old_m.definition} → {new_m.definition}): write a new baseline")
    for strategy in spec.strategies or list(base.strategies):
        if strategy not in base.strategies:
            problems.append(f"gate.strategies names {strategy!r}, which the baseline does not hold "
                            f"(it has: {', '.join(base.strategies)})")
        elif strategy not in new.strategies:
            problems.append(f"strategy {strategy!r} is in the baseline but not in this run")
        elif base.strategies[strategy].components != new.strategies[strategy].components:
            notes.append(f"{strategy}: components changed: {base.strategies[strategy].components} → "
                         f"{new.strategies[strategy].components}")
    for strategy in new.strategies:
        if strategy not in base.strategies:
            notes.append(f"{strategy}: not in the baseline, not gated")
    eval_data = [d.name for d in new.datasets if d.split != "dev"]
    model_problems, model_warnings = model_change(base, new.models, new_j, eval_data, spec)
    problems += model_problems
    warnings += model_warnings
    if base.embedder != new.embedder:
        warnings.append(f"embedding model changed: {base.embedder} → {new.embedder}")
    if base.scoring_hash != new.scoring_hash and not problems:
        warnings.append(f"memlab's scoring code changed since the baseline ({base.scoring_hash} → {new.scoring_hash}); "
                        "the gated metrics' own definitions did not")
    if base.code_version != new.code_version:
        notes.append(f"code {base.code_version} (baseline) → {new.code_version}")
    return problems, warnings, notes


def _is_offline_model(change: str) -> bool:
    """Whether a model change (``role: old → new``, or a bare id) ends on memlab's offline stand-in,
    whose version is a hash of its source: a new version of it is a change of memlab's own model
    (a swap from it to a real model is a user's comparison, not a change of the stand-in)."""
    return change.split("→")[-1].strip().split(":")[-1].strip().startswith(("offline-", "heuristic"))


# -- comparison --------------------------------------------------------------------------------------
def _judge(strategy: str, category: str, col: str, hib: bool, old: np.ndarray, new: np.ndarray,
           clusters: list[tuple[str, str]], tol: Any, gated: bool, spec: GateSpec, seed: int, method: str = "cluster_t",
           not_gated_because: str = "") -> MetricDelta | None:
    """One row: paired new − old over the probes both scored, and whether it breaks ``tol`` on its own
    (the raw verdict; :func:`_correct` makes the check's verdict). None when no probe has the column
    on both sides."""
    boot = Intervals(n_boot=spec.bootstrap if spec.paired_bootstrap else 0, seed=seed, alpha=1 - spec.confidence,
                     method=method if spec.paired_bootstrap else "bootstrap")
    r = paired_compare(new, old, clusters, hib, boot)
    if r.n == 0:
        return None
    gated = gated and not not_gated_because
    worse_by = -r.diff if hib else r.diff
    reasons, not_shown = [], ""
    if tol.floor is not None and (r.mean_a < tol.floor if hib else r.mean_a > tol.floor):
        reasons.append(f"{'below' if hib else 'above'} the floor {tol.floor:g}")
    if tol.max_drop is not None and worse_by > tol.max_drop + 1e-12:
        shown = (r.ci_high < 0 if hib else r.ci_low > 0) if spec.paired_bootstrap else True
        if shown:
            extra = f" and the paired {boot.level} CI excludes 0 (p {_p_is(r.p_value)})" if spec.paired_bootstrap else ""
            reasons.append(f"worse by {worse_by:.3f} > max_drop {tol.max_drop:g}{extra}")
        elif np.isnan(r.ci_low):
            not_shown = (f"worse by {worse_by:.3f} > max_drop {tol.max_drop:g}, but there is no interval: the "
                         "probes come from fewer than two users")
        else:
            not_shown = (f"worse by {worse_by:.3f} > max_drop {tol.max_drop:g}, but the paired {boot.level} CI "
                         f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}] includes 0 (noise at this size)")
    raw = bool(reasons) and gated
    return MetricDelta(strategy, category, col, hib, r.mean_b, r.mean_a, r.diff, r.ci_low, r.ci_high, r.n,
                       r.conversations, gated, raw, ("; ".join(reasons) or not_shown) if gated else "",
                       raw_regression=raw, p_value=r.p_value if spec.paired_bootstrap else float("nan"),
                       not_gated_because=not_gated_because)


def _p(x: float) -> str:
    return "–" if x is None or np.isnan(x) else (f"{x:.2g}" if x >= 0.001 else "<0.001")


def _p_is(x: float) -> str:
    """``= 0.012`` or ``< 0.001``: a p-value inside a sentence."""
    return "< 0.001" if x is not None and not np.isnan(x) and x < 0.001 else f"= {_p(x)}"


def _correct(deltas: list[MetricDelta], spec: GateSpec, floors: dict[tuple[str, str, str], bool]) -> tuple[list[MetricDelta], str]:
    """The check's verdicts: Holm's step-down over every gated comparison's p-value, so the chance
    that a check where nothing got worse fails is at most 1 − confidence. A broken floor is not a
    test and stays a regression. Returns the rows and a label saying what was done."""
    from dataclasses import replace

    alpha = 1 - spec.confidence
    family = [i for i, d in enumerate(deltas) if d.gated and not np.isnan(d.p_value)]
    if not spec.paired_bootstrap or spec.correction == "none" or not family:
        label = ("(no paired test: gate.paired_bootstrap is false)" if not spec.paired_bootstrap
                 else f"(uncorrected: each comparison at {100 * spec.confidence:g}%)")
        return deltas, label
    adjusted = holm_adjusted([deltas[i].p_value for i in family])
    out = list(deltas)
    for i, p_adj in zip(family, adjusted):
        d = out[i]
        floor_broken = floors.get((d.strategy, d.category, d.metric), False)
        if d.raw_regression and not floor_broken and p_adj > alpha + 1e-15:
            reason = (f"{d.reason}, but not after the Holm correction over {len(family)} gated comparisons "
                      f"(adjusted p {_p_is(p_adj)} > {alpha:g}): not shown for the check as a whole")
            out[i] = replace(d, regression=False, p_adjusted=p_adj, reason=reason)
        elif d.raw_regression and not floor_broken:
            out[i] = replace(d, p_adjusted=p_adj, reason=f"{d.reason}; Holm-adjusted p {_p_is(p_adj)} (≤ {alpha:g})")
        else:
            out[i] = replace(d, p_adjusted=p_adj)
    untested = sum(1 for d in deltas if d.gated) - len(family)
    without = (f"; {untested} more without a test (probes from fewer than two users): only a floor can fail them"
               if untested else "")
    return out, f"(Holm over {len(family)} gated comparisons, family-wise {100 * spec.confidence:g}%{without})"


def compare(base: Baseline, new: Baseline, spec: GateSpec, headline: list[str], *, baseline_path: str = "",
            run_dir: str | None = None, seed: int = 0, method: str | None = None) -> GateResult:
    """Compare a run's snapshot with a baseline under ``spec``'s tolerances (paired intervals by
    ``method``, default the run's own, else ``cluster_t``)."""
    from memlab.analysis.metrics import OFFLINE_ANSWER_WARNING, answer_columns

    method = method or new.intervals or "cluster_t"
    tolerances = gated_columns(spec, headline)
    directions = directed_columns()
    problems, warnings, notes = compatibility(base, new, spec, list(tolerances))
    result = GateResult("error", baseline_path, run_dir, problems, warnings, notes)
    if not base.strategies or not base.probes:  # a gate that compares nothing must not pass
        problems.append(f"the baseline holds no {'strategies' if not base.strategies else 'probes'}: there is "
                        "nothing to compare; write it from a run that answered probes")
    if problems:
        return result
    offline = bool(new.offline_answers) or bool(base.offline_answers)
    skip_answers = spec.answer_metrics == "show" or (spec.answer_metrics == "auto" and offline)
    answer_cols = answer_columns() & set(tolerances) if skip_answers else set()
    why = ("offline answerer, gate.answer_metrics: auto" if spec.answer_metrics == "auto" else "gate.answer_metrics: show")
    if answer_cols:
        result.notes.append(f"answer metrics shown, not gated ({why}): {', '.join(sorted(answer_cols))}"
                            + (f" — {OFFLINE_ANSWER_WARNING}" if offline else ""))
    floors: dict[tuple[str, str, str], bool] = {}
    old_by_key = {p.key: p for p in base.probes}
    new_by_key = {p.key: p for p in new.probes}
    for strategy in spec.strategies or list(base.strategies):
        keys = [k for k in old_by_key if k[0] == strategy]
        if not keys:
            result.problems.append(f"{strategy}: the baseline holds no probes of this strategy: nothing to compare")
            continue
        missing = [k for k in keys if k not in new_by_key]
        if missing:
            result.problems.append(f"{strategy}: {len(missing)} of the baseline's {len(keys)} probes are missing from "
                                   f"this run (first: {missing[0][1]}/{missing[0][2]}/{missing[0][3]})")
            continue
        pairs = [(old_by_key[k], new_by_key[k]) for k in keys]
        clusters = [(o.dataset, o.namespace or n.namespace or o.conversation_id) for o, n in pairs]
        categories = ["all"] + sorted({o.category for o, _ in pairs})
        for category in categories:
            mask = [category == "all" or o.category == category for o, _ in pairs]
            sub = [p for p, k in zip(pairs, mask) if k]
            cl = [c for c, k in zip(clusters, mask) if k]
            for col, tol in tolerances.items():
                old = np.array([o.scores.get(col, np.nan) for o, _ in sub], dtype=float)
                now = np.array([n.scores.get(col, np.nan) for _, n in sub], dtype=float)
                row = _judge(strategy, category, col, directions[col], old, now, cl, tol,
                             category == "all" or spec.by_category, spec, seed, method,
                             why if col in answer_cols else "")
                if row is not None:
                    result.deltas.append(row)
                    hib = directions[col]
                    floors[(strategy, category, col)] = tol.floor is not None and row.gated and (
                        row.new < tol.floor if hib else row.new > tol.floor)
        if not any(d.strategy == strategy and d.gated for d in result.deltas):
            result.problems.append(f"{strategy}: no gated metric has a value on both sides for any of its {len(pairs)} "
                                   "probes (every score missing): nothing to compare")
        result.flips += flipped(pairs, list(tolerances))
        changed = [(o, n) for o, n in pairs if o.context_tokens != n.context_tokens]
        result.context_token_deltas += changed
        oc, nc = base.strategies[strategy].costs, new.strategies[strategy].costs
        result.costs.append(CostDelta(strategy, (oc.context_tokens_per_probe, nc.context_tokens_per_probe),
                                      (oc.model_tokens_per_conv, nc.model_tokens_per_conv),
                                      (oc.p95_latency_s, nc.p95_latency_s)))
    result.context_token_deltas.sort(key=lambda p: -abs(p[1].context_tokens - p[0].context_tokens))
    result.deltas, result.correction_label = _correct(result.deltas, spec, floors)
    boot = Intervals(n_boot=spec.bootstrap, seed=seed, alpha=1 - spec.confidence, method=method)
    result.caption = (f"Δ = this run − baseline over the same probes; {boot.caption()} (paired); regressions "
                      f"{result.correction_label}" if spec.paired_bootstrap
                      else "Δ = this run − baseline over the same probes; no paired test (gate.paired_bootstrap: false)")
    if not result.problems:
        result.status = "regression" if result.regressions else "pass"
    return result


# -- the pull-request comment ----------------------------------------------------------------------
def _cell(text: str | None, limit: int = 160) -> str:
    """Untrusted text (answers, contexts, questions, dataset ids, messages) fit for one markdown
    table cell: one line, cut to ``limit`` characters, then made inert (:func:`memlab.analysis.markup.md_inline`:
    no image, link, mention, tag or comment gets through). Strategy and metric names are not
    passed through it: their characters are checked when a config is loaded."""
    from memlab.analysis.markup import md_inline

    t = " ".join(str(text or "").split())
    t = (t[: limit - 1] + "…") if len(t) > limit else t
    return md_inline(t) if t else "–"


def _code(text: str | None) -> str:
    """A path or name as inline code (a backtick in it would end the span)."""
    from memlab.analysis.markup import one_line

    return "`" + one_line(text or "").replace("`", "'") + "`"


def _num(x: float | None, digits: int = 0) -> str:
    return "–" if x is None or np.isnan(x) else f"{x:,.{digits}f}"


def _delta(old: float | None, new: float | None, digits: int = 0) -> str:
    if old is None or new is None or np.isnan(old) or np.isnan(new):
        return "–"
    return f"{new - old:+,.{digits}f}"


def _metric_table(deltas: list[MetricDelta]) -> list[str]:
    rows = ["| strategy | category | metric | baseline | this run | Δ | CI of Δ | n | p (adj.) | raw verdict | verdict |",
            "| --- | --- | --- | --: | --: | --: | --- | --: | --: | --- | --- |"]
    for d in deltas:
        raw = "regression" if d.raw_regression else ("not shown" if d.reason else "ok") if d.gated else "–"
        if not d.gated:
            verdict = "(not gated: offline answerer)" if d.not_gated_because.startswith("offline") else "(not gated)"
        else:
            verdict = "❌ regression" if d.regression else ("not shown" if d.reason else "ok")
        p = "–" if np.isnan(d.p_value) else f"{_p(d.p_value)} ({_p(d.p_adjusted)})"
        rows.append(f"| {d.strategy} | {d.category} | {d.metric} {'↑' if d.higher_is_better else '↓'} | {_f(d.old)} | "
                    f"{_f(d.new)} | {_d(d.diff)} | [{_d(d.ci_low)}, {_d(d.ci_high)}] | {d.n} | {p} | {raw} | {verdict} |")
    return rows


def _markdown(r: GateResult, max_flips: int, max_token_rows: int) -> str:
    icon = {"pass": "✅", "regression": "❌", "error": "⚠️"}[r.status]
    out = [f"## {icon} memlab check: {_HEADLINE[r.status]}", ""]
    out.append(f"Baseline {_code(r.baseline_path)}" + (f" · run {_code(r.run_dir)}" if r.run_dir else ""))
    out.append("")
    if r.run_dir:
        from memlab.analysis.view_command import view_command

        out += [f"Browse the run and its flipped probes side by side: {_code(view_command([r.run_dir], baseline=r.baseline_path))}",
                ""]
    if r.problems:
        out += ["**Could not compare:**", ""] + [f"- {_cell(p, 400)}" for p in r.problems] + [""]
    if r.warnings:
        out += [f"> ⚠️ **{_cell(w, 400)}**" for w in r.warnings] + [""]
    if r.regressions:
        out += [f"### Regressions {r.correction_label}", ""]
        out += [f"- **{d.strategy}** · {d.category} · `{d.metric}`: {_f(d.old)} → {_f(d.new)} "
                f"(Δ {_d(d.diff)} [{_d(d.ci_low)}, {_d(d.ci_high)}]) — {d.reason}" for d in r.regressions] + [""]
    unconfirmed = [d for d in r.deltas if d.raw_regression and not d.regression]
    if unconfirmed:
        out += [f"### Raw regressions not confirmed after the correction ({len(unconfirmed)})", ""]
        out += [f"- {d.strategy} · {d.category} · `{d.metric}`: {_f(d.old)} → {_f(d.new)} "
                f"(Δ {_d(d.diff)} [{_d(d.ci_low)}, {_d(d.ci_high)}]) — {d.reason}" for d in unconfirmed] + [""]
    if r.deltas:
        changed = [d for d in r.deltas if d.regression or (not np.isnan(d.diff) and abs(d.diff) > 1e-12)]
        unchanged = sorted({d.strategy for d in r.deltas} - {d.strategy for d in changed})
        out += [f"### Metrics that moved ({len(changed)} of {len(r.deltas)} rows)", ""]
        out += _metric_table(changed) if changed else ["No metric moved."]
        if unchanged:
            out += ["", f"Unchanged on every metric and category: {', '.join(unchanged)}."]
        out += ["", f"<details><summary>Every strategy × category × metric ({len(r.deltas)} rows)</summary>", ""]
        out += _metric_table(r.deltas) + ["", "</details>", "",
                                          f"_{r.caption}. Raw verdict: this comparison's own interval; verdict: after the "
                                          "correction for the number of comparisons (what fails the check). Category rows "
                                          "are gated only with `gate.by_category`._", ""]
    if r.costs:
        out += ["### Costs", "", "| strategy | ctx tokens/probe | Δ | model tokens/conv | Δ | p95 probe latency s | Δ |",
                "| --- | --: | --: | --: | --: | --: | --: |"]
        for c in r.costs:
            (co, cn), (mo, mn), (lo, ln) = c.context_tokens_per_probe, c.model_tokens_per_conv, c.p95_latency_s
            out.append(f"| {c.strategy} | {_num(co)} → {_num(cn)} | {_delta(co, cn)} | {_num(mo)} → {_num(mn)} | "
                       f"{_delta(mo, mn)} | {_num(lo, 3)} → {_num(ln, 3)} | {_delta(lo, ln, 3)} |")
        out.append("")
    if r.deltas:
        out += [f"### Flipped probes ({len(r.flips)})", ""]
        if not r.flips:
            out += ["No probe changed its score on a gated metric.", ""]
        else:
            out += ["| strategy | probe | question | flipped | baseline answer | this run's answer | baseline context | this run's context |",
                    "| --- | --- | --- | --- | --- | --- | --- | --- |"]
            for f in sorted(r.flips, key=lambda f: (not f.worse, f.old.strategy, f.old.probe_id))[:max_flips]:
                what = ", ".join([f"❌ {c}" for c in f.worse] + [f"✅ {c}" for c in f.better])
                out.append(f"| {f.old.strategy} | {_cell(f'{f.old.conversation_id}/{f.old.probe_id}')} | "
                           f"{_cell(f.old.question)} | {what} | "
                           f"{_cell(f.old.answer or f.old.error)} | {_cell(f.new.answer or f.new.error)} | "
                           f"{_cell(f.old.context_excerpt, 200)} | {_cell(f.new.context_excerpt, 200)} |")
            if len(r.flips) > max_flips:
                out.append(f"\n_{len(r.flips) - max_flips} more flipped probe(s) not shown._")
            out.append("")
    if r.context_token_deltas:
        out += [f"### Context tokens per probe ({len(r.context_token_deltas)} probe(s) changed; largest first)", "",
                "| strategy | probe | baseline | this run | Δ |", "| --- | --- | --: | --: | --: |"]
        for o, n in r.context_token_deltas[:max_token_rows]:
            out.append(f"| {o.strategy} | {_cell(f'{o.conversation_id}/{o.probe_id}')} | {o.context_tokens:,} | "
                       f"{n.context_tokens:,} | "
                       f"{n.context_tokens - o.context_tokens:+,} |")
        out.append("")
    if r.notes:
        out += ["<details><summary>Notes</summary>", ""] + [f"- {_cell(n, 400)}" for n in r.notes] + ["", "</details>", ""]
    return "\n".join(out)


# -- entry points -----------------------------------------------------------------------------------
def _dataset_precheck(config: RunConfig, base: Baseline) -> list[str]:
    """Dataset problems knowable before running (hashes of the datasets as the run would load them),
    so an incompatible baseline costs seconds, not a whole run."""
    from memlab.datasets.io import dataset_hash
    from memlab.datasets.threads import load_for_run

    hashes = {ds.name: dataset_hash(ds) for _, ds in load_for_run(config.datasets, config.threads, config.limit_conversations)}
    return dataset_problems({d.name: d.hash for d in base.datasets}, hashes)


def _model_precheck(config: RunConfig, base: Baseline) -> list[str]:
    """A change of a role's model the gate would refuse, known before playing: the run's models are
    built and described (nothing called), so a refused model change costs seconds, not a run. The
    judge is compared after the run, with the rest (:func:`compatibility`)."""
    from memlab.analysis.baseline import model_pins
    from memlab.datasets.threads import load_for_run
    from memlab.harness.runner import planned_models

    eval_data = [ds.name for _, ds in load_for_run(config.datasets, config.threads, config.limit_conversations)
                 if ds.meta.get("split") != "dev"]
    problems, _ = model_change(base, model_pins({"models": planned_models(config)}), base.judge, eval_data, config.gate)
    return problems


def check(config: str | Path | RunConfig | None, baseline: str | Path, *, run_dir: str | Path | None = None,
          progress: bool = False, out_dir: str | Path | None = None, allow_model_change: bool = False) -> GateResult:
    """Run ``config`` (into ``out_dir`` when given; or take the finished run ``run_dir``) and gate
    it against ``baseline``.

    Tolerances come from the config's ``gate:`` block (with ``run_dir`` and no config: from the
    run's recorded config). Raises for a missing or unreadable baseline or config; returns a
    result with status ``error`` for an incompatible baseline or a run that did not complete.
    ``allow_model_change`` gates a run whose model differs from the baseline's (refused by default:
    strategy code is gated with the model frozen); a change of the offline stand-in is then still
    refused unless every dataset is declared ``split: dev``."""
    from memlab.analysis.results import load_run
    from memlab.harness.runner import RunAborted, Runner

    base = load_baseline(baseline)
    cfg: RunConfig | None = None
    if isinstance(config, RunConfig):
        cfg = validate_config(config)
    elif config is not None:
        cfg = load_config(config)
    if run_dir is None:
        if cfg is None:
            raise ValueError("memlab check needs a config to run, or an existing run folder (--run RUN_DIR)")
        if allow_model_change:
            cfg = cfg.model_copy(update={"gate": cfg.gate.model_copy(update={"on_model_change": "warn"})})
        problems = _dataset_precheck(cfg, base) or _model_precheck(cfg, base)
        if problems:
            return GateResult("error", str(baseline), None, problems=problems)
        runner = Runner(cfg, run_dir=out_dir, progress=progress)
        try:
            run_dir = runner.run()
        except RunAborted as exc:
            return GateResult("error", str(baseline), str(runner.run_dir), problems=[f"the run failed: {exc}"])
    res = load_run(run_dir)
    if cfg is None:
        cfg = recorded_config(res.manifest.get("config") or {}, f"{run_dir}/manifest.json config")
    if allow_model_change:  # told otherwise: gate a model change (an offline-model change on dev data only)
        cfg = cfg.model_copy(update={"gate": cfg.gate.model_copy(update={"on_model_change": "warn"})})
    status = res.manifest.get("status")
    if status != "completed":
        failed = (res.manifest.get("units") or {}).get("failed") or []
        detail = "; ".join(failed[:3]) or f"{res.manifest.get('failed_calls') or 0} failed model call(s)"
        return GateResult("error", str(baseline), str(run_dir),
                          problems=[f"the run's status is {status!r}, not 'completed' ({detail})"])
    return compare(base, snapshot(res), cfg.gate, res.headline_metrics(), baseline_path=str(baseline),
                   run_dir=str(run_dir), seed=cfg.seed, method=res.intervals.method)


__all__ = ["CostDelta", "EXIT_CANNOT_COMPARE", "EXIT_OK", "EXIT_REGRESSION", "Flip", "GateResult", "MetricDelta",
           "check", "compare", "compatibility", "dataset_problems", "directed_columns", "gated_columns"]
