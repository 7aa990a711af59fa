"""Issue 29, items 7, 8, 9 and 12: a run that cannot record its end does not start, and says so when
its manifest could not be written; a run whose every unit failed says which and how to resume; a
damaged run folder is reported as damaged (exit 2), never as a clean empty run; explain names the
run's status and refuses an unknown probe; purging a run in use exits non-zero."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from memlab.cli import main as cli_main
from memlab.runfolder.recorder import RunLock, RunRecorder
from memlab.harness.runner import EXIT_CODES, Runner
from tests.test_reliability import _config, _dataset


def _write(tmp_path: Path, cfg: dict, name: str = "cfg.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return path


def _cfg(tmp_path: Path, **kw) -> dict:
    return {"name": "out", "datasets": [str(_dataset(tmp_path))], "output_dir": str(tmp_path / "results"),
            "embedding_cache": None, "strategies": [{"name": "message_rag"}], **kw}


def _runs(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "results").iterdir()) if (tmp_path / "results").exists() else []


# -- item 7: less than the reserve free at start ---------------------------------------------------------------------

def _no_room_for_the_reserve(monkeypatch: pytest.MonkeyPatch) -> None:
    def fallocate(fd, offset, length):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", fallocate)


def test_a_disk_without_room_for_the_reserve_refuses_to_start_and_leaves_no_folder(tmp_path, monkeypatch, capsys):
    path = _write(tmp_path, _cfg(tmp_path))
    _no_room_for_the_reserve(monkeypatch)
    assert cli_main(["run", str(path), "--no-progress"]) == EXIT_CODES["failed"]
    out = capsys.readouterr().out
    assert "run not started: less than 1 MiB free" in out and "run again" in out
    assert _runs(tmp_path) == [], "no folder whose manifest says 'running' is left"


def test_a_resume_without_room_keeps_the_manifest_and_clears_stale_temporaries(tmp_path, monkeypatch, capsys):
    path = _write(tmp_path, _cfg(tmp_path))
    assert cli_main(["run", str(path), "--no-progress"]) == 0
    (run,) = _runs(tmp_path)
    (run / "manifest.json.424242.tmp").write_text('{"status": "runn', encoding="utf-8")  # a killed writer's
    before = (run / "manifest.json").read_bytes()
    with monkeypatch.context() as m:
        _no_room_for_the_reserve(m)
        assert cli_main(["run", str(path), "--resume", str(run), "--no-progress"]) == EXIT_CODES["failed"]
    assert "resume with --resume" in capsys.readouterr().out
    assert (run / "manifest.json").read_bytes() == before, "the manifest is untouched: it does not say 'running'"
    assert not list(run.glob("*.tmp")), "the stale temporary file of an earlier writer is gone"
    assert cli_main(["run", str(path), "--resume", str(run), "--no-progress"]) == 0
    assert json.loads((run / "manifest.json").read_text())["status"] == "completed"


def test_a_manifest_that_cannot_be_written_is_reported_and_leaves_no_temporary(tmp_path, monkeypatch, capsys):
    """The disk fills mid-run and not even the reserve given back makes room for the last manifest:
    the console says the manifest still says 'running' (it said 'failed' before), and no
    ``manifest.json.<pid>.tmp`` stays behind for a later resume to trip over."""
    path = _write(tmp_path, _cfg(tmp_path))
    full = {"now": False}
    real_write, real_fsync = RunRecorder.write, os.fsync

    def write(self, stream, record):
        if stream == "probes":
            full["now"] = True
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, stream, record)

    def fsync(fd):
        if full["now"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    with monkeypatch.context() as m:
        m.setattr(RunRecorder, "write", write)
        m.setattr(os, "fsync", fsync)
        assert cli_main(["run", str(path), "--no-progress"]) == EXIT_CODES["failed"]
    out = capsys.readouterr().out
    (run,) = _runs(tmp_path)
    assert json.loads((run / "manifest.json").read_text())["status"] == "running"
    assert "could not be updated" in out and "still says 'running'" in out
    assert not [p.name for p in run.iterdir() if p.name.endswith(".tmp")]
    assert cli_main(["run", str(path), "--resume", str(run), "--no-progress"]) == 0
    assert json.loads((run / "manifest.json").read_text())["status"] == "completed"
    assert not [p.name for p in run.iterdir() if p.name.endswith(".tmp")]


# -- item 8: every unit failed ---------------------------------------------------------------------------------------

def test_a_run_whose_every_unit_failed_lists_the_failures_and_the_resume(tmp_path, capsys):
    cfg = _cfg(tmp_path, strategies=[{"name": "pg", "preset": "fact_rag",
                                      "store": {"type": "postgres", "dsn": "postgresql://u@127.0.0.1:1/db"}}])
    assert cli_main(["run", str(_write(tmp_path, cfg)), "--no-progress"]) == EXIT_CODES["completed_with_failures"]
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    (run,) = _runs(tmp_path)
    assert "no probes were answered" in out
    assert "2 unit(s) failed" in out and "pg/tiny/p0" in out and "cannot connect" in out
    assert f"resume with `memlab run ... --resume {run}`" in out
    # the report of that folder says the same, and is no damage: nothing finished
    assert cli_main(["report", str(run)]) == 0
    assert "unit(s) failed" in capsys.readouterr().out


# -- item 9: damaged run folders ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("finished")
    return Runner(_config(tmp, _dataset(tmp, n=3)), progress=False).run()


def _damaged(finished: Path, tmp_path: Path, damage) -> Path:
    run = tmp_path / "run"
    shutil.copytree(finished, run, ignore=shutil.ignore_patterns(".lock", "stores"))
    damage(run)
    return run


def _rewrite_probes(run: Path, change) -> None:
    rows = [json.loads(line) for line in (run / "probes.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = change(rows)
    (run / "probes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("damage, message", [
    (lambda r: [(r / "probes.jsonl").unlink(), (r / "units.jsonl").unlink()], "units.jsonl is missing"),
    (lambda r: (r / "probes.jsonl").unlink(), "probes.jsonl is missing"),
    (lambda r: (r / "units.jsonl").write_text("", encoding="utf-8"), "units.jsonl holds 0 finished unit"),
    (lambda r: _rewrite_probes(r, lambda rows: rows[:1]), "probes.jsonl holds 1 answer(s) of the 3"),
])
def test_a_folder_missing_its_records_is_damaged_not_empty(finished_run, tmp_path, capsys, damage, message):
    run = _damaged(finished_run, tmp_path, damage)
    for command in (["report", str(run)], ["explain", str(run)]):
        assert cli_main(command) == 2, command
        err = capsys.readouterr().err
        assert "damaged run folder" in err and message in err, err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("field, value, expected", [
    ("gold", 5, "should be list, got int"),
    ("context", 5, "should be str, got int"),
    ("evidence", "t1", "should be list, got str"),
    ("question", ["?"], "should be str, got list"),
])
def test_a_probe_field_of_the_wrong_type_is_named_by_line_and_field(finished_run, tmp_path, capsys, field, value, expected):
    def change(rows):
        rows[1][field] = value
        return rows

    run = _damaged(finished_run, tmp_path, lambda r: _rewrite_probes(r, change))
    for command in (["report", str(run)], ["explain", str(run), "--all"]):
        assert cli_main(command) == 2
        err = capsys.readouterr().err
        assert "probes.jsonl:2: damaged record" in err and f"field `{field}` {expected}" in err, err
        assert "Traceback" not in err


# -- item 12: explain and purge exit codes -----------------------------------------------------------------------------

def test_explain_names_the_run_status_and_refuses_an_unknown_probe(finished_run, capsys):
    assert cli_main(["explain", str(finished_run), "--all"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"{finished_run}: status completed · 3 of 3 units ok"
    assert cli_main(["explain", str(finished_run), "--probe", "p1-qq"]) == 2
    err = capsys.readouterr().err
    assert "no probe 'p1-qq' was answered in this run. Did you mean 'p1-q'?" in err


def test_purging_a_run_in_use_exits_non_zero(tmp_path, capsys):
    run = Runner(_config(tmp_path, _dataset(tmp_path)), progress=False).run()
    with RunLock(run):
        assert cli_main(["stores", "purge", str(run)]) == 1
    err = capsys.readouterr().err
    assert "skipped: in use by another memlab process" in err and "1 of 1 run(s) not purged" in err
    assert cli_main(["stores", "purge", str(run)]) == 0  # free again: nothing on a server to remove, and that is fine


def test_a_resume_with_only_the_dsn_password_changed_is_accepted_another_server_is_not(tmp_path, capsys):
    """docs/reliability.md said a changed password alone is refused; passwords are masked before the
    fingerprint is taken, so a rotated password resumes (same server, database and user), and any
    other change of the DSN is refused naming it."""
    def config(dsn: str) -> Path:
        return _write(tmp_path, _cfg(tmp_path, store_options={"postgres": {"dsn": dsn}},
                                     strategies=[{"name": "pg", "preset": "fact_rag", "store": {"type": "postgres"}}]))

    first = config("postgresql://memlab:Old-Secret-1@127.0.0.1:1/db")
    assert cli_main(["run", str(first), "--no-progress"]) == EXIT_CODES["completed_with_failures"]  # port 1: no server
    (run,) = _runs(tmp_path)
    capsys.readouterr()
    rotated = config("postgresql://memlab:New-Secret-2@127.0.0.1:1/db")
    assert cli_main(["run", str(rotated), "--resume", str(run), "--no-progress"]) == EXIT_CODES["completed_with_failures"]
    assert "different config" not in capsys.readouterr().err
    other = config("postgresql://memlab:New-Secret-2@127.0.0.1:1/otherdb")
    assert cli_main(["run", str(other), "--resume", str(run), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "store_options.postgres.dsn" in err and "otherdb" in err and "Secret" not in err

