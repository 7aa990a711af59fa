"""Metrics on hand-built probe records: what each credits, its aggregation and its ceiling."""

from __future__ import annotations

import numpy as np
import pytest

from memlab.analysis.metrics import METRICS, check_metric_names, score_probe, update_outcome
from memlab.runfolder.probe_record import ProbeRow
from memlab.scoring import gold_present, gold_written


def probe(**kw):
    base = {"gold": [["Lisbon", "Lisboa"]], "gold_match": "any", "superseded": [], "forbidden": [], "abstain": False,
            "evidence": ["t3"], "context": "", "context_source_turn_ids": [], "context_items": [], "answer": "",
            "error": None, "judge": None, "gold_written": True}
    return {**base, **kw}


def values(row):
    """Every metric's value for a hand-built probe row."""
    return {name: score.value for name, score in score_probe(ProbeRow.from_row(row)).items()}


def event(row):
    return ProbeRow.from_row(row).event


def item(text, *sources, kind="message"):
    return {"text": text, "source_turn_ids": list(sources), "kind": kind, "section": "memory"}


def test_evidence_recall_by_string_and_alias_and_all_parts():
    assert values(probe(context="I live in Lisboa now"))["evidence_recall"] == 1.0
    assert values(probe(context="I live in Porto"))["evidence_recall"] == 0.0
    multi = probe(gold=[["Ana"], ["nurse"]], gold_match="all")
    assert values({**multi, "context": "Ana works as a nurse"})["evidence_recall"] == 1.0
    assert values({**multi, "context": "Ana works as a teacher"})["evidence_recall"] == 0.0
    assert gold_present("Ana", [["Ana"], ["nurse"]], "any")


def test_evidence_recall_normalises_values_on_both_sides():
    p = probe(gold=[["8 May 2023"]], context="[2023-05-08] Maria: the lease starts today")
    assert values(p)["evidence_recall"] == 1.0
    assert values(probe(gold=[["three"]], context="we have 3 kids"))["evidence_recall"] == 1.0


def test_provenance_recall_counts_evidence_turns_in_context():
    p = probe(evidence=["t3", "t9"], context_source_turn_ids=["t3", "t4"])
    assert values(p)["provenance_recall"] == 0.5


def test_content_recall_needs_the_value_to_survive_the_derivation():
    lossy = probe(evidence=["t3", "t9"], context_source_turn_ids=["t3", "t9"],
                  context_items=[item("Summary: the user talked about moving abroad.", "t3", "t9", kind="summary")])
    s = values(lossy)
    assert s["provenance_recall"] == 1.0 and s["content_recall"] == 0.0
    kept = probe(evidence=["t3", "t9"], context_items=[item("User moved to Lisboa.", "t3", kind="fact"),
                                                       item("User likes trams.", "t9", kind="fact")])
    assert values(kept)["content_recall"] == 0.5
    # a gold form in an item from another turn does not credit the evidence turn
    other = probe(evidence=["t3"], context_items=[item("I live in Lisbon", "t7")])
    assert values(other)["content_recall"] == 0.0


def test_content_recall_is_none_for_runs_without_context_items():
    p = probe(context="Lisbon")
    del p["context_items"]
    assert values(p)["content_recall"] is None
    assert values(probe(context_items=None))["content_recall"] is None


def test_answer_correct_uses_containment_or_judge():
    assert values(probe(answer="She lives in Lisbon."))["answer_correct"] == 1.0
    assert values(probe(answer="Porto"))["answer_correct"] == 0.0
    assert values(probe(answer="Porto", judge={"correct": True, "abstained": False}))["answer_correct"] == 1.0
    assert values(probe(answer=None, error="AnswerFromMemory failed"))["answer_correct"] == 0.0
    assert values(probe(answer=None, error="x"))["errored"] == 1.0


def test_abstention_metrics():
    should = probe(gold=[], abstain=True, evidence=[])
    assert values({**should, "answer": "I don't know"})["abstain_when_should"] == 1.0
    assert values({**should, "answer": "You haven't told me which car."})["abstain_when_should"] == 1.0
    assert values({**should, "answer": "Lisbon"})["abstain_when_should"] == 0.0
    assert values({**should, "answer": "I don't know"})["answer_correct"] == 1.0
    assert values({**should, "answer": "I don't know"})["evidence_recall"] is None
    assert values(probe(answer="I'm not sure."))["false_abstention"] == 1.0
    assert values(probe(answer="I don't know Porto, but you live in Lisbon"))["false_abstention"] == 0.0


@pytest.mark.parametrize(("context", "answer", "in_context", "in_answer"), [
    ("I moved from Lisbon to Berlin.", "Berlin", "both", "current_only"),
    ("I live in Lisbon.", "Lisbon", "stale_only", "stale_only"),
    ("I live in Berlin.", "Berlin, formerly Lisbon", "current_only", "both"),
    ("nothing relevant", "I don't know", "neither", "neither"),
])
def test_knowledge_update_is_one_outcome_per_probe(context, answer, in_context, in_answer):
    s = values(probe(gold=[["Berlin"]], superseded=["Lisbon"], context=context, answer=answer))
    assert (s["update_context"], s["update_answer"]) == (in_context, in_answer)
    assert s["update_correct"] == float(in_answer == "current_only")


def test_knowledge_update_outcomes_apply_only_to_update_probes_and_errors_are_neither():
    s = values(probe())
    assert s["update_context"] is None and s["update_answer"] is None and s["update_correct"] is None
    err = values(probe(gold=[["Berlin"]], superseded=["Lisbon"], context="Lisbon", answer=None, error="boom"))
    assert err["update_answer"] == "neither" and err["update_correct"] == 0.0
    assert update_outcome("Berlin and Lisbon", event(probe(gold=[["Berlin"]], superseded=["Lisbon"]))) == "both"


def test_injection_leak():
    p = probe(forbidden=["hunter2"], context="password is hunter2")
    assert values(p)["forbidden_leak"] == 1.0
    assert values(probe(forbidden=["hunter2"], context="nothing", answer="no"))["forbidden_leak"] == 0.0


def test_answer_f1():
    assert values(probe(answer="Lisbon"))["answer_f1"] == 1.0
    assert 0 < values(probe(gold=[["golden retriever"]], answer="a retriever"))["answer_f1"] < 1


def test_metrics_declare_direction_and_aggregation():
    assert METRICS.get("evidence_recall").higher_is_better is True
    assert METRICS.get("false_abstention").higher_is_better is False
    assert {METRICS.get(n).aggregation for n in METRICS.names()} == {"mean", "proportions"}
    ku = METRICS.get("update_answer")
    assert ku.aggregation == "proportions"
    assert [c for c, _ in ku.columns()] == [f"update_answer.{lvl}" for lvl in ("current_only", "both", "stale_only", "neither")]
    directions = dict(ku.columns())
    assert directions["update_answer.current_only"] is True and directions["update_answer.stale_only"] is False


def test_proportions_aggregate_to_level_shares_and_means_to_means():
    ku = METRICS.get("update_answer")
    ind = ku.indicators(["current_only", "both", None, "current_only"])
    assert np.nanmean(ind["update_answer.current_only"]) == pytest.approx(2 / 3)
    assert np.isnan(ind["update_answer.both"][2])
    total = sum(np.nanmean(v) for v in ind.values())
    assert total == pytest.approx(1.0)
    mean = METRICS.get("evidence_recall").indicators([1.0, None, 0.0])["evidence_recall"]
    assert np.nanmean(mean) == 0.5


def test_ceilings_use_gold_written():
    rec = METRICS.get("evidence_recall")
    assert rec.can_hit(event(probe(gold_written=False))) == 0.0
    assert rec.can_hit(event(probe(gold_written=True))) == 1.0
    assert np.isnan(rec.can_hit(event(probe(gold_written=None))))
    assert METRICS.get("answer_correct").can_hit(event(probe(gold_written=False))) == 1.0


def test_gold_written_checks_every_part_across_turns():
    turns = ["I'm Ana.", "I work as a nurse.", "It is 3 km away"]
    assert gold_written([["Ana"], ["nurse"]], "all", turns)
    assert not gold_written([["Ana"], ["doctor"]], "all", turns)
    assert gold_written([["Bo"], ["nurse"]], "any", turns)
    assert gold_written([["three kilometres"]], "any", turns)
    assert not gold_written([], "any", turns)
    assert not gold_written([["Ana"]], "any", [])


def test_metric_names_are_checked_with_a_hint():
    assert check_metric_names(["answer_correct"]) == ["answer_correct"]
    with pytest.raises(ValueError, match=r"metrics\[1\].*Did you mean 'answer_correct'"):
        check_metric_names(["evidence_recall", "answer_corect"])


def test_run_config_metrics_are_validated_with_did_you_mean():
    from memlab.harness.config import ConfigError, validate_config

    base = {"datasets": ["d.yaml"], "strategies": [{"name": "no_memory"}]}
    assert validate_config({**base, "metrics": ["answer_correct", "update_answer"]}).metrics == ["answer_correct", "update_answer"]
    assert validate_config(base).metrics is None
    with pytest.raises(ConfigError, match=r"metrics.*Did you mean 'evidence_recall'"):
        validate_config({**base, "metrics": ["evidence_recal"]})
    with pytest.raises(ConfigError, match="listed twice"):
        validate_config({**base, "metrics": ["errored", "errored"]})
    with pytest.raises(ConfigError, match="at least one metric"):
        validate_config({**base, "metrics": []})
