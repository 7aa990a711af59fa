"""A behaviour profile estimated from a run's items, each knob with an interval clustered by user.

A probability knob is the share of its items where the mechanism did its job, with the project's
cluster-robust t interval (:func:`memlab.analysis.stats.cluster_interval`: CR2 variance, clusters =
users). The answerer's threshold is the cut of the abstention support that agrees best with the
model's abstentions (the middle of the best-agreeing range), with a percentile interval from
resampling users (and never narrower than the range the data cannot tell apart). The profile is
written as YAML the offline model reads (``model: {provider: offline, profile: FILE}``); the
intervals, item counts and the knobs that could not be measured go under ``about:``, which the
model skips.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from memlab.analysis.stats import Intervals, cluster_interval
from memlab.offline.behaviour import KNOBS, KNOB_BY_NAME, parse_profile
from memlab.profiling.items import Abstention, Outcome, RunItems

BOOTSTRAP = 1000
MIN_ITEMS = 1


@dataclass
class KnobEstimate:
    name: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    items: int = 0
    users: int = 0
    strategies: list[str] = field(default_factory=list)
    reason: str = ""
    """Why the knob could not be measured (``value`` None)."""
    agreement: float | None = None
    """Answerer only: the share of probes the fitted threshold explains."""


@dataclass
class ProfileEstimate:
    run: str
    model: str
    knobs: dict[str, KnobEstimate]

    def values(self) -> dict[str, float]:
        """Knob → estimate, clipped to the knob's range, for the knobs that were measured."""
        return {n: float(np.clip(e.value, 0.0, 1.0)) for n, e in self.knobs.items() if e.value is not None}


_WHY_NOT = {
    "extraction": "no strategy of the run extracts facts with a model role (ExtractFacts / ExtractFromTranscript)",
    "agent": "no strategy of the run has its agent store facts (store_fact offered, no extractor role)",
    "reconcile": "no change or retraction of a stored value was acted on by a reconciling strategy",
    "summariser": "no compression folded a turn holding a statement",
    "answerer": "no probe's answer depended on the abstention threshold (every chosen line shares a topic word)",
}


def _proportion(name: str, items: list[Outcome]) -> KnobEstimate:
    values = [i.outcome for i in items]
    clusters = [i.cluster for i in items]
    mean, lo, hi = cluster_interval(values, clusters, Intervals())
    lo = mean if np.isnan(lo) else lo
    hi = mean if np.isnan(hi) else hi
    return KnobEstimate(name, float(mean), float(lo), float(hi), len(items), len(set(clusters)),
                        sorted({i.strategy for i in items}))


def fit_threshold(support: np.ndarray, abstained: np.ndarray) -> tuple[float, float, float, float]:
    """(threshold, low and high end of the range that agrees as well, agreement): the cut t with
    "abstain iff support < t" that agrees with the most of the observed abstentions."""
    order = np.argsort(support, kind="stable")
    s, a = support[order], abstained[order].astype(bool)
    cuts = np.unique(s)
    # mismatches if t sits just above cuts[i]: abstentions at or below it are right, answers there wrong.
    # Counted with running sums over the sorted supports (the bootstrap fits a thousand resamples).
    upto = np.searchsorted(s, cuts, side="right")  # how many supports are <= each cut
    answered = np.concatenate([[0], np.cumsum(~a)])
    abstentions = np.concatenate([[0], np.cumsum(a)])
    below_answered = answered[upto]
    above_abstained = abstentions[-1] - abstentions[upto]
    errors = np.concatenate([[abstentions[-1]], below_answered + above_abstained])  # first: t at or below the lowest support
    best = errors.min()
    winners = np.flatnonzero(errors == best)
    # class k (k = 0 … len(cuts)) holds the thresholds in (edges[k], edges[k + 1]]; the first and last
    # classes are open: below the lowest support (never abstains) or above the highest (always)
    edges = np.concatenate([[0.0], cuts, [1.0]])
    lo, hi = float(edges[winners.min()]), float(edges[winners.max() + 1])
    return (lo + hi) / 2, lo, hi, float(1.0 - best / len(s))


def _threshold(items: list[Abstention]) -> KnobEstimate:
    support = np.array([i.support for i in items], dtype=float)
    abstained = np.array([i.abstained for i in items], dtype=bool)
    t, lo, hi, agreement = fit_threshold(support, abstained)
    default = float(KNOB_BY_NAME["answerer.abstain_below"].default)  # type: ignore[arg-type]
    if hi >= 1.0 or lo <= 0.0:
        # the model abstained on every probe (or none) the threshold decides: the data only bound it; a
        # value inside the bound that is closest to the stand-in's own keeps as much as the data allows
        t = float(np.clip(default, lo, hi)) if lo < default <= hi else (lo if hi >= 1.0 else hi)
    clusters = sorted({i.cluster for i in items})
    index: dict[Any, list[int]] = defaultdict(list)
    for k, i in enumerate(items):
        index[i.cluster].append(k)
    boots = []
    if len(clusters) >= 2:
        rng = np.random.default_rng(0)
        for _ in range(BOOTSTRAP):
            pick = np.concatenate([index[clusters[j]] for j in rng.integers(0, len(clusters), len(clusters))])
            boots.append(fit_threshold(support[pick], abstained[pick])[0])
    b_lo, b_hi = (np.quantile(boots, [0.025, 0.975]) if boots else (lo, hi))
    return KnobEstimate("answerer.abstain_below", t, float(min(b_lo, lo)), float(max(b_hi, hi)), len(items),
                        len(clusters), sorted({i.strategy for i in items}), agreement=agreement,
                        reason="" if 0.0 < lo and hi < 1.0 else f"only bounded by the data: ({lo:.3f}, {hi:.3f}]")


def estimate_profile(run_dir: Path, strategies: list[str] | None = None, *, embedder: Any = None) -> ProfileEstimate:
    """Every knob of the profile, estimated from ``run_dir`` (see the module docstring)."""
    from memlab.offline.similarity import Similarity

    run = RunItems(Path(run_dir), strategies)
    by_knob: dict[str, list[Outcome]] = defaultdict(list)
    for item in run.outcomes():
        by_knob[item.knob].append(item)
    if embedder is None:
        from memlab.embeddings import shared_embedder

        embedder = shared_embedder((run.manifest.get("config") or {}).get("embedding_cache"))
    abstentions = list(run.abstentions(Similarity(embedder)))
    out: dict[str, KnobEstimate] = {}
    for knob in KNOBS:
        if knob.name == "answerer.abstain_below":
            out[knob.name] = _threshold(abstentions) if abstentions else KnobEstimate(knob.name, None, reason=_WHY_NOT["answerer"])
        elif len(by_knob.get(knob.name, [])) >= MIN_ITEMS:
            out[knob.name] = _proportion(knob.name, by_knob[knob.name])
        else:
            group = knob.name.split(".")[0]
            reason = _WHY_NOT[group]
            if knob.name == "extraction.corruption":
                reason = "no stored fact that carries a value"
            elif knob.name.endswith(("tool_recall", "tool_observations")):
                reason = f"{reason.rstrip('.')}, or no tool observation with a value line"
            elif knob.name.endswith("assistant_recall"):
                reason = f"{reason.rstrip('.')}, or no assistant statement"
            out[knob.name] = KnobEstimate(knob.name, None, reason=reason)
    models = run.manifest.get("models") or {}
    model = str((models.get("default") or {}).get("model") or "?")
    return ProfileEstimate(str(run_dir), model, out)


def write_profile(estimate: ProfileEstimate, path: Path) -> Path:
    """Write the profile YAML (validated by the offline model's own parser before it is written)."""
    import yaml

    values = estimate.values()
    groups: dict[str, dict[str, float]] = {}
    for name, value in values.items():
        group, knob = name.split(".", 1)
        groups.setdefault(group, {})[knob] = round(value, 3)
    parse_profile(groups, str(path))  # what the offline model will accept
    about = {
        "written_by": "memlab profile",
        "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "source_run": estimate.run,
        "model": estimate.model,
        "intervals": "95%, cluster-robust t over users (CR2); answerer: percentile bootstrap over users, "
                     "never narrower than the range the data cannot tell apart",
        "estimates": {n: {"value": round(e.value, 4), "ci": [round(e.ci_low or 0.0, 4), round(e.ci_high or 0.0, 4)],
                          "items": e.items, "users": e.users, "strategies": e.strategies,
                          **({"agreement": round(e.agreement, 4)} if e.agreement is not None else {}),
                          **({"note": e.reason} if e.reason else {})}
                      for n, e in estimate.knobs.items() if e.value is not None},
        "not_estimated": {n: e.reason for n, e in estimate.knobs.items() if e.value is None},
        "defaults_kept": {n: KNOB_BY_NAME[n].default for n, e in estimate.knobs.items() if e.value is None},
    }
    header = (f"# Behaviour profile measured by `memlab profile` from {estimate.run} (model {estimate.model}).\n"
              f"# Use it as  model: {{provider: offline, profile: {path}}}  — knobs not measured keep their default.\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + yaml.safe_dump({**groups, "about": about}, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path
