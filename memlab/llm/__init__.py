"""The model layer: one chat interface, OpenAI-compatible / heuristic / record-replay backends."""

from memlab.llm.base import CacheSpec, ChatModel, ModelSpec, make_model
from memlab.llm.types import CallRecord, ChatRequest, ChatResponse, ModelError, ReplayMiss, Usage

__all__ = ["CacheSpec", "CallRecord", "ChatModel", "ChatRequest", "ChatResponse", "ModelError", "ModelSpec", "ReplayMiss", "Usage", "make_model"]
