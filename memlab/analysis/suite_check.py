"""Suite validity: does a dataset put the designs under the pressure that separates them?

A comparison that finds "no difference" is a finding only if the data could have shown one. For
each dataset, ``memlab suite-check`` plays **planted contrasts**: pairs of strategies that differ in
one mechanism and whose order is known in advance, because one side is the other with that
mechanism deliberately broken. If a dataset cannot tell them apart, it cannot tell real designs
apart on that mechanism either.

===============  ======================================================================  =================
contrast         better side  vs  worse side (everything else equal)                     probes scored
===============  ======================================================================  =================
``extraction``   oracle extractor  vs  ``noisy_oracle`` keeping half the facts            answerable
                 (append, in-memory store, vector top-8, no short-term memory)
``short_term``   ``full_context`` (the current thread)  vs  ``recent_window(4)``         answerable
``compression``  working memory compressed every 2 steps by a lossless summariser  vs    answerable
                 by a planted lossy one (react agent, no tools, no other memory)
``threads``      ``all_threads`` (every thread of the user)  vs  ``full_context``          evidence only in
                                                                                         earlier threads
``capacity``     the oracle's facts, every one injected (a memory block in the prompt)  vs  answerable
                 the same block capped at :data:`CAPACITY_TOKENS` tokens, oldest dropped
===============  ======================================================================  =================

The capacity contrast is the only one whose worse side is not broken everywhere: the bound binds only where
a user's history leaves more than :data:`CAPACITY_TOKENS` tokens of facts, so it separates long histories
from short ones — a suite of short users cannot show that a bounded memory forgets, whatever it scores.

Per contrast: the paired difference in string recall (better − worse) over the same probes, its
95% interval clustered by user (the cluster-robust t interval every memlab table prints),
**detected** when the interval excludes 0 in the known direction, and the **minimum detectable
difference** at 80% power for that dataset's number of users, from the observed cluster-robust
standard error: ``(t(1−α/2, df) + t(0.8, df)) · SE`` with the interval's degrees of freedom (G − 1
for equal cluster sizes). A contrast with no scoreable probes (no cross-thread probes, say) is
reported as such.

The metric is string recall only: it depends on what the context holds, not on any answering
model, so the check says what the *data* can detect.
"""

from __future__ import annotations

import json
import math
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

METRIC = "evidence_recall"
CROSS_THREAD_SCOPES = ("earlier_threads", "mixed")


@dataclass(frozen=True)
class Contrast:
    """Two strategies whose order on string recall is known: ``better`` is ``worse`` with one
    mechanism intact."""

    name: str
    question: str
    better: dict[str, Any]
    worse: dict[str, Any]
    scope: str = "answerable"
    """``answerable``: every probe with a gold answer; ``cross_thread``: those whose evidence lies
    only (or partly) in the user's earlier threads."""


_EXTRACT = {"consolidator": {"type": "append"}, "store": {"type": "in_memory"}, "retriever": {"type": "vector", "k": 8}}


CAPACITY_TOKENS = 2000
"""The planted bound of the capacity contrast: long-term memory capped at this many tokens of facts — the budget of
``agent_chat``'s summary and ``react_mem``'s conversation memory. The oracle's facts of a shipped short-suite user
take 25–900 tokens (suite-agentic's tool observations up to ~2,500), of a long-horizon S user ~2,300–3,000 and of
an M user ~10,000–11,500 (datasets/README.md, "Suite validity")."""
_WHOLE = {"extractor": {"type": "oracle"}, "consolidator": {"type": "append"}, "store": {"type": "in_memory"},
          "retriever": {"type": "recency", "k": 1_000_000}}
"""Every fact the oracle stored, injected (newest first): a memory block, so what a cap drops is exactly what is lost."""


def _wm(summarizer: str) -> dict[str, Any]:
    return {"type": "react", "working_memory": {"trigger": {"type": "every_n_steps", "n": 2}, "keep_recent": 0,
                                                "summarizer": summarizer}}


CONTRASTS: tuple[Contrast, ...] = (
    Contrast("extraction", "does it matter how many facts an extractor writes? oracle vs half the facts dropped",
             {"name": "sc-extract-oracle", "extractor": {"type": "oracle"}, **_EXTRACT},
             {"name": "sc-extract-half", "extractor": {"type": "noisy_oracle", "recall": 0.5, "seed": 0}, **_EXTRACT}),
    Contrast("short_term", "does the current thread's history matter? the whole thread vs its last 4 messages",
             {"name": "sc-full-thread", "preset": "full_context"},
             {"name": "sc-window-4", "short_term": {"type": "recent_window", "n": 4}}),
    Contrast("compression", "can compressing working memory lose evidence? lossless vs planted-lossy summariser, "
             "every 2 steps",
             {"name": "sc-wm-lossless", "agent": _wm("verbatim")},
             {"name": "sc-wm-lossy", "agent": _wm("planted_lossy")}),
    Contrast("threads", "do probes need earlier threads? every thread of the user vs the current thread",
             {"name": "sc-all-threads", "preset": "all_threads"},
             {"name": "sc-full-thread", "preset": "full_context"}, scope="cross_thread"),
    Contrast("capacity", f"does a bounded long-term memory forget? the oracle store kept whole vs capped at "
             f"{CAPACITY_TOKENS:,} tokens, oldest dropped",
             {"name": "sc-capacity-whole", **_WHOLE},
             {"name": "sc-capacity-capped", **_WHOLE,
              "lifecycle": {"type": "ttl_fifo", "max_items": None, "max_tokens": CAPACITY_TOKENS}}),
)


@dataclass
class ContrastResult:
    dataset: str
    contrast: str
    better: str
    worse: str
    probes: int
    users: int
    mean_better: float
    mean_worse: float
    diff: float
    ci_low: float
    ci_high: float
    detected: bool
    mde: float
    """Minimum detectable difference at 80% power (two-sided α = 0.05) for this many users."""
    note: str = ""


@dataclass
class SuiteCheck:
    results: list[ContrastResult] = field(default_factory=list)
    runs: dict[str, str] = field(default_factory=dict)
    """Dataset → the run folder its contrasts were played in (empty when the runs were played in a
    temporary folder, which the check removes)."""

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame([asdict(r) for r in self.results])

    def detected(self) -> dict[str, dict[str, bool]]:
        out: dict[str, dict[str, bool]] = {}
        for r in self.results:
            out.setdefault(r.dataset, {})[r.contrast] = r.detected
        return out


def strategies(contrasts: tuple[Contrast, ...] | list[Contrast] = CONTRASTS) -> list[dict[str, Any]]:
    """Every strategy the contrasts need, once each."""
    out: dict[str, dict[str, Any]] = {}
    for c in contrasts:
        for spec in (c.better, c.worse):
            out.setdefault(spec["name"], spec)
    return list(out.values())


def difference_se(values: np.ndarray, clusters: list[Any]) -> tuple[float, float]:
    """(standard error, degrees of freedom) of the mean of per-probe differences, clustered by
    user: the same CR2 variance and Bell–McCaffrey df as every interval memlab prints
    (:mod:`memlab.analysis.stats`)."""
    from memlab.analysis.stats import _cluster_sums, cr2_variance

    _, sums, counts = _cluster_sums(values, clusters)
    if sums.size < 2:
        return float("nan"), float("nan")
    var, df = cr2_variance(sums, counts)
    return (math.sqrt(var), df) if math.isfinite(var) else (float("nan"), float("nan"))


def minimum_detectable(se: float, df: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true difference a two-sided test at ``alpha`` finds with probability ``power``
    when its standard error is ``se`` (t with ``df`` degrees of freedom: G − 1 for equal sizes)."""
    from memlab.analysis.stats import t_quantile

    if not (math.isfinite(se) and math.isfinite(df)) or se == 0 or df <= 0:
        return float("nan")  # no interval, or no variation to size a test by
    return float((t_quantile(1 - alpha / 2, df) + t_quantile(power, df)) * se)


def score(run_dir: str | Path, dataset: str | None = None, n_boot: int = 2000,
          contrasts: tuple[Contrast, ...] | list[Contrast] = CONTRASTS) -> list[ContrastResult]:
    """The contrasts of a finished suite-check run, per dataset (or only ``dataset``)."""
    from memlab.analysis.results import load_run
    from memlab.analysis.stats import Intervals, paired_compare

    res = load_run(run_dir, metrics=[METRIC])  # the contrasts read string recall alone
    probes = res.probes
    out = []
    if probes.empty:  # every unit failed: nothing was answered, nothing to compare
        return out
    for ds, frame in probes.groupby("dataset"):
        if dataset is not None and ds != dataset:
            continue
        key = ["conversation_id", "probe_id"]
        for c in contrasts:
            a = frame[frame["strategy"] == c.better["name"]].set_index(key)
            b = frame[frame["strategy"] == c.worse["name"]].set_index(key)
            common = a.index.intersection(b.index)
            a, b = a.loc[common], b.loc[common]
            keep = a[METRIC].notna() & b[METRIC].notna()
            if c.scope == "cross_thread":
                keep &= a["evidence_scope"].isin(CROSS_THREAD_SCOPES)
            a, b = a[keep], b[keep]
            users = list(a["namespace"]) if "namespace" in a else [cid for cid, _ in a.index]
            if a.empty:
                note = ("no probe with evidence only in earlier threads (every user has one thread, or probes are "
                        "asked where their evidence was said)" if c.scope == "cross_thread" else "no answerable probes")
                nan = float("nan")
                out.append(ContrastResult(str(ds), c.name, c.better["name"], c.worse["name"], 0, 0, nan, nan, nan, nan, nan,
                                          False, nan, note))
                continue
            x, y = a[METRIC].to_numpy(float), b[METRIC].to_numpy(float)
            paired = paired_compare(x, y, users, higher_is_better=True, spec=Intervals(n_boot=n_boot, seed=0))
            g = len(set(users))
            se, df = difference_se(x - y, users)
            detected = bool(paired.ci_low > 0)
            note = "" if detected else ("fewer than 2 users: no interval" if g < 2 else
                                        "the better side did not win: the data does not exercise this mechanism"
                                        if paired.diff <= 0 else "interval includes 0")
            out.append(ContrastResult(str(ds), c.name, c.better["name"], c.worse["name"], int(len(x)), g,
                                      float(x.mean()), float(y.mean()), paired.diff, paired.ci_low, paired.ci_high,
                                      detected, minimum_detectable(se, df), note))
    return out


def suite_check(datasets: list[str], *, output_dir: str | Path | None = None, workers: int = 1, progress: bool = False,
                limit_users: int | None = None, n_boot: int = 2000, contrasts: list[str] | None = None) -> SuiteCheck:
    """Play the planted contrasts (all, or those named in ``contrasts``) on every dataset with the
    offline model, in one run (one start-up, one finalize), and score them per dataset."""
    chosen = [c for c in CONTRASTS if contrasts is None or c.name in contrasts]
    unknown = sorted(set(contrasts or ()) - {c.name for c in CONTRASTS})
    if unknown:
        raise ValueError(f"unknown contrast(s) {', '.join(unknown)}; known: {', '.join(c.name for c in CONTRASTS)}")
    if output_dir:
        return _play_and_score(datasets, chosen, Path(output_dir), workers, progress, limit_users, n_boot, keep=True)
    # the runs are the check's working files: played in a temporary folder that is removed afterwards
    with tempfile.TemporaryDirectory(prefix="memlab-suite-check-") as tmp:
        return _play_and_score(datasets, chosen, Path(tmp), workers, progress, limit_users, n_boot, keep=False)


def _play_and_score(datasets: list[str], chosen: list[Contrast], base: Path, workers: int, progress: bool,
                    limit_users: int | None, n_boot: int, keep: bool) -> SuiteCheck:
    from memlab.harness.config import validate_config
    from memlab.harness.runner import Runner, _remove_unused_dir

    config = validate_config({
        "name": "suite-check", "datasets": [str(p) for p in datasets], "model": {"provider": "offline"},
        "strategies": strategies(chosen), "limit_conversations": limit_users, "output_dir": str(base),
        "executor": {"type": "auto", "workers": workers}, "metrics": [METRIC],
        # the contrasts read what reached the context (string recall), never an answer: a retrieval-only run
        # (the answerer's calls were ~60% of a check's CPU, most of it embedding every context line)
        "answer_probes": False}, "suite-check")
    runner = Runner(config, progress=progress)
    empty = [path for path, ds in runner.datasets if not ds.probes()]
    if empty:  # nothing to detect anything with: say so before playing a single turn
        _remove_unused_dir(runner.run_dir)
        raise ValueError(f"suite-check measures what a dataset's probes detect, and {', '.join(map(str, empty))} "
                         f"{'has' if len(empty) == 1 else 'have'} no probes"
                         + (f" among the first {limit_users} user(s)" if limit_users else ""))
    run_dir = runner.run()
    check = SuiteCheck(runs={str(p): str(run_dir) for p in datasets} if keep else {})
    check.results.extend(score(run_dir, n_boot=n_boot, contrasts=chosen))
    return check


def check_expected(datasets: list[str], expected: dict[str, Any], **kwargs: Any) -> SuiteCheck:
    """Play only the contrasts that ``expected`` documents as detected for some dataset (one run:
    one start-up and one finalize; the cheap contrasts cost less than a second run would): what CI
    needs to know whether a documented detection was lost."""
    names = sorted({c for ds in (expected.get("datasets") or {}).values() for c, v in ds.items() if v.get("detected")})
    return suite_check(datasets, contrasts=names or None, **kwargs)


def expectations(check: SuiteCheck) -> dict[str, Any]:
    """What a committed expectations file holds: per dataset and contrast, whether it was detected
    (what CI holds the dataset to) and the measured numbers (documentation)."""
    datasets: dict[str, dict[str, Any]] = {}
    for r in check.results:
        datasets.setdefault(r.dataset, {})[r.contrast] = {
            "detected": r.detected, "diff": _round(r.diff), "ci": [_round(r.ci_low), _round(r.ci_high)],
            "mde": _round(r.mde), "probes": r.probes, "users": r.users, **({"note": r.note} if r.note else {})}
    return {"metric": METRIC, "contrasts": {c.name: c.question for c in CONTRASTS}, "datasets": datasets}


def _round(x: float) -> float | None:
    return round(float(x), 4) if math.isfinite(x) else None


def lost_detections(check: SuiteCheck, expected: dict[str, Any]) -> list[str]:
    """Contrasts a dataset is documented to detect (``expected``) that this check played and did not detect (a
    check of some contrasts only — ``--contrast`` — holds the dataset to those)."""
    got = check.detected()
    lost = []
    for ds, contrasts in (expected.get("datasets") or {}).items():
        if ds not in got:
            continue
        for name, want in contrasts.items():
            if want.get("detected") and name in got[ds] and not got[ds][name]:
                lost.append(f"{ds}: {name}")
    return lost


def markdown_table(check: SuiteCheck) -> str:
    """dataset × contrast: Δ [interval], detected, MDE, probes/users — the table in datasets/README.md."""
    names = [c.name for c in CONTRASTS]
    by = {(r.dataset, r.contrast): r for r in check.results}
    rows = ["| dataset | users | " + " | ".join(names) + " |", "|---|--:|" + "|".join(":--" for _ in names) + "|"]
    for ds in dict.fromkeys(r.dataset for r in check.results):
        cells = []
        users = max((by[(ds, n)].users for n in names if (ds, n) in by), default=0)
        for n in names:
            r = by.get((ds, n))
            if r is None or r.probes == 0:
                cells.append("– (no such probes)")
            else:
                mark = "✓" if r.detected else "✗"
                mde = ("<0.01" if r.mde < 0.005 else f"{r.mde:.2f}") if math.isfinite(r.mde) else "–"
                cells.append(f"{mark} {r.diff:+.2f} [{r.ci_low:+.2f}, {r.ci_high:+.2f}], MDE {mde}, n {r.probes}")
        rows.append(f"| {ds} | {users} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def load_expectations(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read suite-check expectations ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("datasets"), dict):
        raise ValueError(f"{path}: not a suite-check expectations file (no 'datasets' mapping)")
    return data
