"""The intervals memlab prints and gates cover the truth at memlab's sizes (seeded simulation,
memlab.analysis.interval_coverage; the full table is in docs/metrics.md)."""

from __future__ import annotations

import pytest

from memlab.analysis.interval_coverage import Design, coverage, truth


@pytest.mark.parametrize("kind", ["mean", "paired"])
def test_cluster_t_covers_at_least_93_percent_with_8_users(kind):
    # 1500 simulated evaluations: the estimate's standard error is ~0.006, so a method with true
    # coverage 0.95 passes and one at the old bootstrap's ~0.88 cannot
    got = coverage(Design(8, kind), ("cluster_t",), reps=1500, seed=11)["cluster_t"]
    assert got >= 0.93, f"{kind}: cluster-robust t covered {got:.3f} of 1500 simulated evaluations at G = 8"


@pytest.mark.parametrize("kind", ["mean", "paired"])
def test_the_check_tells_the_old_bootstrap_apart(kind):
    """The same check fails for the former percentile bootstrap: the threshold can fail."""
    got = coverage(Design(8, kind), ("bootstrap",), reps=400, seed=11, n_boot=500)["bootstrap"]
    assert got < 0.93


def test_unequal_users_and_few_users_still_cover():
    got = coverage(Design(4, "paired", probes=(3, 30)), ("cluster_t",), reps=800, seed=5)["cluster_t"]
    assert got >= 0.92


def test_truth_is_the_population_value():
    assert truth(Design(8, "mean", sd_user=1e-9)) == pytest.approx(0.6)
    assert truth(Design(8, "paired", sd_user=1e-9, sd_probe=1e-9, sd_pair=1e-9)) == pytest.approx(0.1)
    assert 0.5 < truth(Design(8, "mean")) < 0.6  # a symmetric logit spread pulls the mean towards 0.5
