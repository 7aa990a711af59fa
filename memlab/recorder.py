"""Append-only JSONL records for a run folder, one atomic write per record.

Each record is serialised to one line and written with a single ``os.write`` on an
``O_APPEND`` descriptor, then fsynced: a crash leaves either the whole line or nothing (a torn
last line, at worst, which the reader skips), and concurrent writers never interleave.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

STREAMS = ("probes", "calls", "memory_ops", "turns", "units")


class RunRecorder:
    def __init__(self, run_dir: str | Path, *, fsync: bool = True) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self._fds: dict[str, int] = {}
        self._lock = threading.Lock()

    def write(self, stream: str, record: dict[str, Any]) -> None:
        if stream not in STREAMS:
            raise ValueError(f"unknown record stream {stream!r}")
        line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        with self._lock:
            fd = self._fds.get(stream)
            if fd is None:
                fd = os.open(self.run_dir / f"{stream}.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                self._fds[stream] = fd
            os.write(fd, line)
            if self.fsync and stream in ("units", "memory_ops"):
                os.fsync(fd)  # a unit marked done / an op recorded must survive a crash

    def close(self) -> None:
        with self._lock:
            for fd in self._fds.values():
                os.fsync(fd)
                os.close(fd)
            self._fds.clear()


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Read a JSONL stream, skipping a torn final line left by a crash."""
    path = Path(path)
    if not path.exists():
        return []
    out = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            if i == len(lines) - 1:
                continue  # torn last write from an interrupted run
            raise ValueError(f"{path}:{i + 1}: corrupt record") from None
    return out


def write_json_atomic(path: str | Path, data: Any) -> None:
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    os.replace(tmp, path)
