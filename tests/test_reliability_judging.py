"""Issue 18, items 1, 10 and 11: judged results say when the judge failed.

The judge is an endpoint on the local fake OpenAI server (tests/support) that answers, then fails
in each way an endpoint can (500, 429, garbage, an empty body, 401); the runs are tiny and
offline otherwise (the dataset of tests/test_reliability.py, not evaluation data)."""

from __future__ import annotations

import math
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlab.analysis.baseline import BaselineError, make_baseline
from memlab.cli import main as cli_main
from memlab.runfolder.recorder import read_jsonl
from memlab.analysis.results import load_run
from memlab.harness.runner import EXIT_CODES, Runner
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.test_reliability import PLUGIN, _config, _dataset


JUDGE_ONLY = ["evidence_recall", "answer_correct"]
"""The judge's metric without ragas's LLM metrics: this fake endpoint answers judge prompts only, and
ragas's calls (a pass of their own, tests/test_ragas_metrics.py) would fail and count as failed calls."""


@pytest.fixture(scope="module")
def judge_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as s:
        yield s


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory, judge_server) -> Path:
    """A run judged by the fake endpoint (which says every answer is wrong), one attempt per call."""
    tmp = tmp_path_factory.mktemp("judged")
    cfg = _config(tmp, _dataset(tmp), strategies=[{"name": "full_context"}],
                  judge={"provider": "openai", "model": "judge", "base_url": judge_server.base_url,
                         "api_key_env": "MEMLAB_TEST_NO_KEY", "max_attempts": 1, "retry_base_delay_s": 0},
                  metrics=JUDGE_ONLY)
    judge_server.default_fields = {"correct": "False", "abstained": "False"}
    run = Runner(cfg, progress=False).run()
    res = load_run(run)
    assert res.manifest["status"] == "completed" and list(res.probes["answer_correct"]) == [0.0, 0.0]
    assert all("4000" in a or "4001" in a for a in res.probes["answer"]), "containment would score them right"
    return run


@pytest.mark.parametrize("failure", [{"status": 500}, {"status": 429, "retry_after": "0"}, {"garbage": True},
                                     {"empty": True}, {"status": 401}], ids=["500", "429", "garbage", "empty", "401"])
@pytest.mark.slow
def test_rejudge_with_a_failing_judge_exits_3_and_scores_no_answer_by_containment(judged_run, judge_server, tmp_path,
                                                                                 capsys, failure):
    judge_server.mode = failure
    try:
        code = cli_main(["rejudge", str(judged_run), "--out", str(tmp_path / "rejudged")])
    finally:
        judge_server.mode = {}
    out = capsys.readouterr().out
    assert code == EXIT_CODES["completed_with_failures"] == 3
    res = load_run(tmp_path / "rejudged")
    assert res.manifest["status"] == "completed_with_failures"
    assert res.manifest["failed_calls"] == 2 and res.manifest["judge_failed"] == 2
    assert all(math.isnan(v) for v in res.probes["answer_correct"]), "a failed verdict is no containment score"
    assert "the judge failed on 2 of 2 answers" in out
    with pytest.raises(BaselineError, match="completed_with_failures"):
        make_baseline(tmp_path / "rejudged")


def test_judge_audit_exits_non_zero_when_judge_calls_fail(judged_run, judge_server, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(judged_run, run, ignore=shutil.ignore_patterns(".lock", "stores"))
    judge_server.mode = {"status": 500}
    try:
        code = cli_main(["judge-audit", str(run)])
    finally:
        judge_server.mode = {}
    assert code == EXIT_CODES["completed_with_failures"]
    assert "judge calls failed" in capsys.readouterr().out


@pytest.mark.slow
def test_rejudge_judges_final_attempts_only_and_escapes_line_separators(tmp_path):
    """Probes of a failed attempt count nowhere, so judging them again only costs money; and the
    rewritten streams escape U+2028 like the recorder does."""
    (tmp_path / "flaky_plugin.py").write_text(PLUGIN)
    marker = tmp_path / "down"
    marker.touch()
    sys.path.insert(0, str(tmp_path))
    try:
        cfg = _config(tmp_path, _dataset(tmp_path, text_extra=" first\u2028second"), plugins=["flaky_plugin"],
                      judge={"provider": "offline"}, strategies=[
                          {"name": "flaky", "preset": "fact_rag",
                           "consolidator": {"type": "fail_while_marked", "marker": str(marker)}},
                          {"name": "message_rag"}])
        run = Runner(cfg, progress=False).run()
        marker.unlink()
        Runner(cfg, run_dir=run, resume=True, progress=False).run()
    finally:
        sys.path.remove(str(tmp_path))
    rows = read_jsonl(run / "probes.jsonl")
    final = set(load_run(run).probes["attempt"])
    assert len(rows) == 6 and sum(r["attempt"] in final for r in rows) == 4, "two probes of a failed attempt"

    assert cli_main(["rejudge", str(run), "--offline-judge", "--out", str(tmp_path / "rejudged")]) == 0
    dest = tmp_path / "rejudged"
    source_ids = {c["call_id"] for c in read_jsonl(run / "calls.jsonl")}
    made = [c for c in read_jsonl(dest / "calls.jsonl") if c["call_id"] not in source_ids]
    assert len(made) == 4 and all(c["purpose"] == "judge" and c["attempt"] in final for c in made), \
        "one judge call per final answered probe, none for the failed attempt's"
    # the run judged after its units, over the final attempts only: the failed attempt was never judged
    assert not [c for c in read_jsonl(run / "calls.jsonl") if c["purpose"] == "judge" and c["attempt"] not in final]
    raw = (dest / "probes.jsonl").read_bytes()
    assert b"\xe2\x80\xa8" not in raw and b"\\u2028" in raw, "U+2028 written escaped, as the recorder writes it"
    assert len(load_run(dest).probes) == 4


def test_rejudge_stops_with_exit_1_when_the_judge_asks_to_wait_an_hour(judged_run, judge_server, tmp_path, monkeypatch,
                                                                       capsys):
    """Issue 18, item 3 for rejudge: no call sleeps the hour; the command stops, saying why, and
    leaves no folder."""
    from memlab.llm.endpoints import reset_endpoints
    from tests.test_reliability_runs import _NoLongSleep

    monkeypatch.setattr("memlab.llm.limiter.time", _NoLongSleep)
    judge_server.script.append({"status": 429, "retry_after": "3600"})
    try:
        code = cli_main(["rejudge", str(judged_run), "--out", str(tmp_path / "rejudged")])
    finally:
        reset_endpoints(judge_server.base_url)  # the breaker this opened must not stop the other tests
    assert code == EXIT_CODES["failed"] == 1
    assert "retry after 3600s" in capsys.readouterr().err and not (tmp_path / "rejudged").exists()


@pytest.mark.slow
def test_a_run_judges_after_its_units_and_a_resume_rejudges_failed_verdicts_without_replaying(tmp_path, judge_server):
    """Judging is a pass over the recorded answers (one code path with rejudge): the judge's calls
    carry phase 'judge' and come after every unit ended; verdicts that failed are judged again by a
    resume, which plays no unit again."""
    cfg = _config(tmp_path, _dataset(tmp_path), strategies=[{"name": "full_context"}],
                  judge={"provider": "openai", "model": "judge", "base_url": judge_server.base_url,
                         "api_key_env": "MEMLAB_TEST_NO_KEY", "max_attempts": 1, "retry_base_delay_s": 0},
                  metrics=JUDGE_ONLY)
    judge_server.default_fields = {"correct": "True", "abstained": "False"}
    judge_server.mode = {"status": 500}
    try:
        run = Runner(cfg, progress=False).run()
    finally:
        judge_server.mode = {}
    first = load_run(run)
    assert first.manifest["status"] == "completed_with_failures"
    assert all("error" in j for j in first.probes["judge"]) and all(math.isnan(v) for v in first.probes["answer_correct"])
    calls = read_jsonl(run / "calls.jsonl")
    judge_calls = [c for c in calls if c["purpose"] == "judge"]
    assert judge_calls and {c["phase"] for c in judge_calls} == {"judge"} and {c["probe_id"] for c in judge_calls} == {"p0-q", "p1-q"}
    units_before = read_jsonl(run / "units.jsonl")
    resumed = Runner(cfg, run_dir=run, resume=True, progress=False).run()
    assert read_jsonl(resumed / "units.jsonl") == units_before  # no unit played again
    res = load_run(resumed)
    assert res.manifest["status"] == "completed" and list(res.probes["answer_correct"]) == [1.0, 1.0]
    judge_calls = [c for c in read_jsonl(resumed / "calls.jsonl") if c["purpose"] == "judge"]
    assert len(judge_calls) == 2 and all(c["ok"] for c in judge_calls)  # the failed calls were replaced
