"""Value types of the model layer: requests, responses, usage and per-call records."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Purpose = Literal["agent", "extract", "gate", "consolidate", "summarize", "compress", "answer", "judge"]
PURPOSES: tuple[str, ...] = ("agent", "extract", "gate", "consolidate", "summarize", "compress", "answer", "judge")


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    source: Literal["api", "tiktoken"] = "tiktoken"
    """'api' when the server reported usage, 'tiktoken' when memlab counted cl100k tokens itself."""


class ChatRequest(BaseModel):
    """One chat completion request. ``signature``/``inputs`` name the role and its structured inputs:
    API models ignore them (they see ``messages``); the heuristic model answers from them."""

    messages: list[dict[str, str]]
    purpose: str
    temperature: float = 0.0
    max_tokens: int | None = None
    signature: str | None = None
    inputs: dict[str, Any] | None = None
    output_fields: list[str] = Field(default_factory=list)


class ChatResponse(BaseModel):
    text: str
    usage: Usage
    model: str
    latency_s: float = 0.0
    cached: bool = False
    parsed: dict[str, Any] | None = None
    """Structured outputs when the backend produced them directly (heuristic); else parsed from text."""


class CallRecord(BaseModel):
    """What the run log keeps for every model call (one per logical call, retries included)."""

    call_id: str
    purpose: str
    signature: str | None = None
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    token_source: str = "tiktoken"
    latency_s: float = 0.0
    cached: bool = False
    attempts: int = 1
    ok: bool = True
    error: str | None = None
    scope: dict[str, Any] = Field(default_factory=dict)


class ModelError(RuntimeError):
    """A model call failed. ``retryable`` errors (timeouts, rate limits, 5xx) are retried with backoff."""

    retryable: bool = False


class RetryableModelError(ModelError):
    retryable = True


class MalformedOutput(ModelError):
    """The response could not be parsed into the signature's output fields."""

    retryable = True


class ReplayMiss(ModelError):
    """replay-strict found no recorded response for a request."""
