"""Record/replay: a content-addressed cache of model requests and responses, with token usage.

The cache is a JSONL file (one entry per distinct request, sorted keys, committable) keyed by
sha256 of the canonical request as the endpoint sees it (model id with credentials redacted,
messages, temperature, max_tokens, and tools / tool_choice / other parameters when the request
has them — so caches recorded before tool calling existed still match). Modes:

- ``record``: serve hits from the file, call the inner model on a miss and append the result;
- ``replay``: serve hits, call the inner model on a miss (without writing);
- ``replay-strict``: serve hits, fail on a miss naming the role and showing how the prompt
  differs from the closest recorded one — what CI uses to make real-LLM evals repeatable.

Usage recorded with a response is replayed with it (``cached=True``), so token costs of a
replayed run equal those of the recorded one; tool calls are replayed too.

A bad reply must not be replayed forever. :meth:`RecordReplayModel.reject` (called by a role
whose reply did not parse) drops the entry — in record mode by appending a tombstone line that
later loads honour — and an entry whose stored reply is unusable (empty, or missing the
requested output fields) counts as a miss, so the endpoint is asked again and the good reply
replaces it. The file is append-only: a later line for a key overrides earlier ones.

A crash mid-append can leave a torn last line (no newline, not JSON). It is skipped on load, as
the run-folder reader skips one, and in ``record`` mode cut off before anything is appended, so it
never becomes a corrupt line in the middle of the file. A corrupt line anywhere else is an error
naming the file and line.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from memlab.llm.types import ChatRequest, ChatResponse, ReplayMiss, ToolCall, Usage

_LINE_BREAKERS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}
"""Characters ``str.splitlines()`` (and JavaScript's line readers) treat as line ends that
``json.dumps(ensure_ascii=False)`` writes raw inside strings; escaped, the JSON is the same."""


def dumps_line(entry: dict[str, Any]) -> str:
    """One JSONL line that no reader can split: non-ASCII kept readable, line breakers escaped."""
    line = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    for char, escaped in _LINE_BREAKERS.items():
        line = line.replace(char, escaped)
    return line + "\n"


def request_key(model_id: str, request: ChatRequest) -> str:
    canon: dict[str, Any] = {
        "model": model_id, "messages": request.messages, "temperature": request.temperature, "max_tokens": request.max_tokens
    }
    if request.tools:
        canon["tools"] = [t.model_dump() for t in request.tools]
    if request.tool_choice is not None:
        canon["tool_choice"] = request.tool_choice
    if request.params:
        canon["params"] = request.params
    text = json.dumps(canon, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def unusable_reason(entry: dict[str, Any], request: ChatRequest) -> str | None:
    """Why a stored reply cannot answer ``request`` (None when it can).

    memlab's roles format with DSPy's ChatAdapter, whose replies mark each output field as
    ``[[ ## name ## ]]``; a stored reply without one of the requested markers would fail to
    parse again on every replay."""
    text = entry.get("response")
    if not isinstance(text, str):
        return "the entry holds no reply text"
    if entry.get("tool_calls") or entry.get("parsed") is not None:
        return None
    if not text.strip():
        return "the stored reply is empty"
    missing = [f for f in request.output_fields if f"[[ ## {f} ## ]]" not in text]
    return f"the stored reply lacks output field(s) {missing}" if missing else None


class RecordReplayModel:
    def __init__(self, inner: Any, path: str | os.PathLike[str], mode: str = "record") -> None:
        if mode not in ("record", "replay", "replay-strict"):
            raise ValueError(f"unknown cache mode {mode!r} (record | replay | replay-strict)")
        self.inner = inner
        self.path = Path(path)
        self.mode = mode
        self.model_id = inner.model_id
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] = {}
        self.hits = 0
        self.misses = 0
        self.rejected = 0
        if self.path.exists():
            if mode == "record":
                _cut_torn_tail(self.path)
            self._load()
        elif mode == "replay-strict":
            raise FileNotFoundError(f"replay-strict needs the recorded cache file {self.path}, which does not exist")

    def _load(self) -> None:
        # split on "\n" only: str.splitlines() would also break at U+2028/U+2029/U+0085 inside a reply
        raw = self.path.read_bytes()
        lines = raw.decode("utf-8", errors="replace").split("\n")
        torn = not raw.endswith(b"\n")
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                key = entry["key"]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                if torn and n == len(lines):
                    continue  # the torn last append of a crashed process (see the module docstring)
                raise ValueError(f"{self.path}:{n}: corrupt cache entry ({type(exc).__name__}: {exc})") from exc
            if entry.get("rejected"):
                self._entries.pop(key, None)
            else:
                self._entries[key] = entry

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "cache": {"mode": self.mode, "path": str(self.path), "entries": len(self._entries)}}

    def complete(self, request: ChatRequest) -> ChatResponse:
        key = request_key(self.model_id, request)
        entry = self._entries.get(key)
        reason = unusable_reason(entry, request) if entry is not None else None
        if entry is not None and reason is None:
            with self._lock:
                self.hits += 1
            return ChatResponse(
                text=entry["response"],
                usage=Usage(**entry["usage"]),
                model=entry["model"],
                latency_s=0.0,
                cached=True,
                parsed=entry.get("parsed"),
                tool_calls=[ToolCall(**c) for c in entry.get("tool_calls") or []],
                finish_reason=entry.get("finish_reason"),
            )
        with self._lock:
            self.misses += 1
        if self.mode == "replay-strict":
            if reason is not None:
                raise ReplayMiss(f"replay-strict: the recorded reply for this {request.signature or request.purpose} call "
                                 f"in {self.path} is unusable ({reason}); record it again")
            raise ReplayMiss(self._explain_miss(request))
        resp = self.inner.complete(request)
        if self.mode == "record":
            self._append(key, {
                "key": key,
                "model": resp.model,
                "purpose": request.purpose,
                "signature": request.signature,
                "messages": request.messages,
                "tools": [t.name for t in request.tools],
                "response": resp.text,
                "tool_calls": [c.model_dump() for c in resp.tool_calls],
                "finish_reason": resp.finish_reason,
                "usage": resp.usage.model_dump(),
                "latency_s": round(resp.latency_s, 4),
                "parsed": resp.parsed,
            })
        return resp

    def reject(self, request: ChatRequest) -> None:
        """Drop the stored reply to ``request`` so it is never served again; in record mode the
        drop is written to the file (a tombstone line), in the replay modes it lasts this process."""
        key = request_key(self.model_id, request)
        with self._lock:
            if self._entries.pop(key, None) is None:
                return
            self.rejected += 1
        if self.mode == "record":
            self._append(key, {"key": key, "rejected": True, "signature": request.signature, "purpose": request.purpose})

    def _append(self, key: str, entry: dict[str, Any]) -> None:
        line = dumps_line(entry)
        with self._lock:
            if entry.get("rejected"):
                self._entries.pop(key, None)
            else:
                self._entries[key] = entry
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_line(self.path, line)

    def _explain_miss(self, request: ChatRequest) -> str:
        new = _flatten(request.messages)
        same_role = [e for e in self._entries.values() if e.get("signature") == request.signature] or list(self._entries.values())
        head = f"replay-strict: no recorded response for this {request.signature or request.purpose} call in {self.path}"
        if not same_role:
            return head + " (the cache holds no entries)."
        best = max(same_role, key=lambda e: difflib.SequenceMatcher(None, _flatten(e["messages"]), new).quick_ratio())
        diff = list(
            difflib.unified_diff(_flatten(best["messages"]).splitlines(), new.splitlines(), "recorded prompt", "this prompt", lineterm="", n=1)
        )
        shown = "\n".join(diff[:40]) + ("\n..." if len(diff) > 40 else "")
        return f"{head}. The prompt changed; closest recorded prompt differs by:\n{shown}"


def _flatten(messages: list[dict[str, Any]]) -> str:
    return "\n".join(f"<{m.get('role')}>\n{m.get('content') or ''}" for m in messages)


def _cut_torn_tail(path: Path) -> None:
    """Cut a torn last line off the cache, holding the lock appenders take (so a line another
    process is appending right now is never mistaken for a torn one)."""
    import fcntl

    from memlab.runfolder.recorder import repair_tail

    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        repair_tail(path)
    finally:
        os.close(fd)


def append_line(path: Path, line: str) -> None:
    """Append one JSONL line so that processes recording into the same cache (parallel workers,
    two runs) never interleave: an exclusive ``flock`` for the duration, and the whole line in
    one ``write`` on an ``O_APPEND`` descriptor (a buffered text file may split a long line into
    several writes, and another process's line could land between them)."""
    import fcntl

    data = line.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock
