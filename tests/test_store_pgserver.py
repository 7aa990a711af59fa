"""The project's PostgreSQL server script: password auth, private files, no trust in pid files.

Each test that starts a server starts its own (own state directory and port) and stops it;
as root the server's dedicated directory under /var/lib/memlab-pgserver is removed too.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.scripts import load_script

pgserver = load_script("pgserver")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = str(ROOT / "scripts" / "pg.sh")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pg_sh(home: Path, port: int, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLAB_PG_")}
    return subprocess.run(
        ["bash", SCRIPT, *args, "--home", str(home), "--port", str(port)],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env=env,
    )


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.fixture
def server_home(tmp_path: Path) -> Iterator[Path]:
    """A state directory inside a private (0700) parent, cleaned up with its server."""
    parent = tmp_path / "private"
    parent.mkdir(mode=0o700)
    os.chmod(parent, 0o700)
    home = parent / "pg"
    yield home
    pgserver.stop(home)
    data = pgserver.data_dir(home.resolve())
    if data != home / "data":
        shutil.rmtree(data.parent, ignore_errors=True)


@pytest.mark.postgres
def test_server_requires_its_password_and_keeps_it_private(server_home: Path) -> None:
    import psycopg

    port = free_port()
    start = pg_sh(server_home, port, "start")
    assert start.returncode == 0, start.stderr
    password = (server_home / "password").read_text().strip()
    assert len(password) >= 24
    status = pg_sh(server_home, port, "status")
    dsn = pg_sh(server_home, port, "dsn")
    assert status.returncode == 0 and dsn.returncode == 0
    for name, proc in (("start", start), ("status", status)):
        assert password not in proc.stdout + proc.stderr, name
    assert "***" in start.stdout and f"127.0.0.1:{port}" in start.stdout
    assert password in dsn.stdout  # the one output meant to carry it
    assert dsn.stdout.strip() == (server_home / "dsn").read_text().strip()
    # private files; the private parent directory was not opened up for the server user
    assert mode(server_home / "dsn") == 0o600 and mode(server_home / "password") == 0o600
    assert mode(server_home) == 0o700 and mode(server_home.parent) == 0o700
    assert mode(pgserver.data_dir(server_home.resolve())) == 0o700
    # no password, a wrong one: refused; the generated one: accepted
    for bad in (f"postgresql://postgres@127.0.0.1:{port}/postgres",
                f"postgresql://postgres:wrong@127.0.0.1:{port}/postgres"):
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(bad, connect_timeout=5).close()
    with psycopg.connect(dsn.stdout.strip(), connect_timeout=5) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    stop = pg_sh(server_home, port, "stop")
    assert stop.returncode == 0 and password not in stop.stdout + stop.stderr


@pytest.mark.postgres
def test_trust_data_directory_is_upgraded_to_password_auth(server_home: Path) -> None:
    """A data directory left by an older memlab (pg_hba ``trust``) gets scram-sha-256 on start."""
    import psycopg

    port = free_port()
    assert pg_sh(server_home, port, "start").returncode == 0
    assert pg_sh(server_home, port, "stop").returncode == 0
    data = pgserver.data_dir(server_home.resolve())
    (data / "pg_hba.conf").write_text("host all all 127.0.0.1/32 trust\n")
    (server_home / "password").unlink()  # the old layout had no password file either
    start = pg_sh(server_home, port, "start")
    assert start.returncode == 0, start.stderr
    assert "trust" not in (data / "pg_hba.conf").read_text()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(f"postgresql://postgres@127.0.0.1:{port}/postgres", connect_timeout=5).close()
    with psycopg.connect((server_home / "dsn").read_text().strip(), connect_timeout=5) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


@pytest.mark.postgres
def test_a_lost_password_file_gets_a_new_password_for_the_existing_cluster(server_home: Path) -> None:
    """As root the cluster lives outside the checkout (keyed by its path): a fresh clone at the same
    path, or a deleted ``.memlab/pg``, has no password file. start must not fail on the old one."""
    import psycopg

    port = free_port()
    assert pg_sh(server_home, port, "start").returncode == 0
    old = (server_home / "password").read_text().strip()
    assert pg_sh(server_home, port, "stop").returncode == 0
    (server_home / "password").unlink()
    (server_home / "dsn").unlink(missing_ok=True)
    start = pg_sh(server_home, port, "start")
    assert start.returncode == 0, start.stderr
    new = (server_home / "password").read_text().strip()
    assert new != old and old not in start.stdout + start.stderr and new not in start.stdout + start.stderr
    with psycopg.connect((server_home / "dsn").read_text().strip(), connect_timeout=5) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(f"postgresql://postgres:{old}@127.0.0.1:{port}/postgres", connect_timeout=5).close()


def test_stale_pid_file_of_another_process_is_not_signalled(server_home: Path) -> None:
    """After pid reuse, postmaster.pid names an unrelated process, here even one called
    ``postgres`` (another cluster's server, say): stop must leave it alone."""
    sleeper = subprocess.Popen(["bash", "-c", "exec -a postgres sleep 60"])
    try:
        data = pgserver.data_dir(server_home.resolve())
        data.mkdir(parents=True)
        (data / "postmaster.pid").write_text(f"{sleeper.pid}\n{data}\n0\n54999\n\n127.0.0.1\n")
        assert pgserver.status(server_home).running is False
        pgserver.stop(server_home)
        assert sleeper.poll() is None  # still alive: not signalled
    finally:
        sleeper.kill()
        sleeper.wait()


def test_redact_dsn_masks_passwords() -> None:
    assert pgserver.redact_dsn("postgresql://u:p@ss@h:1/d") == "postgresql://u:***@h:1/d"
    assert "hunter2" not in pgserver.redact_dsn("host=h password=hunter2 user=u")
    assert "hunter 2" not in pgserver.redact_dsn("host=h password='hunter 2' user=u")
