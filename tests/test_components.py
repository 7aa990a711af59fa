"""Every registered strategy component executed on a small conversation, each asserting the
behaviour that defines it (issue 8 item 5). Roles are answered by the offline model."""

from __future__ import annotations

from typing import Any

import pytest

from memlab.datasets.models import Dataset
from memlab.embeddings import shared_embedder
from memlab.llm.base import make_model
from memlab.memory.stores.base import make_store
from memlab.roles.program import MemoryRoles
from memlab.strategies.composed import ComposedStrategy, resolve_spec
from memlab.strategies.slots import SLOTS, BuildEnv, load_families
from memlab.strategies.state import Query
from memlab.harness.units import turn_events

TURNS = [
    ("u1", "user", "I live in Porto with my partner Sam."),
    ("a1", "assistant", "Porto is lovely."),
    ("u2", "user", "Thanks, that's nice of you!"),
    ("a2", "assistant", "You're welcome."),
    ("u3", "user", "My sister Ana works as a pilot."),
    ("a3", "assistant", "Impressive."),
    ("u4", "user", "My sister Ana works as a pilot."),
    ("a4", "assistant", "You said so."),
    ("u5", "user", "I live in Lyon now."),
    ("a5", "assistant", "Big change!"),
]


def _conv():
    turns = [{"id": i, "role": r, "text": t} for i, r, t in TURNS]
    ds = Dataset.model_validate({"name": "components", "conversations": [{
        "id": "c", "sessions": [{"id": "s", "timestamp": "2024-05-01T10:00:00", "turns": turns}], "probes": []}]})
    return ds.conversations[0]


@pytest.fixture(scope="module")
def roles() -> MemoryRoles:
    return MemoryRoles(make_model({"provider": "offline"}, embedder=shared_embedder(None)))


def _play(spec: dict[str, Any], roles: MemoryRoles, until: str | None = None):
    env = BuildEnv(roles=roles, embedder=shared_embedder(None), strategy_name=spec["name"],
                   make_store=lambda s: make_store(s["type"]))
    strat = ComposedStrategy(resolve_spec(spec), env)
    conv = _conv()
    strat.begin_unit("t/c")
    outs = [strat.begin_conversation(conv.id)]
    for ev in turn_events(conv):
        outs.append(strat.observe(ev))
        if ev.turn.id == until:
            break
    ops = [o for out in outs for o in out.ops]
    comps = [c for out in outs for c in out.compressions]
    return strat, ops, comps


def _context(strat: ComposedStrategy, question: str):
    import datetime as dt

    return strat.context(Query(question, dt.datetime(2024, 5, 2), shared_embedder(None)))


def _ids(ctx) -> list[str]:
    return [t for line in ctx.lines for t in line.source_turn_ids]


def _facts(ops, op="ADD"):
    return [o for o in ops if o.op.value == op and o.kind not in ("summary", "episode")]


def test_full_history_and_recent_window(roles):
    full, _, _ = _play({"name": "f", "short_term": {"type": "full_history"}}, roles)
    assert _ids(_context(full, "q")) == [t[0] for t in TURNS]
    win, _, _ = _play({"name": "w", "short_term": {"type": "recent_window", "n": 2}}, roles)
    assert _ids(_context(win, "q")) == ["u5", "a5"]


def test_rolling_summary_folds_older_messages_into_a_summary(roles):
    strat, ops, comps = _play({"name": "r", "short_term": {"type": "rolling_summary", "n": 2, "every": 1}}, roles)
    assert [c.step for c in comps] == [4, 6, 8, 10], "every 2 steps, once more than the n=2 kept messages exist"
    ctx = _context(strat, "q")
    assert _ids(ctx)[-2:] == ["u5", "a5"]
    summary = next(s for s in ctx.sections if s.title.startswith("Summary"))
    assert "Porto" in summary.lines[0].text or "Ana" in summary.lines[0].text, "concrete facts survive the summary"
    assert {o.kind for o in ops} == {"summary"}


def test_verbatim_stores_each_user_message_as_is(roles):
    _, ops, _ = _play({"name": "v", "extractor": {"type": "verbatim"}, "retriever": {"type": "vector"}}, roles)
    assert [o.text for o in _facts(ops)] == [f"user: {t}" for _, r, t in TURNS if r == "user"]
    assert [o.source_turn_ids for o in _facts(ops)][0] == ["u1"]


def test_post_turn_extracts_facts_citing_their_turn(roles):
    _, ops, _ = _play({"name": "p", "extractor": {"type": "post_turn"}, "retriever": {"type": "vector"}}, roles, until="a1")
    facts = _facts(ops)
    assert facts and all(f.source_turn_ids == ["u1"] for f in facts)
    assert any("Porto" in f.text for f in facts)


def test_gated_skips_small_talk_and_keeps_facts(roles):
    _, ops, _ = _play({"name": "g", "extractor": {"type": "gated"}, "retriever": {"type": "vector"}}, roles, until="a3")
    cited = {t for f in _facts(ops) for t in f.source_turn_ids}
    assert "u1" in cited and "u3" in cited and "u2" not in cited


def test_dedup_noops_a_repeated_statement(roles):
    _, ops, _ = _play({"name": "d", "extractor": {"type": "verbatim"}, "consolidator": {"type": "dedup"},
                       "retriever": {"type": "vector"}}, roles)
    noops = [o for o in ops if o.op.value == "NOOP"]
    assert [o.source_turn_ids for o in noops] == [["u4"]]


def test_reconcile_updates_a_changed_value(roles):
    _, ops, _ = _play({"name": "c", "extractor": {"type": "post_turn"}, "consolidator": {"type": "reconcile"},
                       "retriever": {"type": "vector"}}, roles)
    updates = _facts(ops, "UPDATE")
    assert any("Lyon" in u.text and "Porto" in (u.previous_text or "") for u in updates)


@pytest.mark.parametrize("retriever", [{"type": "vector", "k": 1}, {"type": "keyword", "k": 1},
                                       {"type": "hybrid", "k": 1}, {"type": "hybrid", "k": 1, "fusion": "rrf"}])
def test_retrievers_find_the_matching_memory(roles, retriever):
    strat, _, _ = _play({"name": "k", "extractor": {"type": "verbatim"}, "retriever": retriever}, roles)
    assert _ids(_context(strat, "Which job does the sister Ana have, pilot?")) in (["u3"], ["u4"])


def test_recency_returns_the_newest_memories_whatever_the_question(roles):
    strat, _, _ = _play({"name": "n", "extractor": {"type": "verbatim"}, "retriever": {"type": "recency", "k": 2}}, roles)
    assert sorted(_ids(_context(strat, "Where is Porto?"))) == ["u4", "u5"]


def test_every_registered_component_is_exercised_somewhere():
    """A new component must come with a test: this list is what the tests of this package cover."""
    load_families()
    covered = {  # here, in test_agent.py, test_oracle.py, test_lifecycle.py, test_threads.py and the test_presets_*.py files
        "short_term": {"full_history", "all_threads", "recent_window", "rolling_summary", "summarizing",
                       "invocation_summaries", "evidence_oracle"},
        "agent": {"react"},
        "extractor": {"post_turn", "gated", "verbatim", "post_pass", "agent_tool", "oracle", "noisy_oracle",
                      "pattern", "summary_entities", "hot_path", "opportunistic"},
        "consolidator": {"append", "dedup", "reconcile", "entity_merge", "thresholded_merge", "conflict_resolve"},
        "episodes": {"episodic", "capped"},
        "lifecycle": {"ttl_fifo"},
        "retriever": {"vector", "keyword", "recency", "hybrid", "recent_by_type", "entity_graph", "weighted_rerank",
                      "fact_history"},
        "timekeeper": {"time_log"},
        "profile": {"synced_profile"},
        "answer": {"inject", "tools"},  # test_answering.py
    }
    registered = {name: set(slot.registry.names()) for name, slot in SLOTS.items() if name != "store"}
    missing = {slot: sorted(names - covered.get(slot, set())) for slot, names in registered.items()
               if names - covered.get(slot, set())}
    assert not missing, f"components without a behavioural test: {missing}"
