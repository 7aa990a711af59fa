"""Memory items and the explicit memory-operation events recorded for every change.

Every item carries ``source_turn_ids``: the dataset turns it was derived from. Merges,
summaries and updates union their sources, so evidence recall can be scored on provenance
even when the stored text paraphrases the conversation.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def new_id() -> str:
    return uuid.uuid4().hex


class MemoryItem(BaseModel):
    """One stored memory. ``kind`` is the memory type (fact, preference, episode, summary, message...)."""

    id: str = Field(default_factory=new_id)
    namespace: str
    text: str
    kind: str = "fact"
    metadata: dict[str, Any] = Field(default_factory=dict)
    source_turn_ids: list[str] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime | None = None
    valid: bool = Field(default=True, description="False once invalidated (superseded); kept for history.")


class ScoredItem(BaseModel):
    item: MemoryItem
    score: float


class Op(str, Enum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    NOOP = "NOOP"
    INVALIDATE = "INVALIDATE"
    """Superseded or expired: kept with ``valid=False`` for audit, never retrieved as current."""


class MemoryEvent(BaseModel):
    """A memory operation, mem0-style: what changed, why, and from which turns."""

    op: Op
    item_id: str | None = None
    namespace: str
    kind: str = "fact"
    text: str = ""
    previous_text: str | None = None
    source_turn_ids: list[str] = Field(default_factory=list)
    reason: str = ""
    store: str = ""

    def record(self) -> dict[str, Any]:
        """The event as a JSON-ready dict in field order (``model_dump(mode="json")``'s result,
        built directly: every memory operation of a run goes through here)."""
        out = {name: getattr(self, name) for name in _EVENT_FIELDS}
        out["op"] = self.op.value
        out["source_turn_ids"] = list(self.source_turn_ids)
        return out


_EVENT_FIELDS = tuple(MemoryEvent.model_fields)
