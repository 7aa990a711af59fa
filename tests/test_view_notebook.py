"""``memlab.view.show(res)`` in a notebook: the viewer in a child process, shown as an iframe, gone when
the kernel stops — however it stops (memlab/view/notebook.py)."""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.request
from pathlib import Path

import pytest

from memlab.analysis.results import load_run
from memlab.view import show
from tests.support import view_runs

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return view_runs.shared(tmp_path_factory, "main")


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _gone(pid: int, timeout: float = 30.0) -> bool:
    """The process has exited (a zombie nobody reaped yet counts: it runs nothing)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.2)
    return False


def test_view_shows_the_run_in_an_iframe_and_stops(run):
    handle = show(load_run(run), route="/probes?run=0&strategy=window")
    try:
        html = handle._repr_html_()
        assert f'src="http://127.0.0.1:{handle.port}/?token={handle.token}#/probes?run=0&amp;strategy=window"' in html
        req = urllib.request.Request(f"http://127.0.0.1:{handle.port}/api/probes?run=0&strategy=window",
                                     headers={"X-Memlab-Token": handle.token})
        with urllib.request.urlopen(req, timeout=60) as r:
            assert json.loads(r.read())["total"] == 8
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"http://127.0.0.1:{handle.port}/api/runs", timeout=60)
        assert err.value.code == 403
        assert handle.token not in " ".join(open(f"/proc/{handle.proc.pid}/cmdline").read().split("\0"))  # not on the command line
    finally:
        handle.stop()
    assert not handle.running and not _listening(handle.port)


def test_nothing_is_left_running_when_the_kernel_is_killed(run):
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT),
                              env=dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")))
    try:
        code = (f"import memlab\nres = memlab.load_run({str(run)!r})\nfrom memlab.view import show\nh = show(res)\n"
                "print('VIEW', h.port, h.proc.pid)")
        out = []
        reply = kc.execute_interactive(code, timeout=600, output_hook=lambda m: out.append(m))
        assert reply["content"]["status"] == "ok", reply["content"]
        text = "".join(m["content"].get("text", "") for m in out if m["msg_type"] == "stream")
        port, pid = map(int, text.split("VIEW", 1)[1].split()[:2])
        assert _listening(port)
    finally:
        km.shutdown_kernel(now=True)  # SIGKILL: no atexit, no cleanup in the kernel
        kc.stop_channels()
    assert _gone(pid), "the viewer outlived its kernel"
    assert not _listening(port)
