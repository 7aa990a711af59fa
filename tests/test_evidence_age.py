"""Recall by evidence age (issue 25): every probe row says how long ago its evidence was said, and every run
reports recall against that age — the forgetting curve of each design — as a frame, in `memlab report` and
in the design report."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import memlab
from memlab.analysis.forgetting import age_pivot, bins, recall_by_age
from memlab.harness.config import validate_config
from memlab.harness.units import HistoryClock
from memlab.tokens import count_tokens

FIXTURES = Path(__file__).resolve().parent / "fixtures"
THREADS = FIXTURES / "threads_small.yaml"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> memlab.analysis.results.RunResults:
    cfg = validate_config({"name": "ages", "datasets": [str(THREADS)], "embedding_cache": None,
                           "output_dir": str(tmp_path_factory.mktemp("ages")),
                           "strategies": [{"name": "full_context"}, {"name": "all_threads"}]})
    return memlab.load_run(memlab.run(cfg, progress=False))


def _row(res, strategy: str, probe: str) -> dict:
    p = res.probes
    return p[(p["strategy"] == strategy) & (p["probe_id"] == probe)].iloc[0].to_dict()


def test_probe_rows_carry_the_age_of_their_evidence(run):
    """ana-3-p1 asks in thread 3 about a1-01 (thread 1): the age is every token said from a1-01 on, two threads."""
    from memlab.datasets.io import load_dataset

    ds = load_dataset(THREADS)
    ana = [c for c in ds.conversations if c.ns == "ana"]
    turns = [t for c in ana for _, t in c.turns()]
    since = turns[[t.id for t in turns].index("a1-01"):]
    row = _row(run, "all_threads", "ana-3-p1")
    assert row["evidence_age_tokens"] == sum(count_tokens(t.text) for t in since)
    assert row["evidence_age_threads"] == 2
    # multi-evidence: from the earliest (a1-03, thread 1), though b1-01 is newer
    row = _row(run, "all_threads", "ana-3-p3")
    assert row["evidence_age_threads"] == 2
    assert row["evidence_age_tokens"] == sum(count_tokens(t.text) for t in turns[[t.id for t in turns].index("a1-03"):])
    # same thread, asked right after the next turn
    own = _row(run, "full_context", "ana-1-p1")
    assert own["evidence_age_threads"] == 0
    assert own["evidence_age_tokens"] == sum(count_tokens(t.text) for t in turns[:4])
    # the age is the data's, whatever the strategy
    assert _row(run, "full_context", "ana-3-p2")["evidence_age_tokens"] == _row(run, "all_threads", "ana-3-p2")["evidence_age_tokens"]


def test_clock_without_played_evidence_says_none():
    clock = HistoryClock()
    clock.add("t1", "hello there", 1)
    assert clock.age(["t9"], 1) == {"evidence_age_tokens": None, "evidence_age_threads": None}
    assert clock.age([], 1)["evidence_age_tokens"] is None
    assert clock.age(["t1"], 3) == {"evidence_age_tokens": count_tokens("hello there"), "evidence_age_threads": 2}


def test_recall_by_age_bins_each_probe_once_and_shows_the_forgetting(run):
    frame = run.recall_by_age(by="threads")
    string = frame[frame["metric"] == "evidence_recall"]
    # every answerable probe with evidence is in exactly one bin per strategy
    probes = run.probes
    answerable = probes[(probes["strategy"] == "full_context") & probes["evidence_age_threads"].notna()
                        & probes["evidence_recall"].notna()]
    assert string[string["strategy"] == "full_context"]["n"].sum() == len(answerable)
    fc = string[string["strategy"] == "full_context"].set_index("age")["mean"]
    at = string[string["strategy"] == "all_threads"].set_index("age")["mean"]
    # the current thread forgets what earlier threads said; every thread of the user does not
    assert fc["same thread"] == 1.0 and fc["1–2"] == 0.0
    assert at["1–2"] == 1.0
    assert list(string.sort_values("bin")["age"].drop_duplicates()) == ["same thread", "1–2"]


def test_token_bins_are_fourfold_and_cover_every_age():
    labels = [b[0] for b in bins("tokens")]
    assert labels[0] == "0–500" and labels[-1].startswith("≥")
    edges = [(lo, hi) for _, lo, hi in bins("tokens")]
    assert all(a[1] == b[0] for a, b in zip(edges, edges[1:])) and math.isinf(edges[-1][1])
    with pytest.raises(ValueError, match="tokens, threads"):
        bins("days")


@pytest.mark.slow
def test_the_report_writes_the_table_csv_and_plot_and_the_design_report_has_the_section(run, tmp_path):
    from memlab.analysis.html_report import build_report
    from memlab.analysis.report import write_report

    out = write_report(run, quiet=True)
    csv = pd.read_csv(out["recall_by_age"])
    assert set(csv["by"]) == {"tokens", "threads"} and "ci_method" in csv and "code_version" in csv
    assert out["age_plot"].read_bytes()[:4] == b"\x89PNG"
    report = build_report([run])
    section = next(s for s in report.sections if s.id == "forgetting")
    kinds = [type(b).__name__ for b in section.blocks]
    assert "Plot" in kinds and "Table" in kinds


def test_a_run_without_ages_says_so(run, monkeypatch):
    """Runs recorded before ages existed: an empty frame, and the report section explains instead of plotting."""
    old = run.probes.drop(columns=["evidence_age_tokens", "evidence_age_threads"])
    monkeypatch.setitem(run._frames, "probes_scored", old)
    assert recall_by_age(run).empty
    assert age_pivot(recall_by_age(run)).empty


def test_an_age_column_pandas_widened_to_float_is_not_damage(tmp_path):
    """Probes without evidence have no age: pandas reads the column as float (36 → 36.0); that is not a
    wrong-typed record, while a fractional age would be."""
    from memlab.analysis.integrity import DamagedRun, check_probe_types

    ok = pd.DataFrame({"probe_id": ["a", "b"], "strategy": ["s", "s"], "attempt": ["x", "x"],
                       "evidence_age_tokens": [36.0, float("nan")], "evidence_age_threads": [0.0, None]})
    check_probe_types(tmp_path, ok, lambda: [])
    bad = ok.assign(evidence_age_tokens=[36.5, float("nan")])
    with pytest.raises(DamagedRun, match="evidence_age_tokens"):
        check_probe_types(tmp_path, bad, lambda: [])
