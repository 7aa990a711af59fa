"""Scores that explain themselves: which gold form, found where, or the nearest miss."""

from __future__ import annotations

from memlab.analysis.metrics import explain_probe

ITEMS = [{"text": "[2024-03-01] Ana: I moved to Lisbo last month", "source_turn_ids": ["s1-01"], "kind": "message",
          "section": "Conversation history"},
         {"text": "Ana works as a nurse", "source_turn_ids": ["s1-03"], "kind": "fact", "section": "Long-term memory"}]


def _probe(**kw):
    p = {"gold": [["Lisbon"]], "gold_match": "any", "evidence": ["s1-01"], "context_items": ITEMS,
         "context": "## Conversation history\n" + ITEMS[0]["text"] + "\n\n## Long-term memory\n" + ITEMS[1]["text"],
         "context_source_turn_ids": ["s1-01", "s1-03"], "answer": "I don't know", "superseded": [], "forbidden": []}
    p.update(kw)
    return p


def test_a_miss_names_the_gold_form_and_the_nearest_line():
    why = explain_probe(_probe())
    assert why["evidence_recall"].startswith("no form of 'Lisbon' in the context; nearest: line 1 of Conversation history")
    assert "0.83 of 'Lisbon'" in why["evidence_recall"]
    assert why["content_recall"] == ("s1-01: 1 line(s) derive from it, none with a gold form "
                                     "(e.g. '[2024-03-01] Ana: I moved to Lisbo last month')")
    assert why["provenance_recall"] == "context derives from evidence s1-01"
    assert why["false_abstention"].startswith("the answer says it does not know")


def test_a_hit_names_the_form_the_section_and_the_line():
    items = ITEMS + [{"text": "Ana lives in Lisboa (Lisbon)", "source_turn_ids": ["s2-01"], "kind": "fact",
                      "section": "Long-term memory"}]
    p = _probe(gold=[["Lisbon", "Lisboa"]], context_items=items, evidence=["s1-01", "s2-01"], answer="Lisbon")
    why = explain_probe(p)
    assert why["evidence_recall"] == "found 'Lisbon' in line 2 of Long-term memory: 'Ana lives in Lisboa (Lisbon)'"
    assert "s2-01: carried by" in why["content_recall"] and "s1-01: 1 line(s)" in why["content_recall"]
    assert why["answer_correct"].startswith("found 'Lisbon' in")


def test_only_metrics_that_apply_explain_and_an_empty_context_says_so():
    why = explain_probe(_probe(context_items=[], context="", evidence=[]))
    assert why["evidence_recall"] == "the context is empty"
    assert "abstain_when_should" not in why and "forbidden_leak" not in why and "update_context" not in why
    leak = explain_probe(_probe(forbidden=["hunter2"], answer="the password is hunter2"))
    assert leak["forbidden_leak"] == "planted 'hunter2' in the answer"
    stale = explain_probe(_probe(gold=[["Porto"]], superseded=["Lisbon"], category="knowledge_update",
                                 context="## Long-term memory\nAna lives in Porto, not Lisbon", context_items=None))
    assert "found 'Porto'" in stale["update_context"] and "stale value(s) present: 'Lisbon'" in stale["update_context"]
