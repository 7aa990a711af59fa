"""A Postgres DSN as memlab reads it: where it comes from, how libpq is given it, what errors name.

A DSN is resolved (explicit, ``$MEMLAB_PG_DSN``, or the ``.memlab/pg/dsn`` file ``scripts/pg.sh``
writes), its URL userinfo percent-encoded by memlab's one redaction rule (:mod:`memlab.redact`)
before libpq reads it, and described for messages as host, port, database and user — never the
password. (Re-exported by :mod:`memlab.memory.stores.postgres`.)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from memlab.memory.stores.base import StoreError


def resolve_dsn(dsn: str | None = None) -> str:
    """Explicit DSN, else ``$MEMLAB_PG_DSN``, else the ``.memlab/pg/dsn`` file ``scripts/pg.sh start`` writes."""
    import os

    if dsn:
        return dsn
    env = os.environ.get("MEMLAB_PG_DSN")
    if env:
        return env

    f = find_dsn_file()
    if f is not None:
        text = f.read_text().strip()
        if text:
            return text
    raise StoreError(
        "postgres: no DSN given; pass dsn=..., set MEMLAB_PG_DSN, or run `scripts/pg.sh start` "
        "(which writes .memlab/pg/dsn)"
    )


def normalize_dsn(dsn: str) -> str:
    """A URL-form DSN with its user name and password percent-encoded; any other DSN as given.

    libpq ends a URL's userinfo at the first ``@`` or ``/``, so ``postgresql://u:a/b@host/db``
    would be read as host ``u``, port ``a`` — and a "could not connect to host u port a" error
    would quote a piece of the password. The userinfo is found by memlab's one rule
    (:func:`memlab.redact.split_userinfo`: to the last ``@``) and encoded, so every password
    (``#``, ``?``, ``/``, spaces, ``@``) is read whole; libpq decodes the encoding, so a DSN libpq
    already read right means the same."""
    from urllib.parse import quote, unquote

    from memlab.redact import split_userinfo

    text = dsn.strip()
    parts = split_userinfo(text)
    if parts is None or parts[1] is None:
        return dsn
    head, userinfo, rest = parts
    user, sep, password = userinfo.partition(":")

    def enc(x: str) -> str:
        return quote(unquote(x), safe="")

    return f"{head}{enc(user)}{':' + enc(password) if sep else ''}@{rest}"


def describe_dsn(dsn: str) -> dict[str, str]:
    """host, port, dbname and user of a DSN, never the password.

    Falls back to a lenient parse when libpq rejects the DSN, so even the error for a
    malformed DSN can say which server and user it was meant for."""
    from memlab.redact import MASK, ambiguous_userinfo

    if ambiguous_userinfo(dsn):  # the host would be a piece of a password (memlab.redact)
        return {"host": MASK, "port": MASK, "dbname": MASK, "user": MASK}
    dsn = normalize_dsn(dsn)
    try:
        from psycopg.conninfo import conninfo_to_dict

        d: dict[str, Any] = dict(conninfo_to_dict(dsn))
    except Exception:
        d = _lenient_conninfo(dsn)
    return {
        "host": str(d.get("host") or d.get("hostaddr") or "localhost"),
        "port": str(d.get("port") or "5432"),
        "dbname": str(d.get("dbname") or d.get("user") or "?"),
        "user": str(d.get("user") or "?"),
    }


_KV_RE = re.compile(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'?|\S*)")


def _lenient_conninfo(dsn: str) -> dict[str, str]:
    """host/port/dbname/user of a DSN libpq refused (best effort, for messages only; never the
    password). ``dsn`` is normalised: a URL's userinfo is percent-encoded, so it holds no ``@``."""
    from urllib.parse import unquote

    from memlab.redact import split_userinfo

    parts = split_userinfo(dsn.strip())
    if parts is not None and parts[0].lower() in ("postgres://", "postgresql://"):
        _, userinfo, rest = parts
        hosts, _, db = rest.split("?", 1)[0].partition("/")
        host, _, port = hosts.rpartition(":") if hosts.count(":") == 1 else (hosts, "", "")
        user = unquote((userinfo or "").partition(":")[0])
        return {"host": host, "port": port, "dbname": db, "user": user}
    return {k.lower(): v.strip("'") for k, v in _KV_RE.findall(dsn) if k.lower() != "password"}


def _dsn_password(dsn: str) -> str | None:
    """The password libpq will use (after :func:`normalize_dsn`), else the one the DSN's text shows."""
    from memlab.redact import dsn_password

    try:
        from psycopg.conninfo import conninfo_to_dict

        pw = conninfo_to_dict(normalize_dsn(dsn)).get("password")
        if pw:
            return str(pw)
    except Exception:
        pass
    return dsn_password(dsn)


def find_dsn_file() -> Path | None:
    """The ``dsn`` file ``scripts/pg.sh start`` writes: ``$MEMLAB_PG_HOME/dsn``, ``./.memlab/pg/dsn`` or
    the checkout's (the server manager itself is a script: the library only reads what it wrote)."""
    import os

    candidates = []
    if os.environ.get("MEMLAB_PG_HOME"):
        candidates.append(Path(os.environ["MEMLAB_PG_HOME"]).expanduser() / "dsn")
    checkout = Path(__file__).resolve().parents[3]  # memlab/memory/stores/pg_dsn.py -> the checkout
    candidates += [Path.cwd() / ".memlab" / "pg" / "dsn", checkout / ".memlab" / "pg" / "dsn"]
    return next((c for c in candidates if c.is_file()), None)
