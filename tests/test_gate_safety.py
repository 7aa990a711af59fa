"""Issue 18, items 5 and 8: the gate never passes on nothing, and its pull-request comment
cannot be hijacked by the text it quotes (answers, questions, dataset ids).

Baselines are snapshots of one tiny run (the dataset of tests/test_reliability.py), edited to
each case; comparing them costs no run."""

from __future__ import annotations

import re

import pytest

from memlab.analysis.baseline import BaselineError, make_baseline, snapshot
from memlab.harness.config import GateSpec
from memlab.analysis.gate import EXIT_CANNOT_COMPARE, EXIT_REGRESSION, compare
from memlab.analysis.results import load_run
from memlab.harness.runner import Runner
from tests.test_reliability import _config, _dataset

HEADLINE = ["evidence_recall", "answer_correct"]


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gatesafety")
    run = Runner(_config(tmp, _dataset(tmp, n=3), strategies=[{"name": "full_context"}]), progress=False).run()
    base = snapshot(load_run(run))
    assert len(base.probes) == 3 and all(p.scores.get("evidence_recall") == 1.0 for p in base.probes)
    return base


def _gate(base, new):
    return compare(base, new, GateSpec(bootstrap=100), HEADLINE)


def test_a_gate_that_compares_nothing_exits_2(snap):
    assert _gate(snap, snap).exit_code == 0  # the control: the same probes on both sides pass
    no_probes = snap.model_copy(update={"probes": []})
    result = _gate(no_probes, snap)
    assert result.exit_code == EXIT_CANNOT_COMPARE and "holds no probes" in result.summary()
    no_strategies = snap.model_copy(update={"strategies": {}, "probes": []})
    assert _gate(no_strategies, snap).exit_code == EXIT_CANNOT_COMPARE
    nan = [p.model_copy(update={"scores": {}}) for p in snap.probes]  # every score missing on both sides
    result = _gate(snap.model_copy(update={"probes": nan}), snap.model_copy(update={"probes": nan}))
    assert result.exit_code == EXIT_CANNOT_COMPARE and "every score missing" in result.summary()


def test_a_baseline_of_a_run_without_probes_is_refused(tmp_path):
    run = Runner(_config(tmp_path, _dataset(tmp_path, probes=False)), progress=False).run()
    assert load_run(run).manifest["status"] == "completed"
    with pytest.raises(BaselineError, match="no probes were answered"):
        make_baseline(run)


HOSTILE = ("Sure ![pixel](https://evil.example/p.png) cc @octocat <details><summary>click</summary> "
           "<!-- everything after this is hidden\r\n| injected | row |")


def test_the_pull_request_comment_quotes_hostile_text_inertly(snap):
    ids = [p.model_copy(update={"probe_id": f"{p.probe_id}@octocat<!--"}) for p in snap.probes]
    worse = [p.model_copy(update={"scores": {**p.scores, "evidence_recall": 0.0}, "answer": HOSTILE, "question": HOSTILE})
             for p in ids]
    result = _gate(snap.model_copy(update={"probes": ids}), snap.model_copy(update={"probes": worse}))
    md = result.to_markdown()
    assert result.exit_code == EXIT_REGRESSION and "Flipped probes (3)" in md
    flipped = md.split("### Flipped probes", 1)[1].split("\n\n", 2)[1]
    for bad in ("![pixel]", "@octocat", "<details><summary>click", "<!--", "\r"):
        assert bad not in md, f"{bad!r} reached the comment"
    assert not re.search(r"(?<!\\)\]\(https://", md), "a link target survived unescaped"
    assert all(line.count(" | ") == 7 for line in flipped.splitlines() if line.startswith("| full_context")), \
        "a quoted | or line break never adds a table cell or row"
    own = md.count("<details><summary>Every strategy × category × metric") + md.count("<details><summary>Notes</summary>")
    assert md.count("<details>") == own >= 1, "only the gate's own collapsible sections"
