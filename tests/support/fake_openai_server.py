"""Test double: a minimal OpenAI-compatible HTTP server on 127.0.0.1 (FakeOpenAIServer).

It speaks enough of ``POST /v1/chat/completions`` for the real ``openai`` client and LiteLLM:
it reads the DSPy ChatAdapter prompt to find the requested output fields and answers them
from a scripted queue, or injects failures (HTTP 429/500, slow responses, malformed output,
missing usage) so retry and failure recording are exercised through the real client stack.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_FIELD = re.compile(r"^\d+\. `(\w+)` \(([^)]*)\)", re.M)


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
    """Scripted behaviours: each request pops one from ``script`` (default: answer with defaults).

    A behaviour is a dict with any of: ``status`` (HTTP error code), ``delay`` (seconds),
    ``content`` (raw assistant text), ``fields`` (output field values), ``usage`` (False: omit).
    """

    def __init__(self) -> None:
        self.script: deque[dict[str, Any]] = deque()
        self.requests: list[dict[str, Any]] = []
        self.default_fields: dict[str, str] = {}
        self.fail_when: str | None = None
        """Answer HTTP 500 to every request whose messages contain this substring."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                if not self.path.rstrip("/").endswith("chat/completions"):
                    return self._send(404, {"error": {"message": "not found"}})
                behaviour = server.script.popleft() if server.script else {}
                if server.fail_when and server.fail_when in json.dumps(body.get("messages", [])):
                    behaviour = {"status": 500}
                if behaviour.get("delay"):
                    time.sleep(behaviour["delay"])
                if behaviour.get("status"):
                    return self._send(behaviour["status"], {"error": {"message": "scripted failure", "type": "test"}})
                content = behaviour.get("content")
                if content is None:
                    system = next((m["content"] for m in body.get("messages", []) if m["role"] == "system"), "")
                    values = {**server.default_fields, **behaviour.get("fields", {})}
                    parts = [f"[[ ## {name} ## ]]\n{values.get(name, default_value(t))}" for name, t in output_fields(system)]
                    content = "\n\n".join(parts + ["[[ ## completed ## ]]"])
                resp: dict[str, Any] = {
                    "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": body.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                }
                if behaviour.get("usage", True):
                    resp["usage"] = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
                self._send(200, resp)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except BrokenPipeError:
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
