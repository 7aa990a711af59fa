"""ragas metrics as memlab metrics: values on hand-made probes, their place in a run's summary,
memlab without ragas, and the LLM metrics against the local OpenAI-compatible test server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memlab.harness.config import RunConfig
from memlab.analysis.metrics import METRICS, score_probe
from memlab.runfolder.probe_record import ProbeRow
from memlab.analysis.results import load_run
from memlab.harness.runner import Runner
from tests.support.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parent.parent
SMALL = str(ROOT / "tests" / "fixtures" / "native_small.yaml")
NON_LLM = ("ragas_context_recall", "ragas_context_precision", "ragas_string_presence", "ragas_exact_match",
           "ragas_rouge", "ragas_semantic_similarity")
EVIDENCE = "I moved to Lisbon last month for a new job."


def probe(**kw: Any) -> dict[str, Any]:
    base = {"question": "Which city did Ana move to?", "gold": [["Lisbon", "Lisboa"]], "gold_match": "any",
            "abstain": False, "evidence": ["s1-01"], "evidence_texts": [EVIDENCE], "context": "",
            "context_items": [], "answer": "Lisbon", "error": None, "judge": None}
    return {**base, **kw}


def values(row: dict[str, Any]) -> dict[str, Any]:
    """Every metric's value for a hand-built probe row."""
    return {name: score.value for name, score in score_probe(ProbeRow.from_row(row)).items()}


def lines(*texts: str) -> list[dict[str, Any]]:
    return [{"text": t, "source_turn_ids": [], "kind": "message", "section": "history"} for t in texts]


def test_context_recall_is_one_when_a_line_holds_the_evidence_and_lower_when_none_does() -> None:
    holds = values(probe(context_items=lines("[2024-02-01] Ana: " + EVIDENCE, "[2024-02-01] Ana: My cat is Miso.")))
    misses = values(probe(context_items=lines("[2024-02-01] Ana: My cat Miso hates the tram noise.")))
    assert holds["ragas_context_recall"] == 1.0
    assert misses["ragas_context_recall"] < 1.0
    # precision is rank-aware: the evidence line first scores higher than the same line last
    first = values(probe(context_items=lines(EVIDENCE, "The weather was nice.", "We ate fish.")))
    last = values(probe(context_items=lines("The weather was nice.", "We ate fish.", EVIDENCE)))
    assert first["ragas_context_precision"] > last["ragas_context_precision"] > misses["ragas_context_precision"]


def test_context_metrics_with_two_evidence_turns_and_an_empty_context() -> None:
    two = probe(evidence=["s1-01", "s1-03"], evidence_texts=[EVIDENCE, "My cat Miso hates the tram noise though."],
                context_items=lines(EVIDENCE))
    assert values(two)["ragas_context_recall"] == pytest.approx(0.5)
    empty = values(probe(context_items=[]))
    assert empty["ragas_context_recall"] == 0.0 and empty["ragas_context_precision"] == 0.0


def test_answer_metrics_exact_match_presence_rouge_and_similarity() -> None:
    exact = values(probe(answer="Lisboa"))  # an alias counts: the best reference is kept
    assert exact["ragas_exact_match"] == 1.0 and exact["ragas_rouge"] == pytest.approx(1.0)
    assert exact["ragas_semantic_similarity"] == pytest.approx(1.0, abs=1e-5)
    sentence = values(probe(answer="Ana moved to Lisbon."))
    assert sentence["ragas_exact_match"] == 0.0 and sentence["ragas_string_presence"] == 1.0
    assert 0.0 < sentence["ragas_rouge"] < 1.0
    wrong = values(probe(answer="Ana moved to Porto."))
    assert wrong["ragas_string_presence"] == 0.0
    assert wrong["ragas_semantic_similarity"] < sentence["ragas_semantic_similarity"]
    # ragas compares raw strings: memlab's normalisation (case, dates, numbers) is not applied
    assert values(probe(answer="lisbon"))["ragas_exact_match"] == 0.0


def test_which_probes_the_ragas_metrics_apply_to() -> None:
    abstain = values(probe(abstain=True, gold=[]))
    assert all(abstain[name] is None for name in NON_LLM)
    errored = values(probe(answer=None, error="model down"))
    assert errored["ragas_exact_match"] == 0.0 and errored["ragas_rouge"] == 0.0
    old_run = probe(context_items=lines(EVIDENCE))
    del old_run["evidence_texts"]  # recorded before evidence texts existed
    assert values(old_run)["ragas_context_recall"] is None
    both_parts = probe(gold=[["Ana"], ["Lisbon"]], gold_match="all", answer="Ana, Lisbon")
    assert values(both_parts)["ragas_exact_match"] == 1.0
    for name in (*NON_LLM, "ragas_faithfulness"):
        assert METRICS.get(name).higher_is_better is True and METRICS.get(name).aggregation == "mean"


def test_answer_metrics_are_ragas_objects_bit_for_bit() -> None:
    """memlab computes ragas's answer metrics without importing ragas; ragas's own objects must give
    the same values on answers and references of every kind (aliases, case, punctuation, numbers,
    non-ASCII, one word to a paragraph), one by one and in bulk."""
    import random

    from memlab.analysis import ragas_metrics as rm
    from tests.support import ragas_reference

    rng = random.Random(11)
    words = ("Ana moved to Lisbon Lisboa in May 2023 with her dog Rex, she works at the bakery; "
             "São Paulo café naïve 12 twelve running runs ran I don't know.").split()

    def text() -> str:
        return " ".join(rng.choices(words, k=rng.randint(1, 18)))

    pairs = []
    for _ in range(60):
        refs = tuple(dict.fromkeys(text() if rng.random() < 0.7 else rng.choice(words) for _ in range(rng.randint(1, 3))))
        answer = rng.choice([text(), refs[0], refs[0].lower(), f"{text()} {refs[-1]} {text()}"])
        pairs.append((answer, refs))
    rm._ANSWERS.clear()
    one_by_one = [rm._answer_scores(answer, refs) for answer, refs in pairs]
    rm._ANSWERS.clear()
    rm._prepare_answers([ProbeRow.from_row(probe(answer=a, gold=[list(refs)])).event for a, refs in pairs])
    bulk = [rm._ANSWERS[(a, refs)] for a, refs in pairs]
    want = [ragas_reference.answer_scores(a, refs) for a, refs in pairs]  # after memlab's: the vectors are cached
    assert one_by_one == want and bulk == want
    assert {v for w in want for v in (w["exact_match"], w["string_presence"])} == {0.0, 1.0}  # both outcomes seen
    assert 0 < sum(w["rouge"] for w in want) < len(want)


def test_the_context_thresholds_and_rouge_settings_are_ragas_defaults() -> None:
    from memlab.analysis import ragas_metrics as rm
    from tests.support import ragas_reference

    d = ragas_reference.objects().defaults
    assert (rm.CONTEXT_RECALL_THRESHOLD, rm.CONTEXT_PRECISION_THRESHOLD) == (d.recall_threshold, d.precision_threshold)
    assert (d.rouge_type, d.rouge_mode) == ("rougeL", "fmeasure")
    assert rm._rouge().rouge_types == ["rougeL"]


def _config(tmp_path: Path, **kw: Any) -> RunConfig:
    data = {"name": "ragas", "datasets": [SMALL], "output_dir": str(tmp_path / "results"),
            "embedding_cache": None, "strategies": [{"name": "no_memory"}, {"name": "full_context"}]}
    data.update(kw)
    return RunConfig.model_validate(data)


@pytest.mark.slow
def test_non_llm_ragas_metrics_are_in_a_default_runs_summary(tmp_path: Path) -> None:
    res = load_run(Runner(_config(tmp_path), progress=False).run())
    probes = res.probes
    recorded = probes[probes["probe_id"] == "ana-p1"].iloc[0]
    assert recorded["evidence_texts"] == [EVIDENCE]
    summary = res.summary()
    for name in NON_LLM:
        assert name in summary.columns
    assert summary.loc["full_context", "ragas_context_recall"] == 1.0
    assert summary.loc["no_memory", "ragas_context_recall"] == 0.0
    # no judge endpoint: the LLM metrics are not applicable
    assert probes["ragas_faithfulness"].isna().all()


def _isolated_python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


BLOCK_RAGAS = ("import sys, importlib.abc\n"
               "class NoRagas(importlib.abc.MetaPathFinder):\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name == 'ragas' or name.startswith('ragas.'):\n"
               "            raise ImportError('No module named ragas (blocked by the test)')\n"
               "sys.meta_path.insert(0, NoRagas())\n")


@pytest.mark.slow
def test_memlab_runs_without_ragas_and_says_so_only_when_a_ragas_metric_is_asked_for(tmp_path: Path) -> None:
    code = BLOCK_RAGAS + (
        "import json\n"
        "from memlab.harness.config import RunConfig\n"
        "from memlab.harness.runner import Runner\n"
        "from memlab.analysis.results import load_run\n"
        f"base = {{'name': 'noragas', 'datasets': [{SMALL!r}], 'output_dir': {str(tmp_path)!r},\n"
        "        'embedding_cache': None, 'strategies': [{'name': 'full_context'}]}\n"
        "res = load_run(Runner(RunConfig.model_validate(base), progress=False).run())\n"
        "s = res.summary()\n"
        "print(json.dumps({'recall': float(s.loc['full_context', 'evidence_recall']),\n"
        "                  'ragas_scored': int(res.probes['ragas_context_recall'].notna().sum())}))\n"
        "try:\n"
        "    RunConfig.model_validate({**base, 'metrics': ['evidence_recall', 'ragas_rouge']})\n"
        "except Exception as exc:\n"
        "    print('REFUSED', exc)\n")
    out = _isolated_python(code)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[0])
    assert result["recall"] > 0 and result["ragas_scored"] == 0
    refused = out.stdout.split("REFUSED", 1)[1]
    assert "metrics[1]" in refused and "ragas_rouge" in refused and "pip install 'memlab[ragas]'" in refused


@pytest.mark.slow
def test_non_llm_scoring_makes_no_network_connection_and_imports_no_ragas() -> None:
    code = (
        "import socket\n"
        "def refuse(self, address):\n"
        "    raise OSError(f'network blocked by the test: {address}')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = lambda *a, **k: refuse(None, a[0] if a else None)\n"
        "from memlab.analysis.metrics import score_probe\n"
        "from memlab.runfolder.probe_record import ProbeRow\n"
        "from memlab.analysis.ragas_metrics import ragas_problem\n"
        "assert ragas_problem() is None, ragas_problem()\n"
        "import sys\n"
        f"q = {probe(answer=None, error='model down', context_items=lines(EVIDENCE))!r}\n"
        "s = {name: score.value for name, score in score_probe(ProbeRow.from_row(q)).items()}\n"
        "print(s['ragas_context_recall'], s['ragas_rouge'], 'rouge_score' in sys.modules)\n"  # no answer: no ROUGE import
        f"p = {probe(answer='Ana moved to Lisbon.', context_items=lines(EVIDENCE))!r}\n"
        "s = {name: score.value for name, score in score_probe(ProbeRow.from_row(p)).items()}\n"
        "print(s['ragas_context_recall'], s['ragas_rouge'], s['ragas_semantic_similarity'])\n"
        "import sys\n"
        "print(sorted(m for m in sys.modules if m == 'ragas' or m.startswith('ragas.')))\n")
    out = _isolated_python(code)
    assert out.returncode == 0, out.stderr[-3000:]
    unanswered, scores, imported = out.stdout.strip().splitlines()
    assert unanswered == "1.0 0.0 False", unanswered  # the context scored, ROUGE neither needed nor imported
    recall, rouge, similarity = (float(x) for x in scores.split())
    assert recall == 1.0 and 0 < rouge < 1 and 0 < similarity < 1
    assert imported == "[]", f"scoring imported ragas: {imported}"  # its definitions, not its (heavy) package


# --- the LLM metrics against the local test server -----------------------------------------------

def ragas_responder(body: dict[str, Any]) -> dict[str, Any] | None:
    """Answers ragas's structured-output prompts (instructor JSON mode names the schema) like a
    judge that reads the text: a statement about Lisbon is supported only by a context that says
    Ana moved to Lisbon. Other prompts (memlab's own roles) fall through to the server's default."""
    text = json.dumps(body.get("messages", []))
    supported = int("moved to Lisbon" in text)
    if "ContextRecallOutput" in text:
        out: dict[str, Any] = {"classifications": [
            {"statement": "Ana moved to Lisbon.", "reason": "stated in the context" if supported else "absent",
             "attributed": supported}]}
    elif "NLIStatementOutput" in text:
        out = {"statements": [{"statement": "Ana lives in Lisbon.", "reason": "context", "verdict": supported}]}
    elif "StatementGeneratorOutput" in text:
        out = {"statements": ["Ana lives in Lisbon."]}
    elif "ClassificationWithReason" in text:
        out = {"TP": [{"statement": "Ana lives in Lisbon.", "reason": "same fact"}], "FP": [], "FN": []}
    else:
        return None
    return {"content": json.dumps(out)}


@pytest.mark.slow
def test_llm_ragas_metrics_through_a_judge_endpoint(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.responder = ragas_responder
    server.default_fields = {"answer": "Ana lives in Lisbon.", "correct": "True", "abstained": "False"}
    judge = {"provider": "openai", "model": "fake-judge", "base_url": server.base_url, "max_attempts": 1}
    cfg = _config(tmp_path, judge=judge, metrics=["evidence_recall", "ragas_faithfulness",
                                                  "ragas_llm_context_recall", "ragas_answer_correctness"])
    res = load_run(Runner(cfg, progress=False).run())
    p1 = res.probes[res.probes["probe_id"] == "ana-p1"].set_index("strategy")
    assert p1.loc["full_context", "ragas_llm"].get("errors") is None, p1.loc["full_context", "ragas_llm"]
    # full_context shows the evidence turn, no_memory shows nothing: the judge credits only the first
    assert p1.loc["full_context", "ragas_llm_context_recall"] == 1.0
    assert p1.loc["no_memory", "ragas_llm_context_recall"] == 0.0
    assert p1.loc["full_context", "ragas_faithfulness"] == 1.0
    assert p1.loc["no_memory", "ragas_faithfulness"] == 0.0
    # factual F1 = 1 here, blended 0.75 / 0.25 with the (local) semantic similarity
    assert 0.75 < p1.loc["full_context", "ragas_answer_correctness"] <= 1.0
    assert any("ContextRecallOutput" in json.dumps(r["body"]) for r in server.requests)
    summary = res.summary()
    assert {"ragas_faithfulness", "ragas_llm_context_recall", "ragas_answer_correctness"} <= set(summary.columns)
    # abstention probes have no gold: nothing to judge
    assert res.probes[res.probes["probe_id"] == "ana-p3"]["ragas_faithfulness"].isna().all()


@pytest.mark.slow
def test_llm_ragas_metric_failures_are_recorded_without_the_key(tmp_path: Path, server: FakeOpenAIServer,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGAS_TEST_JUDGE_KEY", "sk-secret-ragas-0123456789")
    server.responder = lambda body: ({"status": 400, "message": "bad request"}
                                     if "ContextRecallOutput" in json.dumps(body.get("messages", [])) else ragas_responder(body))
    server.default_fields = {"answer": "Ana lives in Lisbon.", "correct": "True", "abstained": "False"}
    judge = {"provider": "openai", "model": "fake-judge", "base_url": server.base_url, "max_attempts": 1,
             "api_key_env": "RAGAS_TEST_JUDGE_KEY"}
    run_dir = Runner(_config(tmp_path, judge=judge, strategies=[{"name": "full_context"}]), progress=False).run()
    res = load_run(run_dir)
    p1 = res.probes[res.probes["probe_id"] == "ana-p1"].iloc[0]
    assert p1["ragas_llm_context_recall"] != p1["ragas_llm_context_recall"]  # NaN: failed, not zero
    assert "ragas_llm_context_recall" in p1["ragas_llm"]["errors"]
    assert p1["ragas_faithfulness"] == 1.0  # the other metrics still scored
    assert any(r["auth"] and "sk-secret-ragas" in r["auth"] for r in server.requests)  # the key was used...
    for f in run_dir.iterdir():
        if f.is_file():
            assert "sk-secret-ragas" not in f.read_text(errors="replace"), f.name  # ...and written nowhere
    assert re.search(r"400|bad request", json.dumps(p1["ragas_llm"]["errors"]), re.I)


@pytest.mark.slow
def test_llm_ragas_metrics_are_model_calls_recorded_cached_and_replayed_without_a_request(
        tmp_path: Path, server: FakeOpenAIServer) -> None:
    """Every ragas LLM call goes through memlab's model layer: in calls.jsonl (purpose ragas, scoped to
    its probe), in the record/replay cache, in the cost table; replay-strict then asks nothing."""
    server.responder = ragas_responder
    server.default_fields = {"answer": "Ana lives in Lisbon.", "correct": "True", "abstained": "False"}
    cache = tmp_path / "judge-cache.jsonl"
    judge = {"provider": "openai", "model": "gpt-4o-mini", "base_url": server.base_url, "max_attempts": 1,
             "cache": {"mode": "record", "path": str(cache)}}
    metrics = ["evidence_recall", "ragas_faithfulness", "ragas_llm_context_recall", "ragas_answer_correctness"]
    recorded = load_run(Runner(_config(tmp_path, judge=judge, metrics=metrics, name="rec",
                                       strategies=[{"name": "full_context"}]), progress=False).run())
    calls = recorded.calls
    ragas_calls = calls[calls["purpose"] == "ragas"]
    answered = recorded.probes[recorded.probes["answer"].notna() & recorded.probes["gold"].map(bool)]
    # per answered probe: context recall 1, faithfulness 2 (statements, verdicts), answer correctness 3
    assert len(ragas_calls) == 6 * len(answered) > 0
    assert set(ragas_calls["phase"]) == {"judge"} and ragas_calls["probe_id"].notna().all()
    assert set(ragas_calls["signature"]) >= {"ragas.StatementGeneratorOutput", "ragas.NLIStatementOutput",
                                             "ragas.ContextRecallOutput", "ragas.ClassificationWithReason"}
    assert (ragas_calls["prompt_tokens"] > 0).all()
    assert recorded.cost().loc["full_context", "tokens_ragas_per_conv"] > 0
    cached = [json.loads(line) for line in cache.read_text().splitlines()]
    assert sum(1 for e in cached if e.get("purpose") == "ragas") > 0

    asked = server.received
    replay = {**judge, "cache": {"mode": "replay-strict", "path": str(cache)}}
    replayed = load_run(Runner(_config(tmp_path, judge=replay, metrics=metrics, name="replay",
                                       strategies=[{"name": "full_context"}]), progress=False).run())
    assert server.received == asked  # not one request: judge and ragas calls all replayed
    for name in ("ragas_faithfulness", "ragas_llm_context_recall", "ragas_answer_correctness"):
        assert replayed.probes[name].tolist() == pytest.approx(recorded.probes[name].tolist(), nan_ok=True)
    again = replayed.calls[replayed.calls["purpose"] == "ragas"]
    assert len(again) == len(ragas_calls) and again["cached"].all()


def test_the_run_pipeline_scores_no_ragas_metric_itself() -> None:
    """ragas's LLM metrics are a judging pass: the unit player imports no ragas code, and the names the
    pass writes are the metrics the analysis side reads."""
    from memlab.analysis.ragas_metrics import LLM_METRICS as READ
    from memlab.judging.ragas_pass import LLM_METRICS as WRITTEN

    assert READ == WRITTEN
    units = (ROOT / "memlab" / "harness" / "units.py").read_text()
    assert "ragas_metrics" not in units and "RagasJudge" not in units
