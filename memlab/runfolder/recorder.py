"""Append-only JSONL streams for a run folder, one complete line per record.

Guarantees (tested in ``tests/test_recorder_durability.py``, ``tests/test_reliability.py`` and the fault suite):

- **One record, one line.** Records are serialised with every line-breaking character escaped
  (``\\n`` by JSON itself; U+2028, U+2029 and U+0085 explicitly), and readers split on ``\\n``
  only, so text containing Unicode separators can never break a stream.
- **No torn or interleaved lines.** Whole lines are written with ``O_APPEND`` in a loop until every
  byte is out (short writes are completed), under a lock.
- **A unit marked in the log is on disk with all its records.** A ``units`` record (a unit's
  start or end) is a durability point: the lines of every other stream since the last one are
  written and fsynced first, then the ``units`` line is written and fsynced. So an ``end`` record
  on disk means every record of that unit is too; records of an unfinished unit may be lost by a
  crash, which costs nothing because ``--resume`` plays that unit again. Between durability
  points lines are buffered per stream (flushed early past :data:`FLUSH_BYTES`): one ``write``
  per stream and unit instead of one per record — 38,000 ``write`` calls on the LoCoMo-sized
  benchmark. (Fsyncing every memory operation as it was written cost a third of that run's
  harness time on a loaded disk.)
- **A crash leaves at most a torn last line**, which readers skip, and which the next writer
  (a ``--resume``) cuts off before appending — so it never becomes a corrupt line mid-file.
- **One writer per folder.** :class:`RunLock` takes an exclusive ``flock`` on the folder; a second
  run or resume of the same folder is refused while the first holds it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import threading
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel

from memlab.runfolder.records import STREAMS

_SEPARATORS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}
_DURABILITY_STREAM = "units"
FLUSH_BYTES = 4 << 20
"""A stream's buffered lines are written once they pass this size, durability point or not."""


_ORJSON_OPTIONS = (orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE | orjson.OPT_PASSTHROUGH_DATETIME
                   | orjson.OPT_PASSTHROUGH_DATACLASS)
"""Datetimes and dataclasses are passed to :func:`_default` like the standard encoder's ``default=str``."""


def _default(value: Any) -> Any:
    """What the standard encoder does with a value orjson does not take natively: a float or int
    subclass (a numpy scalar) as its number, anything else as ``str``."""
    if isinstance(value, float):
        return float(value)
    if isinstance(value, int):
        return int(value)
    return str(value)


def dumps_line(record: dict[str, Any] | BaseModel) -> bytes:
    """One JSON line that no reader can split: JSON escapes \\n; Unicode line separators are escaped too.

    Plain rows (turns, calls: tens of thousands per LoCoMo-sized run) go through orjson, ~8x
    faster than the standard encoder; the line loads to the same values (floats are written in
    their shortest round-trip form, as pydantic's encoder writes them). A value orjson cannot
    encode (an integer beyond 64 bits) falls back to the standard encoder."""
    if isinstance(record, BaseModel):
        data = record.model_dump_json().encode("utf-8") + b"\n"
    else:
        try:
            data = orjson.dumps(record, default=_default, option=_ORJSON_OPTIONS)
        except (TypeError, orjson.JSONEncodeError):
            data = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8")
    # U+2028, U+2029 and U+0085 end in these bytes in UTF-8; a memchr for each is ~100x faster
    # than searching for the sequences (a probe row holding a whole history is ~300 KB)
    if (b"\xa8" in data or b"\xa9" in data or b"\x85" in data) and (
            b"\xe2\x80\xa8" in data or b"\xe2\x80\xa9" in data or b"\xc2\x85" in data):
        text = data.decode("utf-8")
        for raw, escaped in _SEPARATORS.items():
            text = text.replace(raw, escaped)
        data = text.encode("utf-8")
    return data


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a short write is not an error in POSIX)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.EIO, "write returned 0 bytes")
        view = view[n:]


def repair_tail(path: Path) -> int:
    """Cut a torn last line (no trailing newline) left by a crash; returns the bytes removed."""
    if not path.exists():
        return 0
    size = path.stat().st_size
    if size == 0:
        return 0
    with open(path, "rb+") as fh:
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return 0
        chunk = 1 << 16
        pos = size
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            data = fh.read(pos - start)
            nl = data.rfind(b"\n")
            if nl >= 0:
                keep = start + nl + 1
                fh.truncate(keep)
                return size - keep
            pos = start
        fh.truncate(0)
        return size


class RunRecorder:
    """Appends records to ``<run_dir>/<stream>.jsonl``; thread-safe; repairs torn tails on open."""

    def __init__(self, run_dir: str | Path, *, fsync: bool = True) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self._fds: dict[str, int] = {}
        self._pending: dict[str, bytearray] = {}
        self._unsynced: set[str] = set()
        self._lock = threading.Lock()
        self.repaired: dict[str, int] = {}

    def _fd(self, stream: str) -> int:
        fd = self._fds.get(stream)
        if fd is None:
            path = self.run_dir / f"{stream}.jsonl"
            cut = repair_tail(path)
            if cut:
                self.repaired[stream] = cut
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            self._fds[stream] = fd
        return fd

    def __enter__(self) -> RunRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def write(self, stream: str, record: dict[str, Any] | BaseModel) -> None:
        if stream not in STREAMS:
            raise ValueError(f"unknown record stream {stream!r}")
        line = dumps_line(record)
        with self._lock:
            if stream == _DURABILITY_STREAM:
                self._flush_pending()
                if self.fsync:
                    for other in sorted(self._unsynced):  # the unit's records reach the disk before its marker
                        os.fsync(self._fds[other])
                    self._unsynced.clear()
                fd = self._fd(stream)
                write_all(fd, line)
                if self.fsync:
                    os.fsync(fd)
            else:
                buf = self._pending.get(stream)
                if buf is None:
                    self._fd(stream)  # open (and repair) the stream when its first record comes
                    buf = self._pending[stream] = bytearray()
                buf += line
                if len(buf) >= FLUSH_BYTES:
                    self._flush(stream)

    def _flush(self, stream: str) -> None:
        buf = self._pending[stream]
        if buf:
            write_all(self._fds[stream], bytes(buf))
            buf.clear()
            self._unsynced.add(stream)

    def _flush_pending(self) -> None:
        for stream in sorted(self._pending):
            self._flush(stream)

    def close(self) -> None:
        with self._lock:
            try:
                self._flush_pending()
            finally:
                for fd in self._fds.values():
                    try:
                        os.fsync(fd)
                    finally:
                        os.close(fd)
                self._fds.clear()
                self._pending.clear()
                self._unsynced.clear()


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Read a JSONL stream, skipping a torn final line left by a crash; a corrupt line elsewhere
    is an error naming the file and line."""
    path = Path(path)
    if not path.exists():
        return []
    raw = path.read_bytes()
    try:
        lines = raw.decode("utf-8").split("\n")  # never str.splitlines(): it splits on U+2028 & co.
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 at byte {exc.start}") from None
    out = []
    torn = not raw.endswith(b"\n")
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            out.append(_loads(text))
        except json.JSONDecodeError as exc:
            if torn and n == len(lines):
                continue  # torn last write from an interrupted run
            raise ValueError(f"{path}:{n}: corrupt record ({exc.msg})") from None
    return out


def _loads(text: str) -> Any:
    """orjson first (the metrics loader reads every row of a run); the standard decoder for what
    orjson refuses but JSON-as-Python-writes-it allows (NaN, integers beyond 64 bits), and for
    the error message of a line that is corrupt."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Replace ``path`` with ``data`` as JSON, whole or not at all (:mod:`memlab.atomic`: a failed
    write — a full disk — removes its temporary file and leaves the previous manifest)."""
    from memlab.atomic import write_text_atomic

    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, default=str))


def remove_stale_temporaries(run_dir: str | Path) -> list[str]:
    """Remove the temporary files of manifest writes a killed process left in ``run_dir`` (called
    under the run lock, so no writer is using them): ``manifest.json.<pid>.tmp`` of older memlab
    versions and ``.manifest.json.<pid>.<random>.tmp``. Returns their names."""
    gone = []
    for pattern in ("manifest.json.*.tmp", ".manifest.json.*.tmp"):
        for p in Path(run_dir).glob(pattern):
            p.unlink(missing_ok=True)
            gone.append(p.name)
    return gone


class RunLocked(RuntimeError):
    """Another process is running or resuming this run folder."""


class RunLock:
    """Exclusive, non-blocking ``flock`` on ``<run_dir>/.lock`` for the life of a run (released by
    the OS if the process dies, so a crashed run never leaves a stale lock)."""

    def __init__(self, run_dir: str | Path) -> None:
        self.path = Path(run_dir) / ".lock"
        self.fd: int | None = None

    def acquire(self) -> RunLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
            finally:
                os.close(fd)
            raise RunLocked(f"{self.path.parent} is in use by another memlab process (pid {holder}); "
                            "wait for it to finish or stop it before resuming") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
