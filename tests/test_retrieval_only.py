"""``answer_probes: false``: a retrieval-only run. Each probe's context is assembled exactly as in a run
that answers (an agent's searches included) and recorded; the answerer is never called; the metrics that
score the answer are not applicable, and a config that asks for one (or for a judge) is refused.
``memlab suite-check`` plays its runs this way (its contrasts read string recall alone)."""

from __future__ import annotations

from pathlib import Path

import pytest
from memlab.analysis.results import load_run
from memlab.harness.config import ConfigError, validate_config
from memlab.harness.runner import Runner
from memlab.runfolder.probe_record import ProbeEvent
from memlab.runfolder.recorder import read_jsonl
from memlab.scoring.metric_registry import METRICS, NOT_ANSWERED

ROOT = Path(__file__).resolve().parents[1]
STRATEGIES = [{"name": "full_context"}, {"name": "fact_rag"},
              {"name": "agentic", "preset": "fact_rag", "answer": {"type": "tools"}}]  # searches before it answers


def _run(tmp: Path, name: str, **extra) -> Path:
    config = validate_config({"name": name, "datasets": [str(ROOT / "tests" / "fixtures" / "native_small.yaml")],
                              "output_dir": str(tmp / name), "embedding_cache": str(tmp / "emb.npz"),
                              "strategies": STRATEGIES, **extra})
    return Runner(config, progress=False).run()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("retrieval")
    return _run(tmp, "answered"), _run(tmp, "retrieval", answer_probes=False)


KEY = ["strategy", "conversation_id", "probe_id"]


def test_the_contexts_are_those_of_the_answering_run_and_no_answer_is_asked(runs):
    answered, retrieval = (load_run(r).probes.set_index(KEY).sort_index() for r in runs)
    assert len(answered) == len(retrieval) > 0
    for col in ("context", "context_tokens", "context_source_turn_ids", "evidence_recall", "provenance_recall",
                "content_recall", "agent_steps"):
        assert answered[col].astype(str).equals(retrieval[col].astype(str)), col
    assert retrieval["answered"].eq(False).all() and answered["answered"].eq(True).all()
    assert retrieval["answer"].isna().all() and retrieval["error"].isna().all()
    # the agent's searches still ran (they build its context); only the answer role's calls are gone
    calls = {r: [c for c in read_jsonl(Path(r) / "calls.jsonl") if c.get("phase") == "probe"] for r in runs}
    assert any(c["purpose"] == "answer" and c["signature"] == "AnswerFromMemory" for c in calls[runs[0]])
    assert not [c for c in calls[runs[1]] if c["signature"] == "AnswerFromMemory"]
    assert [c for c in calls[runs[1]] if c["strategy"] == "agentic"], "the agent's probe-time searches are recorded"


def test_answer_metrics_are_not_applicable_and_context_metrics_are_scored(runs):
    res = load_run(runs[1])
    probes = res.probes
    for name in METRICS.names():
        m = METRICS.get(name)
        if m.scores_answer and m.aggregation == "mean" and name in probes:
            assert probes[name].isna().all(), name
    assert probes["evidence_recall"].notna().any() and probes["errored"].eq(0).all()
    summary = res.summary()
    assert summary["evidence_recall"].notna().all()


def test_a_metric_reads_not_applicable_with_the_reason_on_an_unanswered_probe():
    p = ProbeEvent(probe_id="p", question="Where?", gold=[["Lisbon"]], context="I live in Lisbon.", answered=False)
    for name in ("answer_correct", "answer_f1", "false_abstention"):
        score = METRICS.get(name).score(p)
        assert score.value is None and score.explanation == NOT_ANSWERED
        assert METRICS.get(name).value(p) is None
    assert METRICS.get("evidence_recall").value(p) == 1.0
    errored = METRICS.get("errored").score(p)
    assert errored.value == 0.0 and "not answered" in errored.explanation
    # the same probe answered is scored as before
    answered = ProbeEvent(probe_id="p", question="Where?", gold=[["Lisbon"]], context="I live in Lisbon.", answer="Lisbon")
    assert METRICS.get("answer_correct").value(answered) == 1.0


@pytest.mark.parametrize("extra, message", [
    ({"metrics": ["evidence_recall", "answer_correct"]}, "answer_correct"),
    ({"gate": {"metrics": {"update_answer.current_only": {}}}}, "update_answer"),
    ({"judge": {"provider": "offline"}}, "judge"),
])
def test_a_config_that_needs_answers_is_refused(extra, message, tmp_path):
    with pytest.raises(ConfigError, match=message):
        validate_config({"name": "r", "datasets": [str(ROOT / "tests" / "fixtures" / "native_small.yaml")],
                         "strategies": [{"name": "full_context"}], "answer_probes": False, **extra})


def test_context_metrics_and_cost_columns_are_accepted(tmp_path):
    config = validate_config({"name": "r", "datasets": [str(ROOT / "tests" / "fixtures" / "native_small.yaml")],
                              "strategies": [{"name": "full_context"}], "answer_probes": False,
                              "metrics": ["evidence_recall", "update_context"],
                              "gate": {"metrics": {"evidence_recall": {}, "context_tokens": {}}}})
    assert config.answer_probes is False
