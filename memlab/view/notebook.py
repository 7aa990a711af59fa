"""``memlab.view.show(res)``: the viewer inside a notebook.

The server runs in a child process (``python -m memlab.view.server``), not in the kernel: a kernel
that stops — shut down, restarted, killed — leaves nothing running, because the child stops when
its stdin (a pipe held by the kernel) closes, and the OS closes that pipe however the kernel ends.
The token reaches the child in its environment (never on the command line, which other users of
the machine can read). The returned :class:`ViewHandle` displays as an iframe of the viewer; it
needs the browser to reach the kernel's 127.0.0.1 (JupyterLab on this machine, or the port
forwarded — docs/view.md).

Nothing here imports the viewer's server or the analysis code: the child does.
"""

from __future__ import annotations

import atexit
import html
import json
import os
import secrets
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

_OPEN: list[ViewHandle] = []


class ViewHandle:
    """A running notebook viewer: shows as an iframe; ``url`` opens it in a tab; ``stop()`` ends it."""

    def __init__(self, proc: subprocess.Popen, port: int, token: str, route: str, height: int) -> None:
        self.proc, self.port, self.token, self.route, self.height = proc, port, token, route, height

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}#{self.route}"

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        """Stop the server (closing its stdin is its signal to stop; then wait for it)."""
        if self.proc.poll() is None:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        if self in _OPEN:
            _OPEN.remove(self)

    def _repr_html_(self) -> str:
        src = html.escape(self.url, quote=True)
        return (f'<iframe src="{src}" width="100%" height="{int(self.height)}" style="border:1px solid #ddd" '
                f'title="memlab view"></iframe><div style="font-size:.85em">memlab view on port {self.port} '
                f'(<a href="{src}" target="_blank" rel="noopener">open in a tab</a>)</div>')

    def __repr__(self) -> str:
        return f"memlab view at {self.url}" if self.running else "memlab view (stopped)"


def show(*runs: Any, route: str = "/runs", height: int = 720, baseline: str | Path | None = None,
         timeout: float = 600.0) -> ViewHandle:
    """Start a viewer of ``runs`` — run folders, or loaded runs (anything with a ``path``, e.g. a
    ``RunResults``) — in a child process and return its handle (once it listens). A function of the
    viewer rather than a ``RunResults`` method, so the analysis package never imports the viewer
    (the viewer sits above it: docs/architecture.md).

    ``route`` is the page to open (``/probes?run=0&strategy=fact_rag&metric=evidence_recall&outcome=miss``,
    ``/compare?run=0&a=A&b=B``; docs/view.md); ``timeout`` bounds indexing a large run the first time."""
    paths = [str(Path(getattr(r, "path", r))) for r in runs]
    for p in paths:
        if not (Path(p) / "manifest.json").is_file():
            raise FileNotFoundError(f"{p} is not a memlab run folder (no manifest.json)")
    token = secrets.token_urlsafe(24)
    env = dict(os.environ, MEMLAB_VIEW_TOKEN=token)
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").exists():  # a source checkout: the child imports this memlab
        env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    args = [sys.executable, "-m", "memlab.view.server", *paths] + (["--baseline", str(baseline)] if baseline else [])
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    found: dict[str, Any] = {}
    err: list[bytes] = []
    ready = threading.Event()

    def read_port() -> None:  # then keep draining, so the child never blocks on a full pipe
        assert proc.stdout is not None
        for line in proc.stdout:
            if not ready.is_set():
                try:
                    found.update(json.loads(line))
                except ValueError:
                    continue
                ready.set()
        ready.set()

    def read_err() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            err.append(line)
            del err[:-30]

    threading.Thread(target=read_port, daemon=True).start()
    threading.Thread(target=read_err, daemon=True).start()
    ready.wait(timeout)
    if "port" not in found:
        proc.kill()
        proc.wait()
        tail = b"".join(err).decode(errors="replace").strip()[-800:]
        raise RuntimeError(f"memlab view did not start: {tail or 'no output'}")
    handle = ViewHandle(proc, int(found["port"]), token, route if route.startswith("/") else "/" + route, height)
    _OPEN.append(handle)
    return handle


@atexit.register
def _stop_all() -> None:
    for handle in list(_OPEN):
        handle.stop()
