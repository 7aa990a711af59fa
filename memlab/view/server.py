"""The viewer's web app: a small Starlette app on uvicorn, on 127.0.0.1 only, behind a random token.

``memlab view RUN_DIR …`` (:func:`serve`) indexes the runs (:mod:`memlab.view.index`), binds an
ephemeral port (or ``--port``), prints the URL with its token and opens the browser. Other users of
the machine can reach 127.0.0.1 too, so every page and API call needs the token (query ``token=`` or
header ``X-Memlab-Token``; anything else gets 403), and a request whose ``Host`` is not this server's
(a DNS-rebinding page) is refused. The front-end is three static files shipped in the package (no
CDN: it works offline); the API answers JSON, and the page puts run text in the DOM as text only.
A strict Content-Security-Policy (scripts and styles from this server, nothing inline) is the
second line of defence against a hostile run.

``python -m memlab.view.server RUN_DIR …`` is the same app for a notebook
(:mod:`memlab.view.notebook`): the token comes in the environment, the port goes out on stdout as
one JSON line, and the server stops when its stdin closes — when the kernel that started it stops,
however it stops.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from memlab.redact import redact_text
from memlab.view import pages
from memlab.view.index import ViewIndexError
from memlab.view.run import Runs
from memlab.view.timeline import timeline

TOKEN_HEADER = "x-memlab-token"
TOKEN_ENV = "MEMLAB_VIEW_TOKEN"
STATIC = ("app.js", "app.css")


def _static_dir() -> Path:
    return Path(str(resources.files("memlab.view") / "static"))


def _csp(frame_ancestors: str) -> str:
    return ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            f"base-uri 'none'; form-action 'none'; frame-ancestors {frame_ancestors}")


def make_app(runs: Runs, token: str, *, baseline: str | Path | None = None, embedded: bool = False) -> Any:
    """The Starlette app over ``runs`` (``embedded``: it may be shown in a notebook's iframe)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Route

    headers = {"Content-Security-Policy": _csp("*" if embedded else "'none'"), "X-Content-Type-Options": "nosniff",
               "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
    index_html = (_static_dir() / "index.html").read_text(encoding="utf-8")

    def json_response(data: Any, status: int = 200) -> Response:
        return Response(orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS, default=str),
                        status_code=status, media_type="application/json", headers=headers)

    def api(fn: Callable[[Request], Any]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            try:
                return json_response(fn(request))
            except KeyError as exc:
                return json_response({"error": str(exc.args[0] if exc.args else exc)}, 404)
            except (ViewIndexError, ValueError, TypeError) as exc:
                return json_response({"error": redact_text(str(exc))}, 400)
            except Exception as exc:  # a page that fails says why, instead of a bare 500
                return json_response({"error": redact_text(f"{type(exc).__name__}: {exc}")}, 500)
        return endpoint

    def q(request: Request, name: str, default: str | None = None) -> str | None:
        return request.query_params.get(name, default)

    def run_of(request: Request, name: str = "run") -> Any:
        try:
            return runs.get(int(q(request, name, "0") or 0))
        except ValueError:
            raise KeyError(f"no run {q(request, name)!r}") from None

    def page(request: Request) -> Response:
        return Response(index_html, media_type="text/html; charset=utf-8", headers=headers)

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("not found", 404, headers=headers)
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        return Response((_static_dir() / name).read_bytes(), media_type=f"{kind}; charset=utf-8", headers=headers)

    def filters(request: Request) -> dict[str, str]:
        return {k: v for k, v in request.query_params.items() if k in (*pages.FILTERS, "metric", "outcome", "q")}

    routes = [
        Route("/", page),
        Route("/static/{name}", static),
        Route("/favicon.ico", lambda r: Response(b"", status_code=204, headers=headers)),
        Route("/api/health", api(lambda r: {"ok": True, "runs": len(runs)})),
        Route("/api/runs", api(lambda r: {**pages.overview(runs), "baseline": str(baseline) if baseline else None})),
        Route("/api/facets", api(lambda r: pages.facets(run_of(r)))),
        Route("/api/probes", api(lambda r: pages.probe_list(run_of(r), filters(r), int(q(r, "page", "0") or 0),
                                                            int(q(r, "per_page", str(pages.PER_PAGE)) or pages.PER_PAGE)))),
        Route("/api/probe", api(lambda r: pages.probe_page(run_of(r), q(r, "dataset", ""), q(r, "conversation", ""),
                                                           q(r, "probe", ""), q(r, "strategy"), q(r, "focus")))),
        Route("/api/context", api(lambda r: pages.context_page(
            run_of(r), q(r, "dataset", ""), q(r, "conversation", ""), q(r, "probe", ""), q(r, "strategy", ""),
            int(q(r, "start", "0") or 0), int(q(r, "count", "300") or 300),
            int(q(r, "line")) if q(r, "line") not in (None, "") else None))),  # type: ignore[arg-type]
        Route("/api/turn", api(lambda r: pages.turn_text(run_of(r), q(r, "dataset", ""), q(r, "user", ""),
                                                         q(r, "conversation", ""), q(r, "turn", "")))),
        Route("/api/compare", api(lambda r: pages.compare(run_of(r), q(r, "a", ""), q(r, "b", ""),
                                                          q(r, "metric", "evidence_recall"), int(q(r, "page", "0") or 0),
                                                          filters=filters(r)))),
        Route("/api/compare/probe", api(lambda r: pages.compare_probe(
            run_of(r), q(r, "a", ""), run_of(r, "run_b" if q(r, "run_b") not in (None, "") else "run"), q(r, "b", ""),
            q(r, "dataset", ""), q(r, "conversation", ""), q(r, "probe", "")))),
        Route("/api/timeline", api(lambda r: timeline(
            run_of(r), q(r, "strategy", ""), q(r, "dataset", ""), q(r, "user", ""), turn=q(r, "turn") or None,
            conversation=q(r, "conversation") or None, probe=q(r, "probe") or None,
            page=int(q(r, "page")) if q(r, "page") not in (None, "") else None))),  # type: ignore[arg-type]
        Route("/api/flips", api(lambda r: pages.flips(
            runs, int(q(r, "run", "0") or 0),
            base=int(q(r, "base")) if q(r, "base") not in (None, "") else None,  # type: ignore[arg-type]
            baseline=baseline if q(r, "baseline") == "1" else None, page=int(q(r, "page", "0") or 0)))),
    ]
    app = Starlette(routes=routes)
    return _Guard(app, token, headers)


class _Guard:
    """ASGI middleware: refuses (403) a request without the token, or for another host."""

    def __init__(self, app: Any, token: str, headers: dict[str, str]) -> None:
        self.app, self.token, self.headers = app, token.encode(), headers
        self.port: int | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        hdrs = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        host = hdrs.get("host", b"").decode("latin-1")
        if not self._host_ok(host):
            return await self._refuse(send, b"403: this server answers requests for 127.0.0.1 only\n")
        if path.startswith("/static/") or path == "/favicon.ico":
            return await self.app(scope, receive, send)
        from urllib.parse import parse_qs

        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("token") or [""])[0].encode() or hdrs.get(TOKEN_HEADER, b"")
        if not given or not hmac.compare_digest(given, self.token):
            return await self._refuse(send, b"403: wrong or missing token (open the URL memlab view printed)\n")
        return await self.app(scope, receive, send)

    def _host_ok(self, host: str) -> bool:
        name, _, port = host.rpartition(":") if ":" in host else (host, "", "")
        if name not in ("127.0.0.1", "localhost"):
            return False
        return self.port is None or not port or port == str(self.port)

    async def _refuse(self, send: Any, body: bytes) -> None:
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                *((k.lower().encode(), v.encode()) for k, v in self.headers.items())]})
        await send({"type": "http.response.body", "body": body})


def bind(port: int | None) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0 or None: an ephemeral one)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", int(port or 0)))
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    return sock


class Server:
    """uvicorn serving the app on a bound socket; ``url`` carries the token."""

    def __init__(self, runs: Runs, *, port: int | None = None, token: str | None = None,
                 baseline: str | Path | None = None, embedded: bool = False) -> None:
        import uvicorn

        self.token = token or secrets.token_urlsafe(24)
        self.sock = bind(port)
        self.port = self.sock.getsockname()[1]
        app = make_app(runs, self.token, baseline=baseline, embedded=embedded)
        app.port = self.port
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}#/runs"

    def run(self) -> None:
        """Serve until stopped (Ctrl-C, :meth:`stop`)."""
        try:
            self.server.run(sockets=[self.sock])
        finally:
            self.sock.close()

    def stop(self) -> None:
        self.server.should_exit = True

    def wait_started(self, timeout: float = 30.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.server.started:
                return True
            time.sleep(0.02)
        return False


def serve(run_dirs: list[str | Path], *, port: int | None = None, open_browser: bool = True,
          baseline: str | Path | None = None, echo: Callable[[str], None] = print) -> int:
    """``memlab view``: index the runs, serve them, print the URL, open the browser; returns on Ctrl-C."""
    if baseline is not None and not Path(baseline).is_file():
        raise FileNotFoundError(f"{baseline}: no baseline file")
    runs = Runs(run_dirs, echo=echo)
    runs.load_all()
    server = Server(runs, port=port, baseline=baseline)
    echo(f"memlab view: {server.url}")
    echo("(the token in the URL is this viewer's key; Ctrl-C stops it)")
    if open_browser:
        def _open() -> None:
            if server.wait_started():
                webbrowser.open(server.url)
        threading.Thread(target=_open, daemon=True).start()
    server.run()
    return 0


def _child(argv: list[str]) -> int:
    """The notebook's server (see the module docstring)."""
    token = os.environ.get(TOKEN_ENV)
    if not token:
        print("memlab.view.server: no token in $" + TOKEN_ENV, file=sys.stderr)
        return 2
    baseline = None
    if "--baseline" in argv:
        at = argv.index("--baseline")
        baseline, argv = argv[at + 1], argv[:at] + argv[at + 2:]
    runs = Runs(argv, echo=lambda msg: print(msg, file=sys.stderr, flush=True))
    runs.load_all()
    server = Server(runs, token=token, baseline=baseline, embedded=True)

    def watch_parent() -> None:
        try:
            while sys.stdin.buffer.read(1 << 16):
                pass
        finally:  # the kernel is gone (its end of the pipe closed): stop, and do not linger
            server.stop()
            time.sleep(3)
            os._exit(0)

    def announce() -> None:
        if server.wait_started():
            print(json.dumps({"port": server.port}), flush=True)

    threading.Thread(target=watch_parent, daemon=True).start()
    threading.Thread(target=announce, daemon=True).start()
    server.run()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    sys.exit(_child(sys.argv[1:]))
