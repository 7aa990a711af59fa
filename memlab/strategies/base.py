"""What a memory strategy is to the runner, and the values it hands back.

A strategy owns its invocations. The runner replays a conversation turn by turn
(:meth:`Strategy.observe`); the strategy keeps whatever memory it wants, calls its own roles
or agent, and returns everything it did (memory operations, compressions, agent steps). When a
probe is asked, :meth:`Strategy.answer` assembles the context, answers, and returns both, so
the runner only schedules, records and scores. Every line of an injected context carries the
dataset turn ids it derives from, so recall can be scored by provenance as well as by string.

An *invocation* is one user message and the assistant/tool turns that follow it until the next
user message; the runner marks each turn with its invocation index, its step within it and
whether it is the invocation's last turn (it knows the next turn), so post-invocation work runs
before a probe asked right after the invocation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from datetime import datetime
from typing import Any, Protocol

from memlab.datasets.models import Turn
from memlab.memory.item import MemoryEvent
from memlab.runfolder.events import AgentStep, CompressionEvent  # re-exported: components import them from here


@dataclass(frozen=True)
class TurnEvent:
    """A dataset turn as a strategy sees it: with its conversation, namespace and time resolved."""

    conversation_id: str
    namespace: str
    session_id: str
    turn: Turn
    timestamp: datetime
    speaker: str
    invocation: int = 0
    """Index of the invocation this turn belongs to (0 for turns before the first user message)."""
    step: int = 0
    """Position within the invocation: 0 is the user message, 1.. the turns that follow it."""
    ends_invocation: bool = True
    """True when the next turn is a user message, or the conversation ends, after this one."""
    oracle_facts: list[str] = field(default_factory=list)
    """What the dataset says this turn states: its ``facts`` annotation, else its text when it is
    evidence for some probe. Only the oracle extractors read it (privileged information)."""

    @cached_property
    def line(self) -> str:
        """``[date] speaker: text``, as histories show a turn (built once: events are immutable,
        and a full history renders every past turn again for every probe)."""
        return f"[{self.timestamp.date().isoformat()}] {self.speaker}: {self.turn.text}"


@dataclass
class ContextLine:
    text: str
    source_turn_ids: list[str] = field(default_factory=list)
    kind: str = "message"
    score: float | None = None
    item_id: str | None = None
    """The stored memory this line shows (an agent sees it, to update or delete that memory)."""


@dataclass
class ContextSection:
    title: str
    lines: list[ContextLine] = field(default_factory=list)


@dataclass
class MemoryContext:
    """The memory a strategy injects into the agent's prompt for one probe."""

    sections: list[ContextSection] = field(default_factory=list)
    retrieval_latency_s: float = 0.0
    """Time spent inside the store's ``search`` calls only: what differs between backends."""
    retrieval_total_s: float = 0.0
    """Whole context assembly, including embedding the question (cached after its first use, so
    it depends on which strategy asked first) and reranking."""

    _text: tuple[tuple[int, ...], str] | None = field(default=None, init=False, repr=False, compare=False)
    _sources: tuple[tuple[int, ...], frozenset[str]] | None = field(default=None, init=False, repr=False, compare=False)

    def _shape(self) -> tuple[int, ...]:
        """Lines per section: what the memoised renderings below are checked against."""
        return tuple(len(s.lines) for s in self.sections)

    @property
    def text(self) -> str:
        """The context as the answerer sees it. Rendered once and kept while the sections hold the
        same number of lines (the answerer and the probe record both read it; a full history is
        ~1,900 lines); a context is filled by its strategy before it is read, never edited after."""
        shape = self._shape()
        if self._text is not None and self._text[0] == shape:
            return self._text[1]
        parts = []
        for s in self.sections:
            if s.lines:
                parts.append(f"## {s.title}\n" + "\n".join(line.text for line in s.lines))
        text = "\n\n".join(parts)
        self._text = (shape, text)
        return text

    @property
    def lines(self) -> list[ContextLine]:
        return [line for s in self.sections for line in s.lines]

    def agent_text(self) -> str:
        """The context as an agent sees it: like :attr:`text`, with stored memories prefixed by
        their ids (``[id] text``) so the agent can name them in update_fact / delete_fact."""
        parts = []
        for s in self.sections:
            if s.lines:
                body = "\n".join(f"[{line.item_id}] {line.text}" if line.item_id else line.text for line in s.lines)
                parts.append(f"## {s.title}\n{body}")
        return "\n\n".join(parts)

    def items(self) -> list[dict[str, Any]]:
        """Line by line, with section and provenance: what content-preserving recall is scored on."""
        return [{"text": line.text, "source_turn_ids": list(line.source_turn_ids), "kind": line.kind, "section": s.title}
                for s in self.sections for line in s.lines]

    def source_turn_ids(self) -> set[str]:
        """Every turn the context's lines derive from (a fresh set; computed once, like :attr:`text`)."""
        shape = self._shape()
        if self._sources is None or self._sources[0] != shape:
            self._sources = (shape, frozenset(t for s in self.sections for line in s.lines for t in line.source_turn_ids))
        return set(self._sources[1])


@dataclass
class StepOutput:
    """Everything a strategy did while taking in one turn (or starting / ending a conversation)."""

    ops: list[MemoryEvent] = field(default_factory=list)
    compressions: list[CompressionEvent] = field(default_factory=list)
    agent_steps: list[AgentStep] = field(default_factory=list)
    working_memory_tokens: int | None = None
    """Size of the agent's working memory after the turn (None for strategies without one)."""


@dataclass
class Answer:
    """A probe answered: the context that was injected, the answer (None on failure) and the steps taken."""

    context: MemoryContext
    answer: str | None
    error: str | None = None
    agent_steps: list[AgentStep] = field(default_factory=list)
    latency_s: float = 0.0
    answered: bool = True
    """False in a retrieval-only run (``answer_probes: false``): the context was assembled, the answerer
    was not called, so ``answer`` is None without a failure."""


class Strategy(Protocol):
    name: str

    def describe(self) -> dict[str, Any]:
        """The fully resolved spec (defaults filled in) for the manifest."""

    def begin_unit(self, namespace: str) -> None:
        """Start a unit of work on a store namespace: it is cleared (a fresh attempt starts from nothing)."""

    def begin_conversation(self, conversation_id: str) -> StepOutput:
        """A new conversation in the current namespace: short-term state starts empty, long-term memory stays."""

    def observe(self, event: TurnEvent) -> StepOutput:
        """Take in one turn; return what the strategy did."""

    def answer(self, question: str, now: datetime, evidence: list[str] | None = None) -> Answer:
        """Assemble the memory context for a question asked at ``now`` and answer it. ``evidence`` (the
        probe's evidence turn ids) is privileged information that only a bound may read."""

    def end_conversation(self) -> StepOutput:
        """Conversation over (close the open invocation, promote, flush)."""

    def close(self) -> None:
        """Release stores."""
