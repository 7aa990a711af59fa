"""Seed 003 (``son_of_andrew``): pattern-triggered learning with confidence, conflict detection by
type, resolution by confidence, fact history (valid_from / invalid_at) and as-of answers."""

from __future__ import annotations

import pytest

from memlab.memory.item import Op
from memlab.strategies.consolidator.conflict_resolve import conflict_type
from memlab.strategies.state import Candidate, Query
from tests.presets_support import at, build, conversation, play


def _chat(ts: str, texts: list[str]):
    return (ts, [m for t in texts for m in (("user", t), ("assistant", "Noted."))])


@pytest.mark.parametrize("cos, superseded", [(0.55, True), (0.45, False)])
def test_only_stored_facts_at_least_half_as_similar_are_checked_for_a_conflict(cos, superseded):
    """The preset's similarity threshold (the seed's 0.5), by what it does on either side."""
    from tests.presets_support import TableEmbedder

    old, new = "Sarah is my design partner.", "Sarah is not my design partner."
    s = build({"name": "son_of_andrew"}, embedder=TableEmbedder({old: 1.0, new: cos}))
    s.begin_unit("test/c1")
    s.begin_conversation("c1")
    for when, text, turn in (("2024-01-01T09:00:00", old, "t1"), ("2024-02-01T09:00:00", new, "t2")):
        s.state.now = at(when)
        s.state.candidates = [Candidate(text, "fact", [turn], metadata={"confidence": "high"})]
        s.component("consolidator").flush(s.state)
    ops = s.state.take().ops
    assert (Op.INVALIDATE in [o.op for o in ops]) is superseded
    assert {it.text: it.valid for it in s.store.list(s.state.namespace)}[old] is not superseded


def test_conflict_classes_follow_the_documents_examples():
    assert conflict_type("Ted doesn't like remote work.", "Ted likes remote work.") == "negation"
    assert conflict_type("Ted is my current business partner.", "Ted is my former business partner.") == "status_change"
    assert conflict_type("Sarah is my design partner.", "Sarah was my design partner.") == "temporal"
    assert conflict_type("Ted likes remote work.", "Anna plays chess on Fridays.") is None


def test_negation_conflict_updates_the_fact_keeps_history_and_stops_retrieving_the_old_value():
    s = build({"name": "son_of_andrew"})
    assert [s.resolved[slot]["type"] for slot in ("extractor", "consolidator", "retriever")] == [
        "opportunistic", "conflict_resolve", "fact_history"]  # the components under test
    ops = play(s, conversation([_chat("2024-01-01T09:00:00", ["Sarah is my design partner."]),
                                _chat("2024-02-01T09:00:00", ["Sarah is not my design partner."])]))
    facts = [o for o in ops if o.kind == "fact"]
    assert [o.op for o in facts] == [Op.ADD, Op.INVALIDATE, Op.ADD]
    before, after = facts[0].text, facts[2].text
    assert facts[1].text == before and " not " in after and " not " not in before
    assert "negation conflict, high confidence" in facts[1].reason
    kept = {it.text: it for it in s.store.list(s.state.namespace)}
    old, new = kept[before], kept[after]
    assert not old.valid and old.metadata["invalid_at"].startswith("2024-02-01") and old.metadata["superseded_by"] == new.id
    assert new.valid and new.metadata["replaces"] == old.id
    retriever = s.component("retriever")
    question = Query("Is Sarah my design partner?", at("2024-03-01T09:00:00"), s.env.embedder)
    assert [h.item.text for h in retriever.retrieve(s.store, s.state.namespace, question)] == [after]
    ctx = s.context(question)
    facts_lines = [ln.text for sec in ctx.sections if sec.title == "Facts" for ln in sec.lines]
    assert facts_lines == [f"[2024-02-01] {after}", f"  (earlier, 2024-01-01 to 2024-02-01: {before})"]
    assert [it.text for it in retriever.as_of(s.store, s.state.namespace, at("2024-01-15T00:00:00"))] == [before]
    assert [it.text for it in retriever.as_of(s.store, s.state.namespace, at("2024-02-15T00:00:00"))] == [after]
    tool = next(t for t in s.tools() if t.name == "facts_as_of")
    assert before in tool.run({"date": "2024-01-15"}) and after not in tool.run({"date": "2024-01-15"})


def test_resolution_depends_on_confidence():
    s = build({"name": "son_of_andrew"})
    ops = play(s, conversation([_chat("2024-01-01T09:00:00", ["Sarah is my design partner."]),
                                _chat("2024-01-02T09:00:00", ["I think Sarah is not my design partner."]),
                                _chat("2024-01-03T09:00:00", ["I usually prefer working in the mornings."])]))
    low = [o for o in ops if o.op is Op.NOOP]
    assert len(low) == 1 and "low confidence: queued for confirmation" in low[0].reason
    assert [q.get("conflict_type") for q in s.component("consolidator").queue] == ["negation"]
    medium = next(o for o in ops if o.op is Op.ADD and "mornings" in o.text)
    assert medium.reason == "medium confidence, no conflict: stored (tracked for review)"
    assert [it.text for it in s.store.list(s.state.namespace) if not it.valid] == [], "nothing was superseded"


def test_messages_without_a_learning_pattern_are_not_analysed():
    from memlab.llm import calls

    s = build({"name": "son_of_andrew"})
    recorded: list = []
    with calls.call_sink(recorded.append):
        play(s, conversation([_chat("2024-01-01T09:00:00", ["hello there", "what time is it?"])]))
    assert [r for r in recorded if r.signature == "AnalyzeForLearning"] == []


def test_search_cache_answers_a_repeated_question_within_its_ttl_even_after_a_write():
    s = build({"name": "son_of_andrew"})
    play(s, conversation([_chat("2024-01-01T09:00:00", ["Sarah is my design partner."])]))
    retriever = s.component("retriever")

    def ask(when: str) -> list[str]:
        q = Query("Is  Sarah my design partner?", at(when), s.env.embedder)
        return [h.item.text for h in retriever.retrieve(s.store, s.state.namespace, q)]

    first = ask("2024-01-01T10:00:00")
    s.store.reset(s.state.namespace)  # memory changes behind the cache
    assert ask("2024-01-01T10:04:00") == first and retriever.cache_hits == 1
    assert ask("2024-01-01T10:06:00") == [], "after 5 minutes the search runs again"
    fresh = build({"name": "s", "preset": "son_of_andrew", "retriever": {"type": "fact_history", "cache_ttl_s": 0}})
    play(fresh, conversation([_chat("2024-01-01T09:00:00", ["Sarah is my design partner."])]))
    q = Query("Is Sarah my design partner?", at("2024-01-01T10:00:00"), fresh.env.embedder)
    fresh.component("retriever").retrieve(fresh.store, fresh.state.namespace, q)
    fresh.store.reset(fresh.state.namespace)
    assert fresh.component("retriever").retrieve(fresh.store, fresh.state.namespace, q) == []
