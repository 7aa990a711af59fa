"""Answering as a strategy decision: inject long-term memory at once, or search it when asked."""

from __future__ import annotations

from pathlib import Path

import pytest

import memlab
from memlab.harness.config import ConfigError, validate_config
from memlab.offline.agent import search_before_answering
from memlab.strategies.answer.modes import FOUND_TITLE

THREADS = Path(__file__).resolve().parent / "fixtures" / "threads_small.yaml"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    cfg = validate_config({"name": "ans", "datasets": [str(THREADS)], "embedding_cache": None,
                           "output_dir": str(tmp_path_factory.mktemp("ans")), "strategies": [
                               {"name": "inject", "preset": "fact_rag", "short_term": {"type": "none"}},
                               {"name": "search", "preset": "fact_rag", "short_term": {"type": "none"},
                                "answer": {"type": "tools", "max_rounds": 2}}]})
    return memlab.load_run(memlab.run(cfg, progress=False))


@pytest.mark.slow
def test_search_when_asked_injects_no_long_term_memory_and_records_its_searches(run):
    p = run.probes.set_index(["strategy", "probe_id"])
    injected, searched = p.loc[("inject", "ana-3-p1")], p.loc[("search", "ana-3-p1")]
    assert "## Long-term memory" in injected["context"] and "## Long-term memory" not in searched["context"]
    assert f"## {FOUND_TITLE}" in searched["context"] and "Biscuit" in searched["context"]
    # the memories found carry their provenance: recall is scored on what the search found
    assert "a1-01" in searched["context_source_turn_ids"] and searched["evidence_recall"] == 1.0
    steps = run.agent_steps
    probe_steps = steps[(steps["strategy"] == "search") & (steps["phase"] == "probe")]
    assert set(probe_steps["probe_id"]) == set(p.loc["search"].index)  # every probe searched
    assert (probe_steps["tool"] == "retrieve_facts").all() and probe_steps["ok"].all()
    first = probe_steps[probe_steps["probe_id"] == "ana-3-p1"].iloc[0]
    assert first["args"] == {"query": "What is Ana's dog called?"}
    # the search is a model call of the answer, counted in tokens
    calls = run.calls
    searched_calls = calls[(calls["strategy"] == "search") & (calls["probe_id"] == "ana-3-p1")]
    # a search, a second round that finds the findings enough, then the answer: all purpose answer
    assert list(searched_calls["signature"]) == ["SearchBeforeAnswering", "SearchBeforeAnswering", "AnswerFromMemory"]
    assert set(searched_calls["purpose"]) == {"answer"} and searched_calls["prompt_tokens"].gt(0).all()
    injected_calls = calls[(calls["strategy"] == "inject") & (calls["probe_id"] == "ana-3-p1")]
    assert list(injected_calls["purpose"]) == ["answer"]
    assert not steps[steps["strategy"] == "inject"]["phase"].eq("probe").any()


def test_answer_tools_needs_something_to_search():
    with pytest.raises(ConfigError, match="needs a retriever"):
        validate_config({"name": "x", "datasets": [str(THREADS)],
                         "strategies": [{"name": "r", "preset": "react", "answer": {"type": "tools"}}]})
    with pytest.raises(ConfigError, match="Did you mean 'tools'"):
        validate_config({"name": "x", "datasets": [str(THREADS)],
                         "strategies": [{"name": "r", "preset": "fact_rag", "answer": {"type": "tool"}}]})


def test_offline_search_policy_searches_once_with_the_question():
    assert search_before_answering("Where does Ana live?", "", {"retrieve_facts", "recall_episodes"})[1] == [
        ("retrieve_facts", {"query": "Where does Ana live?"})]
    assert search_before_answering("Where?", "", {"recall_episodes"})[1] == [("recall_episodes", {"query": "Where?"})]
    assert search_before_answering("Where?", "retrieve_facts(...) → - Porto", {"retrieve_facts"})[1] == []
    assert search_before_answering("Where?", "", {"log_time"})[1] == []
