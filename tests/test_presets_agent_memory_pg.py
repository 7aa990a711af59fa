"""Seed 004 (``agent_memory_pg``): regex extraction every 10 messages, TTL expiry, FIFO cap, the
newest memories grouped by type, a substring search tool, on the project's Postgres by default."""

from __future__ import annotations

import pytest

from memlab.memory.item import Op
from memlab.strategies.composed import resolve_spec
from memlab.strategies.lifecycle.ttl_fifo import expired
from tests.presets_support import at, build, conversation, play


def _chat(pairs: list[str]) -> list[tuple[str, str]]:
    """User statements, each answered by a short assistant turn (2 messages per statement)."""
    return [m for text in pairs for m in (("user", text), ("assistant", "Noted."))]


def test_the_defaults_inject_the_newest_20_memories_and_the_last_40_messages():
    """The seed's "last-20 injection" and 40-message window, by what reaches the prompt (its every-10
    extraction, excerpt summaries, cap and Postgres store are the tests below)."""
    s = build({"name": "a", "preset": "agent_memory_pg", "store": {"type": "in_memory"}})
    assert s.resolved["retriever"]["type"] == "recent_by_type"
    statements = [f"I work at Company{i:02d}." for i in range(30)]
    ops = play(s, conversation([("2024-01-01T09:00:00", _chat(statements))]))
    assert sum(o.op is Op.ADD for o in ops) > 20, "more memories than are injected"
    ctx = s.context(_query("anything", "2024-01-02T09:00:00"))
    assert len(_memory_text(ctx).splitlines()) == 20
    recent = next(sec for sec in ctx.sections if sec.title == "Recent messages")
    assert len(recent.lines) == 40 and recent.lines[0].text.endswith("user: I work at Company10.")


PASS = ["My name is Alice and I prefer dark mode. Also hi.", "It rains.", "Hello.", "Fine.", "I work at Acme."]
"""Five user statements and their replies: one pass of 10 messages."""


def test_each_pass_over_more_than_5_messages_writes_a_conversation_summary_as_chosen():
    def summaries(extractor: dict) -> tuple[list, list[str]]:
        from memlab.llm import calls

        s = build({"name": "a", "preset": "agent_memory_pg", "store": {"type": "in_memory"}, "extractor": extractor})
        recorded: list = []
        with calls.call_sink(recorded.append):
            ops = play(s, conversation([("2024-01-01T09:00:00", _chat(PASS))]))
        return [o for o in ops if o.kind == "conversation_summary"], [r.signature for r in recorded]

    excerpt, asked = summaries({})
    assert [(o.op, o.text) for o in excerpt] == [
        (Op.ADD, "My name is Alice and I prefer dark mode. / It rains. / Hello. / Fine. / I work at Acme.")]
    assert excerpt[0].source_turn_ids == [f"t{i}" for i in range(1, 11)] and asked == [], "excerpt calls no model"
    modelled, asked = summaries({"summary": "model"})
    assert len(modelled) == 1 and asked == ["Summarize"] and modelled[0].text
    assert summaries({"summary": "none"})[0] == []
    assert summaries({"summary_after": 10})[0] == [], "a pass of 10 messages is not more than 10"
    short, _ = summaries({"every": 4})  # passes of 4 messages: not more than 5
    assert short == []


def test_extracts_only_when_the_message_count_reaches_a_multiple_of_every():
    s = build({"name": "a", "preset": "agent_memory_pg", "store": {"type": "in_memory"}})
    adds_after: dict[str, int] = {}
    data = conversation([("2024-01-01T09:00:00", _chat(
        ["My name is Alice and I prefer dark mode.", "It rains.", "Hello.", "Fine.", "I work at Acme.", "I like tea."]))])
    play(s, data, after_turn=lambda ev, ops: adds_after.__setitem__(
        ev.turn.id, sum(o.op is Op.ADD and o.kind != "conversation_summary" for o in ops)))
    assert adds_after["t9"] == 0, "nothing is extracted before the 10th message"
    added = [o for o in play(s, data) if o.op is Op.ADD and o.kind != "conversation_summary"]
    assert [(o.kind, o.text) for o in added] == [
        ("fact", "My name is Alice"), ("preference", "I prefer dark mode"), ("fact", "I work at Acme")]
    assert adds_after["t10"] == 3
    assert added[0].source_turn_ids == ["t1"]
    # "I like tea." is message 11: its pass (at message 20) never comes, as in the seed


def test_fifo_cap_keeps_the_newest_memories_only():
    s = build({"name": "a", "preset": "agent_memory_pg", "store": {"type": "in_memory"},
               "extractor": {"every": 2}, "lifecycle": {"max_items": 3}})
    cities = ["Oslo", "Lima", "Rome", "Kyiv", "Baku", "Doha"]
    data = conversation([(f"2024-01-0{i + 1}T09:00:00", _chat([f"I work at {c}."])) for i, c in enumerate(cities)])
    kept_counts: list[int] = []
    ops = play(s, data, after_turn=lambda ev, _: kept_counts.append(len(s.store.list("test/c1", include_invalid=False))))
    assert max(kept_counts) <= 3
    assert [it.text for it in s.store.list("test/c1")] == ["I work at Rome", "I work at Kyiv", "I work at Baku", "I work at Doha"][1:]
    dropped = [o for o in ops if o.op is Op.DELETE]
    assert [o.text for o in dropped] == ["I work at Oslo", "I work at Lima", "I work at Rome"]
    assert all(o.reason.startswith("fifo cap") for o in dropped)


def test_never_returns_an_expired_memory():
    s = build({"name": "a", "preset": "agent_memory_pg", "store": {"type": "in_memory"},
               "extractor": {"every": 2}, "lifecycle": {"ttl_days": {"preference": 3}}})
    data = conversation([("2024-01-01T09:00:00", _chat(["I prefer green tea."])),
                         ("2024-01-02T09:00:00", _chat(["My name is Alice."]))])
    play(s, data)
    retriever = s.component("retriever")
    ctx_day2 = s.context(_query("what do I prefer?", "2024-01-02T10:00:00"))
    assert "I prefer green tea" in _memory_text(ctx_day2)
    for when in ("2024-01-04T09:00:01", "2024-01-09T09:00:00"):  # 3 days after the turn (turns are µs apart)
        memories = _memory_text(s.context(_query("what do I prefer?", when)))
        assert "green tea" not in memories and "My name is Alice" in memories
        assert retriever.search(s.store, "test/c1", at(when), "tea") == []
        assert not any(expired(it, at(when)) for it in (h.item for h in retriever.retrieve(s.store, "test/c1", _query("x", when))))


def test_expired_memories_are_deleted_at_the_next_write_with_their_reason():
    s = build({"name": "a", "preset": "agent_memory_pg", "store": {"type": "in_memory"},
               "extractor": {"every": 2}, "lifecycle": {"ttl_days": {"preference": 3}}})
    data = conversation([("2024-01-01T09:00:00", _chat(["I prefer green tea."])),
                         ("2024-01-10T09:00:00", _chat(["My name is Alice."]))])
    ops = play(s, data)
    gone = [o for o in ops if o.op is Op.DELETE]
    assert [(o.text, o.reason) for o in gone] == [("I prefer green tea", "expired (ttl 3.0 days)")]
    assert [it.text for it in s.store.list("test/c1")] == ["My name is Alice"]


def test_invalidate_on_expiry_keeps_the_memory_for_audit():
    s = build({"name": "a", "preset": "agent_memory_pg", "store": {"type": "in_memory"},
               "extractor": {"every": 2}, "lifecycle": {"ttl_days": {"preference": 3}, "on_expiry": "invalidate"}})
    data = conversation([("2024-01-01T09:00:00", _chat(["I prefer green tea."])),
                         ("2024-01-10T09:00:00", _chat(["My name is Alice."]))])
    ops = play(s, data)
    assert [o.op for o in ops if o.text == "I prefer green tea"] == [Op.ADD, Op.INVALIDATE]
    kept = {it.text: it.valid for it in s.store.list("test/c1")}
    assert kept == {"I prefer green tea": False, "My name is Alice": True}


def test_context_groups_the_newest_memories_by_type():
    s = build({"name": "a", "preset": "agent_memory_pg", "store": {"type": "in_memory"}, "extractor": {"every": 2},
               "retriever": {"k": 2}})
    data = conversation([(f"2024-01-0{i}T09:00:00", _chat([text]))
                         for i, text in enumerate(["I like jazz.", "I prefer tea.", "My name is Alice."], start=1)])
    play(s, data)
    ctx = s.context(_query("anything", "2024-01-05T09:00:00"))
    titles = [sec.title for sec in ctx.sections if sec.title.startswith("Your")]
    assert titles == ["Your Memories: Facts", "Your Memories: Preferences"]
    assert _memory_text(ctx).splitlines() == ["1. [2024-01-03] My name is Alice", "1. [2024-01-02] I prefer tea"]


def test_search_tool_is_a_case_insensitive_substring_match_filtered_by_type():
    s = build({"name": "a", "preset": "agent_memory_pg", "store": {"type": "in_memory"}, "extractor": {"every": 2}})
    play(s, conversation([("2024-01-01T09:00:00", _chat(["I prefer DARK mode.", "I am in the dark room."]))]))
    tool = next(t for t in s.tools() if t.name == "search_memories")
    both = tool.run({"query": "dark"})
    assert "DARK mode" in both and "dark room" in both
    only_pref = tool.run({"query": "dark", "type": "preference"})
    assert "DARK mode" in only_pref and "dark room" not in only_pref
    with pytest.raises(ValueError, match="needs a 'query'"):
        tool.run({"query": " "})


def test_bad_pattern_is_named_in_the_error():
    with pytest.raises(ValueError, match=r"patterns\.fact: '\(unclosed' is not a valid regular expression"):
        resolve_spec({"name": "a", "preset": "agent_memory_pg", "extractor": {"patterns": {"fact": ["(unclosed"]}}})


def test_runs_on_the_projects_postgres_by_default(postgres):
    s = build({"name": "agent_memory_pg"})
    try:
        assert s.store.name == "postgres"
        data = conversation([("2024-01-01T09:00:00", _chat(["My name is Alice and I prefer dark mode."] * 5))])
        ops = play(s, data, namespace="presets-test/pg")
        assert sum(o.op is Op.ADD for o in ops) == 11, "five facts, five preferences, one conversation summary"
        assert "1. [2024-01-01] My name is Alice" in s.context(_query("name?", "2024-01-02T09:00:00")).text
    finally:
        s.store.reset("presets-test/pg")
        s.close()


def _query(question: str, when: str):
    from memlab.strategies.state import Query

    return Query(question, at(when))


def _memory_text(ctx) -> str:
    """The injected long-term memories only (the 40-message window shows the raw messages too)."""
    return "\n".join(ln.text for sec in ctx.sections if sec.title.startswith("Your Memories") for ln in sec.lines)
