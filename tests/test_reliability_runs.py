"""Issue 18: resume repairs what it promises, runs refuse what they cannot do before creating a folder,
exit codes match statuses, and a run folder's manifest is read or refused in one line.

Runs use the tiny hand-written dataset of tests/test_reliability.py (not evaluation data) and
cheap strategies; endpoint models are the local fake OpenAI server (tests/support)."""

from __future__ import annotations

import errno
import json
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from memlab.cli import main as cli_main
from memlab.harness.config import ConfigError, load_config
from memlab.runfolder.recorder import RunRecorder
from memlab.analysis.results import load_run
from memlab.harness.runner import EXIT_CODES, ResumeMismatch, Runner
from tests.test_reliability import _config, _dataset


# -- item 20: `cache: {mode: off}` unquoted ---------------------------------------------------------

def test_an_unquoted_cache_mode_off_is_read_as_off_and_on_says_quote_it(tmp_path):
    ds = tmp_path / "d.yaml"
    ds.write_text("name: d\nconversations: []\n")
    path = tmp_path / "c.yaml"
    path.write_text(f"datasets: [{ds}]\nstrategies: [{{name: no_memory}}]\nmodel: {{provider: offline, cache: {{mode: off}}}}\n")
    assert load_config(path).model.cache.mode == "off"
    path.write_text(f"datasets: [{ds}]\nstrategies: [{{name: no_memory}}]\nmodel: {{provider: offline, cache: {{mode: on}}}}\n")
    with pytest.raises(ConfigError, match="quote it"):
        load_config(path)


# -- shared helpers ------------------------------------------------------------------------------------

def _endpoint_config(tmp_path: Path, server, **kw) -> dict:
    """A run config whose every model call goes to the fake server, failing fast (one attempt)."""
    cfg = {"name": "ep", "datasets": [str(_dataset(tmp_path))], "output_dir": str(tmp_path / "results"),
           "embedding_cache": str(tmp_path / "emb.npz"), "strategies": [{"name": "recent_window"}],
           "model": {"provider": "openai", "model": "m", "base_url": server.base_url, "api_key_env": "MEMLAB_TEST_NO_KEY",
                     "max_attempts": 1, "retry_base_delay_s": 0}}
    cfg.update(kw)
    return cfg


def _write(tmp_path: Path, cfg: dict, name: str = "cfg.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg))
    return path


def _only_run(tmp_path: Path) -> Path:
    runs = [p for p in (tmp_path / "results").iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


class _NoLongSleep:
    """Stands in for the limiter's ``time`` module: a sleep of more than 5 minutes fails the test
    instead of stalling it (what a Retry-After of an hour did)."""

    monotonic = staticmethod(time.monotonic)

    @staticmethod
    def sleep(seconds: float) -> None:
        if seconds > 300:
            raise AssertionError(f"the limiter was asked to sleep {seconds:.0f}s")
        time.sleep(seconds)


# -- item 3: one long Retry-After stops the run with a message ------------------------------------------

def test_a_long_retry_after_stops_the_run_with_a_message(tmp_path, server, monkeypatch, capsys):
    monkeypatch.setattr("memlab.llm.limiter.time", _NoLongSleep)
    server.default_fields = {"answer": "4000"}
    server.script.append({"status": 429, "retry_after": "3600"})
    code = cli_main(["run", str(_write(tmp_path, _endpoint_config(tmp_path, server)))])
    out = capsys.readouterr()
    assert code == EXIT_CODES["failed"] == 1
    assert "retry after 3600s" in out.out + out.err and "Traceback" not in out.out + out.err
    m = json.loads((_only_run(tmp_path) / "manifest.json").read_text())
    assert m["status"] == "failed" and "3600s" in m["error"] and server.received == 1


# -- item 4: --resume repairs failed model calls -----------------------------------------------------------

@pytest.mark.slow
def test_resume_replays_units_whose_model_calls_failed(tmp_path, server, capsys):
    server.default_fields = {"answer": "4000"}
    server.fail_when = "4000."  # only the first conversation's answer request holds its locker code (recent window)
    path = _write(tmp_path, _endpoint_config(tmp_path, server))
    assert cli_main(["run", str(path)]) == EXIT_CODES["completed_with_failures"]
    run = _only_run(tmp_path)
    first = load_run(run)
    assert first.manifest["failed_calls"] == 1 and first.manifest["units"]["failed"] == [], "the unit itself ended ok"
    assert "--resume" in capsys.readouterr().out
    server.fail_when, before = None, server.received
    assert cli_main(["run", str(path), "--resume", str(run)]) == EXIT_CODES["completed"]
    assert server.received - before == 1, "only the unit with the failed call is played again"
    res = load_run(run)
    assert res.manifest["status"] == "completed" and res.manifest["failed_calls"] == 0
    assert len(res.probes) == 2 and not res.probes["error"].notna().any()


# -- items 6, 13 and 21: a resume continues the same experiment, or says what differs ----------------------

def test_a_resume_with_other_store_options_or_seed_is_refused_naming_the_difference(tmp_path, capsys):
    ds = _dataset(tmp_path)
    run = Runner(_config(tmp_path, ds, store_options={"postgres": {"table": "t_one"}}), progress=False).run()
    before = (run / "manifest.json").read_text()
    for changed, named in [({"store_options": {"postgres": {"table": "t_two"}}}, 'store_options.postgres.table: "t_one" → "t_two"'),
                           ({"store_options": {"postgres": {"table": "t_one"}}, "seed": 7}, "seed: 0 → 7")]:
        with pytest.raises(ResumeMismatch, match="different config") as err:
            Runner(_config(tmp_path, ds, **changed), run_dir=run, resume=True, progress=False).run()
        assert named in str(err.value)
    assert (run / "manifest.json").read_text() == before


def test_a_resume_by_other_code_or_models_is_refused(tmp_path, monkeypatch):
    ds = _dataset(tmp_path)
    cfg = _config(tmp_path, ds)
    run = Runner(cfg, progress=False).run()
    before = {f: (run / f).read_bytes() for f in ("manifest.json", "units.jsonl")}
    monkeypatch.setattr("memlab.harness.runner.source_hash", lambda: "0123456789abcdef")
    with pytest.raises(ResumeMismatch, match="other memlab code .*0123456789abcdef"):
        Runner(cfg, run_dir=run, resume=True, progress=False).run()
    monkeypatch.undo()

    runner = Runner(cfg, run_dir=run, resume=True, progress=False)
    real = runner.executor.models_manifest

    def newer_model(job):
        models = real(job)
        models["default"] = {**models["default"], "model": "offline-1+deadbeef"}
        return models

    runner.executor.models_manifest = newer_model
    with pytest.raises(ResumeMismatch, match=r"other models \(default: offline:offline-1\+\w+ → offline:offline-1\+deadbeef"):
        runner.run()
    assert before == {f: (run / f).read_bytes() for f in before}, "a refused resume writes nothing"


# -- item 7: partial rows are marked, empty ones kept --------------------------------------------------------

ONCE_PLUGIN = '''
"""A test component that fails once (the first conversation end it sees while the marker exists)."""
from pathlib import Path
from memlab.strategies.slots import Component, Params, component

class _P(Params):
    marker: str

@component("consolidator", "fail_once")
class FailOnce(Component):
    Params = _P

    def on_conversation_end(self, state):
        state.candidates.clear()
        marker = Path(self.params.marker)
        if marker.exists():
            marker.unlink()
            raise ConnectionError("store went away once")
'''


@pytest.mark.slow
def test_partial_and_empty_strategies_are_marked_in_the_table_and_summary(tmp_path, capsys):
    import sys

    (tmp_path / "once_plugin.py").write_text(ONCE_PLUGIN)
    (tmp_path / "down").touch()
    sys.path.insert(0, str(tmp_path))
    try:
        cfg = {"name": "partial", "datasets": [str(_dataset(tmp_path))], "output_dir": str(tmp_path / "results"),
               "embedding_cache": str(tmp_path / "emb.npz"), "plugins": ["once_plugin"],
               "strategies": [{"name": "message_rag"},
                              {"name": "half", "preset": "fact_rag",
                               "consolidator": {"type": "fail_once", "marker": str(tmp_path / "down")}},
                              {"name": "pg", "preset": "fact_rag",
                               "store": {"type": "postgres", "dsn": "postgresql://u@127.0.0.1:1/db"}}]}
        assert cli_main(["run", str(_write(tmp_path, cfg))]) == EXIT_CODES["completed_with_failures"]
    finally:
        sys.path.remove(str(tmp_path))
    rows = {line.split("│")[1].strip(): line for line in capsys.readouterr().out.splitlines() if line.count("│") > 3}
    assert "half (1/2 ok)" in rows and "pg (0/2 ok)" in rows and "message_rag" in rows, list(rows)
    assert rows["pg (0/2 ok)"].count("–") >= 8, "a strategy with no finished unit is a row of dashes, not missing"
    summary = pd.read_csv(_only_run(tmp_path) / "summary.csv", index_col="strategy")
    assert summary.loc[["message_rag", "half", "pg"], ["units_ok", "units_total"]].values.tolist() == [[2, 2], [1, 2], [0, 2]]


# -- item 14: exit codes match statuses ------------------------------------------------------------------------

def test_a_file_size_limit_or_a_crashed_worker_exits_1_with_status_failed(tmp_path, monkeypatch, capsys):
    from concurrent.futures.process import BrokenProcessPool

    path = _write(tmp_path, _config(tmp_path, _dataset(tmp_path)).model_dump(mode="json", exclude_defaults=True))
    real = RunRecorder.write
    limit = {"hit": False}

    def too_large(self, stream, record):  # RLIMIT_FSIZE: once one write fails, every later one does
        if stream == "probes" or limit["hit"]:
            limit["hit"] = True
            raise OSError(errno.EFBIG, "File too large")
        return real(self, stream, record)

    monkeypatch.setattr(RunRecorder, "write", too_large)
    assert cli_main(["run", str(path)]) == EXIT_CODES["failed"]
    monkeypatch.undo()
    assert "File too large" in capsys.readouterr().out
    assert json.loads((_only_run(tmp_path) / "manifest.json").read_text())["status"] == "failed"
    shutil.rmtree(tmp_path / "results")

    def crash(self, unit, **kw):
        raise BrokenProcessPool("A process in the process pool was terminated abruptly")

    monkeypatch.setattr("memlab.harness.units.UnitPlayer.play", crash)
    assert cli_main(["run", str(path)]) == EXIT_CODES["failed"]
    out = capsys.readouterr()
    assert "terminated abruptly" in out.out and "Traceback" not in out.out + out.err
    assert json.loads((_only_run(tmp_path) / "manifest.json").read_text())["status"] == "failed"


def test_a_full_disk_leaves_the_manifest_saying_failed_not_running(tmp_path, monkeypatch, capsys):
    """A disk with no byte free: a write fails unless some byte was given back since it filled up."""
    import memlab.harness.runner as runner_mod

    def used() -> int:
        return sum(f.stat().st_size for f in (tmp_path / "results").rglob("*") if f.is_file())

    disk = {"full_at": None}
    real_write, real_json = RunRecorder.write, runner_mod.write_json_atomic

    def write(self, stream, record):
        if stream == "probes":
            disk["full_at"] = used()
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, stream, record)

    def write_json(path, data):
        if disk["full_at"] is not None and used() >= disk["full_at"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_json(path, data)

    monkeypatch.setattr(RunRecorder, "write", write)
    monkeypatch.setattr(runner_mod, "write_json_atomic", write_json)
    path = _write(tmp_path, _config(tmp_path, _dataset(tmp_path)).model_dump(mode="json", exclude_defaults=True))
    assert cli_main(["run", str(path)]) == EXIT_CODES["failed"]
    assert "No space left" in capsys.readouterr().out
    run = _only_run(tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "No space left" in manifest["error"]
    assert not (run / ".reserve").exists()


# -- item 15: a type-confused manifest is one line naming the file -------------------------------------------

@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("small")
    return Runner(_config(tmp, _dataset(tmp)), progress=False).run()


@pytest.mark.parametrize("field, value", [("strategies", 5), ("strategies", [{"nome": 1}]), ("config", ["x"]),
                                          ("format_version", "two"), ("datasets", [{"name": "tiny"}]),
                                          ("units", {"failed": 5}), ("models", {"default": "offline"})])
def test_a_type_confused_manifest_is_one_line_naming_the_file_and_field(small_run, tmp_path, capsys, field, value):
    run = tmp_path / "run"
    shutil.copytree(small_run, run, ignore=shutil.ignore_patterns(".lock", "stores"))
    manifest = json.loads((run / "manifest.json").read_text())
    manifest[field] = value
    (run / "manifest.json").write_text(json.dumps(manifest))
    assert cli_main(["report", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'manifest.json'}: field `{field}" in err and len(err.strip().splitlines()) == 1, err


# -- item 17: nothing is created for a run that cannot start ------------------------------------------------

def test_runs_that_cannot_start_leave_no_folder(tmp_path, capsys):
    ds = _dataset(tmp_path)
    base = {"name": "nofolder", "datasets": [str(ds)], "output_dir": str(tmp_path / "results"),
            "embedding_cache": str(tmp_path / "emb.npz"), "strategies": [{"name": "message_rag"}]}
    cache = {"model": {"provider": "offline", "cache": {"mode": "replay-strict", "path": str(tmp_path / "missing.jsonl")}}}
    assert cli_main(["run", str(_write(tmp_path, {**base, **cache}))]) == 2
    assert "missing.jsonl" in capsys.readouterr().err
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())

    table = {"strategies": [{"name": "pg", "preset": "fact_rag", "store": {"type": "postgres", "table": "bad-name!"}}]}
    assert cli_main(["run", str(_write(tmp_path, {**base, **table}))]) == 2
    assert "invalid table name 'bad-name!'" in capsys.readouterr().err
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())

    missing = tmp_path / "no-such-run"
    assert cli_main(["run", str(_write(tmp_path, base)), "--resume", str(missing)]) == 2
    assert "does not exist" in capsys.readouterr().err and not missing.exists()
