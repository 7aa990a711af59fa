"""Issue 29, item 4 (and item 12's ``--out x.txt``): ``memlab datasets threads | scale | schema``
write their output atomically — a full disk or a kill half-way leaves the old file (or none),
never a truncated dataset that still validates — ``--out IN`` works without destroying IN, and an
output name that is neither YAML nor JSON is refused before anything is read."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from memlab.cli import main as cli_main
from memlab.datasets.io import validate_file

ROOT = Path(__file__).resolve().parent.parent
STARTER = ROOT / "datasets" / "starter.yaml"


def _copy(tmp_path: Path, name: str = "in.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(STARTER.read_bytes())
    return path


def _full_disk_after(monkeypatch: pytest.MonkeyPatch, n_bytes: int) -> None:
    """Every YAML and JSON dump writes ``n_bytes`` of its output, then the disk is full."""
    real_dump = yaml.dump

    def dump(data, stream=None, **kw):
        text = real_dump(data, None, **kw)
        stream.write(text[:n_bytes])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(yaml, "dump", dump)


def _full_disk_at_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole output is written, then the disk is full when it is flushed to it."""
    import memlab.atomic

    def fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(memlab.atomic.os, "fsync", fsync)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("command", ["threads", "scale"])
def test_a_full_disk_leaves_the_input_whole_when_out_is_the_input(tmp_path, monkeypatch, capsys, command):
    src = _copy(tmp_path)
    before = src.read_bytes()
    _full_disk_after(monkeypatch, 4000)
    extra = ["--target-tokens", "30k"] if command == "scale" else []
    assert cli_main(["datasets", command, str(src), "--out", str(src), *extra]) == 1
    assert "No space left" in capsys.readouterr().err
    assert src.read_bytes() == before, "the input is intact"
    assert _leftovers(tmp_path) == [], "no temporary file is left behind"


@pytest.mark.parametrize("command", ["threads", "scale"])
def test_out_equal_to_the_input_replaces_it_with_the_whole_output(tmp_path, command):
    src = _copy(tmp_path)
    extra = ["--target-tokens", "30k"] if command == "scale" else []
    assert cli_main(["datasets", command, str(src), "--out", str(src), *extra]) == 0
    ds, problems = validate_file(src)
    assert problems == [] and ds is not None
    if command == "threads":
        assert len(ds.conversations) == 14 and len(ds.probes()) == 40  # every session its own thread, every probe kept
    else:
        assert len(ds.probes()) == 40 and ds.meta["tokens"] >= 25_000
    assert _leftovers(tmp_path) == []


def test_a_full_disk_keeps_the_previous_output_and_the_schema(tmp_path, monkeypatch, capsys):
    src = _copy(tmp_path)
    out = tmp_path / "out.json"
    out.write_text('{"name": "previous", "conversations": []}', encoding="utf-8")
    schema = tmp_path / "schema.json"
    schema.write_text("{}\n", encoding="utf-8")
    _full_disk_at_fsync(monkeypatch)
    assert cli_main(["datasets", "threads", str(src), "--out", str(out)]) == 1
    assert out.read_text(encoding="utf-8") == '{"name": "previous", "conversations": []}'
    assert cli_main(["datasets", "schema", "--out", str(schema)]) == 1
    assert "No space left" in capsys.readouterr().err
    assert schema.read_text(encoding="utf-8") == "{}\n"
    assert _leftovers(tmp_path) == []


def test_a_kill_during_the_write_leaves_the_old_file_or_none(tmp_path):
    """SIGKILL while the output is half written: OUT keeps its old content (a new OUT does not appear)."""
    src = _copy(tmp_path)
    old = tmp_path / "old.yaml"
    old.write_bytes(STARTER.read_bytes())
    script = textwrap.dedent("""
        import sys, time, yaml
        real = yaml.dump
        def slow(data, stream=None, **kw):
            text = real(data, None, **kw)
            stream.write(text[:5000]); stream.flush()
            print("writing", flush=True)
            time.sleep(60)
        yaml.dump = slow
        from memlab.datasets.cli import main
        main(["threads", sys.argv[1], "--out", sys.argv[2]])
    """)
    for out in (old, tmp_path / "new.yaml"):
        proc = subprocess.Popen([sys.executable, "-c", script, str(src), str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                                text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
    assert old.read_bytes() == STARTER.read_bytes(), "the old OUT is intact"
    assert not (tmp_path / "new.yaml").exists(), "a new OUT appears only whole"
    assert validate_file(old)[1] == []


@pytest.mark.parametrize("argv", [
    ["datasets", "threads", "{src}", "--out", "{tmp}/x.txt"],
    ["datasets", "scale", "{src}", "--target-tokens", "10k", "--out", "{tmp}/x"],
    ["datasets", "schema", "--out", "{tmp}/schema.yaml"],
])
def test_an_output_name_that_is_neither_yaml_nor_json_is_refused(tmp_path, capsys, argv):
    src = _copy(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(SystemExit) as exc:
        cli_main([a.format(src=src, tmp=tmp_path) for a in argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert ("YAML (.yaml, .yml) or JSON (.json)" in err) or ("the schema is JSON" in err), err
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "nothing written"
