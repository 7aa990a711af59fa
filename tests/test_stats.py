"""User-clustered intervals (cluster-robust t, the former percentile bootstrap), paired comparisons,
Holm's correction, and the tables and CLI that show them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memlab.cli import main
from memlab.analysis.results import load_run
from memlab.analysis.stats import (Intervals, cluster_bootstrap, cluster_interval, cluster_t_interval, holm,
                          holm_adjusted, p_value, paired_compare, t_cdf, t_quantile, verdict)


def test_cluster_bootstrap_is_seeded_and_brackets_the_mean():
    x = np.array([1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, np.nan])
    cl = ["c1", "c1", "c2", "c2", "c3", "c3", "c4", "c4", "c4"]
    m, lo, hi = cluster_bootstrap(x, cl, Intervals(2000, seed=1))
    assert m == pytest.approx(5 / 8) and lo < m < hi
    assert cluster_bootstrap(x, cl, Intervals(2000, seed=1)) == (m, lo, hi)
    y = np.random.default_rng(0).random(60)
    groups = [i // 3 for i in range(60)]
    assert cluster_bootstrap(y, groups, Intervals(200, seed=1)) != cluster_bootstrap(y, groups, Intervals(200, seed=2))


def test_clustered_interval_is_wider_than_pretending_probes_are_independent():
    # 6 conversations of 10 probes each; a conversation's probes succeed or fail together
    rng = np.random.default_rng(0)
    conv_hit = [1, 1, 0, 1, 0, 1]
    x = np.array([float(h) for h in conv_hit for _ in range(10)])
    x[rng.choice(60, 6, replace=False)] = 1 - x[rng.choice(60, 6, replace=False)]
    clustered = cluster_bootstrap(x, [c for c in range(6) for _ in range(10)])
    independent = cluster_bootstrap(x, list(range(60)))  # one cluster per probe: the naive bootstrap
    assert clustered[0] == independent[0]
    assert (clustered[2] - clustered[1]) > 1.5 * (independent[2] - independent[1])


def test_one_conversation_gives_no_interval():
    m, lo, hi = cluster_bootstrap([1.0, 0.0, 1.0], ["c", "c", "c"])
    assert m == pytest.approx(2 / 3) and np.isnan(lo) and np.isnan(hi)
    assert all(np.isnan(cluster_bootstrap([np.nan], ["c"])))
    with pytest.raises(ValueError, match="differ in length"):
        cluster_bootstrap([1.0, 0.0], ["c"])


def test_paired_compare_counts_discordant_probes_and_gives_a_verdict():
    clusters = [c for c in range(8) for _ in range(3)]
    a = np.ones(24)
    b = np.array([0.0, 1.0, 1.0] * 8)
    r = paired_compare(a, b, clusters, higher_is_better=True)
    assert (r.n, r.conversations, r.a_only, r.b_only) == (24, 8, 8, 0)
    assert r.diff == pytest.approx(1 / 3) and r.ci_low > 0 and r.verdict == "A better"
    assert paired_compare(a, b, clusters, higher_is_better=False).verdict == "B better"
    assert paired_compare(a, b, clusters, higher_is_better=None).verdict == "A higher"
    same = paired_compare(b, b, clusters, higher_is_better=True)
    assert same.diff == 0 and same.verdict == "not shown at 95%"


def test_paired_compare_skips_probes_either_side_cannot_score_and_continuous_has_no_discordance():
    r = paired_compare([0.5, np.nan, 1.0, 0.2], [0.25, 1.0, np.nan, 0.2], ["a", "b", "c", "d"], True)
    assert r.n == 2 and r.a_only is None and r.diff == pytest.approx(0.125)
    with pytest.raises(ValueError, match="align"):
        paired_compare([1.0], [1.0, 0.0], ["a"], True)


def test_verdict_needs_the_interval_to_exclude_zero():
    assert verdict(0.0, 0.3, True) == "not shown at 95%"
    assert verdict(-0.3, -0.1, True) == "B better"
    assert verdict(float("nan"), float("nan"), True) == "not shown at 95%"
    assert Intervals(500, seed=3, method="bootstrap").caption() == (
        "95% CI: percentile bootstrap over users (memory namespaces), 500 resamples, seed 3")
    assert Intervals().caption().startswith("95% CI: cluster-robust t over users")
    with pytest.raises(ValueError, match="cluster_t, bootstrap"):
        Intervals(method="bca")


def test_t_quantiles_match_the_tables():
    # Student's t 97.5% quantiles from any statistics table; non-integer df by interpolation's neighbours
    for df, q in ((1, 12.7062), (2, 4.3027), (3, 3.1824), (7, 2.3646), (10, 2.2281), (30, 2.0423), (1000, 1.9623)):
        assert t_quantile(0.975, df) == pytest.approx(q, abs=1e-4)
    assert t_quantile(0.995, 5) == pytest.approx(4.0321, abs=1e-4)
    assert t_quantile(0.025, 7) == pytest.approx(-2.3646, abs=1e-4)
    assert t_quantile(0.975, 3) < t_quantile(0.975, 2.5) < t_quantile(0.975, 2)
    assert t_cdf(0.0, 4) == pytest.approx(0.5) and t_cdf(2.3646, 7) == pytest.approx(0.975, abs=1e-5)


def test_cluster_t_interval_is_the_cluster_robust_formula():
    # equal sizes: CR2 = CR1 = G/(G-1) Σ e_g² / N², df = G - 1
    x = np.array([1, 1, 1, 0, 0, 0] + [1, 1, 1, 1, 0, 0] + [1, 1, 0, 0, 0, 0] + [0, 1, 0, 1, 0, 1], dtype=float)
    cl = [g for g in range(4) for _ in range(6)]
    mean = x.mean()
    sums = np.array([x[6 * g:6 * g + 6].sum() for g in range(4)])
    se = np.sqrt(4 / 3 * ((sums - 6 * mean) ** 2).sum() / 24 ** 2)
    m, lo, hi = cluster_t_interval(x, cl)
    assert m == pytest.approx(mean)
    assert (lo, hi) == pytest.approx((mean - 3.1824 * se, mean + 3.1824 * se), abs=1e-4)
    assert cluster_interval(x, cl) == (m, lo, hi)  # the default method
    assert cluster_interval(x, cl, Intervals(300, method="bootstrap")) == cluster_bootstrap(x, cl, Intervals(300))
    # a share's interval stays inside [0, 1]; one cluster gives none; NaN values are dropped
    m, lo, hi = cluster_t_interval([1, 1, 1, 1, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2, 3, 3])
    assert 0.0 <= lo < m < hi == 1.0
    assert all(np.isnan(cluster_t_interval([1.0, 0.0], ["c", "c"])[1:]))
    assert cluster_t_interval([1.0, np.nan, 0.0, 1.0], ["a", "a", "b", "b"])[0] == pytest.approx(2 / 3)


def test_unequal_cluster_sizes_get_fewer_degrees_of_freedom():
    # one big user and three small ones: the interval is wider than t(G-1) would make it
    x = np.array([1.0] * 20 + [0.0] * 10 + [1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    cl = [0] * 30 + [1, 1, 2, 2, 3, 3]
    m, lo, hi = cluster_t_interval(x, cl)
    from memlab.analysis.stats import _cluster_sums, cr2_variance

    _, sums, counts = _cluster_sums(x, cl)
    var, df = cr2_variance(sums, counts)
    assert df < 3
    assert hi - lo > 2 * t_quantile(0.975, 3) * np.sqrt(var) - 1e-9 or hi == 1.0


def test_p_value_agrees_with_the_interval_and_holm_controls_the_family():
    rng = np.random.default_rng(1)
    cl = [g for g in range(8) for _ in range(10)]
    for shift in (0.0, 0.15, 0.4):
        d = rng.normal(shift, 0.5, 80)
        _, lo, hi = cluster_t_interval(d, cl)
        assert (p_value(d, cl) < 0.05) == (lo > 0 or hi < 0)
    assert p_value(np.zeros(80), cl) == 1.0 and p_value(np.full(80, 0.5), cl) == 0.0
    # Holm: step-down; NaNs are not tested and not counted
    assert holm([0.01, 0.04, 0.03, float("nan")]) == [True, False, False, False]
    assert holm([0.001, 0.02, 0.5]) == [True, True, False]
    assert holm_adjusted([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert [a <= 0.05 for a in holm_adjusted([0.001, 0.02, 0.5])] == holm([0.001, 0.02, 0.5])


def _write_run(path: Path, *, metrics: list[str] | None = None) -> Path:
    """A run folder with strategies A (right on every probe) and B (wrong on the first probe of each
    conversation), 6 conversations × 3 probes, one knowledge-update probe per conversation."""
    path.mkdir()
    manifest = {"run_id": "r1", "name": "t", "format_version": 2, "seed": 0, "status": "completed",
                "config": {"bootstrap": 300, "metrics": metrics}, "strategies": [{"name": "A"}, {"name": "B"}],
                "datasets": [{"name": "d", "hash": "sha256:" + "0" * 20}], "models": {}}
    (path / "manifest.json").write_text(json.dumps(manifest))
    units, probes = [], []
    for s in ("A", "B"):
        for c in range(6):
            base = {"run_id": "r1", "attempt": f"{s}{c}", "strategy": s, "dataset": "d", "conversation_id": f"c{c}"}
            units.append({**base, "event": "end", "namespace": f"c{c}", "conversation_ids": [f"c{c}"], "status": "ok",
                          "at": "2024-01-01T00:00:00"})
            for k in range(3):
                wrong = s == "B" and k == 0
                update = k == 2
                probes.append({**base, "probe_id": f"p{k}", "after_turn": "t1", "category": "knowledge_update" if update else "single_hop",
                               "question": "where?", "gold": [["Berlin"]], "gold_match": "any",
                               "superseded": ["Lisbon"] if update else [], "evidence": ["t1"], "asked_at": "2024-01-01",
                               "gold_written": k != 1, "context": "Lisbon" if wrong else "Berlin",
                               "context_items": [{"text": "Lisbon" if wrong else "Berlin", "source_turn_ids": ["t1"],
                                                  "kind": "message", "section": "recent"}],
                               "context_source_turn_ids": ["t1"], "answer": "Lisbon" if wrong else "Berlin",
                               "context_tokens": 3})
    if True:  # B did not answer one probe of c5: pairing keeps only common probes
        probes = [p for p in probes if not (p["strategy"] == "B" and p["conversation_id"] == "c5" and p["probe_id"] == "p1")]
    (path / "units.jsonl").write_text("".join(json.dumps(u) + "\n" for u in units))
    (path / "probes.jsonl").write_text("".join(json.dumps(p) + "\n" for p in probes))
    return path


def test_compare_pairs_probes_by_conversation(tmp_path):
    res = load_run(_write_run(tmp_path / "run"))
    cmp = res.compare("A", "B", metrics=["answer_correct"], by_category=False)
    row = cmp.set_index("metric").loc["answer_correct"]
    assert (row["n"], row["conversations"], row["a_only"], row["b_only"]) == (17, 6, 6, 0)
    assert row["diff"] == pytest.approx(6 / 17) and row["verdict"] == "A better"
    assert "cluster-robust t over users" in cmp.attrs["caption"]
    assert row["p_value"] < 0.05
    by_cat = res.compare("A", "B", metrics=["update_answer"])
    assert set(by_cat["category"]) == {"all", "knowledge_update"}
    assert "update_answer.current_only" in set(by_cat["metric"])
    with pytest.raises(ValueError, match="Did you mean 'A'"):
        res.compare("AA", "B")


def test_compare_all_runs_every_strategy_against_the_reference(tmp_path):
    res = load_run(_write_run(tmp_path / "run"))
    out = res.compare_all("B", metrics=["answer_correct"])
    assert list(out["a"].unique()) == ["A"] and set(out["b"]) == {"B"}


def test_tables_state_ci_method_aggregation_and_ceiling(tmp_path):
    res = load_run(_write_run(tmp_path / "run"))
    mt = res.metrics_table(by_category=False)
    assert set(mt["ci_method"].dropna()) - {""} == {Intervals().caption()}
    a = mt[mt["strategy"] == "A"].set_index("metric")
    assert a.loc["update_answer.current_only", "aggregation"] == "proportions"
    assert a.loc["update_answer.current_only", "mean"] == 1.0
    b = mt[mt["strategy"] == "B"].set_index("metric")
    assert b.loc["update_answer.current_only", "mean"] == pytest.approx(1.0)  # the update probe is not the wrong one
    assert b.loc["answer_correct", "mean"] == pytest.approx(11 / 17)
    assert a.loc["evidence_recall", "ceiling"] == pytest.approx(2 / 3)  # probe p1 never had its gold written
    assert a.loc["answer_correct", "ceiling"] == 1.0
    assert a.loc["evidence_recall", "description"].startswith("string recall")
    assert a.loc["content_recall", "description"].startswith("content-preserving recall")
    assert a.loc["provenance_recall", "description"].startswith("provenance recall")
    assert res.ceilings().loc["d", "evidence_recall"] == pytest.approx(2 / 3)
    summary = res.summary()
    assert summary.attrs["caption"].startswith("95% CI: cluster-robust t over users")
    assert summary.loc["A", "evidence_recall_ceiling"] == pytest.approx(2 / 3)


def test_config_metrics_limit_the_headline(tmp_path):
    res = load_run(_write_run(tmp_path / "run", metrics=["answer_correct", "update_answer"]))
    summary = res.summary()
    assert "answer_correct" in summary and "update_answer.stale_only" in summary
    assert "evidence_recall" not in summary and "content_recall" not in summary


@pytest.mark.slow
def test_report_cli_prints_paired_tables(tmp_path, capsys):
    run = _write_run(tmp_path / "run", metrics=["answer_correct"])
    assert main(["report", str(run), "--compare", "A", "B"]) == 0
    out = capsys.readouterr().out
    assert "A (A) vs B (B), paired" in out and "A better" in out and "cluster-robust t over users" in out
    assert (run / "ceilings.csv").exists() and "ci_method" in (run / "summary.csv").read_text()
    assert main(["report", str(run), "--reference", "B"]) == 0
    assert "every strategy (A) vs B (B)" in capsys.readouterr().out
    assert main(["report", str(run), "--compare", "A", "Bee"]) == 2
    assert "no strategy 'Bee'" in capsys.readouterr().err


def test_intervals_cluster_by_user_not_by_conversation(tmp_path):
    """Conversations of one user share a namespace (and its memory): they are one cluster."""
    run = _write_run(tmp_path / "run")
    # c0..c5 become the threads of three users, u0 = c0+c1, u1 = c2+c3, u2 = c4+c5: one unit per user
    units = []
    for s in ("A", "B"):
        for k in range(3):
            units.append({"run_id": "r1", "attempt": f"{s}u{k}", "strategy": s, "dataset": "d", "event": "end",
                          "namespace": f"u{k}", "conversation_ids": [f"c{2 * k}", f"c{2 * k + 1}"],
                          "conversation_id": None, "status": "ok", "at": "2024-01-01T00:00:00"})
    probes = [json.loads(line) for line in (run / "probes.jsonl").read_text().splitlines()]
    for pr in probes:
        pr["attempt"] = f"{pr['strategy']}u{int(pr['conversation_id'][1]) // 2}"
    (run / "units.jsonl").write_text("".join(json.dumps(u) + "\n" for u in units))
    (run / "probes.jsonl").write_text("".join(json.dumps(pr) + "\n" for pr in probes))
    res = load_run(run)
    assert len(res.probes) == len(probes)
    assert res.cluster_of("d", "c3") == ("d", "u1")
    mt = res.metrics_table(by_category=False).set_index(["strategy", "metric"])
    assert mt.loc[("B", "answer_correct"), "conversations"] == 3
    cmp = res.compare("A", "B", metrics=["answer_correct"], by_category=False).set_index("metric")
    assert cmp.loc["answer_correct", "conversations"] == 3
    # the interval is the cluster-robust t over the 3 users (t with 2 df), not over the 6 threads
    probes = res.probes
    b = probes[probes["strategy"] == "B"]
    expected = cluster_t_interval(b["answer_correct"], [res.cluster_of("d", c) for c in b["conversation_id"]])
    assert (mt.loc[("B", "answer_correct"), "ci_low"], mt.loc[("B", "answer_correct"), "ci_high"]) == pytest.approx(expected[1:])
    by_thread = cluster_t_interval(b["answer_correct"], list(b["conversation_id"]))
    assert expected[1:] != pytest.approx(by_thread[1:])


def test_the_bootstrap_method_is_still_selectable(tmp_path):
    run = _write_run(tmp_path / "run")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["config"]["intervals"] = "bootstrap"
    (run / "manifest.json").write_text(json.dumps(manifest))
    res = load_run(run)
    assert res.intervals.method == "bootstrap" and res.intervals.n_boot == 300
    assert "percentile bootstrap over users" in res.summary().attrs["caption"]


BASE_CONFIG = {"datasets": ["datasets/starter.yaml"], "strategies": [{"name": "no_memory"}]}


@pytest.mark.parametrize("extra, named", [
    ({"bootstrap": 200}, "bootstrap: 200"),
    ({"bootstrap": 0}, "bootstrap: 0"),
    ({"gate": {"bootstrap": 500}}, "gate.bootstrap: 500"),
])
def test_a_resample_count_under_cluster_t_is_refused_naming_it(extra, named):
    """``bootstrap:`` changes nothing under the default ``cluster_t`` intervals: a config that sets it
    is told so instead of being silently ignored."""
    from memlab.harness.config import ConfigError, validate_config

    with pytest.raises(ConfigError, match=f"{named}: resamples are used only by `intervals: bootstrap`"):
        validate_config({**BASE_CONFIG, **extra})
    assert validate_config({**BASE_CONFIG, **extra, "intervals": "bootstrap"}).intervals == "bootstrap"
    assert validate_config({**BASE_CONFIG, "bootstrap": 1000}).bootstrap == 1000  # the default, stated: harmless


def test_an_older_run_folder_that_recorded_an_inert_count_still_reads():
    from memlab.harness.config import ConfigError, recorded_config, validate_config

    recorded = {**BASE_CONFIG, "bootstrap": 0, "intervals": "cluster_t", "gate": {"bootstrap": 200}}
    with pytest.raises(ConfigError):
        validate_config(dict(recorded))
    assert recorded_config(recorded, "old/manifest.json config").bootstrap == 1000
    kept = recorded_config({**BASE_CONFIG, "bootstrap": 300, "intervals": "bootstrap"}, "m")
    assert kept.bootstrap == 300  # a bootstrap run's count is what its intervals used


def test_no_shipped_config_or_notebook_sets_a_resample_count():
    root = Path(__file__).resolve().parents[1]
    import re

    shipped = [*root.glob("evals/**/*.yaml"), *root.glob("notebooks/*.py"), *root.glob("notebooks/*.ipynb")]
    setting = re.compile(r"^\s*(bootstrap:\s*\d|bootstrap = \d)|bootstrap=bootstrap|-p bootstrap", re.M)
    assert shipped and not [p.name for p in shipped if setting.search(p.read_text(encoding="utf-8"))]
