"""scripts/chroma_server.sh and the chroma store against a server that goes away.

Each test uses its own port and data directory, so nothing is shared with a developer's server.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import numpy as np
import pytest

from memlab.memory.item import MemoryItem
from memlab.memory.stores.base import StoreError

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = str(ROOT / "scripts" / "chroma_server.sh")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(tmp_path: Path, port: int) -> dict[str, str]:
    return dict(os.environ, MEMLAB_CHROMA_PORT=str(port), MEMLAB_CHROMA_DIR=str(tmp_path / "srv"))


def script(env: dict[str, str], cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", SCRIPT, cmd], capture_output=True, text=True, timeout=120, env=env)


def test_server_stopped_mid_use_gives_store_error_naming_chroma(tmp_path: Path) -> None:
    from memlab.memory.stores.base import make_store

    port = free_port()
    env = server_env(tmp_path, port)
    started = script(env, "start")
    assert started.returncode == 0, started.stderr
    try:
        store = make_store("chroma", host="127.0.0.1", port=port, collection="midrun")
        vec = np.ones((1, 384), dtype=np.float32)
        store.add([MemoryItem(namespace="ns", text="tea")], vec)
        assert len(store.search("ns", k=3)) == 1
    finally:
        stopped = script(env, "stop")
    assert stopped.returncode == 0 and "stopped (pid" in stopped.stderr, stopped.stderr
    calls = {
        "search": lambda: store.search("ns", embedding=vec[0], k=3),
        "add": lambda: store.add([MemoryItem(namespace="ns", text="coffee")], vec),
        "count": lambda: store.count("ns"),
    }
    for op, call in calls.items():
        with pytest.raises(StoreError) as ei:
            call()
        assert str(ei.value).startswith(f"chroma at 127.0.0.1:{port}: {op} failed"), str(ei.value)
    store.close()


def test_stop_does_not_signal_an_unrelated_process_in_the_pid_file(tmp_path: Path) -> None:
    """A pid file left behind and a pid reused by another process: stop leaves that process alone."""
    env = server_env(tmp_path, free_port())
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        Path(env["MEMLAB_CHROMA_DIR"] + ".pid").write_text(f"{sleeper.pid}\n")
        status = script(env, "status")
        stop = script(env, "stop")
        assert status.returncode == 3 and stop.returncode == 0
        assert sleeper.poll() is None, "the unrelated process was signalled"
    finally:
        sleeper.kill()
        sleeper.wait()
