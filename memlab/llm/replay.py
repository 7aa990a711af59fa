"""Record/replay: a content-addressed cache of model requests and responses, with token usage.

The cache is a JSONL file (one entry per distinct request, sorted keys, committable) keyed by
sha256 of the canonical request as the endpoint sees it (model id, messages, temperature,
max_tokens). Modes:

- ``record``: serve hits from the file, call the inner model on a miss and append the result;
- ``replay``: serve hits, call the inner model on a miss (without writing);
- ``replay-strict``: serve hits, fail on a miss naming the role and showing how the prompt
  differs from the closest recorded one — what CI uses to make real-LLM evals repeatable.

Usage recorded with a response is replayed with it (``cached=True``), so token costs of a
replayed run equal those of the recorded one.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from memlab.llm.types import ChatRequest, ChatResponse, ReplayMiss, Usage


def request_key(model_id: str, request: ChatRequest) -> str:
    canon = json.dumps(
        {"model": model_id, "messages": request.messages, "temperature": request.temperature, "max_tokens": request.max_tokens},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


class RecordReplayModel:
    def __init__(self, inner: Any, path: str | os.PathLike[str], mode: str = "record") -> None:
        if mode not in ("record", "replay", "replay-strict"):
            raise ValueError(f"unknown cache mode {mode!r} (record | replay | replay-strict)")
        self.inner = inner
        self.path = Path(path)
        self.mode = mode
        self.model_id = inner.model_id
        self.is_heuristic = inner.is_heuristic
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] = {}
        self.hits = 0
        self.misses = 0
        if self.path.exists():
            for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                    self._entries[entry["key"]] = entry
                except (json.JSONDecodeError, KeyError) as exc:
                    raise ValueError(f"{self.path}:{n}: corrupt cache entry: {exc}") from exc
        elif mode == "replay-strict":
            raise FileNotFoundError(f"replay-strict needs the recorded cache file {self.path}, which does not exist")

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "cache": {"mode": self.mode, "path": str(self.path), "entries": len(self._entries)}}

    def complete(self, request: ChatRequest) -> ChatResponse:
        key = request_key(self.model_id, request)
        entry = self._entries.get(key)
        if entry is not None:
            self.hits += 1
            return ChatResponse(
                text=entry["response"],
                usage=Usage(**entry["usage"]),
                model=entry["model"],
                latency_s=0.0,
                cached=True,
                parsed=entry.get("parsed"),
            )
        self.misses += 1
        if self.mode == "replay-strict":
            raise ReplayMiss(self._explain_miss(request))
        resp = self.inner.complete(request)
        if self.mode == "record":
            entry = {
                "key": key,
                "model": resp.model,
                "purpose": request.purpose,
                "signature": request.signature,
                "messages": request.messages,
                "response": resp.text,
                "usage": resp.usage.model_dump(),
                "latency_s": round(resp.latency_s, 4),
                "parsed": resp.parsed,
            }
            line = json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n"
            with self._lock:
                self._entries[key] = entry
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(line)
                    fh.flush()
                    os.fsync(fh.fileno())
        return resp

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


def _flatten(messages: list[dict[str, str]]) -> str:
    return "\n".join(f"<{m.get('role')}>\n{m.get('content', '')}" for m in messages)
