"""PostgreSQL + pgvector memory store, after the ``agent_memories`` design (seed 004).

One table (default ``agent_memories``) holds every namespace; the seed's ``agent_id`` is our
``namespace`` and the primary key is ``(namespace, id)``, so two namespaces may reuse an id
and every statement this class issues carries ``namespace = %s`` as a bound parameter (no
string interpolation of user values anywhere, so ``%``/``_``/quotes in namespaces are inert).

Why these choices:

* **Schema** follows seed 004 (memory_type, content, metadata jsonb, created/updated/expires,
  the same indexes: namespace, (namespace, memory_type), created_at, metadata GIN, full-text
  GIN on ``to_tsvector('english', content)``) plus what the harness needs: ``valid``,
  ``source_turn_ids text[]`` and ``embedding vector(dim)`` with an HNSW ``vector_cosine_ops``
  index.
* **Migrations** are idempotent DDL applied on open under a transaction-scoped advisory
  lock (two processes opening the same table at once do not race), and recorded per table
  in ``memlab_schema_migrations``.
* **Exact search for small namespaces.** A namespace of at most ``exact_below`` (3000) rows
  is searched exactly (namespace btree, then distances): faster than a filtered HNSW walk at
  that size and recall 1.0. Larger namespaces use HNSW as below.
* **Complete filtered top-k.** An HNSW scan followed by a ``WHERE namespace = ...`` filter
  returns at most ``ef_search`` candidates before filtering, so a namespace holding 1% of the
  rows would get ~0-1 results. Every connection sets ``hnsw.iterative_scan = relaxed_order``
  (pgvector >= 0.8) so the scan continues until ``k`` rows pass the filter; results are
  re-sorted by exact distance in a materialized CTE (relaxed order may be slightly out of
  order). If the scan still comes back short (``hnsw.max_scan_tuples`` reached on a very
  selective filter), the query is re-run as an exact scan, so a short answer means "there
  are fewer than k eligible rows", never "the index gave up".
* **Keyword search** uses the full-text GIN index. ``plainto_tsquery`` ANDs the terms, which
  returns nothing for a natural question, so the query terms (memlab's tokenizer, stopwords
  removed) are OR-ed through ``websearch_to_tsquery('english', 'a or b or c')`` and ranked by
  ``ts_rank`` (length-normalised). Scores are ts_rank values, not BM25, and matching uses
  English stemming ("running" matches "run"); the in-memory store's BM25 does not stem.
* **Idempotent add**: ``INSERT ... ON CONFLICT (namespace, id) DO UPDATE`` (the in-memory
  reference overwrites on re-add too), keeping the old embedding when none is passed, so a
  resumed run never duplicates rows.

Where-filter semantics: ``kind`` -> ``memory_type``; other keys compare the jsonb value with
``metadata -> key = value::jsonb``. That equals Python ``==`` except that JSON keeps ``true``
and ``1`` apart (Python's ``True == 1``) and naive datetimes come back as UTC-aware.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import Field, field_validator, model_validator

from memlab.memory.item import MemoryItem, ScoredItem, utcnow
from memlab.memory.keyword import tokens
from memlab.memory.stores.base import NUL, StoreError, StoreOptions, Where, where_without_nul, without_nul
from memlab.memory.stores.pg_dsn import _dsn_password, describe_dsn, normalize_dsn, resolve_dsn  # noqa: F401 (re-exported)

if TYPE_CHECKING:  # heavy optional deps are imported in the constructor
    import psycopg

_TABLE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,47}$")
_COLS = "id, namespace, memory_type, content, metadata, source_turn_ids, created_at, updated_at, expires_at, valid"
_MIGRATION_LOCK = 0x6D656D6C6162  # "memlab": one advisory lock for all migrations (they take milliseconds)


def check_table(table: str) -> None:
    """A table name memlab will quote into SQL: letters, digits and underscore (a store's option,
    and the table ``memlab stores purge`` empties)."""
    if not _TABLE_RE.match(table):
        raise ValueError(f"invalid table name {table!r} (letters, digits, underscore; <= 48 chars)")


def check_dsn(dsn: str) -> None:
    """A DSN whose password could be read two ways is refused before anything connects with it."""
    from memlab.redact import AMBIGUOUS_URL, ambiguous_userinfo

    if ambiguous_userinfo(dsn):
        raise ValueError(f"dsn: {AMBIGUOUS_URL}")


class PostgresStore:
    """Memory store in one PostgreSQL table with pgvector HNSW and full-text indexes."""

    name = "postgres"

    class Options(StoreOptions):
        """``store_options.postgres`` / ``store: {type: postgres, ...}`` (docs/backends.md). The ranges
        are pgvector's own (``m`` 2-100, ``ef_construction`` 4-1000, ``ef_search`` 1-1000)."""

        dsn: str | None = Field(default=None, description="The server (default: $MEMLAB_PG_DSN, else .memlab/pg/dsn).")
        table: str = Field(default="agent_memories", description="Table name (letters, digits, underscore; <= 48 chars).")
        pool_size: int = Field(default=4, ge=1, le=100, description="Connections per store.")
        hnsw: bool = Field(default=True, description="Build the HNSW index (False: exact scans only).")
        dim: int = Field(default=384, ge=1, le=2_000, description="Embedding dimension (pgvector's HNSW indexes at most 2000).")
        ef_search: int = Field(default=100, ge=1, le=1_000, description="hnsw.ef_search: candidates per query.")
        hnsw_m: int = Field(default=16, ge=2, le=100, description="HNSW graph degree (m).")
        hnsw_ef_construction: int = Field(default=64, ge=4, le=1_000, description="HNSW candidates while indexing.")
        exact_below: int = Field(default=3000, ge=0, le=1_000_000_000, description="Namespaces smaller than this are "
                                 "scanned exactly instead of through the index.")
        connect_timeout: int = Field(default=5, ge=1, le=3_600, description="Seconds to wait for a connection.")

        @field_validator("table")
        @classmethod
        def _table_name(cls, v: str) -> str:
            check_table(v)
            return v

        @field_validator("dsn")
        @classmethod
        def _unambiguous_dsn(cls, v: str | None) -> str | None:
            if v is not None:
                check_dsn(v)
            return v

        @model_validator(mode="after")
        def _ef_construction_covers_m(self) -> "PostgresStore.Options":
            if self.hnsw_ef_construction < 2 * self.hnsw_m:  # pgvector refuses the index otherwise
                raise ValueError(f"hnsw_ef_construction ({self.hnsw_ef_construction}) must be at least twice "
                                 f"hnsw_m ({self.hnsw_m})")
            return self

    def __init__(self, options: Options | None = None) -> None:
        try:
            import psycopg
            from psycopg import sql
            from psycopg_pool import ConnectionPool
        except ImportError as e:  # pragma: no cover - optional extra
            raise StoreError("postgres: psycopg / psycopg_pool / pgvector missing; pip install 'memlab[postgres]'") from e
        options = options or self.Options()
        table, connect_timeout = options.table, options.connect_timeout
        self._psycopg = psycopg
        self._sql: Any = sql
        from memlab.redact import register_secret

        given = resolve_dsn(options.dsn)
        register_secret(_dsn_password(given))  # before anything parses it or can fail quoting it
        try:
            check_dsn(given)  # the DSN found in $MEMLAB_PG_DSN or .memlab/pg/dsn when the options name none
        except ValueError as exc:
            raise StoreError(f"postgres: {exc}") from None
        self.dsn = normalize_dsn(given)
        self._given_dsn = given
        self.table = table
        self.dim = options.dim
        self.hnsw = options.hnsw
        self.ef_search = options.ef_search
        self.hnsw_m = options.hnsw_m
        self.hnsw_ef_construction = options.hnsw_ef_construction
        self.exact_below = options.exact_below
        self._large_ns: set[str] = set()  # namespaces seen above exact_below (forgotten on delete/reset)
        self._addr = describe_dsn(self.dsn)
        self._password = _dsn_password(given)
        register_secret(self._password)  # a driver error may quote it on its own (memlab.redact)
        self._t = sql.Identifier(table)
        self._closed = False
        self._lock = threading.Lock()

        kwargs: dict[str, Any] = {"connect_timeout": connect_timeout}
        try:
            with psycopg.connect(self.dsn, autocommit=False, **kwargs) as conn:
                self._migrate(conn)
                row = conn.execute(
                    "SELECT current_setting('server_version'), "
                    "(SELECT extversion FROM pg_extension WHERE extname = 'vector')"
                ).fetchone()
                assert row is not None
                self.server_version, self.pgvector_version = str(row[0]), str(row[1])
        # ``from None`` throughout: psycopg's own message may quote the conninfo, password
        # included, and a chained cause would print it in every traceback
        except psycopg.OperationalError as e:
            raise StoreError(self._conn_error(e)) from None
        except (psycopg.ProgrammingError, UnicodeError) as e:  # libpq refused the DSN itself (or its bytes)
            raise StoreError(f"postgres at {self.address}: invalid DSN: {self._safe(e)}") from None
        except psycopg.Error as e:
            raise StoreError(f"postgres at {self.address}: schema setup failed: {self._safe(e)}") from None
        self._iterative = _version_tuple(self.pgvector_version) >= (0, 8, 0)
        self._pool = ConnectionPool(
            conninfo=self.dsn,
            min_size=1,
            max_size=options.pool_size,
            kwargs=kwargs,
            configure=self._configure,
            open=True,
            name=f"memlab-{table}",
        )
        try:
            self._pool.wait(timeout=max(10.0, connect_timeout * 2.0))
        except Exception as e:
            self._pool.close()
            raise StoreError(f"postgres at {self.address}: connection pool did not open: {self._safe(e)}") from None

    # ------------------------------------------------------------------ setup

    @property
    def address(self) -> str:
        """``host:port/db (user u)``: what every error names; never the password."""
        return f"{self._addr['host']}:{self._addr['port']}/{self._addr['dbname']} (user {self._addr['user']})"

    def _safe(self, e: BaseException) -> str:
        """An exception's message with the DSN and its password masked (:mod:`memlab.redact`)."""
        from memlab.redact import redact_text, redact_url

        msg = str(e).strip() or type(e).__name__
        for dsn in (self._given_dsn, self.dsn):
            msg = msg.replace(dsn, redact_url(dsn) or "")
        return redact_text(msg, [self._password] if self._password else [])

    @contextlib.contextmanager
    def _conn(self, what: str) -> Iterator[Any]:
        """A pooled connection; a database error becomes a StoreError naming server and operation."""
        self._check_open()
        try:
            with self._pool.connection(timeout=30.0) as conn:
                yield conn
        except self._psycopg.Error as e:
            raise StoreError(f"postgres at {self.address}: {what} failed: {self._safe(e)}") from None

    def _conn_error(self, e: Exception) -> str:
        first = self._safe(e).splitlines()[0]
        return (
            f"postgres at {self.address}: cannot connect: {first}. "
            "Start the project server with `scripts/pg.sh start` or set MEMLAB_PG_DSN."
        )

    def _migrations(self) -> list[tuple[int, str, list[Any]]]:
        sql, t, n = self._sql, self._t, self.table

        def ix(suffix: str) -> Any:
            return sql.Identifier(f"{n}_{suffix}")

        v1 = [
            sql.SQL(
                """CREATE TABLE IF NOT EXISTS {t} (
                    id text NOT NULL,
                    namespace text NOT NULL,
                    memory_type text NOT NULL DEFAULT 'fact',
                    content text NOT NULL,
                    metadata jsonb NOT NULL DEFAULT '{{}}'::jsonb,
                    source_turn_ids text[] NOT NULL DEFAULT '{{}}',
                    embedding vector({dim}),
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    expires_at timestamptz,
                    valid boolean NOT NULL DEFAULT true,
                    PRIMARY KEY (namespace, id)
                )"""
            ).format(t=t, dim=sql.Literal(self.dim)),
            sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (namespace)").format(i=ix("ns_idx"), t=t),
            sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (namespace, memory_type)").format(i=ix("type_idx"), t=t),
            sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (namespace, created_at DESC)").format(
                i=ix("created_idx"), t=t
            ),
            sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (expires_at) WHERE expires_at IS NOT NULL").format(
                i=ix("expires_idx"), t=t
            ),
            sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} USING gin (metadata)").format(i=ix("meta_idx"), t=t),
            sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} USING gin (to_tsvector('english', content))").format(
                i=ix("fts_idx"), t=t
            ),
        ]
        migrations: list[tuple[int, str, list[Any]]] = [(1, "agent_memories table and seed-004 indexes", v1)]
        if self.hnsw:
            v2 = [
                sql.SQL(
                    "CREATE INDEX IF NOT EXISTS {i} ON {t} USING hnsw (embedding vector_cosine_ops) "
                    "WITH (m = {m}, ef_construction = {efc})"
                ).format(
                    i=ix("emb_hnsw"), t=t, m=sql.Literal(self.hnsw_m), efc=sql.Literal(self.hnsw_ef_construction)
                )
            ]
            migrations.append((2, "HNSW cosine index on embedding", v2))
        return migrations

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        """Apply missing migrations in one transaction, serialised across processes."""
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS memlab_schema_migrations ("
            " table_name text NOT NULL, version int NOT NULL, description text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (table_name, version))"
        )
        done = {
            r[0]
            for r in conn.execute(
                "SELECT version FROM memlab_schema_migrations WHERE table_name = %s", (self.table,)
            ).fetchall()
        }
        exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (self._quoted_table(),)).fetchone()
        for version, desc, stmts in self._migrations():
            if version in done and exists and exists[0]:
                continue
            for stmt in stmts:  # every statement is IF NOT EXISTS: re-running is harmless
                conn.execute(stmt)
            conn.execute(
                "INSERT INTO memlab_schema_migrations (table_name, version, description) VALUES (%s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                (self.table, version, desc),
            )
        conn.commit()

    def _quoted_table(self) -> str:
        return '"' + self.table.replace('"', '""') + '"'

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        """Per-connection setup: vector type adapters and the HNSW scan settings."""
        from pgvector.psycopg import register_vector

        register_vector(conn)
        conn.execute("SET TimeZone = 'UTC'")
        conn.execute(self._sql.SQL("SET hnsw.ef_search = {}").format(self._sql.Literal(self.ef_search)))
        if self._iterative:
            conn.execute("SET hnsw.iterative_scan = relaxed_order")
        conn.commit()

    def describe(self) -> dict[str, object]:
        return {
            "backend": self.name,
            "address": self.address,
            "table": self.table,
            "server_version": self.server_version,
            "pgvector": self.pgvector_version,
            "index": (
                f"hnsw vector_cosine_ops m={self.hnsw_m} ef_construction={self.hnsw_ef_construction} "
                f"ef_search={self.ef_search} iterative_scan={'relaxed_order' if self._iterative else 'off'} "
                f"+ exact rescan when short; exact scan for namespaces <= {self.exact_below} rows"
                if self.hnsw
                else "none (exact scan)"
            ),
            "keyword": "full-text GIN to_tsvector('english'), OR-ed terms, ts_rank",
            "dim": self.dim,
        }

    # ------------------------------------------------------------------ helpers

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"postgres at {self.address}: store for table {self.table} is closed")

    def _vec(self, v: np.ndarray | None) -> np.ndarray | None:
        if v is None:
            return None
        v = np.asarray(v, dtype=np.float32).reshape(-1)
        if v.shape[0] != self.dim:
            raise StoreError(f"postgres: embedding has {v.shape[0]} dims, table {self.table} stores {self.dim}")
        n = float(np.linalg.norm(v))
        return v / n if n else v

    @staticmethod
    def _row_item(r: Sequence[Any]) -> MemoryItem:
        meta = r[4] if isinstance(r[4], dict) else json.loads(r[4] or "{}")
        return MemoryItem(
            id=r[0],
            namespace=r[1],
            kind=r[2],
            text=r[3],
            metadata=meta,
            source_turn_ids=list(r[5] or []),
            created_at=_utc(r[6]),
            updated_at=_utc(r[7]),
            expires_at=_utc(r[8]) if r[8] is not None else None,
            valid=bool(r[9]),
        )

    def _where_sql(self, where: Where | None) -> tuple[list[Any], list[Any]]:
        """Translate a Where filter into SQL fragments and bound parameters."""
        from psycopg.types.json import Jsonb

        sql = self._sql
        frags: list[Any] = []
        params: list[Any] = []
        for key, want in (where or {}).items():
            if key == "kind":
                vals = list(want) if isinstance(want, (list, tuple, set)) else [want]
                strs = [v for v in vals if isinstance(v, str)]
                if not strs:
                    frags.append(sql.SQL("FALSE"))
                    continue
                frags.append(sql.SQL("memory_type = ANY(%s)"))
                params.append(strs)
                continue
            multi = isinstance(want, (list, tuple, set))
            vals = list(want) if multi else [want]
            ors: list[Any] = []
            non_null = [v for v in vals if v is not None]
            if any(v is None for v in vals):
                ors.append(sql.SQL("(metadata -> %s IS NULL OR metadata -> %s = 'null'::jsonb)"))
                params += [key, key]
            if len(non_null) == 1:
                # containment lets the GIN index help; the equality keeps Python == semantics
                ors.append(sql.SQL("(metadata @> %s AND metadata -> %s = %s)"))
                params += [Jsonb({key: non_null[0]}), key, Jsonb(non_null[0])]
            elif non_null:
                ors.append(sql.SQL("metadata -> %s = ANY(%s::jsonb[])"))
                params += [key, [Jsonb(v) for v in non_null]]
            if not ors:
                frags.append(sql.SQL("FALSE"))
            else:
                frags.append(sql.SQL("(") + sql.SQL(" OR ").join(ors) + sql.SQL(")"))
        return frags, params

    def _filters(
        self,
        namespace: str,
        where: Where | None,
        include_invalid: bool,
        *,
        need_vec: bool = False,
        hide_ns_index: bool = False,
    ) -> tuple[Any, list[Any]]:
        sql = self._sql
        # hide_ns_index: "(namespace || '')" is the same predicate, but the btree indexes on
        # namespace cannot serve it. Used for the HNSW query on large namespaces: with stale
        # statistics (right after a bulk add, before autoanalyze) the planner otherwise guesses
        # the namespace is tiny and sorts all of its rows exactly (20 ms at 10k rows vs 2 ms).
        frags: list[Any] = [sql.SQL("(namespace || '') = %s" if hide_ns_index else "namespace = %s")]
        params: list[Any] = [namespace]
        if need_vec:
            frags.append(sql.SQL("embedding IS NOT NULL"))
        if not include_invalid:
            frags.append(sql.SQL("valid AND (expires_at IS NULL OR expires_at > %s)"))
            params.append(utcnow())
        wf, wp = self._where_sql(where_without_nul(where))
        return sql.SQL(" AND ").join(frags + wf), params + wp

    def _namespace_is_large(self, conn: Any, namespace: str) -> bool:
        """True when the namespace holds more than ``exact_below`` rows (a bounded count: <1 ms).

        Below that an exact scan of the namespace (btree on namespace, then distances) is both
        faster and exact: measured on 100k rows, exact took 2.4 ms for a 2k-row namespace and
        7.8 ms for 5k, while the filtered HNSW scan took 4-13 ms at recall ~0.95."""
        if self.exact_below <= 0:
            return True
        if namespace in self._large_ns:  # counting 3000 rows costs ~1-3 ms: remember the verdict
            return True
        q = self._sql.SQL("SELECT count(*) FROM (SELECT 1 FROM {t} WHERE namespace = %s LIMIT %s) AS x").format(
            t=self._t
        )
        row = conn.execute(q, (namespace, self.exact_below + 1)).fetchone()
        large = bool(row and row[0] > self.exact_below)
        if large:
            self._large_ns.add(namespace)
        return large

    # ------------------------------------------------------------------ protocol

    def add(self, items: Sequence[MemoryItem], embeddings: np.ndarray | None = None) -> None:
        from psycopg.types.json import Jsonb

        if not items:
            return
        if embeddings is not None and len(embeddings) != len(items):
            raise StoreError(f"postgres: {len(items)} items but {len(embeddings)} embeddings")
        items = [without_nul(it, self.name) for it in items]
        rows = []
        for i, it in enumerate(items):
            rows.append(
                (
                    it.id,
                    it.namespace,
                    it.kind,
                    it.text,
                    Jsonb(it.metadata),
                    list(it.source_turn_ids),
                    it.created_at,
                    it.updated_at,
                    it.expires_at,
                    it.valid,
                    self._vec(embeddings[i]) if embeddings is not None else None,
                )
            )
        q = self._sql.SQL(
            "INSERT INTO {t} (" + _COLS + ", embedding) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (namespace, id) DO UPDATE SET memory_type = EXCLUDED.memory_type, "
            "content = EXCLUDED.content, metadata = EXCLUDED.metadata, source_turn_ids = EXCLUDED.source_turn_ids, "
            "created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, expires_at = EXCLUDED.expires_at, "
            "valid = EXCLUDED.valid, embedding = COALESCE(EXCLUDED.embedding, {t}.embedding)"
        ).format(t=self._t)
        with self._conn("add") as conn, conn.cursor() as cur:
            cur.executemany(q, rows)

    def get(self, namespace: str, ids: Sequence[str]) -> list[MemoryItem]:
        ids = [i for i in ids if NUL not in i]  # never stored (see base): not found
        if not ids or NUL in namespace:
            return []
        q = self._sql.SQL("SELECT " + _COLS + " FROM {t} WHERE namespace = %s AND id = ANY(%s)").format(t=self._t)
        with self._conn("get") as conn:
            rows = conn.execute(q, (namespace, list(ids))).fetchall()
        by_id = {r[0]: self._row_item(r) for r in rows}
        return [by_id[i].model_copy(deep=True) for i in ids if i in by_id]

    def update(self, item: MemoryItem, embedding: np.ndarray | None = None) -> None:
        from psycopg.types.json import Jsonb

        item = without_nul(item, self.name)
        q = self._sql.SQL(
            "UPDATE {t} SET memory_type = %s, content = %s, metadata = %s, source_turn_ids = %s, created_at = %s, "
            "updated_at = %s, expires_at = %s, valid = %s, embedding = COALESCE(%s, embedding) "
            "WHERE namespace = %s AND id = %s"
        ).format(t=self._t)
        params = (
            item.kind,
            item.text,
            Jsonb(item.metadata),
            list(item.source_turn_ids),
            item.created_at,
            item.updated_at,
            item.expires_at,
            item.valid,
            self._vec(embedding),
            item.namespace,
            item.id,
        )
        with self._conn("update") as conn:
            cur = conn.execute(q, params)
            if cur.rowcount == 0:
                raise KeyError(f"no item {item.id!r} in namespace {item.namespace!r}")

    def delete(self, namespace: str, ids: Sequence[str]) -> int:
        ids = [i for i in ids if NUL not in i]
        if not ids or NUL in namespace:
            return 0
        q = self._sql.SQL("DELETE FROM {t} WHERE namespace = %s AND id = ANY(%s)").format(t=self._t)
        self._large_ns.discard(namespace)
        with self._conn("delete") as conn:
            return int(conn.execute(q, (namespace, list(dict.fromkeys(ids)))).rowcount)

    def search(
        self,
        namespace: str,
        *,
        embedding: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Where | None = None,
        include_invalid: bool = False,
    ) -> list[ScoredItem]:
        if k <= 0 or NUL in namespace:
            return []
        sql = self._sql
        if embedding is not None:
            cond, params = self._filters(namespace, where, include_invalid, need_vec=True)
            acond, aparams = self._filters(namespace, where, include_invalid, need_vec=True, hide_ns_index=True)
            vec = self._vec(embedding)
            approx = sql.SQL(
                "WITH c AS MATERIALIZED (SELECT " + _COLS + ", embedding <=> %s AS dist FROM {t} WHERE {cond} "
                "ORDER BY embedding <=> %s LIMIT %s) SELECT * FROM c ORDER BY dist, created_at, id COLLATE \"C\""
            ).format(t=self._t, cond=acond)
            # "+ 0" hides the operator from the planner: no HNSW, an exact scan of the filtered rows
            exact = sql.SQL(
                "SELECT " + _COLS + ", embedding <=> %s AS dist FROM {t} WHERE {cond} "
                "ORDER BY (embedding <=> %s) + 0, created_at, id COLLATE \"C\" LIMIT %s"
            ).format(t=self._t, cond=cond)
            with self._conn("search") as conn:
                use_hnsw = self.hnsw and self._namespace_is_large(conn, namespace)
                if use_hnsw:
                    # one row more than asked: a tie at the k-th place means HNSW picked among
                    # equals by graph layout (insertion order), so the exact scan decides instead
                    rows = conn.execute(approx, [vec, *aparams, vec, k + 1]).fetchall()
                    if len(rows) <= k or rows[k - 1][10] == rows[k][10]:
                        rows = conn.execute(exact, [vec, *params, vec, k]).fetchall()
                    rows = rows[:k]
                else:
                    rows = conn.execute(exact, [vec, *params, vec, k]).fetchall()
            return [ScoredItem(item=self._row_item(r), score=float(1.0 - r[10])) for r in rows]
        if text is not None:
            terms = list(dict.fromkeys(tokens(text)))
            if not terms:
                return []
            cond, params = self._filters(namespace, where, include_invalid)
            q = sql.SQL(
                "SELECT " + _COLS + ", ts_rank(to_tsvector('english', content), q, 1) AS r "
                "FROM {t}, websearch_to_tsquery('english', %s) AS q "
                "WHERE to_tsvector('english', content) @@ q AND {cond} "
                "ORDER BY r DESC, created_at, id COLLATE \"C\" LIMIT %s"
            ).format(t=self._t, cond=cond)
            with self._conn("search") as conn:
                rows = conn.execute(q, [" or ".join(terms), *params, k]).fetchall()
            return [ScoredItem(item=self._row_item(r), score=float(r[10])) for r in rows if r[10] > 0]
        cond, params = self._filters(namespace, where, include_invalid)
        q = sql.SQL("SELECT " + _COLS + " FROM {t} WHERE {cond} ORDER BY created_at DESC, id COLLATE \"C\" LIMIT %s").format(
            t=self._t, cond=cond
        )
        with self._conn("search") as conn:
            rows = conn.execute(q, [*params, k]).fetchall()
        return [ScoredItem(item=self._row_item(r), score=0.0) for r in rows]

    def list(self, namespace: str, *, where: Where | None = None, include_invalid: bool = True) -> list[MemoryItem]:
        if NUL in namespace:
            return []
        cond, params = self._filters(namespace, where, include_invalid)
        q = self._sql.SQL("SELECT " + _COLS + " FROM {t} WHERE {cond} ORDER BY created_at, id COLLATE \"C\"").format(
            t=self._t, cond=cond
        )
        with self._conn("list") as conn:
            rows = conn.execute(q, params).fetchall()
        return [self._row_item(r) for r in rows]

    def count(self, namespace: str | None = None) -> int:
        if namespace is not None and NUL in namespace:
            return 0
        with self._conn("count") as conn:
            if namespace is None:
                row = conn.execute(self._sql.SQL("SELECT count(*) FROM {t}").format(t=self._t)).fetchone()
            else:
                row = conn.execute(
                    self._sql.SQL("SELECT count(*) FROM {t} WHERE namespace = %s").format(t=self._t), (namespace,)
                ).fetchone()
        return int(row[0]) if row else 0

    def reset(self, namespace: str | None = None) -> None:
        if namespace is not None and NUL in namespace:
            return
        if namespace is None:
            self._large_ns.clear()
        else:
            self._large_ns.discard(namespace)
        with self._conn("reset") as conn:
            if namespace is None:
                conn.execute(self._sql.SQL("TRUNCATE {t}").format(t=self._t))
            else:
                conn.execute(self._sql.SQL("DELETE FROM {t} WHERE namespace = %s").format(t=self._t), (namespace,))

    def drop_table(self) -> None:
        """Drop this store's table and its migration rows (tests and benchmarks use throwaway tables)."""
        with self._conn("drop_table") as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            conn.execute(self._sql.SQL("DROP TABLE IF EXISTS {t}").format(t=self._t))
            conn.execute("DELETE FROM memlab_schema_migrations WHERE table_name = %s", (self.table,))

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._pool.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def lock_run_uid(dsn: str | None, key: int, *, connect_timeout: int = 5) -> Any:
    """A connection holding the session advisory lock ``key`` (a run uid's, memlab.memory.stores.ownership),
    or None when another session holds it. Raises ConnectionError when the server cannot be reached."""
    try:
        import psycopg
    except ImportError as e:  # pragma: no cover - optional extra
        raise ConnectionError("psycopg missing") from e
    from memlab.redact import register_secret

    given = resolve_dsn(dsn)
    register_secret(_dsn_password(given))
    try:
        conn = psycopg.connect(normalize_dsn(given), autocommit=True, connect_timeout=connect_timeout)
    except (psycopg.Error, UnicodeError):
        raise ConnectionError(f"postgres at {describe_dsn(given)['host']}: cannot connect") from None
    try:
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
    except psycopg.Error:
        conn.close()
        raise ConnectionError("postgres: advisory lock failed") from None
    if row is None or not row[0]:
        conn.close()
        return None
    return conn


def run_uid_in_use(dsn: str | None, key: int, *, connect_timeout: int = 5) -> bool:
    """Whether some session holds the advisory lock ``key`` (a run playing that uid) on the server."""
    conn = lock_run_uid(dsn, key, connect_timeout=connect_timeout)
    if conn is None:
        return True
    conn.close()
    return False


def purge_prefix(dsn: str | None, table: str, prefix: str, *, dry_run: bool = False,
                 connect_timeout: int = 5) -> tuple[str, int]:
    """Delete (or with ``dry_run`` count) every row of ``table`` whose namespace starts with
    ``prefix``: a finished run's memories (``memlab stores purge``). Returns the server's address
    and the row count. A table that does not exist holds nothing (it is not created)."""
    try:
        import psycopg
        from psycopg import sql
    except ImportError as e:  # pragma: no cover - optional extra
        raise StoreError("postgres: psycopg missing; pip install 'memlab[postgres]'") from e
    from memlab.redact import redact_text, register_secret

    try:
        check_table(table)
    except ValueError as exc:
        raise StoreError(f"postgres: {exc}") from None
    given = resolve_dsn(dsn)
    register_secret(_dsn_password(given))
    addr = describe_dsn(given)
    where = f"{addr['host']}:{addr['port']}/{addr['dbname']} (user {addr['user']}) table {table}"
    like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    try:
        with psycopg.connect(normalize_dsn(given), autocommit=True, connect_timeout=connect_timeout) as conn:
            row = conn.execute("SELECT to_regclass(%s)", (f'"{table}"',)).fetchone()
            if row is None or row[0] is None:
                return where, 0
            t = sql.Identifier(table)
            if dry_run:
                found = conn.execute(sql.SQL("SELECT count(*) FROM {t} WHERE namespace LIKE %s").format(t=t), (like,)).fetchone()
                return where, int(found[0]) if found else 0
            cur = conn.execute(sql.SQL("DELETE FROM {t} WHERE namespace LIKE %s").format(t=t), (like,))
            return where, int(cur.rowcount)
    except psycopg.Error as e:
        raise StoreError(f"postgres at {where}: purge failed: {redact_text(str(e).strip().splitlines()[0])}") from None


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


def _version_tuple(v: str) -> tuple[int, ...]:
    out = []
    for part in v.split("."):
        m = re.match(r"\d+", part)
        out.append(int(m.group()) if m else 0)
    return tuple(out)
