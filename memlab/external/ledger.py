"""memlab's OpenAI-compatible endpoint for an external library: one token ledger for every system.

An external memory library (mem0, LangMem) makes its own model calls. Its OpenAI client is
pointed at a :class:`Ledger` — an HTTP server on 127.0.0.1 on a port the OS picks — so that every
request it makes goes through memlab's model layer and is recorded like memlab's own calls:

- ``POST /v1/chat/completions``: the request (messages, tools, tool_choice, temperature,
  max_tokens and any other parameter such as ``response_format``, sent as given) becomes a
  :class:`~memlab.llm.types.ChatRequest` answered by the run's model for the adapter's purpose —
  the configured endpoint, with its retries, rate limits, circuit breaker and record/replay cache
  — and recorded in ``calls.jsonl`` with its purpose, tokens, latency, the unit's scope (turn or
  probe) and ``caller`` (the library). Only ``model`` is replaced: the run's model answers, whatever
  name the library asked for. Streaming and ``n > 1`` are refused (400).
- ``POST /v1/embeddings``: answered by memlab's own MiniLM (the run's shared, cached embedder), so
  every system in a comparison shares one embedder; recorded with purpose ``embed``. ``float`` and
  ``base64`` encodings are served (the ``openai`` client asks for base64 by default).

A call that fails after memlab's retries is recorded as failed (``ok: false``) and answered with
HTTP 502 (504 for a timeout) and ``x-should-retry: false``, so the library's client does not retry
on top of memlab's retries (the ``openai`` client honours that header); the error is kept in
:attr:`Ledger.fault`, so the adapter can name it when the library then raises. An open circuit
breaker (:class:`~memlab.llm.types.EndpointDown`) is kept the same way and re-raised by the adapter,
which stops the run as it would for memlab's own roles.

Calls are recorded in the scope of the adapter's call into its library: :meth:`Ledger.bound`
captures the caller's call sink and scope (the runner's context variables), since requests arrive
on the server's own threads. Requests are served one at a time, so records are written in the
order the library made its calls. The server accepts only requests carrying its own random bearer
token (another local process cannot spend the run's key), and no real key ever reaches the
library: the key stays in memlab's model, which the library never sees.
"""

from __future__ import annotations

import base64
import json
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from memlab.llm import calls
from memlab.llm.types import CallRecord, ChatRequest, ChatResponse, EndpointDown, ModelError, ToolSpec
from memlab.redact import redact_text
from memlab.tokens import count_tokens

EMBED_PURPOSE = "embed"
"""The purpose recorded for embedding requests (model tokens in tables count chat calls only)."""

_OWN_FIELDS = {"model", "messages", "tools", "tool_choice", "temperature", "max_tokens", "max_completion_tokens",
               "stream", "n", "functions", "function_call"}
"""Request fields the ledger maps itself; every other field is forwarded as given (``ChatRequest.params``)."""


@dataclass
class Binding:
    """Where the calls of one library call go: the purpose, the caller's sink and scope."""

    purpose: str = "extract"
    sink: Callable[[CallRecord], None] | None = None
    scope: dict[str, Any] = field(default_factory=dict)


class Ledger:
    """A local OpenAI-compatible endpoint that records and answers one library's calls."""

    def __init__(self, *, caller: str, chat_model: Any | None, embedder: Any, embedding_model_id: str,
                 embedding_dims: int = 384) -> None:
        self.caller = caller
        self.chat_model = chat_model
        self.embedder = embedder
        self.embedding_model_id = embedding_model_id
        self.embedding_dims = embedding_dims
        self.token = "memlab-ledger-" + secrets.token_hex(16)
        """The bearer token the library must send (not a credential of any real service)."""
        self.binding = Binding()
        self.fault: BaseException | None = None
        """The first failed call since the last :meth:`bound` began (the adapter names it when the library raises)."""
        self.served = 0
        self._serve_lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the ledger endpoint is not running (call start())")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> Ledger:
        if self._httpd is None:
            self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
            self._httpd.daemon_threads = True
            self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                            name=f"memlab-ledger-{self.caller}", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def describe(self) -> dict[str, Any]:
        return {"endpoint": "memlab ledger (127.0.0.1, ephemeral port)",
                "chat_model": self.chat_model.model_id if self.chat_model is not None else None,
                "embedding_model": self.embedding_model_id, "embedding_dims": self.embedding_dims}

    @contextmanager
    def bound(self, purpose: str) -> Iterator[None]:
        """Within the block, calls arriving at the endpoint are recorded with ``purpose`` into the
        caller's sink and scope (those of the thread entering the block)."""
        previous = self.binding
        self.binding = Binding(purpose, calls.current_sink(), calls.current_scope())
        self.fault = None
        try:
            yield
        finally:
            self.binding = previous

    # -- serving (called on the server's threads) --------------------------------------------------
    @contextmanager
    def _serving(self) -> Iterator[None]:
        """One request at a time, recorded into the bound caller's sink and scope."""
        b = self.binding
        with self._serve_lock, ExitStack() as stack:
            if b.sink is not None:
                stack.enter_context(calls.call_sink(b.sink))
            stack.enter_context(calls.call_scope(**b.scope))
            yield

    def chat(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if body.get("stream"):
            return 400, _error("streaming is not supported by memlab's endpoint; call it without stream=True")
        if int(body.get("n") or 1) != 1:
            return 400, _error("n > 1 is not supported by memlab's endpoint")
        if body.get("functions") or body.get("function_call"):
            return 400, _error("legacy `functions` / `function_call` are not supported; send `tools`")
        if self.chat_model is None:
            return 400, _error("this strategy has no chat model (it was configured to run without one)")
        try:
            request = self._request(body)
        except (ValueError, TypeError) as exc:
            return 400, _error(f"memlab's endpoint cannot read this request: {exc}")
        with self._serving():
            try:
                resp = calls.complete_recorded(self.chat_model, request, caller=self.caller)
            except ModelError as exc:
                if self.fault is None or isinstance(exc, EndpointDown):
                    self.fault = exc
                timeout = "timeout" in str(exc).lower() or "no reply within" in str(exc)
                return (504 if timeout else 502), _error(redact_text(f"{type(exc).__name__}: {exc}"), kind="upstream_error")
            self.served += 1
            return 200, _completion(resp, body.get("model") or "memlab", self.served)

    def _request(self, body: dict[str, Any]) -> ChatRequest:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ValueError("`messages` must be a non-empty list")
        tools = []
        for t in body.get("tools") or []:
            fn = t.get("function") if isinstance(t, dict) else None
            if not isinstance(fn, dict):
                raise ValueError(f"a tool must be {{type: function, function: {{...}}}}, got {t!r}")
            tools.append(ToolSpec(name=fn.get("name", ""), description=fn.get("description") or "",
                                  parameters=fn.get("parameters") or {"type": "object", "properties": {}}))
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            choice = (choice.get("function") or {}).get("name")
        if choice == "any":
            choice = "required"
        max_tokens = body.get("max_completion_tokens") or body.get("max_tokens")
        params = {k: v for k, v in body.items() if k not in _OWN_FIELDS}
        return ChatRequest(messages=messages, purpose=self.binding.purpose, temperature=body.get("temperature"),
                           max_tokens=int(max_tokens) if max_tokens else None, tools=tools,
                           tool_choice=choice if tools else None, params=params)

    def embeddings(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        raw = body.get("input")
        texts = [raw] if isinstance(raw, str) else raw
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            return 400, _error("`input` must be a string or a non-empty list of strings (token arrays are not supported)")
        dims = body.get("dimensions")
        if dims is not None and int(dims) != self.embedding_dims:
            return 400, _error(f"memlab's embedder ({self.embedding_model_id}) has {self.embedding_dims} dimensions, "
                               f"not {dims}; configure the library with embedding_dims={self.embedding_dims}")
        encoding = body.get("encoding_format") or "float"
        if encoding not in ("float", "base64"):
            return 400, _error(f"encoding_format {encoding!r} is not supported (float | base64)")
        with self._serving():
            t0 = time.perf_counter()
            vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
            tokens = sum(count_tokens(t) for t in texts)
            calls.emit(CallRecord(call_id=calls.new_call_id(), purpose=EMBED_PURPOSE, model=self.embedding_model_id,
                                  prompt_tokens=tokens, latency_s=time.perf_counter() - t0, caller=self.caller))
        data = []
        for i, v in enumerate(vectors):
            emb: Any = base64.b64encode(v.astype("<f4").tobytes()).decode() if encoding == "base64" else [float(x) for x in v]
            data.append({"object": "embedding", "index": i, "embedding": emb})
        return 200, {"object": "list", "data": data, "model": body.get("model") or self.embedding_model_id,
                     "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def _error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind}}


def _completion(resp: ChatResponse, model: str, n: int) -> dict[str, Any]:
    """A chat.completion body for ``resp`` (``created`` is 0: replies carry no wall-clock time)."""
    message: dict[str, Any] = {"role": "assistant", "content": resp.text if (resp.text or not resp.tool_calls) else None}
    if resp.tool_calls:
        message["tool_calls"] = [c.to_openai() for c in resp.tool_calls]
    finish = resp.finish_reason or ("tool_calls" if resp.tool_calls else "stop")
    usage = {"prompt_tokens": resp.usage.prompt_tokens, "completion_tokens": resp.usage.completion_tokens,
             "total_tokens": resp.usage.prompt_tokens + resp.usage.completion_tokens}
    return {"id": f"chatcmpl-memlab-{n}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}


def _handler(ledger: Ledger) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            # a reply is written as headers + body: without NODELAY, Nagle's algorithm holds the body
            # until the client's delayed ACK (~40 ms per request on Linux)
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def _authorised(self) -> bool:
            return self.headers.get("Authorization", "") == f"Bearer {ledger.token}"

        def do_GET(self) -> None:  # noqa: N802
            if not self._authorised():
                return self._send(401, _error("memlab's endpoint needs its own bearer token", "authentication_error"))
            if self.path.split("?", 1)[0].rstrip("/").endswith("/models"):
                names = [ledger.embedding_model_id] + ([ledger.chat_model.model_id] if ledger.chat_model is not None else [])
                return self._send(200, {"object": "list", "data": [{"id": n, "object": "model", "owned_by": "memlab"} for n in names]})
            self._send(404, _error(f"no route {self.path}"))

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not self._authorised():
                return self._send(401, _error("memlab's endpoint needs its own bearer token", "authentication_error"))
            try:
                body = json.loads(raw or b"{}")
                if not isinstance(body, dict):
                    raise ValueError("the body is not a JSON object")
            except ValueError as exc:
                return self._send(400, _error(f"unreadable request body: {exc}"))
            path = self.path.split("?", 1)[0].rstrip("/")
            try:
                if path.endswith("/chat/completions"):
                    status, payload = ledger.chat(body)
                elif path.endswith("/embeddings"):
                    status, payload = ledger.embeddings(body)
                else:
                    status, payload = 404, _error(f"no route {self.path} (memlab's endpoint serves chat/completions and embeddings)")
            except Exception as exc:  # a bug here must reach the library as an error, not a hung socket
                if ledger.fault is None:
                    ledger.fault = exc
                status, payload = 500, _error(redact_text(f"memlab's endpoint failed: {type(exc).__name__}: {exc}"), "server_error")
            self._send(status, payload)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status >= 400:
                self.send_header("x-should-retry", "false")  # memlab has retried already
            self.end_headers()
            self.wfile.write(data)

    return Handler
