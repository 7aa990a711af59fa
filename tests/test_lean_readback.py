"""A run read back lean (probe rows without their contexts, each with where its whole record is)
gives the same tables, explanations and design report as one read whole (issue 25: a run at real
length must read back in bounded memory). The memory figure itself is a benchmark (docs/scale.md)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

import memlab
from memlab.analysis import results as results_module
from memlab.analysis import stream
from memlab.analysis.html_report import build_report
from memlab.analysis.report_render import render_markdown
from memlab.analysis.results import load_run
from memlab.harness.config import validate_config


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lean")
    config = validate_config({
        "name": "lean", "datasets": ["datasets/starter.yaml"], "output_dir": str(tmp / "results"),
        "embedding_cache": None,
        "strategies": [{"name": "full_context"}, {"name": "fact_rag", "preset": "fact_rag"}, {"name": "no_memory"}]})
    return memlab.run(config, progress=False)


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False)


def test_lean_rows_leave_out_the_contexts_and_give_the_same_tables(run_dir):
    whole, lean = load_run(run_dir, lean=False), load_run(run_dir, lean=True)
    assert lean.lean and not whole.lean
    assert "context" not in lean.probes.columns and "context" in whole.probes.columns
    assert lean.probes["_off"].notna().all() and len(lean.probes) == len(whole.probes)
    _same(whole.summary(), lean.summary())
    _same(whole.recall_by_age(), lean.recall_by_age())
    _same(whole.explanations(missed_only=True), lean.explanations(missed_only=True))
    scored = [c for c in whole.probes.columns if c in lean.probes.columns and c != "_off"]
    _same(whole.probes[scored], lean.probes[scored])


def test_a_lean_row_reads_its_whole_record_back(run_dir):
    whole, lean = load_run(run_dir, lean=False), load_run(run_dir, lean=True)
    for full, row in zip(whole.probes.to_dict("records"), lean.probes.to_dict("records"), strict=True):
        back = lean.record(row)
        assert back["probe_id"] == full["probe_id"] and back["context"] == full["context"]
        assert back["evidence_recall"] == full["evidence_recall"] or (
            math.isnan(back["evidence_recall"]) and math.isnan(full["evidence_recall"]))
    assert whole.record({"probe_id": "x"}) == {"probe_id": "x"}  # a row without an offset is its own record


def test_the_design_report_is_the_same_read_lean(run_dir):
    whole = render_markdown(build_report([load_run(run_dir, lean=False)]), "r")[0]
    lean = render_markdown(build_report([load_run(run_dir, lean=True)]), "r")[0]
    assert whole == lean


def test_a_large_probes_stream_is_read_lean_unless_told_otherwise(run_dir, monkeypatch):
    assert not load_run(run_dir).lean  # a small run: read whole
    monkeypatch.setattr(stream, "LEAN_BYTES", 1)
    assert load_run(run_dir).lean and not load_run(run_dir, lean=False).lean
    assert results_module.load_run is load_run


def test_a_damaged_record_read_lean_is_named_not_a_traceback(run_dir, tmp_path):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    lines = (copy / "probes.jsonl").read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[1])
    rec["context"] = [rec["context"]]  # a list where the record declares text
    lines[1] = json.dumps(rec)
    (copy / "probes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(results_module.DamagedRun, match=r"probes.jsonl:2: damaged record .*field `context`"):
        load_run(copy, lean=True).probes


def test_a_stream_read_column_by_column_is_the_frame_of_its_records(run_dir):
    """``read_frame`` builds the frame the records give (values, dtypes, None vs NaN), without holding
    a dict per record: every stream of a real run, and the calls' scope flattened as before."""
    from memlab.runfolder.recorder import read_jsonl

    for name in ("calls", "memory_ops", "turns", "probes", "units", "compressions", "agent_steps"):
        path = run_dir / f"{name}.jsonl"
        expected, got = pd.DataFrame(read_jsonl(path)), stream.read_frame(path)
        pd.testing.assert_frame_equal(expected, got, check_exact=True)
        for col in expected.columns[expected.dtypes == object]:
            assert [type(v) for v in expected[col]] == [type(v) for v in got[col]], (name, col)
    calls = pd.DataFrame(read_jsonl(run_dir / "calls.jsonl"))
    scope = pd.json_normalize(calls["scope"].tolist())
    flat = pd.concat([calls.drop(columns=["scope"]), scope.drop(columns=[c for c in scope.columns if c in calls.columns])],
                     axis=1)
    pd.testing.assert_frame_equal(flat, stream.read_frame(run_dir / "calls.jsonl", flatten="scope"), check_exact=True)


def test_a_stream_with_gaps_a_torn_end_and_a_corrupt_line(tmp_path):
    """Fields missing from some records are NaN there (as in ``pd.DataFrame(records)``), a late field
    is padded before it, blank lines are skipped, a torn last line is a write in progress; a corrupt
    line elsewhere names the file and line, as does a flattened field that is not an object."""
    from memlab.runfolder.recorder import read_jsonl

    path = tmp_path / "s.jsonl"
    path.write_text('{"a": 1, "b": "x"}\n\n{"a": 2}\n{"a": 3, "b": "x", "c": [1, 2], "s": {"k": "v", "a": 9}}\n{"a": 4,',
                    encoding="utf-8")
    pd.testing.assert_frame_equal(pd.DataFrame(read_jsonl(path)), stream.read_frame(path), check_exact=True)
    flat = stream.read_frame(path, flatten="s")
    assert list(flat.columns) == ["a", "b", "c", "k"] and flat["k"].tolist()[2] == "v" and flat["a"].tolist() == [1, 2, 3]
    assert stream.read_frame(tmp_path / "absent.jsonl").empty
    path.write_bytes('{"a": 1}\n{"a": "café'.encode()[:-1])  # torn inside a two-byte character
    assert stream.read_frame(path)["a"].tolist() == [1]
    path.write_bytes(b'{"a": "\xff"}\n{"a": 2}\n')
    with pytest.raises(ValueError, match=r"s\.jsonl:1: not UTF-8"):
        stream.read_frame(path)
    path.write_text('{"a": 1}\n{"a": 2,\n{"a": 3}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"s\.jsonl:2: corrupt record"):
        stream.read_frame(path)
    path.write_text('{"a": 1, "s": "no"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"s\.jsonl:1: 's' is a str, not an object"):
        stream.read_frame(path, flatten="s")
