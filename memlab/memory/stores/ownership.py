"""Which folder owns a run's store namespaces: copies of a run folder cannot collide.

A run's memories on a store server live under ``<run_uid>/…``, and the ``run_uid`` is kept in the
manifest so a resume finds them again. A *copy* of the folder (``cp -r``, a backup restored beside
the original) carries the same ``run_uid``: two copies resumed at once cleared and rewrote each
other's namespaces and both ended "completed" with wrong contexts, and purging a copy deleted the
original's rows. Two guards, each covering what the other cannot:

* **The uid is bound to its folder.** The manifest records the folder's absolute path when the run
  is created. A resume from another path whose recorded folder still exists and holds the same
  ``run_uid`` is a resume of a copy: refused (exit 2), unless ``--adopt`` is given — then the copy
  gets a ``run_uid`` of its own (``adopted_from`` records the old one and where it came from), its
  finished units are kept (their records are results, not memories) and its unfinished ones are
  played under the new uid. A folder whose recorded path is gone (or holds another run) was moved:
  the binding follows it. ``memlab stores purge`` refuses a copy the same way.
* **A server-side lock for the length of a run or resume.** Every Postgres server a run's stores
  use holds a session advisory lock on the ``run_uid`` while the run plays (released by the server
  when the connection ends, so a killed run never leaves a stale lock). A second process playing
  the same uid — a copy on another machine, a moved original and its copy — is refused before it
  writes anything, and ``stores purge`` leaves a uid that is in use alone. A chroma *server* has no
  such lock: there, copies are told apart by the folder binding only (an embedded chroma store
  lives inside the run folder, so copies never share it).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import Any

from memlab.runfolder.records import read_manifest


class CopiedRunFolder(RuntimeError):
    """A resume or purge of a copy of a run folder whose original still exists."""


def bind(manifest: dict[str, Any], run_dir: Path) -> None:
    """Record ``run_dir`` (absolute) as the folder that owns the manifest's ``run_uid``."""
    manifest["folder"] = str(run_dir.resolve())


def original_of(manifest: dict[str, Any], run_dir: Path) -> Path | None:
    """The folder ``run_dir`` was copied from, when it still exists and holds the same run; None
    when ``run_dir`` is the bound folder, or was moved (nothing of the run is left where it was)."""
    recorded = manifest.get("folder")
    if not isinstance(recorded, str) or not recorded:
        return None
    here = run_dir.resolve()
    there = Path(recorded)
    if there == here:
        return None
    try:
        if not (there / "manifest.json").is_file() or os.path.samefile(there, here):
            return None
        other = read_manifest(there / "manifest.json")
    except (OSError, ValueError):
        return None
    return there if other.get("run_uid") == manifest.get("run_uid") else None


def claim_on_resume(manifest: dict[str, Any], run_dir: Path, *, adopt: bool) -> str | None:
    """Check (and on ``adopt``, give) ownership before a resume writes anything; returns a note for
    the console when the copy was adopted. Raises :class:`CopiedRunFolder` for a copy not adopted."""
    original = original_of(manifest, run_dir)
    if original is None:
        bind(manifest, run_dir)  # a first resume by older code, or a moved folder: the binding follows it
        return None
    if not adopt:
        raise CopiedRunFolder(
            f"--resume: {run_dir} is a copy of the run folder {original} (same run_uid "
            f"{manifest.get('run_uid')}): both would clear and write the same store namespaces, and purging one "
            f"would delete the other's memories. Resume {original} instead, or pass --adopt to make this copy a run "
            "of its own (a new run_uid; its finished units are kept, its unfinished ones are played again)")
    old = manifest.get("run_uid")
    manifest.setdefault("adopted_from", []).append({"run_uid": old, "folder": str(original)})
    manifest["run_uid"] = uuid.uuid4().hex
    bind(manifest, run_dir)
    return f"adopted: {run_dir} is now a run of its own (run_uid {manifest['run_uid']}; was {old}, copied from {original})"


def refuse_copy_purge(manifest: dict[str, Any], run_dir: Path) -> str | None:
    """Why ``stores purge`` must leave ``run_dir`` alone (a copy whose original still exists), or None."""
    original = original_of(manifest, run_dir)
    if original is None:
        return None
    return (f"a copy of {original} (same run_uid): purging it would delete that run's memories; purge {original}, "
            "or resume this copy with --adopt first")


# -- the server-side lock ------------------------------------------------------------------------------------------

def lock_key(run_uid: str) -> int:
    """The advisory-lock key of a run uid (a signed 64-bit integer, as ``pg_try_advisory_lock`` takes)."""
    return int.from_bytes(hashlib.sha256(f"memlab-run:{run_uid}".encode()).digest()[:8], "big", signed=True)


def postgres_dsns(store_options: dict[str, Any], strategies: list[dict[str, Any]]) -> list[str | None]:
    """The DSN of every Postgres server the run's stores use, each once (None: the default one)."""
    out: list[str | None] = []
    for spec in strategies:
        store = spec.get("store") if isinstance(spec, dict) else None
        if isinstance(store, dict) and store.get("type") == "postgres":
            dsn = store.get("dsn") or (store_options.get("postgres") or {}).get("dsn")
            if dsn not in out:
                out.append(dsn)
    return out


class ServerLocks:
    """Session advisory locks on a run uid, one per Postgres server, held until :meth:`release`."""

    def __init__(self) -> None:
        self._conns: list[Any] = []

    def acquire(self, run_uid: str, dsns: list[str | None], *, what: str) -> ServerLocks:
        """Take the lock on every server; raise :class:`CopiedRunFolder` naming the first one where
        another process holds it. A server that cannot be reached is skipped: the run's units will
        say so as they fail, as before."""
        from memlab.memory.stores.postgres import lock_run_uid

        for dsn in dsns:
            try:
                conn = lock_run_uid(dsn, lock_key(run_uid))
            except ConnectionError:
                continue
            except BaseException:
                self.release()
                raise
            if conn is None:
                self.release()
                from memlab.memory.stores.postgres import describe_dsn, resolve_dsn

                addr = describe_dsn(resolve_dsn(dsn))
                raise CopiedRunFolder(
                    f"{what}: run_uid {run_uid} is in use on postgres at {addr['host']}:{addr['port']}/{addr['dbname']}: "
                    "another process is running or resuming this run (a copy of its folder, or the run on another "
                    "machine); wait for it to end, or resume this folder with --adopt to make it a run of its own")
            self._conns.append(conn)
        return self

    def release(self) -> None:
        for conn in self._conns:
            try:
                conn.close()  # the server releases a session lock with its connection
            except Exception:
                pass
        self._conns.clear()
