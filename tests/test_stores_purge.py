"""Issue 18, item 16: `memlab stores purge` removes the memories finished runs left on a store
server, and only theirs. Uses the project's PostgreSQL ($MEMLAB_PG_DSN, else the DSN file scripts/pg.sh writes, as CI runs it) with a table of its own,
and an embedded chroma store for the chroma path (the same calls a chroma server answers)."""

from __future__ import annotations

from memlab.cli import main as cli_main
from memlab.memory.item import MemoryItem
from memlab.memory.stores.base import make_store
from memlab.memory.stores.postgres import resolve_dsn
from memlab.runfolder.recorder import read_jsonl
from memlab.harness.runner import Runner
from tests.test_reliability import _config, _dataset

TABLE = "memlab_purge_test"


def _rows(prefix: str) -> int:
    import psycopg

    with psycopg.connect(resolve_dsn()) as conn:
        return conn.execute(f"SELECT count(*) FROM {TABLE} WHERE namespace LIKE %s", (prefix + "%",)).fetchone()[0]


def test_purge_removes_a_finished_runs_memories_from_postgres_and_only_theirs(tmp_path, capsys, postgres):
    strategies = [{"name": "fact_rag@pg", "preset": "fact_rag", "store": {"type": "postgres", "table": TABLE}},
                  {"name": "message_rag"}]
    ds = _dataset(tmp_path)
    runs = [Runner(_config(tmp_path / d, ds, strategies=strategies), progress=False).run() for d in "ab"]
    uids = [read_jsonl(r / "memory_ops.jsonl")[0]["namespace"].split("/")[0] for r in runs]
    try:
        before = [_rows(u + "/") for u in uids]
        assert all(n > 0 for n in before), "the runs left their memories on the server"
        assert cli_main(["stores", "purge", "--older-than", "0", "--results", str(tmp_path / "a" / "results"),
                         "--dry-run"]) == 0
        assert f"would remove {before[0]} memories from postgres at" in capsys.readouterr().out
        assert _rows(uids[0] + "/") == before[0], "a dry run removes nothing"
        assert cli_main(["stores", "purge", str(runs[0])]) == 0
        out = capsys.readouterr().out
        assert f"removed {before[0]} memories from postgres at" in out and f"table {TABLE}" in out
        assert _rows(uids[0] + "/") == 0 and _rows(uids[1] + "/") == before[1], "the other run's memories stay"
        assert cli_main(["stores", "purge", "--older-than", "3650", "--results", str(tmp_path / "b" / "results")]) == 0
        assert "no run under" in capsys.readouterr().out and _rows(uids[1] + "/") == before[1]
    finally:
        import psycopg

        with psycopg.connect(resolve_dsn(), autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
            conn.execute("DELETE FROM memlab_schema_migrations WHERE table_name = %s", (TABLE,))


def test_chroma_purge_removes_every_namespace_under_the_prefix(tmp_path):
    store = make_store("chroma", path=str(tmp_path / "chroma"))
    try:
        store.add([MemoryItem(id=str(i), namespace=ns, text=f"fact {i}")
                   for i, ns in enumerate(["u1/s/d/a", "u1/s/d/b", "u1/t/d/a", "u10/s/d/a", "u2/s/d/a"])])
        assert store.purge_prefix("u1/", dry_run=True) == 3 and store.count() == 5
        assert store.purge_prefix("u1/") == 3
        assert store.count() == 2 and store.count("u10/s/d/a") == 1 and store.count("u2/s/d/a") == 1
    finally:
        store.close()
