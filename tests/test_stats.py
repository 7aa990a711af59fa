"""Conversation-clustered intervals, paired comparisons, and the tables and CLI that show them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memlab.cli import main
from memlab.results import load_run
from memlab.stats import Bootstrap, cluster_bootstrap, paired_compare, verdict


def test_cluster_bootstrap_is_seeded_and_brackets_the_mean():
    x = np.array([1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, np.nan])
    cl = ["c1", "c1", "c2", "c2", "c3", "c3", "c4", "c4", "c4"]
    m, lo, hi = cluster_bootstrap(x, cl, Bootstrap(2000, seed=1))
    assert m == pytest.approx(5 / 8) and lo < m < hi
    assert cluster_bootstrap(x, cl, Bootstrap(2000, seed=1)) == (m, lo, hi)
    y = np.random.default_rng(0).random(60)
    groups = [i // 3 for i in range(60)]
    assert cluster_bootstrap(y, groups, Bootstrap(200, seed=1)) != cluster_bootstrap(y, groups, Bootstrap(200, seed=2))


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
    assert Bootstrap(500, seed=3).caption() == "95% CI: bootstrap over conversations, 500 resamples, seed 3"


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
    assert "bootstrap over conversations, 300 resamples" in cmp.attrs["caption"]
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
    assert set(mt["ci_method"].dropna()) - {""} == {"95% CI: bootstrap over conversations, 300 resamples, seed 0"}
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
    assert summary.attrs["caption"].startswith("95% CI: bootstrap over conversations")
    assert summary.loc["A", "evidence_recall_ceiling"] == pytest.approx(2 / 3)


def test_config_metrics_limit_the_headline(tmp_path):
    res = load_run(_write_run(tmp_path / "run", metrics=["answer_correct", "update_answer"]))
    summary = res.summary()
    assert "answer_correct" in summary and "update_answer.stale_only" in summary
    assert "evidence_recall" not in summary and "content_recall" not in summary


def test_report_cli_prints_paired_tables(tmp_path, capsys):
    run = _write_run(tmp_path / "run", metrics=["answer_correct"])
    assert main(["report", str(run), "--compare", "A", "B"]) == 0
    out = capsys.readouterr().out
    assert "A (A) vs B (B), paired" in out and "A better" in out and "bootstrap over conversations" in out
    assert (run / "ceilings.csv").exists() and "ci_method" in (run / "summary.csv").read_text()
    assert main(["report", str(run), "--reference", "B"]) == 0
    assert "every strategy (A) vs B (B)" in capsys.readouterr().out
    assert main(["report", str(run), "--compare", "A", "Bee"]) == 2
    assert "no strategy 'Bee'" in capsys.readouterr().err
