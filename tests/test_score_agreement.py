"""A metric's value and its explanation come from one function and must say the same thing.

Over every probe of a small real run (two datasets, four strategies from an empty context to the
oracle), plus the same records made to error, to carry a judge's verdict and to leak a planted
string, every registered metric that explains itself is scored, and for each probe where it
applies the explanation is read back against the value: a hit names where the gold was found, a
miss says it was not there, a level names what the text holds, a share counts the turns named. A
metric whose explanation contradicts its value (planted below) is caught.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from memlab.scoring.metric_registry import Metric, Score
from memlab.analysis.metrics import METRICS, score_probe
from memlab.runfolder.probe_record import ProbeEvent, ProbeRow

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _found(p: ProbeEvent, why: str) -> bool:
    """The explanation of a presence check says the gold is there (every part for ``all``)."""
    if p.match == "all":
        return "found '" in why and "no form of" not in why and "is empty" not in why
    return "found '" in why


def _named(why: str, phrase: str) -> set[str]:
    """The comma-separated turn ids after ``phrase`` in an explanation (up to the next ';')."""
    return {t.strip() for m in re.finditer(re.escape(phrase) + r" ([^;]+)", why) for t in m.group(1).split(",")}


def _update_level(p: ProbeEvent, why: str) -> str:
    current, stale = _found(p, why.split("; stale value(s) present")[0]), "stale value(s) present" in why
    return {(True, False): "current_only", (True, True): "both", (False, True): "stale_only"}.get((current, stale), "neither")


def _binary(said_hit: bool, value: float) -> bool:
    return said_hit == (value == 1.0)


def _answer_correct(p: ProbeEvent, s: Score) -> bool:
    why = s.explanation
    if p.error:
        return s.value == 0.0 and why.startswith("no answer")
    if p.abstain:
        return _binary("says it does not know" in why, s.value)
    if why.startswith("judge ("):
        return _binary(why.split(": ", 1)[1].startswith("correct"), s.value)
    return _binary(_found(p, why), s.value)


def _abstention(p: ProbeEvent, s: Score) -> bool:
    if p.error:
        return s.value == 0.0 and s.explanation.startswith("no answer")
    return _binary("says it does not know" in s.explanation, s.value)


def _answer_f1(p: ProbeEvent, s: Score) -> bool:
    if p.error or not p.answer:
        return s.value == 0.0 and s.explanation in (f"no answer: {str(p.error)[:120]}", "the answer is empty")
    return s.explanation.startswith(f"best token F1 {s.value:.2f} against '")


def _update(p: ProbeEvent, s: Score) -> bool:
    if s.explanation.startswith("no answer"):
        return bool(p.error) and s.value == "neither"
    return _update_level(p, s.explanation) == s.value


AGREES: dict[str, Callable[[ProbeEvent, Score], bool]] = {
    "evidence_recall": lambda p, s: _binary(_found(p, s.explanation), s.value),
    "provenance_recall": lambda p, s: len(_named(s.explanation, "context derives from evidence")) == s.value * len(p.evidence)
    and len(_named(s.explanation, "no context line derives from")) == (1 - s.value) * len(p.evidence),
    "content_recall": lambda p, s: s.explanation.count(": carried by '") == round(s.value * len(p.evidence)),
    "answer_correct": _answer_correct,
    "answer_f1": _answer_f1,
    "update_context": _update,
    "update_answer": _update,
    "update_correct": lambda p, s: _binary(s.explanation.startswith("current_only: "), s.value),
    "abstain_when_should": _abstention,
    "false_abstention": _abstention,
    "forbidden_leak": lambda p, s: _binary("planted '" in s.explanation and not s.explanation.startswith("no planted"), s.value),
    "errored": lambda p, s: _binary(s.explanation.startswith("no answer: "), s.value),
}
"""Per metric that explains itself: does the explanation say what the value says."""


def disagreements(metrics: list[Metric], records: list[ProbeRow]) -> list[str]:
    """Every (probe, metric) whose explanation contradicts its value, or that has a value and no
    explanation although the metric explains itself."""
    out = []
    for record in records:
        for m in metrics:
            s = m.score(record.event)
            if s.value is None:
                continue
            where = f"{record.scope.strategy}/{record.event.probe_id} {m.name}={s.value!r}"
            if not s.explanation:
                out.append(f"{where}: no explanation")
            elif not AGREES[m.name](record.event, s):
                out.append(f"{where}: {s.explanation}")
    return out


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> list[ProbeRow]:
    """Every probe of a small real run, and the same records errored, judged and leaking."""
    import memlab
    from memlab.harness.config import validate_config

    out_dir = tmp_path_factory.mktemp("agreement")
    cfg = validate_config({
        "name": "agreement", "embedding_cache": None, "output_dir": str(out_dir),
        "datasets": [str(FIXTURES / "threads_small.yaml"), str(FIXTURES / "native_small.yaml")],
        "strategies": [{"name": "no_memory"}, {"name": "window", "short_term": {"type": "recent_window", "n": 2}},
                       {"name": "fact_rag"}, {"name": "oracle"}]})
    run = memlab.load_run(memlab.run(cfg, progress=False))
    played = [ProbeRow.from_row(run.record(r)) for r in run.probes.to_dict("records")]
    assert len(played) >= 20 and any(r.event.abstain for r in played) and any(r.event.superseded for r in played)
    made = []
    for i, r in enumerate(played):
        e = r.event
        words = e.context.split()
        made.append(replace(r, event=replace(e, error="model down", answer=None)))
        made.append(replace(r, event=replace(e, judge={"correct": i % 2 == 0, "abstained": i % 3 == 0, "model": "j"})))
        made.append(replace(r, event=replace(e, forbidden=[words[len(words) // 2]] if words and i % 2 else ["hunter2"])))
    return played + made


def test_every_explaining_metric_has_an_agreement_rule():
    """A built-in metric that explains itself is checked below; one without explanations gives bare
    values (the ragas metrics)."""
    explaining = {n for n in METRICS.names() if not n.startswith("ragas_")}
    assert explaining == set(AGREES)


def test_every_explanation_agrees_with_its_value(records):
    metrics = [METRICS.get(n) for n in AGREES]
    wrong = disagreements(metrics, records)
    assert not wrong, "\n".join(wrong)
    applied = {(n, s.value) for r in records for n, s in score_probe(r, list(AGREES)).items() if s.value is not None}
    for name in ("evidence_recall", "answer_correct", "forbidden_leak", "errored", "false_abstention"):
        assert {(name, 0.0), (name, 1.0)} <= applied, f"the run scores {name} both ways"
    assert {v for n, v in applied if n == "update_answer"} >= {"current_only", "neither"}


def test_a_metric_whose_explanation_contradicts_its_value_is_caught(records):
    recall = METRICS.get("evidence_recall")

    def contradicting(p: ProbeEvent) -> Score:
        s = recall.score(p)
        return s if s.value is None else Score(1.0 - s.value, s.explanation)

    planted = replace(recall, fn=contradicting)
    caught = disagreements([planted], records)
    scored = sum(recall.value(r.event) is not None for r in records)
    assert scored and len(caught) == scored
    assert disagreements([replace(recall, fn=lambda p: Score(recall.value(p), "") if recall.value(p) is not None
                                  else Score(None))], records[:5])


def test_a_score_makes_its_explanation_once_and_only_when_read():
    made = []

    def why() -> str:
        made.append(1)
        return "because"

    s = Score(1.0, why)
    assert made == [] and s.value == 1.0
    assert s.explanation == "because" and s.explanation == "because" and made == [1]
    assert Score(0.5).explanation is None
