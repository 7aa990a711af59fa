"""Seed 003's time tracking (``son_of_andrew``'s TimekeeperAgent): the agent's ``log_time`` /
``get_time_entries`` tools, entries kept in their own namespace with provenance, totals, and the
offline agent policy that decides to log."""

from __future__ import annotations

import pytest

from memlab.memory.item import Op
from memlab.offline.timelog import time_logs, time_question
from memlab.strategies.composed import resolve_spec
from memlab.strategies.state import Query
from tests.presets_support import at, build, conversation, play

LOGS = conversation([
    ("2024-03-04T09:00:00", [("user", "Morning! I spent 3 hours on the Kestrel redesign today."), ("assistant", "Noted.")]),
    ("2024-03-06T17:00:00", [("user", "Log 2.5 hours for Kestrel redesign and 1 hour for the budget review."),
                             ("assistant", "Done.")]),
])
"""Mon 4 March and Wed 6 March 2024: 5.5 hours on the Kestrel redesign, 1 on the budget review."""


def _tool(strategy, name: str):
    return next(t for t in strategy.tools() if t.name == name)


def test_preset_has_an_agent_and_the_time_tools():
    r = resolve_spec({"name": "son_of_andrew"})
    assert r["agent"]["type"] == "react" and r["timekeeper"]["type"] == "time_log"
    assert r["timekeeper"]["default_category"] == "general" and "hours" in r["timekeeper"]["query_words"]
    names = {t.name: t for t in build({"name": "son_of_andrew"}).tools()}
    assert names["log_time"].writes and not names["get_time_entries"].writes


def test_a_timekeeper_without_an_agent_is_refused():
    with pytest.raises(ValueError, match="timekeeper 'time_log' offers tools an agent calls; add an agent slot"):
        resolve_spec({"name": "t", "timekeeper": {"type": "time_log"}})


def test_the_agent_logs_each_duration_with_provenance_apart_from_facts():
    s = build({"name": "son_of_andrew"})
    ops = [o for o in play(s, LOGS) if o.kind == "time_entry"]
    assert [(o.op, o.text, o.source_turn_ids) for o in ops] == [
        (Op.ADD, "3 hours on Kestrel redesign (general)", ["t1"]),
        (Op.ADD, "2.5 hours on Kestrel redesign (general)", ["t3"]),
        (Op.ADD, "1 hour on budget review (general)", ["t3"]),
    ]
    assert {o.reason for o in ops} == {"log_time tool call"}
    ns = s.state.namespace
    assert {o.namespace for o in ops} == {f"{ns}/time_tracking"}
    entries = s.store.list(f"{ns}/time_tracking")
    first = entries[0].metadata
    assert (first["task"], first["duration_hours"], first["category"], first["session_id"], first["timestamp"]) == (
        "Kestrel redesign", 3.0, "general", "c1", "2024-03-04T09:00:00")
    assert [it for it in s.store.list(ns) if it.kind == "time_entry"] == [], "facts and time entries never mix"
    hits = s.component("retriever").retrieve(s.store, ns, Query("Kestrel redesign hours", at("2024-03-07T09:00:00"),
                                                                s.env.embedder))
    assert all(h.item.kind != "time_entry" for h in hits)


def test_a_total_query_sums_the_entries_of_its_period_task_and_category():
    s = build({"name": "son_of_andrew"})
    play(s, LOGS)
    tool = _tool(s, "get_time_entries")
    s.state.now = at("2024-03-08T10:00:00")
    assert tool.run({}).splitlines()[-1] == "total (all): 6.5 hours in 3 entries"
    assert tool.run({"task": "kestrel"}).splitlines()[-1] == "total (all): 5.5 hours in 2 entries"
    assert tool.run({"category": "client_work"}) == "(no time entries for period all)"
    s.state.now = at("2024-03-11T10:00:00")  # the next Monday: a new week
    assert tool.run({"period": "week"}) == "(no time entries for period week)"
    assert tool.run({"period": "month"}).splitlines()[-1] == "total (month): 6.5 hours in 3 entries"
    with pytest.raises(ValueError, match="'period' must be one of today, week, month, all, got 'fortnight'"):
        tool.run({"period": "fortnight"})


def test_log_time_refuses_bad_arguments_and_keeps_a_given_category():
    s = build({"name": "son_of_andrew"})
    play(s, conversation([("2024-03-04T09:00:00", [("user", "hello"), ("assistant", "Hi.")])]))
    log = _tool(s, "log_time")
    with pytest.raises(ValueError, match="'hours' as a number, got 'lots'"):
        log.run({"task": "x", "hours": "lots"})
    with pytest.raises(ValueError, match="at most 24"):
        log.run({"task": "x", "hours": 30})
    with pytest.raises(ValueError, match="needs a 'task'"):
        log.run({"task": " ", "hours": 1})
    assert "(client_work)" in log.run({"task": "23andMe research", "hours": 2.5, "category": "client_work"})
    assert _tool(s, "get_time_entries").run({"category": "client_work"}).endswith("2.5 hours in 1 entries")


def test_entries_do_not_leak_across_namespaces():
    s = build({"name": "son_of_andrew"})
    play(s, LOGS, namespace="test/ana")
    other = conversation([("2024-03-05T09:00:00", [("user", "Log 4 hours for the Kestrel redesign."),
                                                   ("assistant", "Done.")])], cid="c2")
    play(s, other, namespace="test/ben")
    s.state.now = at("2024-03-08T10:00:00")
    assert _tool(s, "get_time_entries").run({}).splitlines()[-1] == "total (all): 4 hours in 1 entries"
    assert len(s.store.list("test/ana/time_tracking")) == 3, "the other unit's entries are kept, only not visible"
    ctx = s.context(Query("How many hours have I logged on the Kestrel redesign?", at("2024-03-08T10:00:00"), s.env.embedder))
    assert "Total hours logged on Kestrel redesign, all time: 4" in ctx.text and "5.5" not in ctx.text


def test_the_preset_answers_totals_on_the_offline_model():
    s = build({"name": "son_of_andrew"})
    play(s, LOGS)
    now = at("2024-03-08T10:00:00")
    task = s.answer("How many hours have I logged on the Kestrel redesign?", now)
    assert task.answer == "5.5"
    section = next(sec for sec in task.context.sections if sec.title == "Time entries")
    assert sorted({t for ln in section.lines for t in ln.source_turn_ids}) == ["t1", "t3"]
    assert s.answer("How many hours did I log this week?", now).answer == "6.5"
    assert "Time entries" not in s.context(Query("What is my sister's name?", now, s.env.embedder)).text


def test_offline_policy_reads_logs_not_other_durations():
    assert time_logs("Worked 90 minutes on invoices and 2h on the Delta pitch this morning.") == [
        {"task": "invoices", "hours": 1.5}, {"task": "Delta pitch", "hours": 2.0}]
    assert time_logs("Please log half an hour for the standup.") == [{"task": "standup", "hours": 0.5}]
    assert time_logs("I put in two and a half hours on the grant report.") == [{"task": "grant report", "hours": 2.5}]
    assert time_logs("commute by bike, 12 minutes") == []  # a duration, but nothing logged
    assert time_logs("The flight took 3 hours.") == []
    assert time_logs("Did I log 2 hours on the grant report?") == []  # a question is not a log
    assert time_question("How many hours did I log this week?") == {"period": "week"}
    assert time_question("I spent 2 hours on it.") is None
