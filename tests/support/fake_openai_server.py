"""Test double: an OpenAI-compatible HTTP server on 127.0.0.1 with fault injection (FakeOpenAIServer).

It speaks enough of ``POST /v1/chat/completions`` for the real ``openai`` client and LiteLLM, so
retries, timeouts, rate limits and tool calls are exercised through the real client stack.
By default it reads the DSPy ChatAdapter prompt to find the requested output fields and answers
them (from ``default_fields`` / a behaviour's ``fields``, else a typed default value).

Usage::

    with FakeOpenAIServer(latency_s=0.3, rate_limit_rps=20) as server:
        server.script.extend([{"status": 429, "retry_after": 1}, {"fields": {"answer": "Lisbon"}}])
        model = OpenAIChatModel("m", base_url=server.base_url)
        ...
        assert server.received == 2 and server.served == 1

Behaviours
    A behaviour is a dict describing how to answer one request. Keys (all optional, combinable
    where it makes sense):

    ``status``        HTTP error status (e.g. 500, 429, 400) with a JSON error body
    ``message``       the error body's message (default "scripted failure"), e.g. to echo a key
    ``retry_after``   value of the ``Retry-After`` header sent with it (seconds or an HTTP-date)
    ``delay``         seconds to wait before answering
    ``hang``          True (or seconds): hold the request without answering, until that long has
                      passed or the server stops — longer than any client timeout
    ``body``          raw text sent as an HTTP 200 body (e.g. ``"not json"``)
    ``empty``         True: HTTP 200 with an empty body
    ``no_choices``    True: HTTP 200 JSON without ``choices``
    ``content``       raw assistant text; ``garbage``: True sends text that is not in ChatAdapter format
    ``json``          a value sent as the assistant text, JSON-encoded (a JSON-mode reply)
    ``fields``        output field values for the ChatAdapter reply
    ``usage``         False: omit ``usage`` from the reply; a dict: send it as the reply's ``usage``
                      (e.g. with ``prompt_tokens_details: {cached_tokens: N}``)
    ``tool_calls``    list of ``{"name", "arguments", "id"?}``; ``arguments`` is a dict (sent as
                      JSON) or a raw string (sent as is, so ``"{not json"`` makes a malformed call)
    ``finish_reason`` override the reply's finish reason
    ``reset``         True: reset the TCP connection without replying
    ``drip``          seconds: send the normal reply (status line, headers, body) one byte at a
                      time, this long apart — a read timeout never fires, only a total deadline does
    ``retry_after``   with ``status``: the ``Retry-After`` header sent (e.g. ``"3600"``)

Where a request's behaviour comes from, first match wins:

    1. the server-side rate limit (``rate_limit_rps``): over it, HTTP 429 with ``Retry-After`` and
       ``retry-after-ms`` (the request consumes nothing else);
    2. ``fail_when``: ``fail_with`` when the request's messages contain this substring;
    3. flaky mode: ``fail_first`` (the first N requests) and ``fail_every`` (every k-th request)
       get ``fail_with`` (default ``{"status": 500}``);
    4. ``script``: a queue of behaviours, one popped per request;
    5. ``responder``: a function of the request body returning a behaviour (or None);
    6. ``mode``: the whole-server behaviour (default ``{}``: answer normally).

    ``latency_s`` is added to every request before it is answered.

Lifecycle and counters
    ``start()`` / ``stop()`` / ``restart()`` (same port, so a client sees an outage and a
    recovery); the context manager starts and stops it. ``received``, ``served`` (HTTP 200
    replies), ``in_flight``, ``max_in_flight``, ``rate_limited`` and ``statuses`` (a Counter)
    are kept under a lock; ``requests`` lists every request with ``n``, ``path``, ``body``,
    ``auth``, ``headers``, ``t_received``/``t_done`` (``time.monotonic()``, comparable with the
    test's clock) and the ``status`` sent (None for a reset or an abandoned hang).
    ``wait_until(predicate)`` polls until ``predicate(server)`` holds.

    A freshly bound server resets memlab's shared endpoint state (circuit breaker, pacing) for
    its URL: the OS may hand out a port an earlier test's server had, and that test's open
    breaker must not leak into this one. ``restart()`` keeps the state — that is the point of it.
"""

from __future__ import annotations

import io
import json
import math
import re
import socket
import struct
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_FIELD = re.compile(r"^\d+\. `(\w+)` \(([^)]*)\)", re.M)
GARBAGE = "Sure! Here is what you asked for, in my own words."


def output_fields(system: str) -> list[tuple[str, str]]:
    """Output field (name, type) pairs listed in a ChatAdapter system prompt."""
    if "Your output fields are:" not in system:
        return []
    tail = system.split("Your output fields are:", 1)[1]
    return _FIELD.findall(tail.split("All interactions will be structured", 1)[0])


def default_value(type_: str) -> str:
    if type_.startswith("list"):
        return "[]"
    if type_ == "bool":
        return "False"
    if type_ in ("int", "float"):
        return "0"
    if type_.startswith("Literal"):
        return re.findall(r"'([^']+)'", type_)[0]
    return "I don't know"


class FakeOpenAIServer:
    """See the module docstring for behaviours, precedence, lifecycle and counters."""

    def __init__(self, *, latency_s: float = 0.0, rate_limit_rps: float | None = None, mode: dict[str, Any] | None = None) -> None:
        self.script: deque[dict[str, Any]] = deque()
        self.mode: dict[str, Any] = mode or {}
        self.responder: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
        self.default_fields: dict[str, str] = {}
        self.fail_when: str | None = None
        self.fail_first = 0
        self.fail_every = 0
        self.fail_with: dict[str, Any] = {"status": 500}
        self.latency_s = latency_s
        self.rate_limit_rps = rate_limit_rps
        self.requests: list[dict[str, Any]] = []
        self.received = 0
        self.served = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.rate_limited = 0
        self.statuses: Counter[int] = Counter()
        self._lock = threading.Lock()
        self._window: deque[float] = deque()
        self._stopping = threading.Event()
        self._port = 0
        self.httpd: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> FakeOpenAIServer:
        fresh = self._port == 0
        self._stopping.clear()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", self._port), _handler(self))
        self._port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        if fresh:
            from memlab.llm.endpoints import reset_endpoints

            reset_endpoints(self.base_url)
        return self

    def stop(self) -> None:
        """Stop accepting connections and abandon held requests (their clients see a dropped connection)."""
        self._stopping.set()
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def wait_until(self, predicate: Callable[[FakeOpenAIServer], bool], timeout_s: float = 10.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not predicate(self):
            if time.monotonic() > deadline:
                raise TimeoutError(f"fake server: condition not met within {timeout_s}s (received={self.received}, in_flight={self.in_flight})")
            time.sleep(0.005)

    # -- deciding and building replies -----------------------------------------------------------
    def _rate_limited(self, now: float) -> float | None:
        """Seconds until a slot frees when over ``rate_limit_rps``, else None (and the request is counted)."""
        if not self.rate_limit_rps:
            return None
        while self._window and now - self._window[0] >= 1.0:
            self._window.popleft()
        if len(self._window) >= self.rate_limit_rps:
            return 1.0 - (now - self._window[0])
        self._window.append(now)
        return None

    def _behaviour(self, n: int, body: dict[str, Any]) -> dict[str, Any]:
        if self.fail_when and self.fail_when in json.dumps(body.get("messages", [])):
            return dict(self.fail_with)
        if n <= self.fail_first or (self.fail_every and n % self.fail_every == 0):
            return dict(self.fail_with)
        if self.script:
            try:
                return self.script.popleft()
            except IndexError:  # another handler thread took the last one
                pass
        if self.responder is not None:
            decided = self.responder(body)
            if decided is not None:
                return decided
        return dict(self.mode)

    def completion(self, n: int, body: dict[str, Any], behaviour: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant"}
        finish = "stop"
        if behaviour.get("tool_calls"):
            message["content"] = behaviour.get("content")
            message["tool_calls"] = [
                {"id": call.get("id") or f"call_{n}_{i}", "type": "function",
                 "function": {"name": call["name"],
                              "arguments": call["arguments"] if isinstance(call.get("arguments"), str) else json.dumps(call.get("arguments", {}))}}
                for i, call in enumerate(behaviour["tool_calls"])
            ]
            finish = "tool_calls"
        else:
            content = GARBAGE if behaviour.get("garbage") else behaviour.get("content")
            if content is None and "json" in behaviour:
                content = json.dumps(behaviour["json"])
            if content is None:
                system = next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "system"), "")
                values = {**self.default_fields, **behaviour.get("fields", {})}
                parts = [f"[[ ## {name} ## ]]\n{values.get(name, default_value(t))}" for name, t in output_fields(system)]
                content = "\n\n".join(parts + ["[[ ## completed ## ]]"])
            message["content"] = content
        resp: dict[str, Any] = {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()), "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": behaviour.get("finish_reason", finish)}],
        }
        usage = behaviour.get("usage", True)
        if isinstance(usage, dict):
            resp["usage"] = usage
        elif usage:
            resp["usage"] = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
        return resp


def _handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", 0))
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {"unreadable": raw.decode("utf-8", "replace")}
            now = time.monotonic()
            with server._lock:
                server.received += 1
                n = server.received
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
                record = {"n": n, "path": self.path, "body": body, "auth": self.headers.get("Authorization"),
                          "headers": dict(self.headers), "t_received": now, "t_done": None, "status": None}
                server.requests.append(record)
                wait = server._rate_limited(now)
                if wait is not None:
                    server.rate_limited += 1
            try:
                if not self.path.split("?", 1)[0].rstrip("/").endswith("chat/completions"):
                    self._send(record, 404, {"error": {"message": "not found"}})
                elif wait is not None:
                    self._send(record, 429, {"error": {"message": "rate limited by the fake server", "type": "rate_limit"}},
                               {"Retry-After": str(max(1, math.ceil(wait))), "retry-after-ms": str(max(1, round(wait * 1000)))})
                else:
                    self._answer(record, n, body, server._behaviour(n, body))
            finally:
                self._finish(record, None)

        def _finish(self, record: dict[str, Any], status: int | None) -> None:
            """Book the request as done, once. Called before the reply's bytes go out, so a client
            that has its reply always sees the counters already updated."""
            with server._lock:
                if record["t_done"] is not None:
                    return
                record["t_done"] = time.monotonic()
                record["status"] = status
                server.in_flight -= 1
                if status is not None:
                    server.statuses[status] += 1
                    server.served += status == 200

        def _answer(self, record: dict[str, Any], n: int, body: dict[str, Any], behaviour: dict[str, Any]) -> None:
            pause = server.latency_s + float(behaviour.get("delay") or 0)
            if pause and server._stopping.wait(pause):
                return self._abandon()
            if behaviour.get("hang"):
                server._stopping.wait(3600 if behaviour["hang"] is True else float(behaviour["hang"]))
                return self._abandon()
            if behaviour.get("reset"):
                return self._reset()
            if behaviour.get("drip"):
                return self._drip(record, float(behaviour["drip"]), json.dumps(server.completion(n, body, behaviour)).encode())
            if behaviour.get("status"):
                extra = {"Retry-After": str(behaviour["retry_after"])} if "retry_after" in behaviour else {}
                error = {"message": behaviour.get("message", "scripted failure"), "type": "test"}
                return self._send(record, behaviour["status"], {"error": error}, extra)
            if behaviour.get("empty"):
                return self._send_raw(record, 200, b"")
            if "body" in behaviour:
                return self._send_raw(record, 200, str(behaviour["body"]).encode())
            if behaviour.get("no_choices"):
                return self._send(record, 200, {"id": f"chatcmpl-{n}", "object": "chat.completion", "model": body.get("model")})
            self._send(record, 200, server.completion(n, body, behaviour))

        def _drip(self, record: dict[str, Any], every: float, data: bytes) -> None:
            """An HTTP 200 written byte by byte, ``every`` seconds apart; a client that hangs up
            before the last byte makes the request not served (status None)."""
            raw = (f"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n").encode() + data
            self._finish(record, 200)
            self.close_connection = True
            try:
                for i in range(len(raw)):
                    self.wfile.write(raw[i:i + 1])
                    if server._stopping.wait(every):
                        break
            except (BrokenPipeError, ConnectionResetError):
                with server._lock:
                    record["status"] = None
                    server.statuses[200] -= 1
                    server.served -= 1

        def _abandon(self) -> None:
            self.close_connection = True

        def _reset(self) -> None:
            """Close with RST (SO_LINGER 0) and nothing sent; later writes go to a sink."""
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.wfile = io.BytesIO()
            self.close_connection = True

        def _send(self, record: dict[str, Any], status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._send_raw(record, status, json.dumps(payload).encode(), headers)

        def _send_raw(self, record: dict[str, Any], status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
            self._finish(record, status)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout): not served
                with server._lock:
                    record["status"] = None
                    server.statuses[status] -= 1
                    server.served -= status == 200

    return Handler
