"""Whether the project's PostgreSQL server can be used by a test, and what to do when it cannot
(the ``postgres`` fixture of tests/conftest.py)."""

from __future__ import annotations

import os

REQUIRE_POSTGRES = "MEMLAB_REQUIRE_POSTGRES"
"""Set (``scripts/test.sh`` sets it after starting the server; any CI sets ``CI``): a test that needs
PostgreSQL fails when the server does not answer, instead of being skipped."""


def required() -> bool:
    return bool(os.environ.get(REQUIRE_POSTGRES) or os.environ.get("CI"))


def find_server(connect_timeout: int = 5) -> tuple[str | None, str]:
    """``(dsn, "")`` when the server (``$MEMLAB_PG_DSN``, else the file ``scripts/pg.sh start`` wrote)
    answers ``SELECT 1``; ``(None, why)`` otherwise, the reason free of the password."""
    try:
        import psycopg

        from memlab.memory.stores.postgres import resolve_dsn
    except ImportError as exc:
        return None, f"the postgres extra is not installed ({exc})"
    try:
        dsn = resolve_dsn()
    except Exception as exc:  # StoreError: no DSN anywhere
        return None, str(exc)
    try:
        with psycopg.connect(dsn, connect_timeout=connect_timeout) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        from memlab.redact import redact_text

        return None, f"it does not answer: {redact_text(str(exc))[:200]}"
    return dsn, ""
