"""``load_run(path, metrics=[...])``: a read-back that scores only the metrics its reader needs
(``memlab suite-check`` reads string recall alone) gives those metrics' values exactly as a full
read-back does, holds no other metric's column, and neither imports ragas nor embeds an answer."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from memlab.analysis.results import load_run
from memlab.harness.config import validate_config
from memlab.harness.runner import Runner

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("only")
    config = validate_config({"name": "only", "datasets": [str(ROOT / "tests" / "fixtures" / "native_small.yaml")],
                              "output_dir": str(tmp / "runs"), "embedding_cache": str(tmp / "emb.npz"),
                              "strategies": [{"name": "no_memory"}, {"name": "full_context"}]})
    return Runner(config, progress=False).run()


def test_the_chosen_metrics_have_the_full_read_backs_values_and_no_other_column(run_dir):
    full = load_run(run_dir).probes
    only = load_run(run_dir, metrics=["evidence_recall", "answer_correct"]).probes
    assert "evidence_recall" in only and "answer_correct" in only
    assert "content_recall" not in only and "ragas_rouge" not in only and "content_recall" in full
    for name in ("evidence_recall", "answer_correct"):
        pd.testing.assert_series_equal(only[name], full[name])
    assert only["evidence_recall"].notna().any()


def test_the_summary_of_a_narrowed_read_back_shows_the_chosen_metrics(run_dir):
    summary = load_run(run_dir, metrics=["evidence_recall"]).summary()
    full = load_run(run_dir).summary()
    assert "evidence_recall" in summary.columns and "content_recall" not in summary.columns
    pd.testing.assert_series_equal(summary["evidence_recall"], full["evidence_recall"])


def test_an_unknown_metric_is_refused_with_what_it_may_have_meant(run_dir):
    with pytest.raises(ValueError, match="evidence_recall"):
        load_run(run_dir, metrics=["evidence_recal"])


def test_a_one_metric_read_back_imports_no_ragas_and_embeds_no_answer(run_dir):
    script = textwrap.dedent(f"""
        import sys
        from memlab.analysis.results import load_run
        frame = load_run({str(run_dir)!r}, metrics=["evidence_recall"]).probes
        assert len(frame) > 0
        import memlab.embeddings as e
        print("ragas" in sys.modules, sum(c.misses for c in e._shared.values()))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split() == ["False", "0"]
