"""Metrics on hand-built probe records, and the bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

from memlab.metrics import METRICS, bootstrap_ci, contains, gold_present, score_probe


def probe(**kw):
    base = {"gold": [["Lisbon", "Lisboa"]], "gold_match": "any", "superseded": [], "forbidden": [], "abstain": False,
            "evidence": ["t3"], "context": "", "context_source_turn_ids": [], "answer": "", "error": None, "judge": None}
    return {**base, **kw}


def test_containment_is_normalised_and_word_bounded():
    assert contains("[2024-05-01] Maria: I moved to LISBON!", "lisbon")
    assert contains("she adopted the Golden Retriever.", "a golden retriever")
    assert not contains("Lisbonne is not it", "Lisbon")
    assert not contains("", "Lisbon") and not contains(None, "Lisbon")


def test_evidence_recall_by_string_and_alias_and_all_parts():
    assert score_probe(probe(context="I live in Lisboa now"))["evidence_recall"] == 1.0
    assert score_probe(probe(context="I live in Porto"))["evidence_recall"] == 0.0
    multi = probe(gold=[["Ana"], ["nurse"]], gold_match="all")
    assert score_probe({**multi, "context": "Ana works as a nurse"})["evidence_recall"] == 1.0
    assert score_probe({**multi, "context": "Ana works as a teacher"})["evidence_recall"] == 0.0
    assert gold_present("Ana", [["Ana"], ["nurse"]], "any")


def test_provenance_recall_counts_evidence_turns_in_context():
    p = probe(evidence=["t3", "t9"], context_source_turn_ids=["t3", "t4"])
    assert score_probe(p)["provenance_recall"] == 0.5


def test_answer_correct_uses_containment_or_judge():
    assert score_probe(probe(answer="She lives in Lisbon."))["answer_correct"] == 1.0
    assert score_probe(probe(answer="Porto"))["answer_correct"] == 0.0
    assert score_probe(probe(answer="Porto", judge={"correct": True, "abstained": False}))["answer_correct"] == 1.0
    assert score_probe(probe(answer=None, error="AnswerFromMemory failed"))["answer_correct"] == 0.0
    assert score_probe(probe(answer=None, error="x"))["errored"] == 1.0


def test_abstention_metrics():
    should = probe(gold=[], abstain=True, evidence=[])
    assert score_probe({**should, "answer": "I don't know"})["abstain_when_should"] == 1.0
    assert score_probe({**should, "answer": "Lisbon"})["abstain_when_should"] == 0.0
    assert score_probe({**should, "answer": "I don't know"})["answer_correct"] == 1.0
    assert score_probe({**should, "answer": "I don't know"})["evidence_recall"] is None
    assert score_probe(probe(answer="I don't know"))["false_abstention"] == 1.0
    assert score_probe(probe(answer="Lisbon"))["false_abstention"] == 0.0


def test_knowledge_update_stale_leakage():
    ku = probe(gold=[["Berlin"]], superseded=["Lisbon"])
    s = score_probe({**ku, "context": "I moved to Lisbon. Now I live in Berlin.", "answer": "Berlin"})
    assert (s["stale_in_context"], s["stale_in_answer"], s["update_current"]) == (1.0, 0.0, 1.0)
    s = score_probe({**ku, "context": "I live in Lisbon.", "answer": "Lisbon"})
    assert (s["stale_in_context"], s["stale_in_answer"], s["update_current"]) == (1.0, 1.0, 0.0)
    assert score_probe(probe())["stale_in_context"] is None


def test_injection_leak():
    p = probe(forbidden=["hunter2"], context="password is hunter2")
    assert score_probe(p)["forbidden_leak"] == 1.0
    assert score_probe(probe(forbidden=["hunter2"], context="nothing", answer="no"))["forbidden_leak"] == 0.0


def test_answer_f1():
    assert score_probe(probe(answer="Lisbon"))["answer_f1"] == 1.0
    assert 0 < score_probe(probe(gold=[["golden retriever"]], answer="a retriever"))["answer_f1"] < 1


def test_metrics_declare_direction():
    assert METRICS.get("evidence_recall").higher_is_better is True
    assert METRICS.get("stale_in_answer").higher_is_better is False
    assert all(METRICS.get(n).aggregation == "mean" for n in METRICS.names())


def test_bootstrap_ci_brackets_the_mean_and_is_deterministic():
    x = np.array([1.0] * 30 + [0.0] * 10 + [np.nan] * 3)
    m, lo, hi = bootstrap_ci(x, n_boot=2000, seed=1)
    assert m == pytest.approx(0.75) and lo < m < hi and hi - lo < 0.35
    assert bootstrap_ci(x, n_boot=2000, seed=1) == (m, lo, hi)
    assert np.isnan(bootstrap_ci(np.array([np.nan]))[0])
