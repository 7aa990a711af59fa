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
