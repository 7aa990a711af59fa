"""Removing finished runs' memories from shared store servers (``memlab stores purge``).

A run's results are its folder's records; the rows a strategy wrote into its store are only the
working state it answered from. In memory and in an embedded chroma directory (inside the run
folder) they go when the process ends or the folder is deleted, but on a Postgres or chroma
*server* they stay forever — every run leaves its namespaces (``<run_uid>/<strategy>/...``)
behind. Purging a run deletes every row under its ``run_uid``: the folder and its results are
untouched, and a later ``--resume`` still works (finished units are not replayed; an unfinished
unit starts from a cleared namespace anyway).

Which servers: each strategy's store spec as the manifest recorded it, with the config's
``store_options`` under it, as the run merged them. A DSN whose password the manifest masked
cannot be used: the password comes from ``--dsn`` or ``$MEMLAB_PG_DSN`` when they name the same
server, database and user; a store without a DSN uses the usual resolution
(:func:`memlab.memory.stores.postgres.resolve_dsn`), as the run did.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from memlab.memory.stores.base import StoreError
from memlab.redact import MASK


@dataclass
class Purged:
    """What purging one run did (or, with ``dry_run``, would do)."""

    run_dir: Path
    removed: dict[str, int]
    """Store server (address, table or collection) → rows removed (or found)."""
    skipped: str = ""
    """Why the run was left alone ('' when it was purged)."""


def server_stores(manifest: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(backend, options) of every store of the run that lives on a server, each once."""
    store_options = (manifest.get("config") or {}).get("store_options") or {}
    out: list[tuple[str, dict[str, Any]]] = []
    for spec in manifest.get("strategies") or []:
        store = spec.get("store") if isinstance(spec, dict) else None
        if not isinstance(store, dict):
            continue
        backend = str(store.get("type") or "")
        options = {**(store_options.get(backend) or {}), **{k: v for k, v in store.items() if k != "type"}}
        if (backend == "postgres" or (backend == "chroma" and options.get("host"))) and (backend, options) not in out:
            out.append((backend, options))
    return out


def _usable_dsn(recorded: str | None, given: str | None) -> str | None:
    """The DSN to connect with: the recorded one unless its password was masked, then ``given``
    (``--dsn``, else ``$MEMLAB_PG_DSN``, else the ``.memlab/pg/dsn`` file ``scripts/pg.sh start`` writes)
    if it names the same server, database and user."""
    from memlab.memory.stores.postgres import describe_dsn, resolve_dsn

    if not recorded or MASK not in recorded:
        return recorded
    try:
        candidate: str | None = resolve_dsn(given)
    except StoreError:
        candidate = None
    if candidate and describe_dsn(candidate) == describe_dsn(recorded):
        return candidate
    raise StoreError(f"postgres: the run's DSN {recorded} was recorded with its password masked; pass the "
                     "full DSN of that server with --dsn (or set MEMLAB_PG_DSN, or run from the project whose "
                     "scripts/pg.sh started it)")


def purge_run(run_dir: str | Path, *, dsn: str | None = None, dry_run: bool = False) -> Purged:
    """Delete the memories ``run_dir``'s run left on store servers (count them with ``dry_run``)."""
    from memlab.memory.stores.chroma import ChromaStore
    from memlab.memory.stores.ownership import lock_key, refuse_copy_purge
    from memlab.runfolder.records import read_manifest
    from memlab.runfolder.recorder import RunLock, RunLocked
    from memlab.memory.stores.postgres import lock_run_uid, purge_prefix

    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir / "manifest.json", " (is this a memlab run folder?)")
    uid = manifest.get("run_uid")
    if not uid:
        return Purged(run_dir, {}, "no run_uid in its manifest (written by an older memlab): its namespaces are unknown")
    copy = refuse_copy_purge(manifest, run_dir)
    if copy:  # same run_uid as a folder that still exists: its rows are that run's too
        return Purged(run_dir, {}, copy)
    prefix = f"{uid}/"
    removed: dict[str, int] = {}
    try:
        with RunLock(run_dir):  # a run or resume in progress keeps its memories
            for backend, options in server_stores(manifest):
                if backend == "postgres":
                    usable = _usable_dsn(options.get("dsn"), dsn)
                    try:  # the run uid's advisory lock: no process may be playing this uid anywhere
                        held = lock_run_uid(usable, lock_key(uid))
                    except ConnectionError:
                        held = False  # unreachable: purge_prefix says so below
                    if held is None:
                        return Purged(run_dir, removed, "its run_uid is in use on postgres (a copy of this folder or "
                                                        "the run on another machine is playing it)")
                    try:
                        where, n = purge_prefix(usable, str(options.get("table") or "agent_memories"), prefix,
                                                dry_run=dry_run)
                    finally:
                        if held:
                            held.close()
                    removed[f"postgres at {where}"] = n
                else:
                    store = ChromaStore(ChromaStore.Options(host=str(options["host"]), port=int(options.get("port") or 8000),
                                                            collection=str(options.get("collection") or "memlab")))
                    try:
                        removed[f"chroma at {store.address} collection {store.collection_name}"] = store.purge_prefix(
                            prefix, dry_run=dry_run)
                    finally:
                        store.close()
    except RunLocked:
        return Purged(run_dir, {}, "in use by another memlab process")
    return Purged(run_dir, removed)


def runs_older_than(results: str | Path, days: float) -> list[Path]:
    """Run folders under ``results`` that ended (or, never ended, started) more than ``days`` ago."""
    from memlab.runfolder.records import read_manifest

    cutoff = datetime.now(timezone.utc) - timedelta(days=days)
    out = []
    for manifest_path in sorted(Path(results).glob("*/manifest.json")):
        try:
            m = read_manifest(manifest_path)
            when = datetime.fromisoformat(str(m.get("ended_at") or m.get("started_at")))
        except (ValueError, TypeError):
            continue  # not a run folder memlab can read: left alone
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        if when <= cutoff:
            out.append(manifest_path.parent)
    return out
