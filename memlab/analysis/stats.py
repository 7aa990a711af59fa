"""Honest uncertainty: confidence intervals and paired comparisons that respect shared memory.

Probes are not independent: the probes of one user (a memory **namespace**: every conversation of
that user shares its long-term memory) succeed or fail together, and a benchmark has only a
handful of users — 4 in the starter set, 6–10 per suite, 10 in LoCoMo. Resampling probes as if
they were independent makes intervals far too narrow, and even a cluster bootstrap is too narrow
at these sizes: its percentile interval covered the true mean in 79% / 89% / 90% / 94% of
simulated evaluations at 4 / 8 / 16 / 32 users instead of 95% (``docs/metrics.md``,
:mod:`memlab.analysis.interval_coverage`).

Every interval here is therefore, by default, a **cluster-robust t interval** (``cluster_t``):

* the statistic is the pooled mean of the probes (NaN dropped);
* its variance is the CR2 cluster-robust ("sandwich") estimate with the Bell–McCaffrey
  bias correction: with G clusters, cluster g holding n_g of the N probes and residual sum
  e_g = Σ (x − mean) over its probes, ``V = Σ_g e_g² / (1 − n_g/N) / N²``. With equal cluster
  sizes this is the familiar CR1 estimate ``G/(G−1) · Σ e_g² / N²`` (inspect_ai's clustered
  standard error);
* the quantile is Student's t with the Bell–McCaffrey (Satterthwaite) degrees of freedom, which
  are G − 1 for equal cluster sizes and fewer when sizes differ (a few large users dominate);
* the interval is clipped to the range of the observed values and 0 (a share cannot leave [0, 1]).

It covered 93–96% in the same simulations, for a mean and for a paired difference, with equal
and unequal cluster sizes. The former percentile cluster bootstrap stays available
(``Intervals(method="bootstrap")``, config ``intervals: bootstrap``) to reproduce older numbers.

A comparison of two strategies is **paired**: both answered the same probes, so the quantity is
the per-probe difference A − B, whose mean gets the same clustered interval.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

Method = Literal["cluster_t", "bootstrap"]
METHODS: tuple[str, ...] = ("cluster_t", "bootstrap")


@dataclass(frozen=True)
class Intervals:
    """How intervals are computed; its :meth:`caption` goes under every table that shows them.

    ``n_boot`` and ``seed`` matter only to the ``bootstrap`` method (``n_boot`` 0: no interval)."""

    n_boot: int = 1000
    seed: int = 0
    alpha: float = 0.05
    method: Method = "cluster_t"

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"interval method must be one of {', '.join(METHODS)}, got {self.method!r}")

    @property
    def level(self) -> str:
        return f"{100 * (1 - self.alpha):g}%"

    def caption(self) -> str:
        if self.method == "cluster_t":
            return (f"{self.level} CI: cluster-robust t over users (memory namespaces; CR2 variance, "
                    "Bell–McCaffrey df = G−1 for equal sizes)")
        return f"{self.level} CI: percentile bootstrap over users (memory namespaces), {self.n_boot} resamples, seed {self.seed}"


# ---- Student's t without scipy ---------------------------------------------------------------

def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` (> 0, not necessarily whole) degrees of freedom."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def _t_pdf(t: float, df: float) -> float:
    return math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
                    - (df + 1) / 2 * math.log1p(t * t / df))


@functools.lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom: Newton's method on
    :func:`t_cdf` from the normal quantile, kept inside a bisection bracket (memoised: a report asks
    for the same few quantiles thousands of times)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    x = min(max(NormalDist().inv_cdf(p), lo), hi)
    for _ in range(100):
        f = t_cdf(x, df) - p
        if abs(f) < 1e-14:
            break
        if f < 0:
            lo = x
        else:
            hi = x
        step = x - f / _t_pdf(x, df)
        x = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return x


# ---- the intervals ---------------------------------------------------------------------------

def _cluster_sums(values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values without NaN, per-cluster sums, per-cluster counts)."""
    x = np.asarray(values, dtype=float)
    if x.shape[0] != len(clusters):
        raise ValueError(f"values ({x.shape[0]}) and clusters ({len(clusters)}) differ in length")
    keep = ~np.isnan(x)
    x = x[keep]
    labels = [repr(c) for c, k in zip(clusters, keep) if k]
    if not labels:
        return x, np.zeros(0), np.zeros(0)
    _, codes = np.unique(np.array(labels), return_inverse=True)
    return x, np.bincount(codes, weights=x), np.bincount(codes).astype(float)


def cr2_variance(sums: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """(variance of the pooled mean, Bell–McCaffrey degrees of freedom) from per-cluster sums and
    counts: the CR2 sandwich estimate for a mean (see the module docstring)."""
    n = counts.sum()
    mean = sums.sum() / n
    e = sums - mean * counts
    share = counts / n
    if np.any(share >= 1.0):
        return float("nan"), float("nan")
    k2 = 1.0 / (1.0 - share) / n ** 2          # (I − H_gg)^(−1/2) acts on a cluster's residual sum as (1 − n_g/N)^(−1/2)
    var = float((k2 * e ** 2).sum())
    # Satterthwaite df of the quadratic form under independent homoscedastic errors: the matrix
    # M = K (D − n nᵀ/N) K, K = diag(sqrt(k2)), D = diag(n); df = tr(M)² / tr(M²).
    p = k2 * counts
    v2 = k2 * counts ** 2
    tr = float((p - v2 / n).sum())
    tr2 = float((p ** 2).sum() - 2.0 * (p * v2).sum() / n + v2.sum() ** 2 / n ** 2)
    df = tr * tr / tr2 if tr2 > 0 else float(len(counts) - 1)
    return var, df


def cluster_t_interval(values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable],
                       spec: Intervals = Intervals()) -> tuple[float, float, float]:
    """Mean of ``values`` (NaN dropped) and its cluster-robust t interval (CR2 variance,
    Bell–McCaffrey df), clipped to [min(values, 0), max(values, 0)]. NaN interval with fewer than
    two clusters."""
    x, sums, counts = _cluster_sums(values, clusters)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    if sums.size < 2:
        return mean, float("nan"), float("nan")
    var, df = cr2_variance(sums, counts)
    if not np.isfinite(var):
        return mean, float("nan"), float("nan")
    half = t_quantile(1.0 - spec.alpha / 2.0, df) * math.sqrt(max(var, 0.0))
    # clipped to what a mean of these values can be (a share stays in [0, 1]); 0 is always inside the
    # clip range, so clipping never makes an interval exclude 0 (a verdict) that did not before
    lo = max(mean - half, min(float(x.min()), 0.0))
    hi = min(mean + half, max(float(x.max()), 0.0))
    return mean, lo, hi


def cluster_bootstrap(values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable], spec: Intervals = Intervals()
                      ) -> tuple[float, float, float]:
    """Mean of ``values`` (NaN dropped) and its percentile cluster-bootstrap interval: whole
    clusters resampled with replacement, ``spec.n_boot`` times, seeded. Under-covers at a
    handful of clusters (module docstring); kept to reproduce older numbers.

    The interval is NaN when there are fewer than two clusters: one user says nothing about how a
    result varies across users."""
    x, sums, counts = _cluster_sums(values, clusters)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    k = sums.size
    if k < 2 or spec.n_boot <= 0:
        return mean, float("nan"), float("nan")
    rng = np.random.default_rng(spec.seed)
    idx = rng.integers(0, k, size=(spec.n_boot, k))
    means = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    lo, hi = np.quantile(means, [spec.alpha / 2, 1 - spec.alpha / 2])
    return mean, float(lo), float(hi)


def cluster_interval(values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable], spec: Intervals = Intervals()
                     ) -> tuple[float, float, float]:
    """(mean, low, high) by ``spec.method``: what every printed and gated interval goes through."""
    if spec.method == "bootstrap":
        return cluster_bootstrap(values, clusters, spec)
    return cluster_t_interval(values, clusters, spec)


@dataclass(frozen=True)
class Paired:
    """A − B over the probes both scored."""

    n: int
    conversations: int
    """Clusters (users / memory namespaces) the probes come from (the name is historical)."""
    mean_a: float
    mean_b: float
    diff: float
    ci_low: float
    ci_high: float
    a_only: int | None
    """Binary metrics: probes A hit and B missed (None for a continuous metric)."""
    b_only: int | None
    verdict: str
    """``A better`` / ``B better`` (``A higher`` / ``B higher`` without a direction) when the interval
    excludes 0, else ``not shown at 95%``."""
    p_value: float = float("nan")
    """Two-sided p-value of "mean difference is 0" by the same method (cluster-robust t; for the
    bootstrap, the share of resampled differences on the other side of 0, doubled). What a
    multiple-testing correction (the gate's Holm step-down) adjusts."""


def verdict(ci_low: float, ci_high: float, higher_is_better: bool | None, level: str = "95%") -> str:
    """Which side the interval of A − B shows ahead; ``not shown at 95%`` when it holds 0 (or is NaN)."""
    if np.isnan(ci_low) or np.isnan(ci_high) or ci_low <= 0 <= ci_high:
        return f"not shown at {level}"
    a_higher = ci_low > 0
    if higher_is_better is None:
        return "A higher" if a_higher else "B higher"
    return "A better" if a_higher == higher_is_better else "B better"


def p_value(values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable], spec: Intervals = Intervals()) -> float:
    """Two-sided p-value of "the mean of ``values`` is 0" by ``spec.method`` (NaN below two clusters).

    cluster_t: 2·P(T_df > |mean| / se); a zero standard error gives 0 for a non-zero mean, 1 for
    a zero one. bootstrap: twice the share of resampled means on the far side of 0 (capped at 1)."""
    x, sums, counts = _cluster_sums(values, clusters)
    if x.size == 0 or sums.size < 2:
        return float("nan")
    mean = float(x.mean())
    if spec.method == "bootstrap":
        if spec.n_boot <= 0:
            return float("nan")
        rng = np.random.default_rng(spec.seed)
        idx = rng.integers(0, sums.size, size=(spec.n_boot, sums.size))
        means = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
        if mean == 0:
            return 1.0
        far = (means <= 0).mean() if mean > 0 else (means >= 0).mean()
        return float(min(1.0, 2.0 * far))
    var, df = cr2_variance(sums, counts)
    if not np.isfinite(var):
        return float("nan")
    if var <= 0:
        return 0.0 if abs(mean) > 1e-12 else 1.0
    return float(min(1.0, 2.0 * (1.0 - t_cdf(abs(mean) / math.sqrt(var), df))))


def paired_compare(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, clusters: Sequence[Hashable],
                   higher_is_better: bool | None, spec: Intervals = Intervals()) -> Paired:
    """Paired comparison of two strategies' per-probe scores, aligned by position (same probe).

    Probes where either side is NaN (not applicable) are left out."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not (x.shape == y.shape and x.shape[0] == len(clusters)):
        raise ValueError(f"paired scores must align: {x.shape[0]} A, {y.shape[0]} B, {len(clusters)} clusters")
    both = ~(np.isnan(x) | np.isnan(y))
    x, y = x[both], y[both]
    labels = [c for c, k in zip(clusters, both) if k]
    if x.size == 0:
        nan = float("nan")
        return Paired(0, 0, nan, nan, nan, nan, nan, None, None, verdict(nan, nan, higher_is_better, spec.level))
    diff, lo, hi = cluster_interval(x - y, labels, spec)
    binary = bool(np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all())
    a_only = int(((x == 1) & (y == 0)).sum()) if binary else None
    b_only = int(((x == 0) & (y == 1)).sum()) if binary else None
    return Paired(int(x.size), len(set(map(repr, labels))), float(x.mean()), float(y.mean()), diff, lo, hi,
                  a_only, b_only, verdict(lo, hi, higher_is_better, spec.level), p_value(x - y, labels, spec))


def holm(p_values: Sequence[float], alpha: float = 0.05) -> list[bool]:
    """Holm's step-down procedure: which of the hypotheses are rejected with the family-wise error
    rate (the chance of rejecting any true one) at most ``alpha``. NaN p-values are never rejected
    and do not count towards the family size."""
    ps = [(p, i) for i, p in enumerate(p_values) if not (p is None or np.isnan(p))]
    ps.sort()
    m = len(ps)
    out = [False] * len(p_values)
    for rank, (p, i) in enumerate(ps):
        if p > alpha / (m - rank):
            break
        out[i] = True
    return out


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values: ``adjusted[i] ≤ alpha`` exactly when :func:`holm` rejects i at ``alpha``."""
    ps = sorted((p, i) for i, p in enumerate(p_values) if not (p is None or np.isnan(p)))
    m = len(ps)
    out = [float("nan")] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(ps):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out
