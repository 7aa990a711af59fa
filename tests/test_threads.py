"""Threads: a user's conversations share long-term memory and nothing else; evidence across threads;
the threads converter on every format; mid-invocation probes; suite-check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import memlab
from memlab.harness.config import validate_config
from memlab.datasets.io import DatasetError, check_file, load_dataset, validate_file, write_dataset_file
from memlab.datasets.threads import first_users, load_threaded, split_sessions

FIXTURES = Path(__file__).resolve().parent / "fixtures"
THREADS = FIXTURES / "threads_small.yaml"


def _run(tmp_path: Path, strategies: list[dict], dataset: str | Path = THREADS, **extra) -> memlab.analysis.results.RunResults:
    cfg = validate_config({"name": "t", "datasets": [str(dataset)], "output_dir": str(tmp_path),
                           "embedding_cache": None, "strategies": strategies, **extra})
    return memlab.load_run(memlab.run(cfg, progress=False))


@pytest.fixture(scope="module")
def thread_run(tmp_path_factory) -> memlab.analysis.results.RunResults:
    return _run(tmp_path_factory.mktemp("threads"), [
        {"name": "full_context"}, {"name": "all_threads"}, {"name": "oracle"}, {"name": "fact_rag"}, {"name": "react"}])


def _probe(res, strategy: str, probe_id: str) -> dict:
    p = res.probes
    row = p[(p["strategy"] == strategy) & (p["probe_id"] == probe_id)]
    assert len(row) == 1, (strategy, probe_id)
    return row.iloc[0].to_dict()


def test_a_new_thread_starts_with_empty_short_term_memory(thread_run):
    """ana-3's probes come right after its two turns: the current-thread history holds those two
    turns and nothing from ana-1 or ana-2; react's conversation memory is empty of them too."""
    fc = _probe(thread_run, "full_context", "ana-3-p1")
    assert set(fc["context_source_turn_ids"]) == {"c1-01", "c1-02"}
    assert "Biscuit" not in fc["context"] and "Porto" not in fc["context"]
    assert fc["evidence_recall"] == 0.0
    react = _probe(thread_run, "react", "ana-3-p1")
    assert not set(react["context_source_turn_ids"]) & {"a1-01", "a1-02", "a1-03", "a1-04", "b1-01", "b1-02"}
    # in its own thread, the same fact is in the history
    assert _probe(thread_run, "full_context", "ana-1-p1")["evidence_recall"] == 1.0


def test_long_term_memory_carries_over_and_bounds_see_every_thread(thread_run):
    for strategy in ("fact_rag", "all_threads", "oracle"):
        row = _probe(thread_run, strategy, "ana-3-p1")
        assert row["evidence_recall"] == 1.0, strategy
        assert "a1-01" in row["context_source_turn_ids"], strategy
    # the update crossed threads: Porto (thread 2) over Lisbon (thread 1)
    assert _probe(thread_run, "all_threads", "ana-3-p3")["update_context"] in ("current_only", "both")
    assert "Porto" in _probe(thread_run, "fact_rag", "ana-3-p3")["context"]
    # memory never crosses users: ben's thread sees nothing of ana's
    for strategy in ("fact_rag", "all_threads", "oracle"):
        assert not any(t.startswith(("a1-", "b1-", "c1-")) for t in _probe(thread_run, strategy, "ben-1-p1")["context_source_turn_ids"])


def test_probe_rows_name_user_thread_and_evidence_scope(thread_run):
    row = _probe(thread_run, "oracle", "ana-3-p3")
    assert (row["namespace"], row["thread"], row["evidence_scope"]) == ("ana", 3, "earlier_threads")
    assert row["evidence_texts"] == ["I work as a paediatric nurse in Lisbon.", "Big news: I moved to Porto last week."]
    assert row["gold_written"] is True  # the gold is written in an earlier thread: string-recallable
    first = _probe(thread_run, "oracle", "ana-1-p1")
    assert (first["thread"], first["evidence_scope"]) == (1, "thread")


def test_scope_table_splits_recall_by_where_the_evidence_was_said(thread_run):
    from memlab.analysis.report import scope_table

    t = scope_table(thread_run)
    assert t.loc["full_context", "earlier_threads"] == 0.0 and t.loc["all_threads", "earlier_threads"] == 1.0
    assert t.loc["full_context", "thread"] == 1.0 and t.loc["full_context", "earlier_threads_n"] == 3


def test_paired_comparison_by_evidence_scope(thread_run):
    cmp = thread_run.compare("all_threads", "full_context", metrics=["evidence_recall"], by="evidence_scope")
    rows = cmp.set_index("category")
    assert rows.loc["earlier_threads", "diff"] == 1.0 and rows.loc["earlier_threads", "n"] == 3
    assert rows.loc["thread", "diff"] == 0.0
    with pytest.raises(ValueError, match="no such probe column"):
        thread_run.compare("all_threads", "full_context", by="nope")


# ------------------------------------------------------------------------------------------- bad input


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "ds.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _two_threads(**probe) -> dict:
    return {"name": "bad", "conversations": [
        {"id": "u-1", "namespace": "u", "sessions": [{"id": "s1", "timestamp": "2024-01-01T10:00:00", "turns": [
            {"id": "t1", "role": "user", "text": "I live in Lisbon."}]}]},
        {"id": "u-2", "namespace": "u", "sessions": [{"id": "s2", "timestamp": "2024-01-05T10:00:00", "turns": [
            {"id": "t2", "role": "user", "text": "I moved to Porto."}]}],
         "probes": [{"id": "p", "after_turn": "t2", "question": "Where?", "category": "single_hop", "gold": "Porto",
                     "evidence": ["t2"], **probe}]},
        {"id": "v-1", "namespace": "v", "sessions": [{"id": "s1", "timestamp": "2024-01-01T10:00:00", "turns": [
            {"id": "v1", "role": "user", "text": "I live in Osaka."}]}]},
    ]}


def test_evidence_from_an_earlier_thread_of_the_same_user_is_valid(tmp_path):
    _, problems = validate_file(_write(tmp_path, _two_threads(evidence=["t1", "t2"])))
    assert problems == []


def test_evidence_in_a_later_thread_is_refused_by_file_line_and_field(tmp_path):
    data = _two_threads()
    data["conversations"][0]["probes"] = [{"id": "early", "after_turn": "t1", "question": "Where?", "category": "single_hop",
                                           "gold": "Porto", "evidence": ["t2"]}]
    path = _write(tmp_path, data)
    _, problems = validate_file(path)
    assert len(problems) == 1
    p = problems[0]
    assert p.path == "conversations[0].probes[0].evidence[0]" and p.line and p.file == str(path)
    assert "later thread ('u-2')" in p.message


def test_evidence_of_another_user_is_refused(tmp_path):
    _, problems = validate_file(_write(tmp_path, _two_threads(evidence=["v1"])))
    assert len(problems) == 1 and problems[0].path == "conversations[1].probes[0].evidence[0]"
    assert "another user (v)" in problems[0].message and problems[0].line


def test_a_turn_id_used_twice_by_one_user_is_refused(tmp_path):
    data = _two_threads()
    data["conversations"][1]["sessions"][0]["turns"].append({"id": "t1", "role": "assistant", "text": "Nice."})
    _, problems = validate_file(_write(tmp_path, data))
    assert [p.path for p in problems] == ["conversations[1].sessions[0].turns[1].id"]
    assert "used twice by user 'u'" in problems[0].message and problems[0].line
    # the same id in two different users is fine
    other = _two_threads()
    other["conversations"][2]["sessions"][0]["turns"][0]["id"] = "t1"
    assert validate_file(_write(tmp_path, other))[1] == []


def test_a_thread_that_starts_before_the_previous_one_ended_is_refused(tmp_path):
    data = _two_threads()
    data["conversations"][1]["sessions"][0]["timestamp"] = "2023-12-01T10:00:00"
    _, problems = validate_file(_write(tmp_path, data))
    assert [p.path for p in problems] == ["conversations[1].sessions[0].timestamp"] and "previous thread" in problems[0].message


def test_threads_option_on_single_session_conversations_is_refused_naming_file_line_and_field(tmp_path):
    path = _write(tmp_path, _two_threads())
    with pytest.raises(DatasetError) as err:
        load_threaded(path, "per_session")
    p = err.value.problems[0]
    first_session = path.read_text().splitlines().index("  - id: s1") + 1
    assert p.file == str(path) and p.path == "conversations[*].sessions" and p.line == first_session
    assert "single session" in p.message
    # and through a run config: the runner refuses before creating a run folder
    cfg = validate_config({"name": "t", "datasets": [str(path)], "threads": "per_session", "output_dir": str(tmp_path / "runs"),
                           "strategies": [{"name": "full_context"}]})
    with pytest.raises(DatasetError, match="single session"):
        memlab.Runner(cfg)
    assert not (tmp_path / "runs").exists()


# ------------------------------------------------------------------------------------------- converter


@pytest.mark.parametrize("source", ["native_small.yaml", "locomo_small.json", "longmemeval_small.json"])
def test_threads_converter_splits_every_session_into_a_thread_on_every_format(tmp_path, source):
    original = load_dataset(FIXTURES / source)
    threaded = load_threaded(FIXTURES / source, "per_session")
    assert threaded.name == f"{original.name}-threads" and threaded.meta["threads"] == "per_session"
    # one session per thread, users kept, sessions and probes all there, in order
    assert all(len(c.sessions) == 1 for c in threaded.conversations)
    assert {c.ns for c in threaded.conversations} == {c.ns for c in original.conversations}
    assert [s.id for c in threaded.conversations for s in c.sessions] == [s.id for c in original.conversations for s in c.sessions]
    assert sorted(p.id for _, p in threaded.probes()) == sorted(p.id for _, p in original.probes())
    for conv in threaded.conversations:  # each probe sits in the thread of its after_turn
        assert all(p.after_turn in {t.id for _, t in conv.turns()} for p in conv.probes)
    # written out, it validates as a native dataset (evidence in earlier threads included) and loads the same
    out = tmp_path / "threads.json"
    write_dataset_file(threaded, out)
    ds, problems = check_file(out)
    assert problems == [] and ds is not None and len(ds.conversations) == len(threaded.conversations)
    if source != "native_small.yaml":  # benchmark probes come after the last session: evidence now in earlier threads
        assert any(p.evidence and not set(p.evidence) <= {t.id for _, t in c.turns()} for c, p in threaded.probes())


def test_threads_cli_and_run_config(tmp_path):
    from memlab.datasets.cli import main

    out = tmp_path / "lm.yaml"
    assert main(["threads", str(FIXTURES / "longmemeval_small.json"), "--out", str(out)]) == 0
    assert validate_file(out)[1] == []
    single = _write(tmp_path, _two_threads())
    assert main(["threads", str(single), "--out", str(tmp_path / "x.yaml")]) == 1
    # a run config with threads: per_session plays the split dataset, limited by users (all threads of each)
    res = _run(tmp_path, [{"name": "all_threads"}], FIXTURES / "locomo_small.json", threads="per_session", limit_conversations=1)
    assert set(res.probes["dataset"]) == {"locomo-locomo_small-threads"}
    assert res.probes["namespace"].nunique() == 1 and res.probes["thread"].max() > 1


def test_first_users_keeps_every_thread_of_each_user():
    ds = load_dataset(THREADS)
    assert [c.id for c in first_users(ds, 1).conversations] == ["ana-1", "ana-2", "ana-3"]
    assert len(first_users(ds, 2).conversations) == 4


def test_scaling_keeps_turn_ids_unique_per_user_and_threads_in_order(tmp_path):
    from memlab.datasets.scale import scale_dataset

    scaled = scale_dataset(load_dataset(THREADS), 3000, seed=1)
    out = tmp_path / "scaled.yaml"
    write_dataset_file(scaled, out)
    assert validate_file(out)[1] == []


def test_split_sessions_keeps_single_session_conversations():
    ds = load_dataset(FIXTURES / "native_small.yaml")
    split = split_sessions(ds)
    assert len(split.conversations) >= len(ds.conversations)


# ------------------------------------------------------------------------------------------- mid-invocation


LONG_TASK = {
    "name": "mid-task", "conversations": [{"id": "op", "sessions": [{"id": "s1", "timestamp": "2024-05-01T09:00:00", "turns": [
        {"id": "t01", "role": "user", "text": "Check the six pods one by one."},
        *[turn for k in range(6) for turn in (
            {"id": f"c{k}", "role": "assistant", "text": f"Calling `kubectl describe pod api-{k}`."},
            {"id": f"o{k}", "role": "tool", "tool_name": "kubectl", "text": f"pod api-{k}\nimage tag: v{k}.{k + 3}.{7 * k}\nrestarts: {k}"})],
        {"id": "t99", "role": "assistant", "text": "All six checked."}]}],
        "probes": [{"id": "mid", "after_turn": "o5", "question": "Which image tag did api-0 run?", "category": "agentic",
                    "gold": "v0.3.0", "evidence": ["o0"]}]}]}


def test_a_probe_asked_mid_invocation_sees_what_the_agent_holds_at_that_step(tmp_path):
    path = _write(tmp_path, LONG_TASK)
    wm = lambda trig, summ: {"type": "react", "working_memory": {"trigger": trig, "keep_recent": 0, "summarizer": summ}}  # noqa: E731
    every2 = {"type": "every_n_steps", "n": 2}
    res = _run(tmp_path, [
        {"name": "never", "agent": wm("never", "model")},
        {"name": "lossless", "agent": wm(every2, "verbatim")},
        {"name": "lossy", "agent": wm(every2, "planted_lossy")}], path)
    turns = res.turns
    assert turns[(turns["strategy"] == "never") & (turns["turn_id"] == "o5")]["invocation"].iloc[0] == \
        turns[(turns["strategy"] == "never") & (turns["turn_id"] == "t99")]["invocation"].iloc[0]  # the task goes on
    got = {s: _probe(res, s, "mid") for s in ("never", "lossless", "lossy")}
    assert got["never"]["evidence_recall"] == 1.0 and "Working memory" in got["never"]["context"]
    assert got["lossless"]["evidence_recall"] == 1.0
    assert got["lossy"]["evidence_recall"] == 0.0 and "compressed away" in got["lossy"]["context"]
    # the lossy run compressed before the probe, folding the evidence; its survival record says it was lost
    survival = got["lossy"]["survival"]
    assert survival and survival[0]["folded_evidence"] == ["o0"] and survival[0]["survived"] is False


# ------------------------------------------------------------------------------------------- suite-check


@pytest.fixture(scope="module")
def tiny_check(tmp_path_factory):
    """Three users, two threads each: a fact and a short tool task in thread 1, questions in thread 2."""
    from memlab.analysis.suite_check import suite_check

    tmp = tmp_path_factory.mktemp("suitecheck")
    convs = []
    for u, (city, tag) in enumerate([("Lisbon", "v1.2.3"), ("Osaka", "v4.5.6"), ("Accra", "v7.8.9")]):
        turns = [{"id": f"a{u}-1", "role": "user", "text": f"I live in {city} and I keep bees."},
                 {"id": f"a{u}-2", "role": "assistant", "text": "Noted."},
                 {"id": f"a{u}-3", "role": "user", "text": "Check the api pod's image tag, then the worker's."},
                 {"id": f"a{u}-4", "role": "assistant", "text": "Calling `kubectl get pod api`."},
                 {"id": f"a{u}-5", "role": "tool", "tool_name": "kubectl", "text": f"pod api image tag: {tag}"},
                 {"id": f"a{u}-6", "role": "assistant", "text": "Calling `kubectl get pod worker`."},
                 {"id": f"a{u}-7", "role": "tool", "tool_name": "kubectl", "text": "pod worker image tag: latest"},
                 {"id": f"a{u}-8", "role": "assistant", "text": "Calling `kubectl get pod cron`."},
                 {"id": f"a{u}-9", "role": "tool", "tool_name": "kubectl", "text": "pod cron image tag: stable"}]
        convs.append({"id": f"u{u}-1", "namespace": f"u{u}", "sessions": [{"id": "s1", "timestamp": "2024-01-01T10:00:00",
                                                                           "turns": turns}],
                      "probes": [{"id": "tag", "after_turn": f"a{u}-9", "question": "Which image tag did the api pod run?",
                                  "category": "agentic", "gold": tag, "evidence": [f"a{u}-5"]}]})
        convs.append({"id": f"u{u}-2", "namespace": f"u{u}", "sessions": [{"id": "s2", "timestamp": "2024-02-01T10:00:00", "turns": [
            {"id": f"b{u}-1", "role": "user", "text": "Hi again."}, {"id": f"b{u}-2", "role": "assistant", "text": "Hello!"}]}],
            "probes": [{"id": "city", "after_turn": f"b{u}-2", "question": "Which city do I live in?", "category": "single_hop",
                        "gold": city, "evidence": [f"a{u}-1"]}]})
    path = tmp / "tiny.yaml"
    path.write_text(yaml.safe_dump({"name": "tiny", "conversations": convs}, sort_keys=False), encoding="utf-8")
    return path, suite_check([str(path)], output_dir=tmp / "runs", n_boot=500)


def test_suite_check_reports_every_contrast_with_interval_detection_and_mde(tiny_check):
    _, check = tiny_check
    by = {r.contrast: r for r in check.results}
    assert set(by) == {"extraction", "short_term", "compression", "threads", "capacity"}
    assert not by["capacity"].detected and by["capacity"].diff == 0  # three tiny users never fill a 2,000-token memory
    threads = by["threads"]
    assert (threads.probes, threads.users, threads.mean_better, threads.mean_worse) == (3, 3, 1.0, 0.0)
    assert threads.detected and threads.ci_low > 0
    # the tool value at the task's end: lossless working memory keeps it, the planted lossy one loses it
    comp = by["compression"]
    assert comp.mean_better == 0.5 and comp.mean_worse == 0.0 and comp.detected
    for r in check.results:
        assert r.probes == 6 or r.contrast == "threads"
        assert r.diff == pytest.approx(r.mean_better - r.mean_worse)


def test_suite_check_expectations_record_detections_and_flag_lost_ones(tiny_check):
    from memlab.analysis.suite_check import expectations, lost_detections, markdown_table

    _, check = tiny_check
    doc = expectations(check)
    assert doc["datasets"]["tiny"]["threads"]["detected"] is True
    assert lost_detections(check, doc) == []
    missed = next(r for r in check.results if r.contrast == "threads")
    missed.detected = False  # as if the data stopped separating the two sides
    assert lost_detections(check, doc) == ["tiny: threads"]
    missed.detected = True
    assert "| tiny | 3 |" in markdown_table(check)
    # a check of some contrasts only (--contrast) holds the dataset to those: an unplayed one is not lost
    played = [r for r in check.results if r.contrast != "threads"]
    from memlab.analysis.suite_check import SuiteCheck

    assert lost_detections(SuiteCheck(results=played), doc) == []


def test_suite_check_cli_exits_1_on_a_lost_detection(tmp_path):
    """threads_small cannot separate the whole thread from its last 4 messages (every probe's
    evidence is either in an earlier thread or among the last messages): documenting that contrast
    as detected must fail the check, and documenting it as not detected must pass."""
    from memlab.cli import main

    exp = tmp_path / "expect.json"
    for claimed, rc in ((True, 1), (False, 0)):
        exp.write_text(json.dumps({"datasets": {"threads-small": {"short_term": {"detected": claimed}}}}), encoding="utf-8")
        assert main(["suite-check", str(THREADS), "--expect", str(exp), "--contrast", "short_term", "--no-progress",
                     "--output-dir", str(tmp_path / f"runs-{claimed}")]) == rc
