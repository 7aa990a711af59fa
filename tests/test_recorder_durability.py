"""The recorder's durability points: a unit's marker reaches the disk only after its records do."""

from __future__ import annotations

import os
from pathlib import Path

from memlab.runfolder.recorder import RunRecorder, read_jsonl


def _spy_fsync(monkeypatch) -> list[tuple[str, int]]:
    """Every fsync as (file name, its size at that moment)."""
    synced: list[tuple[str, int]] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        synced.append((path.name, path.stat().st_size))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


def test_records_are_not_fsynced_one_by_one_but_before_the_units_marker(tmp_path, monkeypatch):
    synced = _spy_fsync(monkeypatch)
    rec = RunRecorder(tmp_path)
    for i in range(5):
        rec.write("memory_ops", {"seq": i})
        rec.write("probes", {"probe": i})
        rec.write("calls", {"call": i})
    assert synced == [], "no fsync per record"
    rec.write("units", {"event": "end"})
    names = [name for name, _ in synced]
    assert sorted(names[:-1]) == ["calls.jsonl", "memory_ops.jsonl", "probes.jsonl"]
    assert names[-1] == "units.jsonl"
    assert synced[-1][1] > 0, "the units line was written before its fsync"
    synced.clear()
    rec.write("units", {"event": "start"})
    assert [name for name, _ in synced] == ["units.jsonl"], "streams with nothing new are not synced again"
    rec.close()
    assert len(read_jsonl(tmp_path / "memory_ops.jsonl")) == 5
    assert len(read_jsonl(tmp_path / "units.jsonl")) == 2


def test_fsync_off_never_syncs_on_write(tmp_path, monkeypatch):
    synced = _spy_fsync(monkeypatch)
    rec = RunRecorder(tmp_path, fsync=False)
    rec.write("memory_ops", {"seq": 1})
    rec.write("units", {"event": "end"})
    assert synced == []
    rec.close()
