"""The state a composed strategy's components share while a unit is played.

Components never call each other: an extractor leaves :class:`Candidate` objects in
``state.candidates`` and the consolidator takes them; every component reports what it did
through ``state.out`` (memory operations, compressions, agent steps), which the strategy hands
to the runner after each turn. Memory ids come from :class:`IdFactory`, so the same config
gives the same ids — and the same tie-breaks in every store — on every run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from memlab.memory.item import MemoryEvent
from memlab.strategies.base import AgentStep, CompressionEvent, MemoryContext, StepOutput, TurnEvent


@dataclass
class Candidate:
    """A proposed long-term memory, with the turns it came from (provenance)."""

    text: str
    kind: str
    source_turn_ids: list[str]
    importance: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    origin: str = "extract"
    """What proposed it: ``extract`` (an extraction pass) or ``agent_tool`` (the agent's store_fact)."""


@dataclass
class Invocation:
    """One user message and the turns that followed it until the next user message."""

    index: int
    events: list[TurnEvent] = field(default_factory=list)

    @property
    def turn_ids(self) -> list[str]:
        return [e.turn.id for e in self.events]

    @property
    def transcript(self) -> str:
        return "\n".join(e.line for e in self.events)


class IdFactory:
    """Deterministic memory ids: sha256(namespace, sequence number), restarted with each unit."""

    def __init__(self) -> None:
        self.namespace = ""
        self.seq = 0

    def reset(self, namespace: str) -> None:
        self.namespace = namespace
        self.seq = 0

    def __call__(self) -> str:
        self.seq += 1
        return hashlib.sha256(f"{self.namespace}\x00{self.seq}".encode()).hexdigest()[:32]


@dataclass
class Query:
    """A question to assemble context for; its embedding is computed once and shared."""

    question: str
    now: datetime
    embedder: Any = None
    _vec: np.ndarray | None = None
    evidence: list[str] | None = None
    """The probe's evidence turn ids — privileged: only the ``oracle`` bound reads them."""

    def embedding(self) -> np.ndarray:
        if self._vec is None:
            self._vec = self.embedder.embed([self.question])[0]
        return self._vec


@dataclass
class StrategyState:
    """Per-strategy runtime state shared by its components."""

    env: Any
    store: Any | None
    namespace: str = ""
    """The store namespace (run- and strategy-scoped), not the dataset's bare namespace."""
    conversation_id: str = ""
    now: datetime | None = None
    candidates: list[Candidate] = field(default_factory=list)
    invocation: Invocation | None = None
    event: TurnEvent | None = None
    """The turn being taken in (what a tool call made now cites as its source)."""
    ids: IdFactory = field(default_factory=IdFactory)
    out: StepOutput = field(default_factory=StepOutput)
    assemble_context: Callable[[Query], MemoryContext] | None = None
    """The strategy's context assembly, for components (an agent) that need the full context."""
    tools: Callable[[], list[Any]] | None = None
    """The memory tools the strategy's components offer while an invocation is replayed."""

    def emit(self, op: MemoryEvent) -> None:
        self.out.ops.append(op)

    def compressed(self, event: CompressionEvent) -> None:
        self.out.compressions.append(event)

    def acted(self, step: AgentStep) -> None:
        self.out.agent_steps.append(step)

    def take(self) -> StepOutput:
        """Hand over what was done since the last call, and start a fresh record."""
        out, self.out = self.out, StepOutput()
        return out
