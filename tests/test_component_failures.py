"""Failures that do not fail a unit still show: what a component absorbed (a model call that failed
after its retries, a reconcile decision naming no memory it was shown) is in the unit's end record
(``component_failures``) and in the failures table ``memlab report`` prints and writes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from memlab.analysis.failures import failures_table
from memlab.analysis.report import write_report
from memlab.analysis.results import load_run
from memlab.harness.config import validate_config
from memlab.harness.runner import Runner
from tests.support.fake_openai_server import FakeOpenAIServer

THREADS = Path(__file__).resolve().parent / "fixtures" / "threads_small.yaml"
INVALID = "reconcile decision with an invalid target; candidate added"
CALL_FAILED = "reconcile call failed; candidate added"


@pytest.mark.slow
def test_absorbed_failures_are_recorded_per_unit_and_shown_in_the_failures_table(tmp_path):
    with FakeOpenAIServer() as server:
        server.fail_when = "moved to Porto"  # the reconcile call about this message fails (HTTP 500)
        # every other reconcile decision names memory 7 of the two or three it was shown
        server.responder = lambda body: {"fields": {"action": "UPDATE", "target": "7", "merged": "x"}}
        endpoint = {"provider": "openai", "model": "fake", "base_url": server.base_url, "max_attempts": 1}
        cfg = validate_config({
            "name": "absorbed", "datasets": [str(THREADS)], "output_dir": str(tmp_path / "results"),
            "embedding_cache": None, "executor": {"type": "serial"}, "models": {"consolidate": endpoint},
            "strategies": [
                {"name": "reconciling", "extractor": {"type": "verbatim"}, "retriever": {"type": "vector"},
                 "consolidator": {"type": "reconcile", "min_similarity": 0.0}},
                {"name": "pg_down", "preset": "fact_rag",
                 "store": {"type": "postgres", "dsn": "postgresql://memlab@127.0.0.1:9/none", "connect_timeout": 2}},
            ]})
        run_dir = Runner(cfg, progress=False).run()
    res = load_run(run_dir)
    ends = {ns: rec for (s, _, ns), rec in res.unit_ends.items() if s == "reconciling"}
    ana = {f["what"]: f for f in ends["ana"]["component_failures"]}
    ops = res.memory_ops
    fell_back = ops[(ops["strategy"] == "reconciling") & (ops["reason"] == "reconcile failed; added")]
    assert ana[CALL_FAILED]["component"] == "consolidator:reconcile" and ana[CALL_FAILED]["count"] == len(fell_back) >= 1
    assert "500" in ana[CALL_FAILED]["example"]
    invalid = ops[ops["reason"].str.startswith("reconcile: UPDATE with an invalid target", na=False)]
    assert len(invalid) >= 1 and (invalid["op"] == "ADD").all()  # kept, and the record says it was a fallback
    assert "(7; " in invalid["reason"].iloc[0]
    by_unit = sum(f["count"] for rec in ends.values() for f in rec["component_failures"] if f["what"] == INVALID)
    assert by_unit == len(invalid)  # one recorded failure per fallback ADD
    assert not ops["reason"].eq("reconcile: new").any()  # no decision was passed off as the role's ADD

    table = failures_table(res).set_index(["strategy", "what"])
    assert table.loc[("reconciling", INVALID), "count"] == len(invalid)
    assert table.loc[("reconciling", CALL_FAILED), "units"] == 1
    down = table.loc["pg_down"].reset_index()
    assert list(down["component"]) == ["(unit)"] and down["units"].iloc[0] == 2 and "127.0.0.1:9" in down["example"].iloc[0]

    out = io.StringIO()
    files = write_report(res, console=Console(file=out, width=250))
    printed = out.getvalue()
    assert "failures" in printed and INVALID in printed and "consolidator:reconcile" in printed
    written = files["failures"].read_text()
    assert INVALID in written and "code_version" in written  # the CSV names what produced it


def test_a_run_without_failures_has_an_empty_table_and_older_records_read(tmp_path):
    from memlab.runfolder.records import UnitEvent

    old = {"run_id": "r", "attempt": "a", "strategy": "s", "dataset": "d", "event": "end", "namespace": "n",
           "conversation_ids": ["c"], "status": "ok", "at": "2024-01-01T00:00:00"}
    assert UnitEvent.model_validate(old).component_failures is None  # written before they were recorded
    cfg = validate_config({"name": "clean", "datasets": [str(THREADS)], "output_dir": str(tmp_path / "results"),
                           "embedding_cache": None, "executor": {"type": "serial"},
                           "strategies": [{"name": "fact_rag", "store": {"type": "in_memory"}}]})
    res = load_run(Runner(cfg, progress=False).run())
    assert failures_table(res).empty
    assert all(json.loads(json.dumps(r["component_failures"])) == [] for r in res.unit_ends.values())
