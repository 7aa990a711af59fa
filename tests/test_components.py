"""Every registered strategy component executed on a small conversation, each asserting the
behaviour that defines it (issue 8 item 5). Roles are answered by the offline model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from memlab.datasets.models import Dataset
from memlab.embeddings import shared_embedder
from memlab.llm.base import make_model
from memlab.roles.program import MemoryRoles
from memlab.strategies.composed import ComposedStrategy, resolve_spec
from memlab.strategies.slots import BuildEnv
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
                   make_store=lambda s: s.build())
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


def _test_corpus() -> str:
    root = Path(__file__).resolve().parent
    return "\n".join(p.read_text(encoding="utf-8", errors="ignore") for p in sorted(root.rglob("*"))
                     if p.suffix in (".py", ".yaml", ".json") and p.is_file())


def _extension_points() -> list[str]:
    from memlab.extensions import extension_points

    return sorted(extension_points())


@pytest.mark.parametrize("point", _extension_points())
def test_every_registered_entry_is_named_by_some_test(point):
    """A new component, trigger, metric, store, strategy type, preset, provider or format must come
    with a test that uses it: every name of every extension point (memlab.extensions) appears in the
    tests as a quoted name or a ``type:`` / ``name:`` value. Parametrised over the registries, so a new
    extension point is guarded without editing this test."""
    from memlab.extensions import extension_points

    corpus = _test_corpus()
    missing = [n for n in extension_points()[point].names()
               if not re.search(rf"""(["']){re.escape(n)}\1|type:\s*{re.escape(n)}\b|\bname:\s*{re.escape(n)}\b""", corpus)]
    assert not missing, f"{point} entries no test uses: {missing}"
