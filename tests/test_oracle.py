"""Oracle and noisy-oracle extraction (issue 8 item 3): exact annotated facts, controlled error rates."""

from __future__ import annotations

from typing import Any

import pytest

from memlab.datasets.models import Dataset
from memlab.embeddings import shared_embedder
from memlab.strategies.composed import ComposedStrategy, resolve_spec
from memlab.strategies.slots import BuildEnv
from memlab.harness.units import turn_events

N = 40


def _dataset() -> Dataset:
    turns = []
    for i in range(N):
        turns.append({"id": f"u{i}", "role": "user", "text": f"My locker number {i} is in Building{i}.",
                      "facts": [f"Ana's locker {i}: building Building{i}"]})
        turns.append({"id": f"a{i}", "role": "assistant", "text": "Noted."})
    turns.append({"id": "u-ev", "role": "user", "text": "The spare key is under the blue pot."})
    return Dataset.model_validate({"name": "oracle-test", "conversations": [{
        "id": "c", "sessions": [{"id": "s", "timestamp": "2024-01-01T10:00:00", "turns": turns}],
        "probes": [{"id": "q", "after_turn": "u-ev", "question": "Where is the spare key?", "category": "single_hop",
                    "gold": "blue pot", "evidence": ["u-ev"]}]}]})


def _stored(extractor: dict[str, Any]) -> list:
    spec = {"name": "o", "extractor": extractor, "consolidator": {"type": "append"}, "store": {"type": "in_memory"},
            "retriever": {"type": "vector", "k": 4}}
    env = BuildEnv(roles=None, embedder=shared_embedder(None), strategy_name="o",
                   make_store=lambda s: s.build())
    strat = ComposedStrategy(resolve_spec(spec), env)
    conv = _dataset().conversations[0]
    strat.begin_unit("t/c")
    strat.begin_conversation(conv.id)
    ops = [op for ev in turn_events(conv) for op in strat.observe(ev).ops]
    return [op for op in ops if op.op.value == "ADD"]


def test_oracle_stores_exactly_the_annotated_facts_and_falls_back_to_evidence_text():
    adds = _stored({"type": "oracle"})
    texts = [a.text for a in adds]
    assert texts[:N] == [f"Ana's locker {i}: building Building{i}" for i in range(N)]
    assert texts[N:] == ["The spare key is under the blue pot."], "unannotated evidence turn: its text"
    assert all(a.source_turn_ids == [f"u{i}"] for i, a in enumerate(adds[:N]))


def test_noisy_oracle_at_full_rates_is_the_oracle():
    assert [a.text for a in _stored({"type": "noisy_oracle"})] == [a.text for a in _stored({"type": "oracle"})]


@pytest.mark.parametrize("recall", [0.0, 0.5])
def test_noisy_oracle_drops_facts_at_the_given_rate(recall):
    kept = len(_stored({"type": "noisy_oracle", "recall": recall, "seed": 3}))
    assert kept == 0 if recall == 0 else abs(kept / (N + 1) - recall) < 0.2


def test_noisy_oracle_corrupts_facts_at_the_given_rate_deterministically():
    adds = _stored({"type": "noisy_oracle", "precision": 0.5, "seed": 1})
    truth = {a.text for a in _stored({"type": "oracle"})}
    wrong = [a.text for a in adds if a.text not in truth]
    assert 0.25 < len(wrong) / len(adds) < 0.75
    assert all(w.startswith("Ana's locker") or w.startswith("The spare key") for w in wrong), "the value, not the subject, is swapped"
    assert [a.text for a in _stored({"type": "noisy_oracle", "precision": 0.5, "seed": 1})] == [a.text for a in adds]
    assert [a.text for a in _stored({"type": "noisy_oracle", "precision": 0.5, "seed": 2})] != [a.text for a in adds]


def test_the_oracle_bound_injects_exactly_the_evidence_turns(tmp_path):
    import json

    from memlab.harness.config import RunConfig
    from memlab.analysis.results import load_run
    from memlab.harness.runner import Runner

    path = tmp_path / "d.json"
    path.write_text(json.dumps(_dataset().model_dump(mode="json", exclude_defaults=True)))
    cfg = RunConfig.model_validate({"name": "o", "datasets": [str(path)], "output_dir": str(tmp_path / "r"),
                                    "embedding_cache": None, "strategies": [{"name": "oracle"}, {"name": "full_context"}]})
    res = load_run(Runner(cfg, progress=False).run())
    probes = res.probes.set_index("strategy")
    assert res.manifest["strategies_resolved"]["oracle"]["short_term"]["type"] == "evidence_oracle"  # the component under test
    assert probes.loc["oracle", "context_source_turn_ids"] == ["u-ev"]
    assert "blue pot" in probes.loc["oracle", "context"]
    assert probes.loc["oracle", "context_tokens"] < probes.loc["full_context", "context_tokens"] / 20
