"""Chat model for any OpenAI-compatible endpoint, through the official ``openai`` client.

Works with OpenAI, vLLM, Ollama and llama.cpp servers: set ``base_url`` (or OPENAI_BASE_URL)
and the model name; the key is read from the environment variable named by ``api_key_env``
(a placeholder is sent when it is unset, as local servers accept any key).

What happens to one call (docs/models.md has the full contract):

- the endpoint's circuit breaker is checked (an endpoint that could not be reached for
  ``breaker_failures`` calls in a row fails at once with ``EndpointDown``);
- the endpoint's rate limiter admits the request (requests/tokens per minute, max in flight);
- the reply body is read and checked by memlab, not trusted to the client: an HTTP 200 whose
  body is empty, not JSON or has no ``choices`` is a retryable error like a 5xx;
- every attempt has a total deadline (``deadline_s``, :mod:`memlab.llm.deadline`) besides the
  per-read timeout, so an endpoint that drips bytes cannot hold a call for minutes;
- timeouts, connection failures, 408/409/429/5xx are retried with backoff (Retry-After
  honoured); other 4xx fail at once. A Retry-After longer than the retry policy's
  ``max_retry_after_s`` stops the endpoint (its circuit breaker opens with that message): the
  run stops and says why, instead of every later call sleeping that long in silence;
- tool calls are returned as :class:`~memlab.llm.types.ToolCall` s, malformed ones included.

Credentials never leave this object: ``model_id``, ``describe()`` and every error message use
the redacted URL, and error texts are scrubbed of the key and URL secrets.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from memlab.llm import deadline, endpoints
from memlab.llm.limiter import RateLimit
from memlab.redact import redact_text, redact_url, register_secret, url_secrets
from memlab.llm.retry import RetryPolicy, parse_retry_after, with_retries
from memlab.llm.types import (
    ChatRequest,
    ChatResponse,
    EndpointDown,
    EndpointUnreachable,
    ModelError,
    RetryableModelError,
    ToolCall,
    Usage,
)
from memlab.tokens import count_message_tokens, count_tokens, count_tool_tokens


class OpenAIChatModel:
    """A chat model behind an OpenAI-compatible endpoint (the module docstring says what one call does)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        max_tokens: int | None = 512,
        timeout_s: float = 60.0,
        connect_timeout_s: float = 5.0,
        deadline_s: float | None = None,
        retry: RetryPolicy | None = None,
        rate_limit: RateLimit | None = None,
        breaker_failures: int = 5,
    ) -> None:
        import httpx
        import openai

        raw_url = base_url or os.environ.get("OPENAI_BASE_URL")
        api_key = os.environ.get(api_key_env)
        self.model = model
        self.base_url = redact_url(raw_url)
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.deadline_s = deadline_s or 2 * timeout_s
        self.retry = retry or RetryPolicy()
        self._openai = openai
        self._httpx = httpx
        self._secrets = [s for s in (api_key, *url_secrets(raw_url)) if s]
        for secret in self._secrets:  # a secret masked in every later error text, this model's or not
            register_secret(secret)
        client_url, query = split_query(raw_url) if raw_url else (None, {})
        timeout = httpx.Timeout(timeout_s, connect=connect_timeout_s)
        http_client = openai.DefaultHttpxClient(timeout=timeout)
        self.has_deadline = deadline.install(http_client)
        self.client = openai.OpenAI(
            base_url=client_url,
            api_key=api_key or "not-set",
            default_query=query or None,
            timeout=timeout,
            max_retries=0,  # memlab retries itself so every attempt is accounted for
            http_client=http_client,
        )
        self.model_id = f"openai:{model}" + (f"@{self.base_url}" if self.base_url else "")
        self.endpoint = endpoints.endpoint(self.base_url, model, self.model_id, rate_limit, breaker_failures)

    @classmethod
    def from_spec(cls, spec: Any, **_: Any) -> OpenAIChatModel:
        if not spec.model:
            raise ValueError("provider 'openai' needs `model` (the model name the endpoint serves)")
        return cls(
            spec.model,
            base_url=spec.base_url,
            api_key_env=spec.api_key_env,
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            timeout_s=spec.timeout_s,
            connect_timeout_s=spec.connect_timeout_s,
            deadline_s=spec.deadline_s,
            retry=RetryPolicy(max_attempts=spec.max_attempts, base_delay_s=spec.retry_base_delay_s),
            rate_limit=spec.rate_limit,
            breaker_failures=spec.breaker_failures,
        )

    def describe(self) -> dict[str, Any]:
        return {
            "provider": "openai",
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timeout_s": self.timeout_s,
            "connect_timeout_s": self.connect_timeout_s,
            "deadline_s": self.deadline_s if self.has_deadline else None,
            "max_attempts": self.retry.max_attempts,
            "retry_base_delay_s": self.retry.base_delay_s,
            "rate_limit": self.endpoint.limiter.limits.model_dump(),
            "breaker_failures": self.endpoint.breaker.threshold,
            "heuristic": False,
        }

    def _redact(self, text: str) -> str:
        """``text`` with this model's key and URL credentials masked (whatever their length), and
        everything :func:`memlab.redact.redact_text` masks."""
        return redact_text(text, self._secrets)

    def reject(self, request: ChatRequest) -> None:
        """Nothing to forget: a live model keeps no replies (see RecordReplayModel.reject)."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        breaker = self.endpoint.breaker
        try:
            resp, attempts = with_retries(lambda: self._once(request), self.retry)
        except EndpointUnreachable as exc:
            breaker.record_unreachable(str(exc))
            raise
        except EndpointDown:
            raise
        except ModelError:
            breaker.record_reachable()
            raise
        breaker.record_reachable()
        resp.attempts = attempts
        return resp

    # -- one attempt ------------------------------------------------------------------------------
    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {**request.params, "model": self.model, "messages": request.messages}
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.max_tokens or self.max_tokens:
            kwargs["max_tokens"] = request.max_tokens or self.max_tokens
        if request.tools:
            kwargs["tools"] = [t.to_openai() for t in request.tools]
        if request.tool_choice is not None:
            kwargs["tool_choice"] = request.openai_tool_choice()
        return kwargs

    def _prompt_tokens(self, request: ChatRequest) -> int:
        return count_message_tokens(request.messages) + count_tool_tokens(request.tools)

    def _once(self, request: ChatRequest) -> ChatResponse:
        self.endpoint.breaker.check()
        limiter = self.endpoint.limiter
        estimate = self._prompt_tokens(request) if limiter.limits.tokens_per_minute else 0
        with limiter.slot(estimate) as permit:
            t0 = time.perf_counter()
            body = self._send(request)
            latency = time.perf_counter() - t0
            text, tool_calls, finish_reason, usage = self._read(body)
            if usage is None:
                completion = count_tokens(text) + sum(count_tokens(c.name) + count_tokens(c.raw_arguments) for c in tool_calls)
                usage = Usage(prompt_tokens=self._prompt_tokens(request), completion_tokens=completion)
            if estimate:
                permit.settle(usage.prompt_tokens + usage.completion_tokens)
        return ChatResponse(
            text=text, usage=usage, model=self.model_id, latency_s=latency, tool_calls=tool_calls, finish_reason=finish_reason
        )

    def _send(self, request: ChatRequest) -> str:
        """POST the request; return the raw body of a 2xx reply. Every failure becomes a ModelError
        whose message is scrubbed of secrets (raised ``from None``: the client's exception may
        quote the request)."""
        oa, httpx = self._openai, self._httpx
        where = self.model_id
        try:
            with deadline.attempt_deadline(self.deadline_s if self.has_deadline else None):
                try:
                    raw = self.client.chat.completions.with_raw_response.create(**self._kwargs(request))
                    return raw.http_response.text
                except oa.APITimeoutError as exc:
                    if isinstance(exc.__cause__, httpx.ConnectTimeout):
                        raise EndpointUnreachable(f"connect timeout ({self.connect_timeout_s}s) to {where}") from None
                    if deadline.passed():
                        raise RetryableModelError(f"APITimeoutError from {where}: no complete reply within the "
                                                  f"attempt's {self.deadline_s:g}s deadline (deadline_s)") from None
                    raise RetryableModelError(f"APITimeoutError from {where}: no reply within {self.timeout_s}s") from None
        except oa.APIConnectionError as exc:
            cause = exc.__cause__
            detail = self._redact(f"{type(cause).__name__}: {cause}" if cause else str(exc))
            if isinstance(cause, httpx.ConnectError):
                raise EndpointUnreachable(f"cannot connect to {where}: {detail}") from None
            raise RetryableModelError(f"connection to {where} failed: {detail}") from None
        except oa.APIStatusError as exc:
            status = exc.status_code
            message = f"HTTP {status} from {where}: {self._redact(str(exc.message))[:500]}"
            if status in (408, 409, 429) or status >= 500:
                retry_after = parse_retry_after(exc.response.headers) if status in (429, 503) else None
                if retry_after is not None and retry_after > self.retry.max_retry_after_s:
                    raise self.endpoint.breaker.trip(
                        f"endpoint {where} asked to retry after {retry_after:.0f}s (HTTP {status} Retry-After), more than "
                        f"the {self.retry.max_retry_after_s:.0f}s memlab waits: stopping instead of stalling every later "
                        "call; resume when the endpoint accepts requests again") from None
                if retry_after is not None:
                    self.endpoint.limiter.defer(retry_after)
                raise RetryableModelError(message, retry_after_s=retry_after) from None
            raise ModelError(message) from None
        except oa.OpenAIError as exc:
            raise ModelError(f"{type(exc).__name__} from {where}: {self._redact(str(exc))[:500]}") from None

    def _read(self, body: str) -> tuple[str, list[ToolCall], str | None, Usage | None]:
        """The reply text, tool calls, finish reason and reported usage of a chat completion body.

        A body that is not a chat completion is retryable: proxies and overloaded servers do
        answer 200 with an empty or truncated body, and the next attempt usually succeeds."""
        where = self.model_id
        if not body.strip():
            raise RetryableModelError(f"empty response body (HTTP 200) from {where}")
        try:
            data = json.loads(body)
        except json.JSONDecodeError as exc:
            raise RetryableModelError(f"response from {where} is not JSON ({exc}): {self._redact(body[:200])!r}") from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise RetryableModelError(f"response from {where} has no choices: {self._redact(body[:200])!r}")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise RetryableModelError(f"response from {where} has no message in its first choice: {self._redact(body[:200])!r}")
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        tool_calls = [_tool_call(raw, i) for i, raw in enumerate(message.get("tool_calls") or [])]
        usage = None
        reported = data.get("usage")
        if isinstance(reported, dict) and isinstance(reported.get("prompt_tokens"), int):
            details = reported.get("prompt_tokens_details")
            cached = details.get("cached_tokens") if isinstance(details, dict) else None
            usage = Usage(prompt_tokens=reported["prompt_tokens"], completion_tokens=reported.get("completion_tokens") or 0,
                          cached_tokens=cached if isinstance(cached, int) and cached > 0 else 0, source="api")
        return text, tool_calls, choices[0].get("finish_reason"), usage


def _tool_call(raw: Any, index: int) -> ToolCall:
    """One entry of ``message.tool_calls``; a malformed entry becomes a ToolCall with ``error`` set."""
    if not isinstance(raw, dict) or not isinstance(raw.get("function"), dict):
        return ToolCall(id=f"call_{index}", name="", raw_arguments=json.dumps(raw), error="tool call has no function object")
    fn = raw["function"]
    args = fn.get("arguments")
    call = ToolCall.from_raw(str(raw.get("id") or f"call_{index}"), str(fn.get("name") or ""), args if isinstance(args, str) else json.dumps(args))
    if not call.name:
        call.error = "tool call has no function name" + (f"; {call.error}" if call.error else "")
    return call


def dspy_lm(spec: Any) -> Any:
    """A ``dspy.LM`` on the same endpoint as ``spec`` (for users composing their own DSPy programs).

    memlab's own roles do not need it: they format/parse with DSPy's ChatAdapter and call
    :class:`OpenAIChatModel` so record/replay and token accounting see every call.
    """
    import dspy

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return dspy.LM(
        f"openai/{spec.model}",
        api_base=spec.base_url or os.environ.get("OPENAI_BASE_URL"),
        api_key=os.environ.get(spec.api_key_env) or "not-set",
        temperature=spec.temperature,
        max_tokens=spec.max_tokens,
        cache=False,
        num_retries=spec.max_attempts,
    )


def split_query(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its query string, and the query as a dict.

    The ``openai`` client appends the route to ``base_url`` textually, so a query left in the base
    URL ends up in the middle of the path (``/v1?key=x/chat/completions``); it must be sent as
    ``default_query`` instead.
    """
    from urllib.parse import parse_qsl, urlsplit, urlunsplit

    parts = urlsplit(url)
    base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", parts.fragment))
    return base, dict(parse_qsl(parts.query, keep_blank_values=True))
