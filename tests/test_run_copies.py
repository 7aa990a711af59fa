"""Issue 29, item 3: copies of a run folder share its run_uid — they must not collide on a shared
Postgres (real server: MEMLAB_PG_DSN or scripts/pg.sh's DSN file).

Two copies resumed at once both ended "completed" (exit 0) with wrong contexts, and purging a copy
deleted the original's rows. Now a copy whose original still exists is refused unless adopted
(``--adopt``: a run_uid of its own), a uid in use on the server (a moved original and its copy) is
refused by the run's advisory lock, and ``stores purge`` leaves a copy or a uid in use alone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
import yaml

from memlab.analysis.results import load_run
from memlab.cli import main as cli_main
from memlab.memory.stores.ownership import lock_key
from memlab.memory.stores.postgres import lock_run_uid, resolve_dsn
from tests.test_reliability import _dataset

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
ROOT = Path(__file__).resolve().parent.parent
TABLE = "t_issue29_copies"
PLUGIN = '''
"""A test consolidator: stores every candidate (as ``append``), then fails the unit at conversation
end while a marker file exists (a stand-in for a fault that a resume gets past)."""
from pathlib import Path
from memlab.strategies.consolidator.basic import Append
from memlab.strategies.slots import Params, component

class _P(Params):
    marker: str

@component("consolidator", "append_failing_while_marked")
class AppendFailingWhileMarked(Append):
    Params = _P

    def on_conversation_end(self, state):
        super().on_conversation_end(state)
        if Path(self.params.marker).exists():
            raise ConnectionError("store went away")
'''


def _cfg(tmp_path: Path, marker: Path, name: str = "copies") -> Path:
    (tmp_path / "copies_plugin.py").write_text(PLUGIN)
    cfg = {"name": name, "datasets": [str(_dataset(tmp_path, n=3))], "output_dir": str(tmp_path / "results"), "embedding_cache": None, "plugins": ["copies_plugin"],
           "strategies": [{"name": "pg", "preset": "fact_rag", "store": {"type": "postgres", "table": TABLE},
                           "consolidator": {"type": "append_failing_while_marked", "marker": str(marker)}}]}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return path


def _memlab(tmp_path: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)]), "MEMLAB_PG_DSN": resolve_dsn()}
    extra = ["--no-progress"] if args[0] == "run" else []
    return subprocess.Popen([sys.executable, "-m", "memlab.cli", *args, *extra], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture()
def cli(tmp_path, capsys, monkeypatch):
    """``cli(*args) -> (exit code, console output)``: memlab in this process (the plugin importable)."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def run(*args: str) -> tuple[int, str]:
        code = cli_main([*args, *(["--no-progress"] if args[0] == "run" else [])])
        captured = capsys.readouterr()
        return code, " ".join((captured.out + captured.err).split())
    return run


def _finish(proc: subprocess.Popen) -> tuple[int, str]:
    out, err = proc.communicate(timeout=600)
    return proc.returncode, " ".join((out + err).split())  # the console wraps long lines


def _uid(run: Path) -> str:
    return json.loads((run / "manifest.json").read_text())["run_uid"]


def _rows(uid: str) -> int:
    with psycopg.connect(resolve_dsn()) as conn:
        row = conn.execute(f"SELECT count(*) FROM {TABLE} WHERE namespace LIKE %s", (f"{uid}/%",)).fetchone()
        return int(row[0]) if row else 0


def _contexts(run: Path) -> list[tuple[str, str, str]]:
    probes = load_run(run).probes
    return sorted(zip(probes["conversation_id"], probes["probe_id"], probes["context"]))


def test_two_copies_resumed_at_once_cannot_share_a_run_uid(tmp_path, cli):
    marker = tmp_path / "down"
    marker.touch()
    cfg = _cfg(tmp_path, marker)
    code, out = cli("run", str(cfg))
    assert code == 3, out  # every unit failed while the marker was there
    (original,) = (tmp_path / "results").iterdir()
    marker.unlink()
    copy = tmp_path / "copy"
    shutil.copytree(original, copy, ignore=shutil.ignore_patterns(".lock"))
    reference = tmp_path / "reference"
    assert cli("run", str(cfg), "--run-dir", str(reference))[0] == 0

    # both resumed at once: the copy is refused before it writes anything, the original completes
    both = [_memlab(tmp_path, "run", str(cfg), "--resume", str(d)) for d in (original, copy)]
    (code_o, out_o), (code_c, out_c) = (_finish(p) for p in both)
    assert code_o == 0, out_o
    assert code_c == 2 and f"{copy} is a copy of the run folder {original}" in out_c and "--adopt" in out_c, out_c
    assert _contexts(original) == _contexts(reference), "the original's contexts are its own"
    assert json.loads((copy / "manifest.json").read_text())["status"] == "completed_with_failures", "the copy is untouched"

    # adopted, the copy is a run of its own: its own uid, the original's rows untouched
    rows_before = _rows(_uid(original))
    code, out = cli("run", str(cfg), "--resume", str(copy), "--adopt")
    assert code == 0 and "adopted:" in out, out
    manifest = json.loads((copy / "manifest.json").read_text())
    assert manifest["run_uid"] != _uid(original) and manifest["adopted_from"][0]["run_uid"] == _uid(original)
    assert _contexts(copy) == _contexts(reference)
    assert _rows(_uid(original)) == rows_before > 0

    # purging: a copy not adopted is refused; the adopted copy removes only its own rows
    second = tmp_path / "second-copy"
    shutil.copytree(original, second, ignore=shutil.ignore_patterns(".lock"))
    code, out = cli("stores", "purge", str(second))
    assert code == 1 and f"a copy of {original}" in out, out
    code, out = cli("stores", "purge", str(copy))
    assert code == 0 and _rows(manifest["run_uid"]) == 0, out
    assert _rows(_uid(original)) == rows_before, "purging the adopted copy left the original's memories"
    assert cli("stores", "purge", str(original))[0] == 0 and _rows(_uid(original)) == 0
    assert cli("stores", "purge", str(reference))[0] == 0


def test_a_run_uid_in_use_on_the_server_is_refused_even_when_the_original_moved(tmp_path, cli):
    """A copy made, then the original moved: the folder binding cannot tell them apart (both look
    moved), so the run's advisory lock on the server does — for a resume and for a purge."""
    marker = tmp_path / "down"
    marker.touch()
    cfg = _cfg(tmp_path, marker, "moved")
    assert cli("run", str(cfg))[0] == 3
    (original,) = (tmp_path / "results").iterdir()
    marker.unlink()
    copy = tmp_path / "copy"
    shutil.copytree(original, copy, ignore=shutil.ignore_patterns(".lock"))
    moved = original.rename(tmp_path / "moved-original")
    uid = _uid(moved)

    holder = lock_run_uid(None, lock_key(uid))  # the moved original, resuming elsewhere, holds its uid
    assert holder is not None
    try:
        code, out = cli("run", str(cfg), "--resume", str(copy))
        assert code == 2 and f"run_uid {uid} is in use on postgres" in out, out
        assert json.loads((copy / "manifest.json").read_text())["status"] == "completed_with_failures"
        code, out = cli("stores", "purge", str(moved))
        assert code == 1 and "in use on postgres" in out, out
        code, out = cli("run", str(cfg), "--resume", str(copy), "--adopt")
        assert code == 0 and "adopted:" in out and f"{uid} is in use by another process" in out, out
    finally:
        holder.close()
    assert _uid(copy) != uid
    code, out = cli("run", str(cfg), "--resume", str(moved))  # the lock is free again
    assert code == 0, out
    assert _contexts(moved) == _contexts(copy)
    for run in (moved, copy):
        assert cli("stores", "purge", str(run))[0] == 0
