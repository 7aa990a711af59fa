"""How often memlab's intervals cover the truth at memlab's sizes: the seeded simulation behind the
coverage table in ``docs/metrics.md`` and the coverage test (``tests/test_interval_coverage.py``).

An evaluation is simulated as G users (memory namespaces) with a few binary probes each. A user's
probes share a random effect on the logit scale (some users' memories are easy, some hard), so
probes of one user are correlated, as in a real run:

* **mean**: a probe is a hit with probability ``expit(logit(p) + u_g)``, ``u_g ~ N(0, sd_user)``;
  the true value is the population mean ``E[expit(logit(p) + u)]``;
* **paired**: strategies A and B answer the same probes; a probe has its own difficulty
  ``w ~ N(0, sd_probe)`` shared by both, a user's effect ``u_g`` shared by both, and B a
  user-specific shift ``d_g ~ N(0, sd_pair)``; the value is A − B per probe and the true value
  the population mean difference.

True values are computed by Gauss–Hermite quadrature, not simulated. Each method's interval is
computed by the same function memlab uses (:func:`memlab.analysis.stats.cluster_interval`) where it is
memlab's (``cluster_t``, ``bootstrap``); the other rows are the alternatives that were measured
before choosing (CR1 with a normal quantile as in inspect_ai, CR1 with t(G−1), a studentized and a
BCa cluster bootstrap). ``python benchmarks/interval_coverage.py`` prints the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

from memlab.analysis.stats import Intervals, cluster_interval, cr2_variance, t_quantile

Kind = Literal["mean", "paired"]
METHODS = ("bootstrap", "cr1_z", "cr1_t", "studentized", "bca", "cluster_t")
"""Every method the simulation can score; ``bootstrap`` (old) and ``cluster_t`` (new) are memlab's."""


@dataclass(frozen=True)
class Design:
    """One simulated evaluation's shape (defaults: the issue's design, 10 probes per user, p = 0.6)."""

    clusters: int
    kind: Kind = "mean"
    probes: int | tuple[int, int] = 10
    """Probes per user, or (low, high): each user draws its count uniformly (unequal sizes)."""
    p: float = 0.6
    p_b: float = 0.5
    sd_user: float = 1.0
    sd_probe: float = 1.0
    sd_pair: float = 0.5


def _expit(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def _normal_mean_of_expit(centre: float, sd: float) -> float:
    x, w = np.polynomial.hermite_e.hermegauss(120)
    return float((_expit(centre + sd * x) * w).sum() / w.sum())


def truth(d: Design) -> float:
    """The population value the intervals should cover."""
    if d.kind == "mean":
        return _normal_mean_of_expit(_logit(d.p), d.sd_user)
    sa = math.sqrt(d.sd_user ** 2 + d.sd_probe ** 2)
    sb = math.sqrt(d.sd_user ** 2 + d.sd_probe ** 2 + d.sd_pair ** 2)
    return _normal_mean_of_expit(_logit(d.p), sa) - _normal_mean_of_expit(_logit(d.p_b), sb)


def draw(d: Design, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One simulated evaluation: (per-probe values, per-probe user index)."""
    sizes = (np.full(d.clusters, d.probes) if isinstance(d.probes, int)
             else rng.integers(d.probes[0], d.probes[1] + 1, size=d.clusters))
    users = np.repeat(np.arange(d.clusters), sizes)
    u = rng.normal(0.0, d.sd_user, d.clusters)[users]
    if d.kind == "mean":
        return (rng.random(users.size) < _expit(_logit(d.p) + u)).astype(float), users
    w = rng.normal(0.0, d.sd_probe, users.size)
    shift = rng.normal(0.0, d.sd_pair, d.clusters)[users]
    a = rng.random(users.size) < _expit(_logit(d.p) + u + w)
    b = rng.random(users.size) < _expit(_logit(d.p_b) + u + w + shift)
    return a.astype(float) - b.astype(float), users


def _alternative(method: str, x: np.ndarray, users: np.ndarray, alpha: float, n_boot: int,
                 rng: np.random.Generator) -> tuple[float, float]:
    """The intervals measured but not chosen (see the module docstring)."""
    sums = np.bincount(users, weights=x)
    counts = np.bincount(users).astype(float)
    g = sums.size
    n = counts.sum()
    mean = sums.sum() / n
    if method in ("cr1_z", "cr1_t"):
        se = math.sqrt(g / (g - 1) * float(((sums - mean * counts) ** 2).sum()) / n ** 2)
        q = NormalDist().inv_cdf(1 - alpha / 2) if method == "cr1_z" else t_quantile(1 - alpha / 2, g - 1)
        return mean - q * se, mean + q * se
    idx = rng.integers(0, g, size=(n_boot, g))
    bs, bc = sums[idx], counts[idx]
    means = bs.sum(axis=1) / bc.sum(axis=1)
    if method == "studentized":
        var, _ = cr2_variance(sums, counts)
        se = math.sqrt(var)
        bn = bc.sum(axis=1, keepdims=True)
        e = bs - (means[:, None]) * bc
        share = bc / bn
        with np.errstate(divide="ignore", invalid="ignore"):
            bse = np.sqrt((e ** 2 / (1 - share)).sum(axis=1)) / bn[:, 0]
            t = (means - mean) / bse
        t = t[np.isfinite(t)]
        if t.size < 10 or se == 0:
            return mean, mean
        lo_q, hi_q = np.quantile(t, [alpha / 2, 1 - alpha / 2])
        return mean - hi_q * se, mean - lo_q * se
    if method == "bca":
        nd = NormalDist()
        share_below = float((means < mean).mean() + 0.5 * (means == mean).mean())
        z0 = nd.inv_cdf(min(max(share_below, 1e-6), 1 - 1e-6))
        jack = (sums.sum() - sums) / (n - counts)
        dev = jack.mean() - jack
        ss = float((dev ** 2).sum())
        acc = float((dev ** 3).sum()) / (6 * ss ** 1.5) if ss > 0 else 0.0
        qs = []
        for q in (alpha / 2, 1 - alpha / 2):
            zq = nd.inv_cdf(q)
            qs.append(float(np.quantile(means, nd.cdf(z0 + (z0 + zq) / (1 - acc * (z0 + zq))))))
        return qs[0], qs[1]
    raise ValueError(f"unknown method {method!r}; one of {', '.join(METHODS)}")


def coverage(d: Design, methods: tuple[str, ...] = ("bootstrap", "cluster_t"), *, reps: int = 400, seed: int = 0,
             alpha: float = 0.05, n_boot: int = 1000) -> dict[str, float]:
    """Share of ``reps`` simulated evaluations whose interval holds the true value, per method.

    Seeded: the same arguments give the same numbers. Every method sees the same simulated data."""
    rng = np.random.default_rng(seed)
    boot_rng = np.random.default_rng(seed + 1)
    true = truth(d)
    hits = {m: 0 for m in methods}
    for _ in range(reps):
        x, users = draw(d, rng)
        for m in methods:
            if m in ("cluster_t", "bootstrap"):
                _, lo, hi = cluster_interval(x, users.tolist(), Intervals(n_boot=n_boot, seed=0, alpha=alpha, method=m))
            else:
                lo, hi = _alternative(m, x, users, alpha, n_boot, boot_rng)
            hits[m] += int(lo <= true <= hi)
    return {m: hits[m] / reps for m in methods}
