"""Memory items and the explicit memory-operation events recorded for every change.

Every item carries ``source_turn_ids``: the dataset turns it was derived from. Merges,
summaries and updates union their sources, so evidence recall can be scored on provenance
even when the stored text paraphrases the conversation.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, Field

from memlab.runfolder.events import MemoryEvent, Op

__all__ = ["MemoryEvent", "MemoryItem", "Op", "ScoredItem", "new_id", "utcnow"]
"""``MemoryEvent`` and ``Op`` live with the run folder's other events (:mod:`memlab.runfolder.events`): a
memory operation is what a strategy reports, and a ``memory_ops`` row is its scope plus that event."""


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


