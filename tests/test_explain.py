"""Scores that explain themselves: which gold form, found where, or the nearest miss."""

from __future__ import annotations

from memlab.analysis.metrics import explain_probe
from memlab.runfolder.probe_record import ProbeRow

ITEMS = [{"text": "[2024-03-01] Ana: I moved to Lisbo last month", "source_turn_ids": ["s1-01"], "kind": "message",
          "section": "Conversation history"},
         {"text": "Ana works as a nurse", "source_turn_ids": ["s1-03"], "kind": "fact", "section": "Long-term memory"}]


def _probe(**kw):
    """A hand-built probe record (the row's fields given, the others their defaults)."""
    p = {"gold": [["Lisbon"]], "gold_match": "any", "evidence": ["s1-01"], "context_items": ITEMS,
         "context": "## Conversation history\n" + ITEMS[0]["text"] + "\n\n## Long-term memory\n" + ITEMS[1]["text"],
         "context_source_turn_ids": ["s1-01", "s1-03"], "answer": "I don't know", "superseded": [], "forbidden": []}
    p.update(kw)
    return ProbeRow.from_row(p)


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


def test_a_run_explains_its_misses_as_a_table_and_on_the_command_line(tmp_path, capsys):
    """``RunResults.explanations`` / ``memlab explain``: a two-message window misses every
    earlier fact, and each miss names its gold form; ``missed_only`` keeps only misses."""
    from pathlib import Path

    import memlab
    from memlab.cli import main
    from memlab.harness.config import validate_config

    threads = Path(__file__).resolve().parent / "fixtures" / "threads_small.yaml"
    cfg = validate_config({"name": "why", "datasets": [str(threads)], "embedding_cache": None,
                           "output_dir": str(tmp_path), "strategies": [{"name": "window", "short_term": {"type": "recent_window", "n": 2}},
                                                                  {"name": "oracle"}]})
    run_dir = memlab.run(cfg, progress=False)
    res = memlab.load_run(run_dir)
    every = res.explanations()
    missed = res.explanations(missed_only=True)
    assert set(every["strategy"]) == {"window", "oracle"} and 0 < len(missed) < len(every)
    recall = missed[missed["metric"] == "evidence_recall"]
    assert set(recall["strategy"]) == {"window"}, "the oracle's context holds every gold answer"
    assert (recall["score"] == 0.0).all() and recall["explanation"].str.startswith("no form of '").all()
    hits = every[(every["strategy"] == "oracle") & (every["metric"] == "evidence_recall")]
    assert len(hits) and hits["explanation"].str.startswith("found '").all()
    probe = recall["probe_id"].iloc[0]
    assert main(["explain", str(run_dir), "--strategy", "window", "--probe", str(probe)]) == 0
    out = capsys.readouterr().out
    assert "window · " in out and f"/{probe} (" in out and "evidence_recall = 0.0: no form of" in out
    assert main(["explain", str(run_dir), "--csv", str(tmp_path / "why.csv")]) == 0
    assert len(open(tmp_path / "why.csv").read().splitlines()) == len(missed) + 1


def test_a_metric_of_bare_values_is_not_computed_to_ask_why():
    """explain_probe scores only the metrics that explain themselves: a probe page asking why must not
    compute ragas's metrics (which load ragas and an embedding model) to learn there is nothing to say."""
    from memlab.scoring.metric_registry import METRICS, metric

    def never_called(p):
        raise AssertionError("explain_probe computed a metric declared explains=False")

    metric("_bare_values_test", "a metric of bare values", higher_is_better=True, explains=False)(never_called)
    try:
        why = explain_probe(_probe())
        assert "evidence_recall" in why and "_bare_values_test" not in why
        assert all(not METRICS.get(n).explains for n in METRICS.names() if n.startswith("ragas_"))
    finally:
        METRICS.unregister("_bare_values_test")
