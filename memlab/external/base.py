"""The strategy as the plug-in unit: what the harness gives an adapter, and the base class adapters
of real memory systems are built on.

A strategy type is registered with :func:`memlab.strategies.types.strategy_type` (the registry and
the resolution of a ``type:`` spec live there, beside the composed strategy).

A strategy type is any class with ``Params`` (a pydantic model), a constructor
``(params, env: AdapterEnv)`` and the six methods of :class:`memlab.strategies.base.Strategy`.
:class:`ExternalStrategy` implements those for an adapter of a memory library on top of three
hooks — :meth:`~ExternalStrategy.reset` (a fresh, empty memory for a unit),
:meth:`~ExternalStrategy.write` (messages in, memory operations out) and
:meth:`~ExternalStrategy.search` (a question in, memories out) — and adds what every adapter
needs: the conversation's recent messages (``window``), provenance of every stored memory
(the turns it came from, carried through updates), answers by memlab's own answerer (so every
strategy of a comparison is read by the same answerer), the local model endpoint
(:class:`~memlab.external.ledger.Ledger`) with the call's purpose bound, repeatable ids and the
conversation's clock (:mod:`memlab.external.determinism`), and error handling: anything the
library raises fails the unit (recorded; ``--resume`` redoes it), except an endpoint that is
down, which stops the run as it does for memlab's own roles. docs/external.md is the guide.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from memlab.memory.item import MemoryEvent, Op
from memlab.strategies.types import STRATEGY_TYPES, ResolvedExternal, library_info, missing_extra
from memlab.strategies.base import Answer, ContextLine, ContextSection, MemoryContext, StepOutput, TurnEvent

def chat_model_needed(resolved: ResolvedExternal) -> str | None:
    """The purpose whose model answers the strategy's own model calls, when it makes any."""
    cls = STRATEGY_TYPES.get(resolved.type)
    needs = getattr(cls, "needs_chat_model", None)
    if needs is None:
        return None
    return getattr(cls, "model_purpose", "extract") if needs(resolved.params) else None


def check_offline(config: Any) -> None:
    """Refuse, before any work, an external strategy whose library calls a chat model when that
    model is memlab's offline stand-in: the stand-in answers memlab's own roles (DSPy signatures)
    and nothing else, so a library's own prompts would fail call after call (docs/external.md).
    Reads the config's resolved strategies (nothing is validated again)."""
    for i, resolved in enumerate(config.typed_strategies()):
        if not isinstance(resolved, ResolvedExternal):
            continue
        purpose = chat_model_needed(resolved)
        if purpose is None:
            continue
        spec = config.models.get(purpose, config.model)
        if spec.provider == "offline":
            raise ValueError(
                f"strategies[{i}] ({resolved.name}): type {resolved.type!r} sends its own prompts to a chat model, and the "
                f"model for {purpose!r} is the offline stand-in, which answers only memlab's own roles: give it an "
                f"OpenAI-compatible endpoint (`models: {{{purpose}: {{provider: openai, model: ..., base_url: ...}}}}`; "
                "record once with `cache: {mode: record, path: ...}`, then replay offline with replay-strict)")


# -- what the harness gives an adapter -----------------------------------------------------------------
@dataclass
class AdapterEnv:
    """What a strategy type is built with (one per strategy per worker)."""

    name: str
    """The strategy's name in the run."""
    roles: Any
    """memlab's roles: ``roles.answer`` is the answerer every strategy of the run shares."""
    embedder: Any
    """The run's shared MiniLM embedder (``embed(texts) -> np.ndarray``, cached)."""
    work_dir: Path
    """A folder of the run for the library's own files (``<run>/stores/<strategy>``)."""
    seed: int = 0
    models: dict[str, Any] = field(default_factory=dict)
    """The run's chat models by purpose (``default`` for every purpose not configured)."""
    model_specs: dict[str, Any] = field(default_factory=dict)
    """Their specs (``ModelSpec``), by purpose."""

    def chat_model(self, purpose: str) -> Any:
        return self.models.get(purpose, self.models.get("default"))

    def model_name(self, purpose: str) -> str:
        """The model name the library should believe it talks to (the run's model for ``purpose``),
        so it formats its requests for that model as it would in production."""
        spec = self.model_specs.get(purpose) or self.model_specs.get("default")
        return getattr(spec, "model", None) or "memlab"

    def ledger(self, caller: str, purpose: str = "extract", *, chat: bool = True) -> Any:
        """Start memlab's local OpenAI-compatible endpoint for ``caller`` (docs: memlab.external.ledger)."""
        from memlab.embeddings import MINILM_ID
        from memlab.external.ledger import Ledger

        return Ledger(caller=caller, chat_model=self.chat_model(purpose) if chat else None, embedder=self.embedder,
                      embedding_model_id=MINILM_ID).start()


def build_external(resolved: ResolvedExternal, env: AdapterEnv) -> Any:
    """The adapter, built with the params validated when the config was (the object itself)."""
    cls = STRATEGY_TYPES.get(resolved.type)
    missing = missing_extra(cls)
    if missing:
        raise RuntimeError(missing)
    return cls(resolved.params, env)


# -- the base class of library adapters -----------------------------------------------------------------
class ExternalParams(BaseModel):
    """Parameters every library adapter takes."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    validations: ClassVar[Counter] = Counter()
    """How many times each adapter's params class was validated from data: once per strategy per
    run (tests/test_resolve_once.py)."""
    k: int = Field(default=8, ge=1, description="Memories the library's search returns into the context per question.")
    window: int = Field(default=0, ge=0, description="The conversation's last N messages also go into the context "
                        "(short-term memory; starts empty with each conversation). 0: none.")
    roles: list[Literal["user", "assistant", "tool", "system"]] = Field(
        default_factory=lambda: ["user", "assistant"], description="Turn roles handed to the library.")
    write_every: Literal["invocation", "turn"] = Field(
        default="invocation", description="Hand the library each finished invocation (a user message and the replies "
        "after it) in one call, or every turn on its own.")


    def model_post_init(self, _context: Any) -> None:
        ExternalParams.validations[type(self).__qualname__] += 1


@dataclass
class Message:
    """A turn as it is handed to a library."""

    role: str
    content: str
    turn_id: str
    speaker: str
    timestamp: datetime

    def openai(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass
class Hit:
    """A memory the library returned for a question."""

    text: str
    item_id: str | None = None
    score: float | None = None
    source_turn_ids: list[str] | None = None
    """None: the turns recorded when the adapter saw the item written."""


class ExternalSystemError(RuntimeError):
    """The library raised while the harness called it: the unit fails (and is redone by --resume)."""


class ExternalStrategy:
    """Base of library adapters: the Strategy protocol over reset / write / search hooks."""

    type_name: ClassVar[str] = ""
    library: ClassVar[str | None] = None
    """The distribution that provides the library (its version goes into the manifest)."""
    module: ClassVar[str | None] = None
    """The module it is imported as (checked when a config is validated)."""
    extra: ClassVar[str | None] = None
    """memlab's extra that installs it (named in the error when it is missing)."""
    model_purpose: ClassVar[str] = "extract"
    """The purpose the library's chat calls are recorded as, and whose model answers them."""
    memory_kind: ClassVar[str] = "fact"
    Params: ClassVar[type[ExternalParams]] = ExternalParams

    @classmethod
    def needs_chat_model(cls, params: Any) -> bool:
        """Whether the library calls a chat model itself with these parameters (then it cannot run
        on the offline stand-in; :func:`check_offline`)."""
        return False

    def __init__(self, params: Any, env: AdapterEnv) -> None:
        from memlab.external.determinism import seeded_ids

        self.params = params
        self.env = env
        self.name = env.name
        self.namespace = ""
        self.sources: dict[str, list[str]] = {}
        """Stored item id → the turns it came from (unioned over its updates)."""
        self.texts: dict[str, str] = {}
        """Stored item id → its current text (the previous text of an UPDATE)."""
        self.ledger: Any = None
        self._ids = seeded_ids("")
        self._window: deque[TurnEvent] = deque(maxlen=params.window)
        self._pending: list[TurnEvent] = []
        self._now: datetime | None = None

    # -- hooks ------------------------------------------------------------------------------------------
    def reset(self, namespace: str) -> None:
        """Start a unit: an empty memory for ``namespace`` (a fresh attempt starts from nothing)."""
        raise NotImplementedError

    def write(self, messages: list[Message]) -> list[MemoryEvent]:
        """Hand the library these messages; return the memory operations it reports (use :meth:`op`)."""
        raise NotImplementedError

    def search(self, query: str, now: datetime) -> list[Hit]:
        """The library's memories for ``query`` (at most ``params.k``)."""
        raise NotImplementedError

    def library_description(self) -> dict[str, Any]:
        """Adapter-specific facts for the manifest (library settings, features off)."""
        return {}

    def close_library(self) -> None:
        """Release the library's resources."""

    # -- helpers for adapters ----------------------------------------------------------------------------
    def op(self, op: Op | str, item_id: str | None, text: str, source_turn_ids: list[str], *, reason: str = "",
           kind: str | None = None) -> MemoryEvent:
        """A memory operation with provenance: an UPDATE keeps the turns the item came from before;
        its previous text is the one the adapter saw last."""
        op = Op(op)
        sources = list(dict.fromkeys([*(self.sources.get(item_id, []) if item_id and op is not Op.ADD else []),
                                      *source_turn_ids]))
        previous = self.texts.get(item_id) if item_id and op in (Op.UPDATE, Op.DELETE) else None
        if item_id:
            if op is Op.DELETE:
                self.texts.pop(item_id, None)
            elif op in (Op.ADD, Op.UPDATE):
                self.sources[item_id] = sources
                self.texts[item_id] = text
        return MemoryEvent(op=op, item_id=item_id, namespace=self.namespace, kind=kind or self.memory_kind, text=text,
                           previous_text=previous, source_turn_ids=sources, reason=reason, store=self.type_name)

    def call(self, what: str, fn: Callable[..., Any], *args: Any, purpose: str | None = None,
             now: datetime | None = None, **kwargs: Any) -> Any:
        """Call into the library: model calls it makes are recorded with ``purpose`` in the current
        scope, ids it draws are seeded by the unit, its clock reads ``now``. Whatever it raises
        fails the unit, naming the endpoint's failure when one caused it; an endpoint that is down
        stops the run."""
        from memlab.external.determinism import library_clock
        from memlab.llm.types import EndpointDown

        ledger = self.ledger
        bound = ledger.bound(purpose or self.model_purpose) if ledger is not None else _Null()
        try:
            with bound, self._ids.active(), library_clock(now or self._now):
                return fn(*args, **kwargs)
        except Exception as exc:
            from memlab.llm.endpoints import tripped

            fault = ledger.fault if ledger is not None else None
            down = fault if isinstance(fault, EndpointDown) else tripped()
            if down is not None:  # the endpoint is down: stop the run, as memlab's own roles do
                raise down from exc
            detail = f"; memlab's endpoint answered it with: {type(fault).__name__}: {fault}" if fault is not None else ""
            raise ExternalSystemError(f"{self.type_name}: {what} raised {type(exc).__name__}: {exc}{detail}") from exc

    # -- the Strategy protocol ------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        out = {"name": self.name, "type": self.type_name, "params": self.params.model_dump(mode="json"),
               "library": library_info(type(self)), **self.library_description()}
        if self.ledger is not None:
            out["endpoint"] = self.ledger.describe()
        return out

    def begin_unit(self, namespace: str) -> None:
        from memlab.external.determinism import seeded_ids

        self.namespace = namespace
        self.sources.clear()
        self.texts.clear()
        # ids hash the logical namespace (like memlab's own IdFactory): the same unit played again
        # — a rerun, a resume, a replay — draws the same ids and sends the same prompts
        self._ids = seeded_ids(f"{self.env.seed}/{self.name}/{namespace}")
        self._window.clear()
        self._pending = []
        self.reset(namespace)

    def begin_conversation(self, conversation_id: str) -> StepOutput:
        self._window.clear()
        self._pending = []
        return StepOutput()

    def observe(self, event: TurnEvent) -> StepOutput:
        self._now = event.timestamp
        if self.params.window:
            self._window.append(event)
        if event.turn.role in self.params.roles and event.turn.text:
            self._pending.append(event)
        if self.params.write_every == "turn" or event.ends_invocation:
            return StepOutput(ops=self._flush())
        return StepOutput()

    def end_conversation(self) -> StepOutput:
        return StepOutput(ops=self._flush())

    def _flush(self) -> list[MemoryEvent]:
        events, self._pending = self._pending, []
        if not events:
            return []
        messages = [Message(e.turn.role, e.turn.text, e.turn.id, e.speaker, e.timestamp) for e in events]
        return list(self.write(messages))

    def context(self, question: str, now: datetime) -> MemoryContext:
        t0 = time.perf_counter()
        hits = self.call("search", self.search, question, now, purpose="retrieve", now=now)
        elapsed = time.perf_counter() - t0
        lines = [ContextLine(text=h.text, kind=self.memory_kind, score=h.score, item_id=h.item_id,
                             source_turn_ids=list(h.source_turn_ids if h.source_turn_ids is not None
                                                  else self.sources.get(h.item_id or "", [])))
                 for h in hits[: self.params.k]]
        sections = [ContextSection(f"Long-term memory ({self.type_name})", lines)]
        if self.params.window:
            sections.append(ContextSection("Recent messages", [ContextLine(text=e.line, source_turn_ids=[e.turn.id], kind="message")
                                                               for e in self._window]))
        # the library embeds the question inside its search: latency includes it (docs/external.md)
        return MemoryContext(sections=sections, retrieval_latency_s=elapsed, retrieval_total_s=elapsed)

    def answer(self, question: str, now: datetime, evidence: list[str] | None = None) -> Answer:
        from memlab.strategies.answer.modes import answer_from_context

        return answer_from_context(self.env.roles, self.context(question, now), question, now)

    def close(self) -> None:
        try:
            self.close_library()
        finally:
            if self.ledger is not None:
                self.ledger.close()
                self.ledger = None


class _Null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
