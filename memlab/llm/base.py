"""The one chat-model interface every LLM role goes through, and the model registry.

A :class:`ModelSpec` names a provider (``offline`` — the stand-in in memlab/offline — or ``openai`` — any OpenAI-compatible
endpoint: OpenAI, vLLM, Ollama, llama.cpp server), how to treat the endpoint (timeouts,
retries, rate limits, circuit breaker) and optionally a record/replay cache. The resolved
spec (defaults filled in, never the key itself, credentials in ``base_url`` redacted) goes
into every run manifest. docs/models.md describes the whole contract.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator, model_serializer

from memlab.llm.limiter import RateLimit
from memlab.llm.types import ChatRequest, ChatResponse
from memlab.redact import redact_url
from memlab.registry import Registry


@runtime_checkable
class ChatModel(Protocol):
    model_id: str
    """Label recorded with every call, e.g. 'offline-1+cb65404e' or 'openai:gpt-4o-mini@http://host/v1'."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        """One completion. Raises :class:`memlab.llm.types.ModelError` on failure."""

    def describe(self) -> dict[str, Any]:
        """Resolved, secret-free description for the run manifest."""

    def reject(self, request: ChatRequest) -> None:
        """The reply to ``request`` was unusable (it did not parse): never serve it again.

        A no-op for live models; a record/replay cache drops the entry so the next identical
        request goes to the endpoint instead of replaying the bad reply forever."""


class CacheSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["off", "record", "replay", "replay-strict"] = "off"
    path: str | None = Field(default=None, description="JSONL file of recorded calls (committable).")

    @field_validator("mode", mode="before")
    @classmethod
    def _yaml_off(cls, v: Any) -> Any:
        """YAML 1.1 reads an unquoted ``off`` as false: that can only mean the mode ``off``. Any other
        boolean (``on``, ``yes``, ``true``) names no mode."""
        if v is False:
            return "off"
        if v is True:
            raise ValueError("YAML read the mode as the boolean true (`on`, `yes` or `true` unquoted), which is no "
                             "cache mode; quote it: mode: 'off' | 'record' | 'replay' | 'replay-strict'")
        return v


class ModelSpec(BaseModel):
    """Which model answers the LLM roles. Secrets are read from ``api_key_env``, never stored."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # every float knob finite, every one bounded
    provider: str = "offline"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Sampling temperature (OpenAI's range, 0 to 2).")
    max_tokens: int | None = Field(default=512, ge=1, le=1_000_000, description="Most tokens one reply may hold "
                                   "(the offline model keeps to it too). None: the endpoint's own limit.")
    timeout_s: float = Field(default=60.0, gt=0, le=86_400, description="Read timeout: how long to wait for a reply.")
    connect_timeout_s: float = Field(default=5.0, gt=0, le=3_600, description="How long to wait for a connection: short, so a dead endpoint shows in seconds.")
    deadline_s: float | None = Field(
        default=None, gt=0, le=172_800, description="Total time one attempt may take, every read included (the read timeout "
        "restarts with each byte, so a server that sends a byte now and then never trips it). None: twice timeout_s.")
    max_attempts: int = Field(default=4, ge=1, le=100)
    retry_base_delay_s: float = Field(default=1.0, ge=0, le=3_600)
    rate_limit: RateLimit | None = Field(
        default=None, description="Client-side limits shared by every model on this endpoint: requests_per_minute, tokens_per_minute, max_in_flight."
    )
    breaker_failures: int = Field(
        default=5, ge=0, description="Consecutive calls that could not connect before the endpoint is declared down (0: never)."
    )
    cache: CacheSpec = Field(default_factory=CacheSpec)
    options: dict[str, Any] = Field(
        default_factory=dict, description="Provider-specific options, checked by the provider (offline: tool_reliability, seed)."
    )
    profile: str | dict[str, Any] | None = Field(
        default=None, description="Offline model only: its behaviour profile (docs/sensitivity.md), a YAML file (what "
        "`memlab profile` writes) or an inline mapping of knobs; None: the stand-in as built.")

    @field_validator("profile")
    @classmethod
    def _offline_only(cls, v: str | dict[str, Any] | None, info: Any) -> str | dict[str, Any] | None:
        if v is not None and info.data.get("provider") not in (None, "offline"):
            raise ValueError(f"a behaviour profile belongs to the offline model; provider {info.data.get('provider')!r} "
                             "is a real model, whose behaviour `memlab profile` measures")
        return v

    @model_serializer(mode="wrap")
    def _without_unset_profile(self, handler: Any) -> dict[str, Any]:
        """A spec without a profile dumps as it did before profiles existed, so the fingerprint of a
        run on the stand-in as built is unchanged (a resume and a baseline still match)."""
        data = handler(self)
        if data.get("profile") is None:
            data.pop("profile", None)
        return data

    @field_validator("base_url")
    @classmethod
    def _unambiguous_url(cls, v: str | None) -> str | None:
        from memlab.redact import AMBIGUOUS_URL, ambiguous_userinfo

        if ambiguous_userinfo(v):
            raise ValueError(f"base_url: {AMBIGUOUS_URL}")
        return v

    def register_secrets(self) -> None:
        """Register this model's API key (the value of ``api_key_env``) and its URL credentials
        as secrets (:func:`memlab.redact.register_secret`), so that every later error text masks
        them wherever they appear — a 401 body quoting ``Authorization: Bearer <key>`` included.
        Called when a run, a rejudge or a judge audit starts, before anything can fail."""
        from memlab.redact import install_log_redaction, register_env_secret, register_secrets_in

        install_log_redaction()
        if self.provider != "offline":
            register_env_secret(self.api_key_env)
        register_secrets_in(self.base_url)
        register_secrets_in(self.options)

    @field_serializer("base_url", when_used="json")
    def _redacted_base_url(self, base_url: str | None) -> str | None:
        """Manifests dump the spec as JSON: a password or key in the URL must not be written."""
        return redact_url(base_url)


MODELS: Registry[Any] = Registry("model provider")
MODELS.register("offline", "memlab.llm.offline_model:OfflineChatModel.from_spec")
MODELS.register("openai", "memlab.llm.openai_model:OpenAIChatModel.from_spec")


def make_model(spec: ModelSpec | dict[str, Any] | None = None, *, budget: Any = None, **context: Any) -> ChatModel:
    """Build the model a spec names, wrapped in record/replay when the spec asks for it.

    ``budget`` (a :class:`memlab.cost.budget.BudgetLedger`) books every call that reaches the
    endpoint before it is made: it sits under the cache, so a replayed reply costs nothing, and
    the offline stand-in is never wrapped."""
    spec = spec if isinstance(spec, ModelSpec) else ModelSpec.model_validate(spec or {})
    model = MODELS.get(spec.provider)(spec, **context)
    if budget is not None and spec.provider != "offline":  # the offline stand-in costs nothing
        model = budget.wrap(model, spec)
    if spec.cache.mode != "off":
        from memlab.llm.replay import RecordReplayModel

        if not spec.cache.path:
            raise ValueError("cache.path is required when cache.mode is not 'off'")
        model = RecordReplayModel(model, spec.cache.path, spec.cache.mode)
    return model
