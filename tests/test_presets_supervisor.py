"""Seed 001 (``supervisor``): hot-path classifier gate, thresholded merge (auto-update ≥ 0.85, a
same-fact check from 0.60, recreate | update), minimum importance, weighted rerank.

Similarities are pinned with a table embedder (a test double) so each case sits exactly where
the test says relative to the thresholds; the role answers come from the offline model."""

from __future__ import annotations

import pytest

from memlab.llm import calls
from memlab.memory.item import MemoryItem, Op
from memlab.strategies.composed import resolve_spec
from memlab.strategies.state import Candidate, Query
from tests.presets_support import TableEmbedder, at, build, conversation, play

OLD = "Maria lives in Lisbon."


def _strategy(cos: dict[str, float], **consolidator):
    s = build({"name": "s", "preset": "supervisor", "consolidator": {"type": "thresholded_merge", **consolidator}},
              embedder=TableEmbedder({OLD: 1.0, **cos}))
    s.begin_unit("test/c1")
    s.begin_conversation("c1")
    s.state.now = at("2024-01-01T09:00:00")
    _write(s, Candidate(OLD, "fact", ["t1"], importance=0.9))
    return s


def _write(s, cand: Candidate) -> tuple[list, list[str]]:
    """Hand one candidate to the consolidator; return its ops and the signatures of the calls it made."""
    recorded: list = []
    s.state.candidates = [cand]
    with calls.call_sink(recorded.append):
        s.component("consolidator").flush(s.state)
    return s.state.take().ops, [r.signature for r in recorded]


def _texts(s) -> list[str]:
    return [it.text for it in s.store.list("test/c1", include_invalid=False)]


@pytest.mark.parametrize("cos, asked", [(0.86, []), (0.84, ["SameFact"]), (0.61, ["SameFact"]), (0.59, [])])
def test_the_preset_thresholds_decide_merge_check_or_create_at_the_documents_edges(cos, asked):
    """The preset's own thresholds (the seed's 0.85 auto-update and 0.60 same-fact check), by what they
    do on either side of each edge: above 0.85 merge unasked, from 0.60 ask, below it create."""
    new = "Maria lives in Lisbon now."
    s = _strategy({new: cos})
    ops, called = _write(s, Candidate(new, "fact", ["t5"], importance=0.9))
    assert [c for c in called if c == "SameFact"] == asked
    if cos >= 0.85:
        assert ops[0].reason.startswith(f"auto-update: cos={cos:.3f} ≥ 0.85")
    if cos < 0.60:
        assert [o.op for o in ops] == [Op.ADD] and len(_texts(s)) == 2, "below the check: a new memory"


def test_merges_a_near_duplicate_above_auto_update_without_the_check():
    new = "Maria lives in Lisbon, Portugal."
    s = _strategy({new: 0.9})
    s.state.now = at("2024-01-02T09:00:00")
    ops, asked = _write(s, Candidate(new, "fact", ["t5"], importance=0.9))
    assert "SameFact" not in asked
    assert asked == ["ComposeSummaries"], "recreate composes the merged text"
    assert [o.op for o in ops] == [Op.ADD, Op.DELETE]
    assert ops[0].reason.startswith("auto-update: cos=0.900 ≥ 0.85")
    assert ops[1].previous_text == OLD
    assert len(_texts(s)) == 1 and ops[0].source_turn_ids == ["t1", "t5"]


def test_asks_the_same_fact_check_between_check_low_and_auto_update():
    same, other, far = "Maria lives in Porto.", "Maria likes cats.", "Maria works at Acme."
    s = _strategy({same: 0.7})
    ops, asked = _write(s, Candidate(same, "fact", ["t2"], importance=0.9))
    assert asked.count("SameFact") == 1
    assert [o.op for o in ops] == [Op.ADD, Op.DELETE] and "same-fact check: same" in ops[0].reason
    assert _texts(s) == [same]
    s = _strategy({other: 0.7})
    ops, asked = _write(s, Candidate(other, "fact", ["t3"], importance=0.9))
    assert asked == ["SameFact"] and [o.op for o in ops] == [Op.ADD]
    assert ops[0].reason == "created: no same fact among 1 checked neighbour(s)"
    s = _strategy({far: 0.5})
    ops, asked = _write(s, Candidate(far, "fact", ["t4"], importance=0.9))
    assert asked == [], "below check_low no model is asked"
    assert [o.op for o in ops] == [Op.ADD] and ops[0].reason == "created: no neighbour with cos ≥ 0.6"


def test_update_mode_rewrites_the_memory_in_place():
    new = "Maria lives in Lisbon, Portugal."
    s = _strategy({new: 0.95}, mode="update")
    old_id = s.store.list("test/c1")[0].id
    ops, asked = _write(s, Candidate(new, "fact", ["t2"], importance=0.9))
    assert asked == [] and [(o.op, o.item_id) for o in ops] == [(Op.UPDATE, old_id)]
    assert _texts(s) == [new]


def test_low_importance_creations_are_dropped_but_merges_are_not():
    low_new, low_dup = "Maria owns a red pen.", "Maria lives in Lisbon, Portugal."
    s = _strategy({low_new: 0.1, low_dup: 0.9})
    ops, _ = _write(s, Candidate(low_new, "fact", ["t2"], importance=0.1))
    assert [o.op for o in ops] == [Op.NOOP] and ops[0].reason == "creation dropped: importance 0.10 < 0.3"
    ops, _ = _write(s, Candidate(low_dup, "fact", ["t3"], importance=0.1))
    assert [o.op for o in ops] == [Op.ADD, Op.DELETE]


def test_neighbours_are_searched_within_the_category():
    pref = "Maria lives in Lisbon!"
    s = _strategy({pref: 0.95})
    ops, asked = _write(s, Candidate(pref, "preference", ["t2"], importance=0.9))
    assert [o.op for o in ops] == [Op.ADD] and asked == []
    assert len(_texts(s)) == 2


def test_thresholds_out_of_order_are_rejected():
    with pytest.raises(ValueError, match=r"check_low \(0.9\) must not exceed auto_update \(0.85\)"):
        resolve_spec({"name": "s", "preset": "supervisor", "consolidator": {"check_low": 0.9}})


def test_hot_path_gate_sees_the_last_user_turns_and_skips_the_do_not_create_cases():
    s = build({"name": "supervisor"})
    assert s.resolved["extractor"] == {"type": "hot_path", "window": 3}  # the seed's gate, its last 3 user turns
    seen: list[list[str]] = []
    real = s.env.roles.classify_memory

    def spy(**kw):
        seen.append(list(kw["recent_user_turns"]))
        return real(**kw)

    s.env.roles.classify_memory = spy
    msgs = ["What can you do for me?", "Book me a table for tonight.", "I am flying to Paris tomorrow.",
            "I prefer window seats on planes."]
    ops = play(s, conversation([("2024-01-01T09:00:00", [m for t in msgs for m in (("user", t), ("assistant", "OK."))])]))
    assert len(seen) == 4 and seen[-1] == msgs[1:], "one call per user message over the last 3 user messages"
    added = [o for o in ops if o.op is Op.ADD and o.kind != "episode"]
    assert [(o.kind, o.source_turn_ids[-1]) for o in added] == [("preference", "t7")]
    assert "window seats" in added[0].text


def test_rerank_weighs_pinned_and_importance_and_adds_a_now_line():
    a, b = "Maria likes tea.", "Maria likes coffee."

    def strategy(**retriever):
        emb = TableEmbedder({a: 0.9, b: 0.8, "drinks?": 1.0})
        s = build({"name": "s", "preset": "supervisor", "retriever": {"type": "weighted_rerank", **retriever}}, embedder=emb)
        s.begin_unit("test/c1")
        s.begin_conversation("c1")
        when = at("2024-01-01T09:00:00")
        s.store.add([MemoryItem(id=i, namespace="test/c1", text=t, kind="preference", created_at=when, updated_at=when,
                                metadata={"date": "2024-01-01", "importance": 0.5, **meta})
                     for i, t, meta in (("a", a, {}), ("b", b, {"pinned": True}))], emb.embed([a, b]))
        return s

    s = strategy()
    ctx = s.context(Query("drinks?", at("2024-01-02T09:00:00"), s.env.embedder))
    lines = [ln.text for sec in ctx.sections if sec.title == "Relevant memories" for ln in sec.lines]
    assert lines == ["- [2024-01-01] Maria likes coffee.", "- [2024-01-01] Maria likes tea.", "Now: Tuesday 2024-01-02 09:00 UTC"]
    unpinned = strategy(w_pinned=0.0)
    hits = unpinned.component("retriever").retrieve(unpinned.store, "test/c1",
                                                    Query("drinks?", at("2024-01-02T09:00:00"), unpinned.env.embedder))
    assert [h.item.text for h in hits] == [a, b]
    top1 = strategy(top_n=1)
    assert len(top1.component("retriever").retrieve(top1.store, "test/c1",
                                                    Query("drinks?", at("2024-01-02T09:00:00"), top1.env.embedder))) == 1


# -- episodic capture: cooldowns, daily cap, merge window, novelty ------------------------------------

def _episodes(ops) -> list[tuple[str, str]]:
    return [(o.op.value, o.source_turn_ids[-1]) for o in ops if o.kind == "episode"]


def _day(ts: str, n: int, start: int = 0):
    return (ts, [m for i in range(start, start + n) for m in (("user", f"I visited museum number {i} today."),
                                                              ("assistant", "Nice."))])


def test_episodes_wait_for_the_turn_cooldown():
    s = build({"name": "s", "preset": "supervisor", "episodes": {"type": "capped", "cooldown_turns": 2,
                                                                 "cooldown_minutes": 0, "merge_window_hours": 0}})
    ops = play(s, conversation([_day("2024-01-01T09:00:00", 5)]))
    assert _episodes(ops) == [("ADD", "t2"), ("ADD", "t6"), ("ADD", "t10")]


def test_episodes_respect_the_daily_cap_and_the_minute_cooldown():
    capped = build({"name": "s", "preset": "supervisor", "episodes": {"type": "capped", "cooldown_turns": 0,
                                                                      "cooldown_minutes": 0, "max_per_day": 1,
                                                                      "merge_window_hours": 0}})
    ops = play(capped, conversation([_day("2024-01-01T09:00:00", 3), _day("2024-01-02T09:00:00", 3, 3)]))
    assert _episodes(ops) == [("ADD", "t2"), ("ADD", "t8")], "one per day"
    cooled = build({"name": "s", "preset": "supervisor", "episodes": {"type": "capped", "cooldown_turns": 0,
                                                                      "cooldown_minutes": 60, "merge_window_hours": 0}})
    ops = play(cooled, conversation([_day("2024-01-01T09:00:00", 2), _day("2024-01-01T09:30:00", 2, 2),
                                     _day("2024-01-01T10:05:00", 1, 4)]))
    assert _episodes(ops) == [("ADD", "t2"), ("ADD", "t10")], "nothing within 60 minutes of the last capture"


def test_episodes_merge_within_the_window_only_when_novel_enough():
    spec = {"type": "capped", "cooldown_turns": 0, "cooldown_minutes": 0, "merge_window_hours": 24}
    merging = build({"name": "s", "preset": "supervisor", "episodes": {**spec, "novelty_min": 0.0}})
    ops = play(merging, conversation([_day("2024-01-01T09:00:00", 3)]))
    assert [op for op, _ in _episodes(ops)] == ["ADD", "UPDATE", "UPDATE"]
    assert [it.kind for it in merging.store.list(merging.state.namespace)].count("episode") == 1
    skipping = build({"name": "s", "preset": "supervisor", "episodes": {**spec, "novelty_min": 2.0}})
    ops = play(skipping, conversation([_day("2024-01-01T09:00:00", 3)]))
    assert [op for op, _ in _episodes(ops)] == ["ADD", "NOOP", "NOOP"]
    assert all("novelty" in o.reason for o in ops if o.kind == "episode" and o.op is Op.NOOP)


def test_profile_is_synced_from_new_memories_and_injected_on_every_context():
    s = build({"name": "supervisor"})
    ops = play(s, conversation([("2024-05-06T20:00:00", [
        ("user", "I just moved to Tokyo for work."), ("assistant", "Exciting!"),
        ("user", "thanks!"), ("assistant", "Anytime."),
        ("user", "I want to run the Tokyo marathon."), ("assistant", "Go for it.")])]))
    synced = [o for o in ops if o.kind == "profile"]
    assert [o.op for o in synced] == [Op.ADD, Op.UPDATE]
    assert synced[0].reason.startswith("profile sync from memory ") and synced[0].reason.endswith(": city, time_zone")
    assert synced[1].reason.endswith(": goals") and synced[1].previous_text == synced[0].text
    assert synced[0].source_turn_ids == ["t1"] and synced[1].source_turn_ids == ["t1", "t3", "t5"]
    assert all(o.namespace == f"{s.state.namespace}/user_context" for o in synced)
    for question in ("What is my favourite colour?", "Where do I live?"):  # whatever the question, as in the seed
        ctx = s.context(Query(question, at("2024-05-07T09:00:00"), s.env.embedder))
        assert ctx.sections[0].title == "Profile"
        assert ctx.sections[0].lines[0].text.startswith("User profile: city Tokyo; goals ")
        assert ctx.sections[0].lines[0].text.endswith("; time zone Asia/Tokyo")
    assert all(it.kind != "profile" for it in s.store.list(s.state.namespace)), "the profile is kept apart from memories"


def test_now_line_is_in_the_profiles_time_zone_else_the_parameter_default_utc():
    r = resolve_spec({"name": "supervisor"})
    assert r["retriever"]["time_zone"] == "UTC" and r["profile"]["type"] == "synced_profile"
    asked = at("2024-05-06T22:30:00")  # Monday 22:30 UTC is Tuesday 07:30 in Tokyo

    def now_line(spec: dict, said: str) -> str:
        s = build(spec)
        play(s, conversation([("2024-05-06T20:00:00", [("user", said), ("assistant", "Noted.")])]))
        ctx = s.context(Query("anything new?", asked, s.env.embedder))
        return next(ln.text for sec in ctx.sections for ln in sec.lines if ln.kind == "time")

    assert now_line({"name": "supervisor"}, "I like green tea.") == "Now: Monday 2024-05-06 22:30 UTC"
    assert now_line({"name": "supervisor"}, "I moved to Tokyo last year.") == "Now: Tuesday 2024-05-07 07:30 Asia/Tokyo"
    fallback = {"name": "s", "preset": "supervisor", "retriever": {"type": "weighted_rerank", "time_zone": "Europe/Lisbon"}}
    assert now_line(fallback, "I like green tea.") == "Now: Monday 2024-05-06 23:30 Europe/Lisbon"
    with pytest.raises(ValueError, match="profile 'synced_profile' is synced from the memories an extractor writes"):
        resolve_spec({"name": "s", "profile": {"type": "synced_profile"}})
    with pytest.raises(ValueError, match="time_zone: .*unknown IANA time zone 'Mars/Olympus'"):
        resolve_spec({"name": "s", "preset": "supervisor", "retriever": {"type": "weighted_rerank", "time_zone": "Mars/Olympus"}})
