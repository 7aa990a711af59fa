"""Writing a file so that it is either the old one or the whole new one, never a piece.

A file written in place is truncated first: a kill, a full disk or a crash half-way leaves a
shorter file under the final name — and a truncated dataset still validates, with fewer threads
and probes (issue 29). :func:`atomic_write` writes a temporary file in the same directory (same
filesystem, so the rename is atomic), fsyncs it, renames it over the target with
:func:`os.replace` and fsyncs the directory (so the rename itself survives a power loss). On any
error the temporary file is removed and the target is untouched; only a SIGKILL can leave a
temporary file (``.<name>.<pid>.<random>.tmp``, hidden), never a damaged target. Writing a file
over its own input is therefore safe: the input is read whole before the new file replaces it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def temp_path(path: Path) -> Path:
    """A fresh temporary name beside ``path`` (hidden, unique per process and call)."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


@contextlib.contextmanager
def atomic_write(path: str | Path, *, binary: bool = False, encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """``with atomic_write(path) as fh: fh.write(...)`` — ``path`` holds the whole new content after
    the block, or (on an exception) what it held before. The file gets the target's permissions if
    it existed, else the usual ones (0666 minus the umask)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for open()
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": encoding})) as fh:
            fd = -1  # owned by fh now
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def write_text_atomic(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    """:func:`atomic_write` for a string."""
    with atomic_write(path, encoding=encoding) as fh:
        fh.write(text)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse a directory fsync; the rename is done either way
    finally:
        os.close(fd)
