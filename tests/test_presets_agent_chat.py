"""Seed 002 (``agent_chat``): last 10 messages, a two-section update (conversation summary and
entity graph) every 5 message pairs, the graph merged by id, entities retrieved by name."""

from __future__ import annotations

from memlab.llm import calls
from memlab.memory.item import Op
from memlab.strategies.extractor.summary_entities import entity_id
from memlab.strategies.state import Query
from tests.presets_support import at, build, conversation, play

PAIRS = ["My sister Anna lives in Lisbon.", "Anna works at Siemens.", "We talked about the weather.",
         "I am reading a book.", "Tom visited Anna last week.", "I had soup.", "Nothing new today.",
         "The rain stopped.", "Anna moved to Porto.", "Good night."]


def _chat(texts: list[str]) -> list[tuple[str, str]]:
    return [m for text in texts for m in (("user", text), ("assistant", "I see."))]


def test_first_summary_comes_exactly_after_five_message_pairs():
    s = build({"name": "agent_chat"})
    recorded: list = []
    summaries_at: list[str] = []

    def after(ev, ops):
        if any(o.kind == "summary" for o in ops) and not summaries_at:
            summaries_at.append(ev.turn.id)

    with calls.call_sink(recorded.append):
        ops = play(s, conversation([("2024-01-01T09:00:00", _chat(PAIRS))]), after_turn=after)
    assert summaries_at == ["t10"], "the 10th message closes the 5th pair"
    summary_ops = [o for o in ops if o.kind == "summary"]
    assert [o.op for o in summary_ops] == [Op.ADD, Op.UPDATE], "one update per 5 pairs: after t10 and t20"
    assert summary_ops[0].source_turn_ids == [f"t{i}" for i in range(1, 11)]
    asked = [r for r in recorded if r.signature == "SummarizeWithEntities"]
    assert len(asked) == 2 and all(r.purpose == "summarize" for r in asked)


def test_entity_graph_is_merged_by_id_and_keeps_typed_nodes_with_weighted_relationships():
    s = build({"name": "agent_chat"})
    assert (s.resolved["consolidator"]["type"], s.resolved["retriever"]["type"]) == ("entity_merge", "entity_graph")
    ops = play(s, conversation([("2024-01-01T09:00:00", _chat(PAIRS))]))
    anna_ops = [o for o in ops if o.item_id == entity_id("anna")]
    assert [o.op for o in anna_ops] == [Op.ADD, Op.UPDATE], "the second update merges into the same node"
    items = {it.id: it for it in s.store.list("test/c1", where={"kind": "entity"})}
    assert len([i for i in items if i == entity_id("anna")]) == 1
    anna = items[entity_id("anna")].metadata["entity"]
    assert anna["type"] == "person"
    assert items[entity_id("lisbon")].metadata["entity"]["type"] == "place"
    rels = {r["targetId"]: r for r in anna["relationships"]}
    assert rels["lisbon"]["relationship"] == "lives in" and 0 < rels["lisbon"]["strength"] <= 1
    assert "porto" in rels, "the second batch's relationship was merged into Anna's node"
    assert anna_ops[1].source_turn_ids[-1] == "t17", "an update cites the turn that names the entity"


def test_retrieval_starts_from_the_entities_the_question_names():
    s = build({"name": "agent_chat"})
    play(s, conversation([("2024-01-01T09:00:00", _chat(PAIRS))]))
    retriever = s.component("retriever")
    hits = retriever.retrieve(s.store, "test/c1", Query("Where does Anna live now?", at("2024-01-02T09:00:00")))
    ids = [h.item.id for h in hits]
    assert ids[0] == entity_id("anna")
    assert {entity_id("lisbon"), entity_id("porto")} <= set(ids), "neighbours by relationship come along"
    assert all(h.score <= hits[0].score for h in hits)
    none = retriever.retrieve(s.store, "test/c1", Query("What did I eat?", at("2024-01-02T09:00:00")))
    assert none == []
    only_named = build({"name": "a", "preset": "agent_chat", "retriever": {"hops": 0}})
    play(only_named, conversation([("2024-01-01T09:00:00", _chat(PAIRS))]))
    hits0 = only_named.component("retriever").retrieve(only_named.store, "test/c1",
                                                         Query("Where does Anna live?", at("2024-01-02T09:00:00")))
    assert [h.item.id for h in hits0] == [entity_id("anna")]


def test_context_has_the_summary_the_entities_and_the_last_ten_messages():
    s = build({"name": "agent_chat"})
    play(s, conversation([("2024-01-01T09:00:00", _chat(PAIRS))]))
    ctx = s.context(Query("Where does Anna live?", at("2024-01-02T09:00:00")))
    by_title = {sec.title: sec.lines for sec in ctx.sections}
    assert len(by_title["Conversation memory"]) == 1
    assert by_title["Entity memory"][0].text.startswith("Anna (person):")
    assert len(by_title["Recent messages"]) == 10


def test_union_merge_keeps_relationships_the_new_node_omits():
    from memlab.strategies.consolidator.entity_merge import _union

    old = {"id": "a", "name": "A", "type": "person", "description": "x", "properties": {"p": 1},
           "relationships": [{"targetId": "b", "relationship": "knows", "strength": 0.5}]}
    new = {"id": "a", "name": "A", "type": "person", "description": "y", "properties": {"q": 2},
           "relationships": [{"targetId": "c", "relationship": "likes", "strength": 0.5}]}
    merged = _union(old, new)
    assert merged["description"] == "y" and merged["properties"] == {"p": 1, "q": 2}
    assert {r["targetId"] for r in merged["relationships"]} == {"b", "c"}


def test_summary_sources_merge_equals_a_full_sort():
    """The incremental merge of a summary's source turns gives what re-sorting the union did."""
    import random

    from memlab.strategies.extractor.summary_entities import _merge_sorted, _turn_order

    rng = random.Random(0)
    for _ in range(500):
        ids = [f"s{rng.randint(0, 30):03d}-{rng.randint(1, 9)}" for _ in range(rng.randint(0, 30))]
        sources = sorted(set(ids[: len(ids) // 2]), key=_turn_order)
        new = ids[len(ids) // 2:]
        assert _merge_sorted(sources, new) == sorted(set(sources) | set(new), key=_turn_order)
