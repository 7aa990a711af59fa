"""Extraction: how long-term memory candidates get proposed — one design axis memlab exists for.

Per message (today's classic designs):
- ``post_turn``: after each turn by an allowed role, the ExtractFacts role (purpose ``extract``)
  turns the message into zero or more facts.
- ``gated``: the ShouldRemember role (purpose ``gate``) classifies each message on the hot path;
  only messages it keeps go through ExtractFacts. Cheaper when most turns are chit-chat.
- ``verbatim``: store every message of an allowed role as-is (no model calls) — the raw-RAG
  baseline, and an upper bound on what extraction can lose.

Per invocation (seed 000's two options):
- ``post_pass``: after each invocation, ONE extraction call over the invocation's transcript
  (ExtractFromTranscript, purpose ``extract``) proposes facts, each citing the turns it came from.
- ``agent_tool``: facts are written only when the agent calls ``store_fact`` / ``update_fact`` /
  ``delete_fact`` while it works; the tool schemas and calls are part of the agent's own prompts
  (purpose ``agent``). This component only offers those tools; without an agent, or when the
  agent calls no tool, nothing is written.

Every candidate carries the ids of the turns it came from (provenance); the consolidator decides
what it does to the store.
"""

from __future__ import annotations

from pydantic import Field

from memlab.memory.item import MemoryEvent, Op
from memlab.roles.program import RoleFailure
from memlab.strategies.base import TurnEvent
from memlab.strategies.slots import Component, Params, component, declare_slot
from memlab.strategies.state import Candidate, Invocation, StrategyState
from memlab.strategies.tools import MemoryTool, object_schema

declare_slot("extractor", "how long-term memory candidates are proposed", order=30)


def speaker_label(event: TurnEvent) -> str:
    t = event.turn
    if t.role == "tool":
        return f"tool: {t.tool_name or 'tool'}"
    return f"{t.role}: {event.speaker}" if event.speaker and event.speaker != t.role else t.role


class _RolesParams(Params):
    roles: list[str] = ["user"]
    """Message roles whose turns are considered (user; add 'tool' for agentic observations)."""


class PerMessage(Component):
    """Shared by the per-message extractors: which roles count, and a few preceding messages as context."""

    Params = _RolesParams

    def begin_conversation(self, state: StrategyState) -> None:
        self.recent: list[TurnEvent] = []

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        if event.turn.role in self.params.roles:
            state.candidates.extend(self.propose(event))
        self.recent = (self.recent + [event])[-4:]

    def propose(self, event: TurnEvent) -> list[Candidate]:
        raise NotImplementedError

    def _extract(self, event: TurnEvent, kind: str = "fact", importance: float | None = None) -> list[Candidate]:
        context = "\n".join(e.line for e in self.recent[-3:])
        try:
            res = self.env.roles.extract(message=event.turn.text, speaker=speaker_label(event), context=context,
                                         date=event.timestamp.date().isoformat())
        except RoleFailure:
            self.failures += 1
            return []
        facts = [str(f).strip() for f in res.get("facts") or [] if str(f).strip()]
        return [Candidate(f, kind, [event.turn.id], importance) for f in facts]


@component("extractor", "post_turn")
class PostTurnExtractor(PerMessage):
    """One ExtractFacts call after every message of an allowed role."""

    def propose(self, event: TurnEvent) -> list[Candidate]:
        return self._extract(event)


@component("extractor", "gated")
class GatedExtractor(PerMessage):
    """A ShouldRemember gate on every message; only kept messages are extracted."""

    class Params(_RolesParams):
        min_importance: float = 0.3

    def propose(self, event: TurnEvent) -> list[Candidate]:
        try:
            verdict = self.env.roles.gate(message=event.turn.text, speaker=speaker_label(event))
        except RoleFailure:
            self.failures += 1
            return []
        importance = float(verdict.get("importance") or 0)
        if not verdict.get("remember") or importance < self.params.min_importance:
            return []
        kind = verdict.get("kind") if verdict.get("kind") not in (None, "none") else "fact"
        return self._extract(event, kind=kind, importance=importance)


@component("extractor", "verbatim")
class VerbatimExtractor(PerMessage):
    """Every message of an allowed role stored as-is (no model calls)."""

    def propose(self, event: TurnEvent) -> list[Candidate]:
        return [Candidate(f"{event.speaker}: {event.turn.text}", "message", [event.turn.id])]


@component("extractor", "post_pass")
class PostPassExtractor(Component):
    """One extraction call over each finished invocation's transcript."""

    class Params(Params):
        roles: list[str] = ["user", "tool"]
        """Roles whose turns the transcript shows (the assistant's own words are left out by default)."""

    def on_invocation_end(self, invocation: Invocation, state: StrategyState) -> None:
        events = [e for e in invocation.events if e.turn.role in self.params.roles]
        if not events:
            return
        transcript = "\n".join(f"[{e.turn.id}] {speaker_label(e)}: {e.turn.text}" for e in events)
        try:
            res = self.env.roles.extract_invocation(transcript=transcript, date=events[0].timestamp.date().isoformat())
        except RoleFailure:
            self.failures += 1
            return
        known = {e.turn.id for e in events}
        for fact in res.get("facts") or []:
            text, cited = _sourced(fact)
            if not text:
                continue
            sources = [t for t in cited if t in known] or sorted(known, key=[e.turn.id for e in events].index)
            state.candidates.append(Candidate(text, "fact", sources))


def _sourced(fact: object) -> tuple[str, list[str]]:
    """A fact from ExtractFromTranscript: a {text, turn_ids} object, or a bare string (no citation)."""
    if isinstance(fact, dict):
        return str(fact.get("text") or "").strip(), [str(t) for t in fact.get("turn_ids") or []]
    text = getattr(fact, "text", None)
    if text is not None:
        return str(text).strip(), [str(t) for t in getattr(fact, "turn_ids", []) or []]
    return str(fact).strip(), []


@component("extractor", "agent_tool")
class AgentToolExtractor(Component):
    """Facts are written only through the agent's store_fact / update_fact / delete_fact tools."""

    offered_tools = {
        "store_fact": "Store a durable fact about the user or their world in long-term memory.",
        "update_fact": "Replace the text of a stored fact (by its id from retrieve_facts) with a corrected one.",
        "delete_fact": "Retract a stored fact (by its id from retrieve_facts) that is no longer true.",
    }

    def tools(self, state: StrategyState) -> list[MemoryTool]:
        def cite() -> list[str]:  # a call made while a turn is being taken in cites that turn
            return [state.event.turn.id] if state.event is not None else []

        def store_fact(args: dict) -> str:
            text = str(args.get("text") or "").strip()
            if not text:
                raise ValueError("store_fact needs a non-empty 'text'")
            state.candidates.append(Candidate(text, str(args.get("kind") or "fact"), cite(), origin="agent_tool"))
            return f"queued for storage: {text}"

        def update_fact(args: dict) -> str:
            item = _existing(state, args)
            text = str(args.get("text") or "").strip()
            if not text:
                raise ValueError("update_fact needs the new 'text'")
            new = item.model_copy(update={"text": text, "updated_at": state.now,
                                          "source_turn_ids": sorted(set(item.source_turn_ids) | set(cite()))})
            state.store.update(new, self.env.embedder.embed([text])[0])
            state.emit(MemoryEvent(op=Op.UPDATE, item_id=item.id, namespace=state.namespace, kind=new.kind, text=text,
                                   previous_text=item.text, source_turn_ids=new.source_turn_ids,
                                   reason="agent tool: update_fact", store=state.store.name))
            return f"updated {item.id}"

        def delete_fact(args: dict) -> str:
            item = _existing(state, args)
            state.store.update(item.model_copy(update={"valid": False, "updated_at": state.now}))
            state.emit(MemoryEvent(op=Op.DELETE, item_id=item.id, namespace=state.namespace, kind=item.kind,
                                   text=item.text, previous_text=item.text, source_turn_ids=cite(),
                                   reason="agent tool: delete_fact (invalidated)", store=state.store.name))
            return f"deleted {item.id}"

        return [
            MemoryTool("store_fact", self.offered_tools["store_fact"],
                       object_schema(["text"], text=("string", "the fact, one self-contained sentence"),
                                     kind=("string", "fact | preference | event")), store_fact, writes=True),
            MemoryTool("update_fact", self.offered_tools["update_fact"],
                       object_schema(["id", "text"], id=("string", "memory id"), text=("string", "the corrected fact")),
                       update_fact, writes=True),
            MemoryTool("delete_fact", self.offered_tools["delete_fact"],
                       object_schema(["id"], id=("string", "memory id")), delete_fact, writes=True),
        ]


def _existing(state: StrategyState, args: dict):
    item_id = str(args.get("id") or "").strip()
    found = state.store.get(state.namespace, [item_id]) if item_id else []
    if not found or not found[0].valid:
        raise ValueError(f"no current memory with id {item_id!r} (use retrieve_facts to find ids)")
    return found[0]


@component("extractor", "oracle")
class OracleExtractor(Component):
    """Stores exactly the facts the dataset annotates for each turn (evidence text where unannotated); no model calls."""

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        state.candidates.extend(Candidate(f, "fact", [event.turn.id], origin="oracle") for f in event.oracle_facts)


class _NoisyParams(Params):
    recall: float = Field(default=1.0, ge=0.0, le=1.0)
    """Probability that an annotated fact is proposed at all."""
    precision: float = Field(default=1.0, gt=0.0, le=1.0)
    """Share of proposed facts that are correct; the rest are corrupted copies (a value swapped)."""
    seed: int = 0


@component("extractor", "noisy_oracle")
class NoisyOracleExtractor(Component):
    """The oracle with controlled errors: drops facts (1 − recall) and corrupts some (so precision holds), seeded."""

    Params = _NoisyParams

    def begin_conversation(self, state: StrategyState) -> None:
        self.vocabulary: list[str] = []  # values seen so far in the conversation: what a confused extractor swaps in

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        p = self.params
        for i, fact in enumerate(event.oracle_facts):
            draw = _uniform(p.seed, event.conversation_id, event.turn.id, i, "keep")
            if draw >= p.recall:
                continue
            text, corrupted = fact, False
            if _uniform(p.seed, event.conversation_id, event.turn.id, i, "corrupt") >= p.precision:
                text, corrupted = _corrupt(fact, self.vocabulary, _uniform(p.seed, event.turn.id, i, "pick")), True
            state.candidates.append(Candidate(text, "fact", [event.turn.id], origin="noisy_oracle",
                                              metadata={"corrupted": corrupted}))
        self.vocabulary.extend(w for w in _value_words(event.turn.text) if w not in self.vocabulary)


def _uniform(*key: object) -> float:
    """A deterministic draw in [0, 1) from a key (so a rerun or a resume makes the same choices)."""
    import hashlib

    digest = hashlib.sha256("\x00".join(map(str, key)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _value_words(text: str) -> list[str]:
    """Words that look like values: numbers, long words, capitalised words not opening a sentence."""
    import re

    out = []
    for m in re.finditer(r"[A-Za-z0-9][\w'-]*", text):
        w = m.group(0)
        opens_sentence = not text[: m.start()].strip() or text[: m.start()].rstrip()[-1] in ".!?:"
        if w[0].isdigit() or len(w) >= 7 or (w[0].isupper() and not opens_sentence):
            out.append(w)
    return out


def _corrupt(fact: str, vocabulary: list[str], draw: float) -> str:
    """Swap the fact's most value-like word (its last value word, else its last word) for another
    value seen in the conversation, or reverse it when there is none."""
    import re

    words = _value_words(fact) or re.findall(r"[A-Za-z0-9][\w'-]*", fact)
    if not words:
        return fact
    target = words[-1]
    pool = [w for w in vocabulary if w.lower() != target.lower()]
    replacement = pool[int(draw * len(pool))] if pool else target[::-1]
    head, _, tail = fact.rpartition(target)
    return f"{head}{replacement}{tail}"
