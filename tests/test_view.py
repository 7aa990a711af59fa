"""``memlab view`` on real runs (tests/support/view_runs.py): the index built once and cached, its
numbers those of ``memlab report``, records read back by offset, a growing run indexed from where it
stopped, every page's API against what the analysis code says, the flips ``memlab check`` counts,
and the command lines the design report and the gate comment print. In a browser:
tests/test_view_browser.py; in a notebook: tests/test_view_notebook.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from memlab.analysis.results import load_run, score_missed
from memlab.view import index as view_index
from memlab.view.run import Runs, ViewedRun
from tests.support import view_runs

pytestmark = pytest.mark.slow

TOKEN = "test-token"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return {"main": view_runs.shared(tmp_path_factory, "main"), "after": view_runs.shared(tmp_path_factory, "after")}


@pytest.fixture(scope="module")
def viewer(runs) -> Runs:
    r = Runs([runs["main"], runs["after"]])
    r.load_all()
    return r


@pytest.fixture(scope="module")
def client(viewer):
    from starlette.testclient import TestClient

    from memlab.view.server import make_app

    c = TestClient(make_app(viewer, TOKEN), base_url="http://127.0.0.1")
    c.headers["X-Memlab-Token"] = TOKEN
    return c


def test_the_index_is_cached_in_the_run_folder_and_read_back_without_building(runs, viewer, monkeypatch):
    run = runs["main"]
    assert (run / ".view" / "index.json").is_file()

    def no_child(*a, **k):
        raise AssertionError("a fresh index must not be built again")

    monkeypatch.setattr(subprocess, "Popen", no_child)
    index = view_index.ensure_index(run)
    assert index["marks"]["probes"]["consumed"] == (run / "probes.jsonl").stat().st_size


def test_the_overview_numbers_are_those_of_memlab_report(runs, viewer):
    light = viewer.get(0)
    full = load_run(runs["main"])
    pd.testing.assert_frame_equal(light.res.summary(), full.summary())
    pd.testing.assert_frame_equal(light.res.metrics_table(), full.metrics_table())
    assert len(light.probes) == len(full.probes) == 4 * 8
    assert "context" not in light.probes and "context_items" not in light.probes  # the server never holds contexts


def test_each_probe_record_is_read_back_whole_at_its_offset(runs, viewer):
    light = viewer.get(0)
    full = load_run(runs["main"]).probes.set_index(["strategy", "conversation_id", "probe_id"])
    for _, row in light.probes.iterrows():
        rec = light.record(row)
        want = full.loc[(row["strategy"], row["conversation_id"], row["probe_id"])]
        assert rec["context"] == want["context"] and rec["answer"] == want["answer"]


def test_a_run_still_being_written_is_indexed_so_far_then_from_where_it_stopped(runs, tmp_path):
    live = view_runs.partial_copy(runs["main"], tmp_path / "live", units_kept=3)
    first = view_index.build_index(live)
    done = set(view_index.unpack_lists(first["probes"])["attempt"])
    assert len(done) == 3 and not any("corrupt" in p for p in first["problems"])  # the torn line is not a record
    consumed = first["marks"]["probes"]["consumed"]
    assert consumed < (live / "probes.jsonl").stat().st_size  # stopped before the torn tail
    assert ViewedRun(live, first, "live").res.manifest["status"] == "running"

    view_runs.finish_copy(runs["main"], live)
    assert not view_index.is_fresh(first, live)
    grown = view_index.build_index(live)
    full = view_index.build_index(runs["main"])
    grown_cols, full_cols = view_index.unpack_lists(grown["probes"]), view_index.unpack_lists(full["probes"])
    for col in ("probe_id", "strategy", "evidence_recall", "answer_correct", "_len"):
        assert pd.Series(grown_cols[col]).equals(pd.Series(full_cols[col])), col  # NaN where a metric does not apply
    assert grown["marks"]["probes"]["from"] == consumed  # extended from where it stopped, not read again
    assert view_index.is_fresh(grown, live)


def test_a_damaged_or_foreign_index_is_rebuilt_not_trusted(runs, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(runs["main"], copy)
    (copy / ".view" / "index.json").write_text(json.dumps({"format": "memlab-view-index", "probes": {"n": 2, "columns": {
        "_off": {"i8": "AAAA"}}}, "calls": {}, "turns": {}, "memory_ops": {}, "marks": {}, "tables": {}}))
    assert view_index.read_cached(copy) is None
    (copy / ".view" / "index.json").write_bytes(b"\x00not json")
    index = view_index.build_index(copy)
    assert index["probes"]["n"] == 32


def test_a_corrupt_line_is_named_and_skipped(runs, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(runs["main"], copy, ignore=shutil.ignore_patterns(".view"))
    lines = (copy / "calls.jsonl").read_text().split("\n")
    lines[3] = '{"broken": '
    (copy / "calls.jsonl").write_text("\n".join(lines))
    index = view_index.build_index(copy)
    assert any(p.startswith("calls.jsonl:4: corrupt record") for p in index["problems"]), index["problems"]


def test_a_run_folder_this_user_cannot_write_is_indexed_in_the_cache(runs, tmp_path, monkeypatch):
    copy = tmp_path / "ro"
    shutil.copytree(runs["main"], copy, ignore=shutil.ignore_patterns(".view"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(view_index.os, "access", lambda p, mode: not str(p).startswith(str(copy)))
    where = view_index.index_dir(copy)
    assert str(where).startswith(str(tmp_path / "cache"))
    view_index.build_index(copy)
    assert (where / "index.json").is_file() and not (copy / ".view").exists()


# ---- the API ---------------------------------------------------------------------------------------

def test_every_api_call_needs_the_token(client):
    from starlette.testclient import TestClient

    bare = TestClient(client.app, base_url="http://127.0.0.1")
    for path in ("/", "/api/runs", "/api/probes?run=0", "/api/probe?run=0&dataset=view-fixture&conversation=lea-1&probe=p-city"):
        assert bare.get(path).status_code == 403, path
        assert bare.get(path, headers={"X-Memlab-Token": "nope"}).status_code == 403, path
        assert client.get(path).status_code == 200, path


def test_the_probe_list_filters_to_one_strategys_misses(client, runs):
    d = client.get("/api/probes", params={"run": 0, "strategy": "window", "metric": "evidence_recall", "outcome": "miss"}).json()
    full = load_run(runs["main"]).probes
    want = full[(full["strategy"] == "window") & full["evidence_recall"].map(
        lambda v: v == v and score_missed(__import__("memlab.analysis.metrics", fromlist=["METRICS"]).METRICS.get("evidence_recall"), v))]
    assert d["total"] == len(want) > 0
    assert sorted(r["probe_id"] for r in d["rows"]) == sorted(want["probe_id"])
    assert all(r["scores"]["evidence_recall"]["outcome"] == "miss" for r in d["rows"])
    users = client.get("/api/probes", params={"run": 0, "user": "tom", "per_page": 500}).json()
    assert {r["user"] for r in users["rows"]} == {"tom"} and users["total"] == 4 * 2
    scope = client.get("/api/probes", params={"run": 0, "scope": "earlier_threads"}).json()
    assert {r["probe_id"] for r in scope["rows"]} == {"p-job"}
    search = client.get("/api/probes", params={"run": 0, "q": "NAME of Lea's dog", "strategy": "fact_rag"}).json()
    assert [r["probe_id"] for r in search["rows"]] == ["p-dog"]
    answers = client.get("/api/probes", params={"run": 0, "q": "bolacha", "strategy": "fact_rag"}).json()["rows"]
    assert "p-dog" in {r["probe_id"] for r in answers}
    assert all("bolacha" in (r["question"] + r["answer"]).lower() or r["probe_id"] == "p-dog" for r in answers)


def test_the_probe_page_marks_gold_forms_and_evidence_lines_and_explains(client, runs):
    d = client.get("/api/probe", params={"run": 0, "dataset": "view-fixture", "conversation": "lea-1", "probe": "p-city"}).json()
    assert d["gold"] == [["Braga"]] and d["superseded"] == ["Porto"]
    assert [e["turn_id"] for e in d["evidence"]] == ["a07"]
    assert d["evidence"][0]["text"].startswith("Big news") and d["evidence"][0]["at"] == "2024-04-10T18:00:00"
    assert d["evidence"][0]["thread"] == 1
    sides = {s["strategy"]: s for s in d["strategies"]}
    assert list(sides) == ["no_memory", "full_context", "window", "fact_rag"]
    full = sides["full_context"]
    marked = [x for x in full["lines"] if x.get("evidence")]
    assert len(marked) == 1 and "Braga" in marked[0]["text"] and marked[0]["gold"]
    assert [marked[0]["text"][a:b] for a, b, kind in marked[0]["spans"] if kind == "gold"] == ["Braga"]
    res = load_run(runs["main"])
    want = res.explanations(strategy="full_context", probe_id="p-city")
    assert [e[1] for e in full["explanations"]] == want["explanation"].tolist()
    assert full["calls"] and full["calls"][0]["purpose"] == "answer" and full["calls"][0]["prompt_tokens"] > 0
    assert sides["no_memory"]["reasons"] and "gold not in context" in sides["no_memory"]["reasons"]
    assert full["total_lines"] == len(res.probes[(res.probes["strategy"] == "full_context")
                                                 & (res.probes["probe_id"] == "p-city")].iloc[0]["context_items"])


def test_compare_puts_the_discordant_probes_first_with_the_paired_numbers(client, runs):
    d = client.get("/api/compare", params={"run": 0, "a": "full_context", "b": "window", "metric": "evidence_recall"}).json()
    row = load_run(runs["main"]).compare("full_context", "window")
    row = row[(row["category"] == "all") & (row["metric"] == "evidence_recall")].iloc[0]
    assert d["counts"]["a_only"] == int(row["a_only"]) > 0 and d["counts"]["b_only"] == int(row["b_only"])
    first = d["rows"][: d["counts"]["a_only"]]
    assert all((r["a"], r["b"]) == ("hit", "miss") for r in first)
    p = first[0]
    pair = client.get("/api/compare/probe", params={"run": 0, "a": "full_context", "b": "window", "dataset": p["dataset"],
                                                    "conversation": p["conversation_id"], "probe": p["probe_id"]}).json()
    assert pair["only_a"] > 0
    shared = {x["text"] for x in pair["b"]["lines"]}
    assert all(bool(x.get("only")) == (x["text"] not in shared) for x in pair["a"]["lines"])


def test_the_timeline_replays_the_store_and_tells_where_the_evidence_went(client, viewer):
    d = client.get("/api/timeline", params={"run": 0, "strategy": "fact_rag", "dataset": "view-fixture", "user": "lea",
                                            "conversation": "lea-2", "probe": "p-job"}).json()
    assert [t["conversation_id"] for t in d["threads"]] == ["lea-1", "lea-2"] and [t["thread"] for t in d["threads"]] == [1, 2]
    story = d["probe"]
    assert story["evidence"] == ["a01"] and story["events"][0]["turn_id"] == "a01" and story["events"][0]["op"] == "ADD"
    assert d["focus"] == story["evidence_at"][0] == 0  # the page opens at the evidence turn
    assert d["op_counts"].get("ADD", 0) >= 5
    # what the strategy retrieved for the probe was in the replayed store when it was asked
    run = viewer.get(0)
    row = run.rows_of("view-fixture", "lea-2", "p-job")
    rec = run.record(row[row["strategy"] == "fact_rag"].iloc[0])
    long_term = {i["text"].split("] ", 1)[-1] for i in rec["context_items"] if i["section"] == "Long-term memory"}
    stored = {i["text"] for i in d["store"]["items"]}
    assert long_term and long_term <= stored
    at = client.get("/api/timeline", params={"run": 0, "strategy": "fact_rag", "dataset": "view-fixture", "user": "lea",
                                             "conversation": "lea-1", "turn": "a01"}).json()
    assert at["asof"]["turn_id"] == "a01" and at["store"]["count"] == 1


def test_the_flips_are_those_memlab_check_finds(client, runs, tmp_path):
    from memlab.analysis.baseline import snapshot, write_baseline
    from memlab.analysis.gate import compare
    from memlab.harness.config import validate_config

    res = load_run(runs["after"])
    base_file = write_baseline(runs["main"], tmp_path / "base.json")
    from memlab.analysis.baseline import load_baseline

    cfg = validate_config(res.manifest["config"])
    gate = compare(load_baseline(base_file), snapshot(res), cfg.gate, res.headline_metrics())
    want = sorted((f.old.strategy, f.old.probe_id, tuple(f.worse), tuple(f.better)) for f in gate.flips)
    assert want, "the widened window must flip probes"
    d = client.get("/api/flips", params={"run": 1, "base": 0, "per_page": 500}).json()
    got = sorted((r["strategy"], r["probe_id"], tuple(r["worse"]), tuple(r["better"])) for r in d["rows"])
    assert got == want and d["total"] == len(want)
    r = d["rows"][0]  # a flip opens the probe in both runs side by side
    pair = client.get("/api/compare/probe", params={"run": 0, "run_b": 1, "a": r["strategy"], "b": r["strategy"],
                                                    "dataset": r["dataset"], "conversation": r["conversation_id"],
                                                    "probe": r["probe_id"]}).json()
    assert (pair["a"]["run"], pair["b"]["run"]) == ("main", "after") and pair["a"]["scores"] != pair["b"]["scores"]


def test_a_baseline_file_is_compared_as_memlab_check_does(runs, viewer, tmp_path):
    from starlette.testclient import TestClient

    from memlab.analysis.baseline import write_baseline
    from memlab.view.server import make_app

    base_file = write_baseline(runs["main"], tmp_path / "base.json")
    c = TestClient(make_app(viewer, TOKEN, baseline=base_file), base_url="http://127.0.0.1", headers={"X-Memlab-Token": TOKEN})
    from_file = c.get("/api/flips", params={"run": 1, "baseline": 1, "per_page": 500}).json()
    from_run = c.get("/api/flips", params={"run": 1, "base": 0, "per_page": 500}).json()
    assert [(r["strategy"], r["probe_id"]) for r in from_file["rows"]] == [(r["strategy"], r["probe_id"]) for r in from_run["rows"]]
    assert from_file["rows"][0]["old_excerpt"] is not None
    assert c.get("/api/runs").json()["baseline"] == str(base_file)


def test_unknown_names_are_404_with_the_name(client):
    r = client.get("/api/probe", params={"run": 0, "dataset": "view-fixture", "conversation": "lea-1", "probe": "nope"})
    assert r.status_code == 404 and "nope" in r.json()["error"]
    assert client.get("/api/facets", params={"run": 7}).status_code == 404
    r = client.get("/api/compare", params={"run": 0, "a": "full_contxt", "b": "window"})
    assert r.status_code == 400 and "Did you mean 'full_context'" in r.json()["error"]


# ---- where the viewer is advertised ------------------------------------------------------------------

def test_the_design_report_and_the_gate_comment_print_the_view_command(runs, tmp_path):
    import shlex

    from memlab.analysis.baseline import write_baseline
    from memlab.analysis.gate import check
    from memlab.analysis.html_report import report_markdown

    md = report_markdown([runs["main"], runs["after"]], tmp_path / "report.md").read_text()
    rendered = re.sub(r"\\(.)", r"\1", md)  # what a markdown reader shows (the report escapes _ * [ …)
    assert f"memlab view {shlex.quote(str(runs['main']))} {shlex.quote(str(runs['after']))}" in rendered
    base = write_baseline(runs["main"], tmp_path / "base.json")
    comment = check(None, base, run_dir=runs["after"]).to_markdown()
    assert f"`memlab view {runs['after']} --baseline {base}`" in comment


def test_memlab_view_index_only_exits_0_and_a_missing_folder_exits_2(runs, tmp_path, capsys):
    from memlab.cli import main

    assert main(["view", str(runs["main"]), "--index-only"]) == 0
    assert "32 probe records" in capsys.readouterr().out
    assert main(["view", str(tmp_path / "nothing"), "--index-only"]) == 2
    assert "not a memlab run folder" in capsys.readouterr().err


def test_summary_numbers_survive_the_json_round_trip(client, runs):
    d = client.get("/api/runs").json()["runs"][0]
    cols = d["summary"]["columns"]
    got = {r[0]: r[cols.index("evidence_recall")] for r in d["summary"]["rows"]}
    want = load_run(runs["main"]).summary()["evidence_recall"]
    assert got == pytest.approx({k: float(v) for k, v in want.items()})
    assert np.isfinite(list(got.values())).all()


def test_the_timeline_of_a_strategy_that_stores_nothing_lists_the_turns(client):
    d = client.get("/api/timeline", params={"run": 0, "strategy": "no_memory", "dataset": "view-fixture", "user": "tom"}).json()
    assert d["turns"] == 6 and d["store"]["count"] == 0 and d["op_counts"] == {}
    assert [t["turn_id"] for t in d["threads"][0]["turns"]][:2] == ["c01", "c02"]


def test_a_large_probes_stream_is_scored_on_two_processes_with_the_same_result(runs, tmp_path, monkeypatch):
    copy = tmp_path / "run"
    shutil.copytree(runs["main"], copy, ignore=shutil.ignore_patterns(".view"))
    lines = (copy / "probes.jsonl").read_text(encoding="utf-8").split("\n")
    lines[29] = "{not json"  # in the second half: its line number must count the first half's lines
    (copy / "probes.jsonl").write_text("\n".join(lines), encoding="utf-8")
    serial = view_index.build_index(copy)
    shutil.rmtree(copy / ".view")
    monkeypatch.setenv("MEMLAB_VIEW_PARALLEL_BYTES", "1")
    monkeypatch.setenv("MEMLAB_VIEW_WORKERS", "2")
    parallel = view_index.build_index(copy)
    assert parallel["probes"] == serial["probes"] and serial["probes"]["n"] == 31
    assert parallel["problems"] == serial["problems"] == [serial["problems"][0]]
    assert serial["problems"][0].startswith("probes.jsonl:30: corrupt record skipped")
    assert parallel["marks"]["probes"] == serial["marks"]["probes"]


def test_a_probe_page_of_many_strategies_sends_one_context_and_the_others_on_demand(client, monkeypatch):
    monkeypatch.setenv("MEMLAB_VIEW_FULL_SIDES", "1")
    q = {"run": 0, "dataset": "view-fixture", "conversation": "lea-1", "probe": "p-city"}
    d = client.get("/api/probe", params={**q, "focus": "fact_rag"}).json()
    whole = [s["strategy"] for s in d["strategies"] if not s.get("lazy")]
    assert whole == ["fact_rag"] and len(d["strategies"]) == 4
    light = {s["strategy"]: s for s in d["strategies"] if s.get("lazy")}
    assert "lines" not in light["no_memory"] and "gold not in context" in light["no_memory"]["reasons"]
    one = client.get("/api/probe", params={**q, "strategy": "no_memory"}).json()["strategies"]
    assert len(one) == 1 and not one[0].get("lazy") and one[0]["reasons"] == light["no_memory"]["reasons"]
    assert one[0]["scores"] == light["no_memory"]["scores"]


def test_a_run_folder_with_a_corrupt_manifest_is_refused_naming_it(runs, tmp_path, capsys):
    from memlab.cli import main

    copy = tmp_path / "run"
    shutil.copytree(runs["main"], copy, ignore=shutil.ignore_patterns(".view"))
    (copy / "manifest.json").write_text('{"run_id": "x", "strategies": 5}')
    assert main(["view", str(copy), "--index-only"]) == 2
    err = capsys.readouterr().err
    assert "manifest.json" in err and "strategies" in err
