"""Honest uncertainty: confidence intervals and paired comparisons that respect conversations.

Probes are not independent: a benchmark has a handful of conversations, and the probes of one
conversation share its memory, so they succeed or fail together. Resampling probes as if they
were independent makes intervals too narrow. Here every interval is a **cluster bootstrap**:
(dataset, conversation) units are resampled with replacement and their probes come along; the
statistic is the pooled mean of the resampled probes. It is seeded, so the same inputs give the
same interval.

A comparison of two strategies is **paired**: both answered the same probes, so the quantity is
the per-probe difference A − B, whose mean gets the same conversation-clustered interval.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
import numpy as np



@dataclass(frozen=True)
class Bootstrap:
    """How intervals are computed; its :meth:`caption` goes under every table that shows them."""

    n_boot: int = 1000
    seed: int = 0
    alpha: float = 0.05

    @property
    def level(self) -> str:
        return f"{100 * (1 - self.alpha):g}%"

    def caption(self) -> str:
        return f"{self.level} CI: bootstrap over conversations, {self.n_boot} resamples, seed {self.seed}"


def cluster_bootstrap(values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable], spec: Bootstrap = Bootstrap()
                      ) -> tuple[float, float, float]:
    """Mean of ``values`` (NaN dropped) and its percentile CI, resampling whole clusters.

    The interval is NaN when there are fewer than two clusters: one conversation says nothing
    about how a result varies across conversations."""
    x = np.asarray(values, dtype=float)
    if x.shape[0] != len(clusters):
        raise ValueError(f"values ({x.shape[0]}) and clusters ({len(clusters)}) differ in length")
    keep = ~np.isnan(x)
    x = x[keep]
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    labels = [c for c, k in zip(clusters, keep) if k]
    _, codes = np.unique(np.array([repr(c) for c in labels]), return_inverse=True)
    sums = np.bincount(codes, weights=x)
    counts = np.bincount(codes).astype(float)
    k = sums.size
    if k < 2 or spec.n_boot <= 0:
        return mean, float("nan"), float("nan")
    rng = np.random.default_rng(spec.seed)
    idx = rng.integers(0, k, size=(spec.n_boot, k))
    means = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    lo, hi = np.quantile(means, [spec.alpha / 2, 1 - spec.alpha / 2])
    return mean, float(lo), float(hi)


@dataclass(frozen=True)
class Paired:
    """A − B over the probes both scored."""

    n: int
    conversations: int
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


def verdict(ci_low: float, ci_high: float, higher_is_better: bool | None, level: str = "95%") -> str:
    """Which side the interval of A − B shows ahead; ``not shown at 95%`` when it holds 0 (or is NaN)."""
    if np.isnan(ci_low) or np.isnan(ci_high) or ci_low <= 0 <= ci_high:
        return f"not shown at {level}"
    a_higher = ci_low > 0
    if higher_is_better is None:
        return "A higher" if a_higher else "B higher"
    return "A better" if a_higher == higher_is_better else "B better"


def paired_compare(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, clusters: Sequence[Hashable],
                   higher_is_better: bool | None, spec: Bootstrap = Bootstrap()) -> Paired:
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
    diff, lo, hi = cluster_bootstrap(x - y, labels, spec)
    binary = bool(np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all())
    a_only = int(((x == 1) & (y == 0)).sum()) if binary else None
    b_only = int(((x == 0) & (y == 1)).sum()) if binary else None
    return Paired(int(x.size), len(set(map(repr, labels))), float(x.mean()), float(y.mean()), diff, lo, hi,
                  a_only, b_only, verdict(lo, hi, higher_is_better, spec.level))
