"""Pydantic models of memlab's native dataset format.

A dataset is a set of scripted conversations. Each conversation belongs to one namespace
(the user/agent whose memory it fills), is split into timestamped sessions of turns, and
carries probes: questions asked right after a given turn, with gold answers and the turn
ids that hold the evidence. See ``datasets/README.md`` for the format and its JSON Schema.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Category(str, Enum):
    """What memory ability a probe tests."""

    single_hop = "single_hop"
    multi_session = "multi_session"
    temporal = "temporal"
    knowledge_update = "knowledge_update"
    abstention = "abstention"
    preference = "preference"
    agentic = "agentic"
    injection = "injection"
    open_domain = "open_domain"


Role = Literal["user", "assistant", "tool", "system"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Turn(_Strict):
    id: str = Field(description="Unique within the conversation; probes cite it as evidence.")
    role: Role
    text: str = Field(min_length=1)
    speaker: str | None = Field(default=None, description="Display name (e.g. LoCoMo speaker).")
    timestamp: datetime | None = Field(default=None, description="Defaults to the session timestamp.")
    tool_name: str | None = Field(default=None, description="For role=tool: the tool that produced this observation.")
    facts: list[str] = Field(default_factory=list, description="The durable facts this turn states (annotation; the "
                             "oracle extractor stores exactly these). Unannotated evidence turns fall back to their text.")
    meta: dict[str, str | int | float | bool | None] = Field(default_factory=dict)


class Session(_Strict):
    id: str
    timestamp: datetime = Field(description="When the session took place (ISO 8601).")
    turns: list[Turn] = Field(min_length=1)


class GoldAnswer(_Strict):
    text: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list, description="Other accepted surface forms.")

    def forms(self) -> list[str]:
        return [self.text, *self.aliases]


class Probe(_Strict):
    id: str
    after_turn: str = Field(description="The probe is asked right after this turn id.")
    question: str = Field(min_length=1)
    category: Category
    gold: list[GoldAnswer] = Field(default_factory=list)
    gold_match: Literal["any", "all"] = Field(
        default="any", description="'all': every gold answer must be present (multi-part answers)."
    )
    evidence: list[str] = Field(default_factory=list, description="Turn ids holding the answer.")
    superseded: list[str] = Field(
        default_factory=list, description="Earlier values that must no longer be asserted (knowledge updates)."
    )
    abstain: bool = Field(default=False, description="True when the right response is to say it is unknown.")
    forbidden: list[str] = Field(
        default_factory=list, description="Strings that must never appear in memory or answer (injection probes)."
    )
    original_category: str | None = Field(default=None, description="Category label in the source benchmark.")
    asked_at: datetime | None = Field(default=None, description="Defaults to the after_turn's timestamp.")

    @field_validator("gold", mode="before")
    @classmethod
    def _coerce_gold(cls, value: object) -> object:
        # Allow the short forms `gold: Lisbon` and `gold: [Lisbon, {text: Porto, aliases: [...]}]`.
        if isinstance(value, (str, int, float)):
            value = [value]
        if isinstance(value, list):
            return [{"text": str(v)} if isinstance(v, (str, int, float)) else v for v in value]
        return value


class Conversation(_Strict):
    id: str
    namespace: str | None = Field(default=None, description="User/agent whose memory this fills; defaults to id.")
    speakers: dict[str, str] = Field(default_factory=dict, description="Role → display name.")
    sessions: list[Session] = Field(min_length=1)
    probes: list[Probe] = Field(default_factory=list)
    meta: dict[str, str | int | float | bool | None] = Field(default_factory=dict)

    @property
    def ns(self) -> str:
        return self.namespace or self.id

    def turns(self) -> list[tuple[Session, Turn]]:
        return [(s, t) for s in self.sessions for t in s.turns]


class Dataset(_Strict):
    name: str
    version: str = "1"
    description: str = ""
    conversations: list[Conversation] = Field(min_length=1)
    meta: dict[str, str | int | float | bool | None] = Field(default_factory=dict)

    def probes(self) -> list[tuple[Conversation, Probe]]:
        return [(c, p) for c in self.conversations for p in c.probes]
