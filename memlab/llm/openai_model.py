"""Chat model for any OpenAI-compatible endpoint, through the official ``openai`` client.

Works with OpenAI, vLLM, Ollama and llama.cpp servers: set ``base_url`` (or OPENAI_BASE_URL)
and the model name; the key is read from the environment variable named by ``api_key_env``
(a placeholder is sent when it is unset, as local servers accept any key). Transport errors,
timeouts, rate limits and 5xx answers are retried with exponential backoff.
"""

from __future__ import annotations

import os
import time
from typing import Any

from memlab.llm.retry import RetryPolicy, with_retries
from memlab.llm.types import ChatRequest, ChatResponse, ModelError, RetryableModelError, Usage
from memlab.tokens import count_message_tokens, count_tokens


class OpenAIChatModel:
    is_heuristic = False

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        max_tokens: int | None = 512,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        import openai

        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self._openai = openai
        self.client = openai.OpenAI(
            base_url=self.base_url,
            api_key=os.environ.get(api_key_env) or "not-set",
            timeout=timeout_s,
            max_retries=0,  # memlab retries itself so every attempt is accounted for
        )
        self.model_id = f"openai:{model}" + (f"@{self.base_url}" if self.base_url else "")

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
            retry=RetryPolicy(max_attempts=spec.max_attempts, base_delay_s=spec.retry_base_delay_s),
        )

    def describe(self) -> dict[str, Any]:
        return {
            "provider": "openai",
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "heuristic": False,
        }

    def _once(self, request: ChatRequest) -> ChatResponse:
        oa = self._openai
        t0 = time.perf_counter()
        try:
            kwargs: dict[str, Any] = {"model": self.model, "messages": request.messages, "temperature": request.temperature}
            if request.max_tokens or self.max_tokens:
                kwargs["max_tokens"] = request.max_tokens or self.max_tokens
            resp = self.client.chat.completions.create(**kwargs)
        except (oa.APITimeoutError, oa.APIConnectionError, oa.RateLimitError, oa.InternalServerError) as exc:
            raise RetryableModelError(f"{type(exc).__name__} from {self.model_id}: {exc}") from exc
        except oa.APIStatusError as exc:
            if exc.status_code in (408, 409, 429) or exc.status_code >= 500:
                raise RetryableModelError(f"HTTP {exc.status_code} from {self.model_id}: {exc}") from exc
            raise ModelError(f"HTTP {exc.status_code} from {self.model_id}: {exc}") from exc
        latency = time.perf_counter() - t0
        try:
            text = resp.choices[0].message.content or ""
        except (AttributeError, IndexError, TypeError) as exc:
            raise RetryableModelError(f"malformed response from {self.model_id}: {resp!r:.200}") from exc
        if resp.usage is not None and resp.usage.prompt_tokens is not None:
            usage = Usage(prompt_tokens=resp.usage.prompt_tokens, completion_tokens=resp.usage.completion_tokens or 0, source="api")
        else:
            usage = Usage(prompt_tokens=count_message_tokens(request.messages), completion_tokens=count_tokens(text))
        return ChatResponse(text=text, usage=usage, model=self.model_id, latency_s=latency)

    def complete(self, request: ChatRequest) -> ChatResponse:
        resp, attempts = with_retries(lambda: self._once(request), self.retry)
        resp.__dict__["attempts"] = attempts
        return resp


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
