"""Value types of the model layer: requests, tools, responses, usage, per-call records and errors."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ROLE_PURPOSES: tuple[str, ...] = ("agent", "extract", "gate", "consolidate", "summarize", "compress", "answer", "judge")
"""The accounting purposes of model calls, and the per-role model keys of a config's ``models:``."""

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""OpenAI's rule for function names; checked here so a bad name fails before any request is sent."""


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    """Prompt tokens the endpoint served from its prompt cache (OpenAI's
    ``usage.prompt_tokens_details.cached_tokens``; part of ``prompt_tokens``, billed at the cached rate)."""
    source: Literal["api", "tiktoken"] = "tiktoken"
    """'api' when the server reported usage, 'tiktoken' when memlab counted cl100k tokens itself."""


class ToolSpec(BaseModel):
    """A function the model may call: its name, what it does and a JSON-schema of its arguments."""

    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    @field_validator("name")
    @classmethod
    def _valid_name(cls, name: str) -> str:
        if not _TOOL_NAME.match(name):
            raise ValueError(f"tool name {name!r} must be 1-64 characters of letters, digits, '_' or '-'")
        return name

    @field_validator("parameters")
    @classmethod
    def _object_schema(cls, parameters: dict[str, Any]) -> dict[str, Any]:
        if parameters.get("type") != "object":
            raise ValueError(f"tool parameters must be a JSON schema of type 'object', got type {parameters.get('type')!r}")
        return parameters

    def to_openai(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description, "parameters": self.parameters}}


class ToolCall(BaseModel):
    """One tool call a model made. A malformed call is kept, not raised: ``error`` says what is wrong
    with ``raw_arguments`` so an agent can show the model its mistake and let it try again."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str = ""
    error: str | None = None

    @classmethod
    def from_raw(cls, id: str, name: str, raw_arguments: str | None) -> ToolCall:
        """Parse the argument string a model produced (``""`` means no arguments, as OpenAI sends it)."""
        raw = raw_arguments or ""
        if not raw.strip():
            return cls(id=id, name=name, raw_arguments=raw)
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            return cls(id=id, name=name, raw_arguments=raw, error=f"arguments are not valid JSON: {exc}")
        if not isinstance(value, dict):
            return cls(id=id, name=name, raw_arguments=raw, error=f"arguments must be a JSON object, got {type(value).__name__}")
        return cls(id=id, name=name, arguments=value, raw_arguments=raw)

    def to_openai(self) -> dict[str, Any]:
        """The call as it goes back to the endpoint inside an assistant message's ``tool_calls``."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.raw_arguments}}


ToolChoice = Literal["auto", "none", "required"] | str
"""``auto`` | ``none`` | ``required`` | the name of one of the request's tools (that tool must be called)."""


class ChatRequest(BaseModel):
    """One chat completion request. ``signature`` names the role (a label for records and replay
    diagnostics); every model — the offline one included — answers from ``messages`` alone.

    ``messages`` are OpenAI chat messages, so besides ``role``/``content`` they may carry an
    assistant's ``tool_calls`` or a ``tool`` message's ``tool_call_id``.
    """

    messages: list[dict[str, Any]]
    purpose: str
    temperature: float | None = 0.0
    """None: not sent (the endpoint's default applies), as when a library's request leaves it out."""
    max_tokens: int | None = None
    signature: str | None = None
    output_fields: list[str] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    tool_choice: ToolChoice | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    """Other OpenAI request parameters sent as given (``response_format``, ``top_p``, ``seed``...):
    what an external library's request carries beside the fields above (memlab/external/ledger.py)."""

    @model_validator(mode="after")
    def _tool_choice_names_a_tool(self) -> ChatRequest:
        choice = self.tool_choice
        if choice is None or choice in ("auto", "none"):
            return self
        if not self.tools:
            raise ValueError(f"tool_choice {choice!r} needs tools, but the request offers none")
        if choice != "required" and choice not in {t.name for t in self.tools}:
            raise ValueError(f"tool_choice {choice!r} is not one of the offered tools {[t.name for t in self.tools]}")
        return self

    def openai_tool_choice(self) -> str | dict[str, Any] | None:
        if self.tool_choice is None or self.tool_choice in ("auto", "none", "required"):
            return self.tool_choice
        return {"type": "function", "function": {"name": self.tool_choice}}


class ChatResponse(BaseModel):
    text: str
    usage: Usage
    model: str
    latency_s: float = 0.0
    cached: bool = False
    parsed: dict[str, Any] | None = None
    """Structured outputs when the backend produced them directly (heuristic); else parsed from text."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: str | None = None
    """Why generation stopped, as the endpoint said it: 'stop', 'length', 'tool_calls', ..."""
    attempts: int = 1
    """Requests it took, retries included (1 for a cache hit)."""


class CallRecord(BaseModel):
    """What the run log keeps for every model call (one per logical call, retries included)."""

    call_id: str
    purpose: str
    signature: str | None = None
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    """Of ``prompt_tokens``, those the endpoint reported as served from its prompt cache."""
    token_source: str = "tiktoken"
    latency_s: float = 0.0
    cached: bool = False
    attempts: int = 1
    ok: bool = True
    error: str | None = None
    scope: dict[str, Any] = Field(default_factory=dict)
    tools_offered: list[str] = Field(default_factory=list)
    """Names of the tools the request offered (their schemas are billed as prompt tokens)."""
    tool_calls: list[str] = Field(default_factory=list)
    """Names of the tools the model called, in order, repeats kept (so the count is its length)."""
    caller: str | None = None
    """The external library that made the call through memlab's endpoint (``mem0``, ``langmem``);
    None for memlab's own roles and agents."""


class ModelError(RuntimeError):
    """A model call failed. ``retryable`` errors (timeouts, rate limits, 5xx) are retried with backoff."""

    retryable: bool = False
    attempts: int = 1


class RetryableModelError(ModelError):
    """A failure worth retrying. ``retry_after_s`` is the wait the endpoint asked for (Retry-After), if any."""

    retryable = True

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class EndpointUnreachable(RetryableModelError):
    """No connection could be made (refused, DNS failure, connect timeout): what the circuit breaker counts."""


class EndpointDown(ModelError):
    """The endpoint's circuit breaker is open: calls fail at once instead of waiting on a dead server.

    A caller running many calls (the runner) should stop and exit non-zero: every further call to
    this endpoint would fail the same way, and its results would be failures, not measurements.
    ``message`` replaces the default one when the breaker opened for another reason (an endpoint
    that asked to wait longer than the retry policy allows).
    """

    def __init__(self, endpoint: str, failures: int, last_error: str, message: str | None = None) -> None:
        super().__init__(message or (
            f"endpoint {endpoint} is down: {failures} consecutive calls failed to connect "
            f"(last error: {last_error}); further calls fail immediately"
        ))
        self.endpoint = endpoint
        self.failures = failures
        self.last_error = last_error


class ReplayMiss(ModelError):
    """replay-strict found no recorded response for a request."""
