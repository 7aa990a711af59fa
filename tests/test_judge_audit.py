"""Judging that can be trusted: prompt hashes, the offline judge's two prompts, rejudge, judge-audit.

Fake judges are endpoints on the local OpenAI-compatible test server (tests/support) whose
verdicts follow a known rule, so the audit's numbers can be checked against that rule.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

import dspy
import pytest

from memlab.cli import main
from memlab.harness.config import RunConfig
from memlab.judging.audit import judge_audit, plants, reformat_date
from memlab.judging.prompts import JUDGE_PROMPTS, judge_inputs, prompt_hash
from memlab.judging.rejudge import rejudge
from memlab.llm.offline_model import OfflineChatModel
from memlab.scoring.offline_judge import judge as offline_judge
from memlab.runfolder.recorder import read_jsonl
from memlab.analysis.report import write_report
from memlab.analysis.results import load_run
from memlab.roles.program import Role
from memlab.harness.runner import Runner

SMALL = str(Path(__file__).parent / "fixtures" / "native_small.yaml")
KEY = "sk-judge-test-secret-0123456789"
_SECTION = re.compile(r"\[\[ ## (\w+) ## \]\]\n(.*?)(?=\n\n\[\[ ## |\Z)", re.S)


@pytest.fixture(scope="module")
def lenient_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small run judged by the offline judge under the lenient prompt."""
    tmp = tmp_path_factory.mktemp("judged")
    cfg = RunConfig.model_validate({
        "name": "judged", "datasets": [SMALL], "output_dir": str(tmp / "results"),
        "embedding_cache": str(tmp / "emb.npz"), "strategies": [{"name": "full_context"}, {"name": "no_memory"}],
        "judge": {"provider": "offline"}, "judge_prompt": "lenient"})
    return Runner(cfg, progress=False).run()


@pytest.fixture()
def run_copy(lenient_run: Path, tmp_path: Path) -> Path:
    """A private copy of the run, so a test may write into it."""
    dest = tmp_path / "run"
    shutil.copytree(lenient_run, dest, ignore=shutil.ignore_patterns(".lock", "stores"))
    return dest


def _fields(body: dict[str, Any]) -> dict[str, str]:
    """The judge's input fields from a ChatAdapter request (the last user message's sections)."""
    user = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return {k: v.strip() for k, v in _SECTION.findall(user)}


def _verdict(correct: bool) -> dict[str, Any]:
    return {"fields": {"correct": str(correct), "abstained": "False"}}


def _endpoint_judge(server: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("MEMLAB_JUDGE_TEST_KEY", KEY)
    return {"provider": "openai", "model": "fake-judge", "base_url": server.base_url, "api_key_env": "MEMLAB_JUDGE_TEST_KEY",
            "max_attempts": 1}


# -- prompts and hashes ---------------------------------------------------------------------------

def test_prompt_hashes_differ_and_are_recorded_in_every_probe_and_the_manifest(lenient_run: Path) -> None:
    assert prompt_hash("lenient") != prompt_hash("strict")
    assert len(prompt_hash("strict")) == 64
    manifest = json.loads((lenient_run / "manifest.json").read_text())
    assert manifest["judge"]["prompt"] == "lenient"
    assert manifest["judge"]["prompt_hash"] == prompt_hash("lenient")
    judged = [p["judge"] for p in read_jsonl(lenient_run / "probes.jsonl") if p["answer"] is not None]
    assert judged and all(j["prompt_hash"] == prompt_hash("lenient") and "correct" in j for j in judged)


def test_prompt_hash_changes_with_the_instruction(monkeypatch: pytest.MonkeyPatch) -> None:
    before = prompt_hash("strict")
    monkeypatch.setitem(JUDGE_PROMPTS, "strict", JUDGE_PROMPTS["strict"].with_instructions("Judge the answer."))
    assert prompt_hash("strict") != before


def test_unknown_judge_prompt_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="judge_prompt"):
        RunConfig.model_validate({"datasets": [SMALL], "strategies": [{"name": "no_memory"}], "judge_prompt": "generous"})


# -- the offline judge ----------------------------------------------------------------------------

def test_offline_judge_lenient_accepts_a_hedge_that_strict_rejects() -> None:
    hedge = "Maybe Lisbon or Porto."
    assert offline_judge("Lisbon", hedge, strict=False)["correct"] is True
    assert offline_judge("Lisbon", hedge, strict=True)["correct"] is False
    assert offline_judge("Lisbon", "She moved to Lisbon.", strict=True)["correct"] is True


def test_offline_strict_judge_rejects_a_superseded_value_and_a_missing_part() -> None:
    assert offline_judge("tea", "tea, and coffee", strict=True, superseded="coffee")["correct"] is False
    assert offline_judge("tea", "tea, and coffee", strict=False, superseded="coffee")["correct"] is True
    assert offline_judge("Lisbon & Porto", "Lisbon", strict=True)["correct"] is False
    assert offline_judge("Lisbon & Porto", "Lisbon", strict=False)["correct"] is True
    assert offline_judge("Lisbon & Porto", "Porto and Lisbon", strict=True)["correct"] is True


def test_offline_judge_answers_both_prompts_through_dspy() -> None:
    model = OfflineChatModel(embedder=None)
    verdicts = {}
    for name, signature in JUDGE_PROMPTS.items():
        inputs = judge_inputs(name, "What does Ben drink now?", [["tea"]], "any", ["coffee"], "Probably tea or coffee")
        verdicts[name] = Role(signature, model, "judge")(**inputs)["correct"]
    assert verdicts == {"lenient": True, "strict": False}
    assert "superseded" in dspy.ChatAdapter().format(JUDGE_PROMPTS["strict"], demos=[], inputs=judge_inputs(
        "strict", "q", [["tea"]], "any", ["coffee"], "tea"))[-1]["content"]


# -- plants ---------------------------------------------------------------------------------------

def test_plants_are_built_from_the_probes_with_known_verdicts() -> None:
    probes = [
        {"dataset": "d", "probe_id": "a", "category": "single_hop", "gold": [["Lisbon"]], "superseded": []},
        {"dataset": "d", "probe_id": "b", "category": "single_hop", "gold": [["Miso"]], "superseded": []},
        {"dataset": "d", "probe_id": "c", "category": "knowledge_update", "gold": [["tea"]], "superseded": ["coffee"]},
        {"dataset": "d", "probe_id": "e", "category": "temporal", "gold": [["2024-03-03"]], "superseded": []},
    ]
    got = {(p["probe_id"], p["kind"]): (p["response"], p["expect"]) for p in plants(probes)}
    assert got[("a", "swap")] == ("Miso", False)
    assert got[("c", "stale")] == ("coffee", False)
    assert got[("c", "hedge")] == ("Maybe tea or coffee.", False)
    assert got[("a", "reworded")] == ("It was Lisbon.", True)
    assert got[("e", "date_format")] == ("March 3, 2024", True)
    assert ("c", "swap") not in got  # no other knowledge-update probe to swap with
    assert reformat_date("12") is None and reformat_date("May") is None


# -- rejudge --------------------------------------------------------------------------------------

@pytest.mark.slow
def test_rejudge_changes_only_the_judge_fields_and_recomputes_answer_correct(
        lenient_run: Path, tmp_path: Path, server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server.responder = lambda body: _verdict(False)  # a judge that rejects everything
    out = rejudge(lenient_run, _endpoint_judge(server, monkeypatch), prompt="strict", out=tmp_path / "rejudged")
    old, new = read_jsonl(lenient_run / "probes.jsonl"), read_jsonl(out / "probes.jsonl")
    assert len(old) == len(new)
    for a, b in zip(old, new, strict=True):
        assert {k: v for k, v in a.items() if k != "judge"} == {k: v for k, v in b.items() if k != "judge"}
        if b["answer"] is not None:
            assert b["judge"]["correct"] is False and b["judge"]["prompt_hash"] == prompt_hash("strict")
    copied = [s.name for s in lenient_run.glob("*.jsonl") if s.name not in ("probes.jsonl", "calls.jsonl")]
    assert "turns.jsonl" in copied and "units.jsonl" in copied
    for name in copied:
        assert (out / name).read_bytes() == (lenient_run / name).read_bytes()
    before, after = load_run(lenient_run).probes, load_run(out).probes
    answerable = ~before["abstain"].astype(bool)
    assert before.loc[answerable, "answer_correct"].sum() > 0
    assert after.loc[answerable, "answer_correct"].sum() == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["judge"]["prompt_hash"] == prompt_hash("strict") and manifest["judge"]["model"]["model"] == "fake-judge"
    assert manifest["rejudged_from"]["run_id"] == lenient_run.name
    assert manifest["rejudged_from"]["judge"]["prompt"] == "lenient"
    judge_calls = [c for c in read_jsonl(out / "calls.jsonl") if c["purpose"] == "judge"]
    assert judge_calls and all("fake-judge" in c["model"] for c in judge_calls)
    assert not (out / "metrics.csv").exists()  # judging writes no report: the analysis side does
    write_report(out, quiet=True)
    assert (out / "metrics.csv").exists()
    assert KEY not in "".join(p.read_text() for p in out.glob("*.json*"))


@pytest.mark.slow
def test_rejudge_cli_with_the_offline_judge_and_the_strict_prompt(lenient_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "strict"
    assert main(["rejudge", str(lenient_run), "--offline-judge", "--prompt", "strict", "--out", str(out)]) == 0
    assert {p["judge"]["prompt"] for p in read_jsonl(out / "probes.jsonl") if p["judge"]} == {"strict"}


def test_rejudge_of_a_folder_that_is_not_a_run_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["rejudge", str(tmp_path), "--offline-judge"]) == 2
    assert "manifest.json" in capsys.readouterr().err


# -- judge-audit ----------------------------------------------------------------------------------

def test_audit_reports_the_false_accepts_of_a_judge_biased_to_any_gold_word(
        run_copy: Path, server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def any_gold_word(body: dict[str, Any]) -> dict[str, Any]:
        f = _fields(body)
        gold = set(re.findall(r"\w+", f["gold"].lower()))
        return _verdict(bool(gold & set(re.findall(r"\w+", f["response"].lower()))))

    server.responder = any_gold_word
    result = judge_audit(run_copy, _endpoint_judge(server, monkeypatch))
    table = result.table.set_index(["prompt", "kind"])
    for prompt in JUDGE_PROMPTS:
        assert table.loc[(prompt, "hedge"), "false_accept"] == 1.0
        assert table.loc[(prompt, "swap"), "false_accept"] == 0.0
        assert table.loc[(prompt, "reworded"), "false_reject"] == 0.0
        assert result.summary["prompts"][prompt]["false_accept"] > 0
    assert result.summary["prompt_agreement"] == 1.0  # the biased judge ignores the prompt
    assert (run_copy / "judge_audit.csv").exists()
    saved = json.loads((run_copy / "judge_audit.json").read_text())
    assert saved["prompts"]["strict"]["prompt_hash"] == prompt_hash("strict")
    assert KEY not in (run_copy / "judge_audit.json").read_text()


def test_audit_reports_variance_for_a_judge_that_flips(run_copy: Path, server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(0)
    server.responder = lambda body: _verdict(rng.random() < 0.5)
    result = judge_audit(run_copy, {**_endpoint_judge(server, monkeypatch), "temperature": 0.7}, repeats=3, write=False)
    assert {r["body"]["temperature"] for r in server.requests} == {0.7}  # the judge really samples
    assert result.summary["temperature"] == 0.7
    assert result.summary["prompts"]["lenient"]["variance"] > 0
    assert result.summary["prompts"]["strict"]["variance"] > 0
    assert result.table["changed_across_repeats"].notna().all()


def test_audit_of_the_offline_judge_separates_the_two_prompts_on_hedges(run_copy: Path) -> None:
    result = judge_audit(run_copy, {"provider": "offline"}, repeats=2)
    table = result.table.set_index(["prompt", "kind"])
    assert table.loc[("lenient", "hedge"), "false_accept"] == 1.0
    assert table.loc[("strict", "hedge"), "false_accept"] == 0.0
    assert table.loc[("strict", "stale"), "false_accept"] == 0.0
    assert result.summary["prompts"]["strict"]["variance"] == 0.0  # deterministic
    assert result.summary["prompt_agreement"] < 1.0


def test_judge_audit_cli_prints_the_table_and_writes_the_files(run_copy: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["judge-audit", str(run_copy), "--offline-judge"]) == 0
    out = capsys.readouterr().out
    assert "false-accept" in out and "hedge" in out
    assert (run_copy / "judge_audit.csv").read_text().startswith("prompt,kind,expected")
