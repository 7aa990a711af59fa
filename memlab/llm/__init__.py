"""The model layer: one chat interface, OpenAI-compatible / offline / record-replay backends.

docs/models.md is the contract: tool calling, retries, circuit breaker, rate limiter,
record/replay and redaction.
"""

from memlab.llm.base import CacheSpec, ChatModel, ModelSpec, make_model
from memlab.llm.endpoints import reset_endpoints, tripped
from memlab.llm.limiter import RateLimit
from memlab.llm.types import (
    CallRecord,
    ChatRequest,
    ChatResponse,
    EndpointDown,
    ModelError,
    ReplayMiss,
    ToolCall,
    ToolSpec,
    Usage,
)

__all__ = [
    "CacheSpec", "CallRecord", "ChatModel", "ChatRequest", "ChatResponse", "EndpointDown", "ModelError", "ModelSpec",
    "RateLimit", "ReplayMiss", "ToolCall", "ToolSpec", "Usage", "make_model", "reset_endpoints", "tripped",
]
