"""The one chat-model interface every LLM role goes through, and the model registry.

A :class:`ModelSpec` names a provider (``heuristic`` or ``openai`` — any OpenAI-compatible
endpoint: OpenAI, vLLM, Ollama, llama.cpp server) and optionally a record/replay cache. The
resolved spec (defaults filled in, never the key itself) goes into every run manifest.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from memlab.llm.types import ChatRequest, ChatResponse
from memlab.registry import Registry


@runtime_checkable
class ChatModel(Protocol):
    model_id: str
    """Label recorded with every call, e.g. 'heuristic-v1' or 'openai:gpt-4o-mini@http://host/v1'."""

    is_heuristic: bool

    def complete(self, request: ChatRequest) -> ChatResponse:
        """One completion. Raises :class:`memlab.llm.types.ModelError` on failure."""

    def describe(self) -> dict[str, Any]:
        """Resolved, secret-free description for the run manifest."""


class CacheSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["off", "record", "replay", "replay-strict"] = "off"
    path: str | None = Field(default=None, description="JSONL file of recorded calls (committable).")


class ModelSpec(BaseModel):
    """Which model answers the LLM roles. Secrets are read from ``api_key_env``, never stored."""

    model_config = ConfigDict(extra="forbid")
    provider: str = "heuristic"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int | None = 512
    timeout_s: float = 60.0
    max_attempts: int = 4
    retry_base_delay_s: float = 1.0
    cache: CacheSpec = Field(default_factory=CacheSpec)


MODELS: Registry[Any] = Registry("model provider")
MODELS.register("heuristic", "memlab.llm.heuristic_model:HeuristicChatModel.from_spec")
MODELS.register("openai", "memlab.llm.openai_model:OpenAIChatModel.from_spec")


def make_model(spec: ModelSpec | dict[str, Any] | None = None, **context: Any) -> ChatModel:
    """Build the model a spec names, wrapped in record/replay when the spec asks for it."""
    spec = spec if isinstance(spec, ModelSpec) else ModelSpec.model_validate(spec or {})
    model = MODELS.get(spec.provider)(spec, **context)
    if spec.cache.mode != "off":
        from memlab.llm.replay import RecordReplayModel

        if not spec.cache.path:
            raise ValueError("cache.path is required when cache.mode is not 'off'")
        model = RecordReplayModel(model, spec.cache.path, spec.cache.mode)
    return model
