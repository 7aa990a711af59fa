"""Entity-graph memory (seed 002, ``agent_chat``): a two-section summary every M message pairs,
an entity graph merged by id, and retrieval around the entities a question names.

Seed 002 keeps three memories: the last N messages (``recent_window``), a narrative
**conversation summary**, and an **entity graph** of typed nodes (person, place, concept, event,
task, other) with weighted relationships. After every M message pairs one model call (the
``SummarizeWithEntities`` role, purpose ``summarize``) receives the previous summary ("No
previous conversation" at first), the messages since the last update and the current graph,
and returns both sections — the seed's ``=== CONVERSATION MEMORY ===`` and ``=== ENTITY MEMORY
===`` — here as the signature's two output fields. The components:

- extractor ``summary_entities``: counts chat messages (user and assistant; a pair is two),
  makes the call every ``every`` pairs, keeps the summary (injected as "Conversation memory";
  on a failed call the previous memory stays, as in the seed's fallback) and hands each returned
  node to the consolidator as an ``entity`` candidate citing the turns that name it;
- consolidator ``entity_merge``: a node whose id is in the graph replaces it (``merge: replace``,
  the seed's "update existing entities if IDs match") or is unioned with it (``merge: union``:
  properties overlaid, relationships merged by target); a new id is added. Each node is one
  store item (kind ``entity``, the node in ``metadata.entity``) so it is embedded and persisted
  like any memory;
- retriever ``entity_graph``: the entities whose name the question contains, then their
  neighbours by relationship strength (``hops``, ``min_strength``), at most ``k`` nodes. The
  seed only shows the graph in its UI ("could be used for retrieval"); this is that retrieval."""

from __future__ import annotations

import functools
import re
from typing import Any, Literal
import orjson
from pydantic import Field
from memlab.memory.item import MemoryEvent, Op, utcnow
from memlab.roles.program import RoleFailure
from memlab.roles.signatures import EntityNode
from memlab.strategies.base import ContextLine, ContextSection, TurnEvent
import memlab.strategies.extractor.model  # noqa: F401  (declares the "extractor" slot)
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Candidate, Query, StrategyState


ENTITY_KIND = "entity"


NO_PREVIOUS = "No previous conversation"


NAME_WORDS = 12
"""Longest name (in slug words) the ``named`` graph input looks for in the messages."""


def slug(text: str) -> str:
    """Lowercase words joined by '-' (how node ids are written: 'Anna Maria' → 'anna-maria')."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def entity_id(node_id: str) -> str:
    """The store id of a graph node: the node's own id, prefixed so it never meets a fact's id."""
    return f"entity:{node_id}"


def node_text(node: dict[str, Any], names: dict[str, str] | None = None) -> str:
    """One line per node: 'Anna (person): description [k=v] — lives in → Lisbon (0.50)'."""
    names = names or {}
    props = ", ".join(f"{k}={v}" for k, v in (node.get("properties") or {}).items())
    rels = "; ".join(f"{r.get('relationship')} → {names.get(str(r.get('targetId')), r.get('targetId'))} "
                     f"({float(r.get('strength') or 0):.2f})" for r in node.get("relationships") or [])
    text = f"{node.get('name')} ({node.get('type')}): {node.get('description') or ''}".rstrip()
    return text + (f" [{props}]" if props else "") + (f" — {rels}" if rels else "")


_NODE_TYPES = frozenset(EntityNode.model_fields["type"].annotation.__args__)


_NODES: dict[bytes, EntityNode] = {}
"""Validated nodes by their JSON: every update sends the whole graph to the role, so the same
stored nodes were validated again at every update (quadratic in a conversation's length)."""


_NODES_MAX = 1 << 16


def _node(raw: dict[str, Any]) -> EntityNode:
    """A stored node as the role's input type (an unknown type becomes 'other', as the seed's enum
    allows). Memoised by the node's JSON; the role only reads its inputs."""
    try:
        key = orjson.dumps(raw)
    except TypeError:  # not plain JSON data: validate without memoising
        return _validate_node(raw)
    node = _NODES.get(key)
    if node is None:
        if len(_NODES) >= _NODES_MAX:
            _NODES.clear()
        node = _NODES[key] = _validate_node(raw)
    return node


def _validate_node(raw: dict[str, Any]) -> EntityNode:
    fixed = dict(raw)
    if fixed.get("type") not in _NODE_TYPES:
        fixed["type"] = "other"
    return EntityNode.model_validate(fixed)


def _as_dict(node: Any) -> dict[str, Any]:
    return node.model_dump() if hasattr(node, "model_dump") else dict(node)


@component("extractor", "summary_entities")
class SummaryEntities(Component):
    """Every M message pairs, one call updates the conversation summary and the entity graph."""

    class Params(Params):
        every: int = Field(default=5, ge=1)
        """Update after this many message pairs (seed 002 summaryUpdateFrequency: 5)."""
        roles: list[str] = ["user", "assistant"]
        """The chat messages counted and summarised (a pair is one of each)."""
        max_tokens: int | None = Field(default=2000, ge=1)
        """The update call's reply budget (seed 002: max tokens 2000), so the summary stays bounded
        (the offline model keeps its most recent facts that fit); None: no budget."""
        graph_input: Literal["named", "all"] = "named"
        """The graph nodes the update call is shown: ``named`` — the nodes the new messages name (by
        name or id), which are the ones an update can change; ``all`` — the whole graph, as seed 002
        sends it, whose prompt grows with every entity the conversation ever named (quadratic in a
        conversation's length, and past any context window at a few thousand turns)."""

    context_order = 50

    def begin_unit(self, state: StrategyState) -> None:
        self.summary = ""
        self.summary_sources: list[str] = []
        self.pending: list[TurnEvent] = []
        self.count = 0
        self.by_name: dict[str, str] = {}
        """slug(node name) → node id of every node the model returned in this unit (a node whose id
        is not a slug of its name is still found when the messages name it)."""

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        if event.turn.role not in self.params.roles:
            return
        self.pending.append(event)
        self.count += 1
        if self.count % (2 * self.params.every) == 0:
            self.update(state)

    def graph(self, state: StrategyState, messages: str) -> list[EntityNode]:
        """The nodes the update call is shown (``graph_input``), in the store's listing order."""
        if self.params.graph_input == "all":
            items = state.store.list(state.namespace, where={"kind": ENTITY_KIND}, include_invalid=False)
        else:
            words = slug(messages).split("-")
            keys = {"-".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, min(i + NAME_WORDS, len(words)) + 1)}
            ids = keys | {self.by_name[k] for k in keys if k in self.by_name}
            now = utcnow()
            items = [it for it in state.store.get(state.namespace, sorted(entity_id(i) for i in ids))
                     if it.kind == ENTITY_KIND and it.valid and (it.expires_at is None or it.expires_at > now)]
            items.sort(key=lambda it: (it.created_at, it.id))
        return [_node(it.metadata["entity"]) for it in items if "entity" in it.metadata]

    def update(self, state: StrategyState) -> None:
        batch, self.pending = self.pending, []
        messages = "\n".join(e.line for e in batch)
        try:
            res = self.env.roles.summarize_entities(
                previous_summary=self.summary or NO_PREVIOUS, messages=messages, entity_memory=self.graph(state, messages),
                **({"config": {"max_tokens": self.params.max_tokens}} if self.params.max_tokens else {}))
        except RoleFailure as exc:  # the seed falls back to the existing memory
            self.failed("summary-with-entities call failed; batch kept for the next pass", exc)
            self.pending = batch + self.pending
            return
        turn_ids = [e.turn.id for e in batch]
        text = str(res.get("conversation_memory") or "").strip()
        if text:
            previous = self.summary
            self.summary = text
            self.summary_sources = _merge_sorted(self.summary_sources, turn_ids)
            state.emit(MemoryEvent(op=Op.UPDATE if previous else Op.ADD, item_id="conversation-summary",
                                   namespace=state.namespace, kind="summary", text=text, previous_text=previous or None,
                                   source_turn_ids=list(self.summary_sources),
                                   reason=f"conversation memory after {self.count // 2} message pairs"))
        for raw in res.get("entities") or []:
            node = _as_dict(raw)
            if not node.get("id") or not node.get("name"):
                continue
            self.by_name[slug(str(node["name"]))] = str(node["id"])
            named = [e.turn.id for e in batch if _names(e.turn.text, str(node["name"]))] or turn_ids
            state.candidates.append(Candidate(node_text(node), ENTITY_KIND, named, metadata={"entity": node}))

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        if not self.summary:
            return []
        return [ContextSection("Conversation memory", [ContextLine(self.summary, list(self.summary_sources), kind="summary")])]


def _merge_sorted(sources: list[str], new: list[str]) -> list[str]:
    """``sorted(set(sources) | set(new), key=_turn_order)`` for ``sources`` already sorted and
    unique: the summary's sources grow by a batch of later turns at each update, so the batch is
    appended when it sorts after them (re-sorting ~2,000 ids per update cost agent_chat more
    than the rest of its own logic at LoCoMo size)."""
    have = set(sources)
    fresh = sorted({t for t in new if t not in have}, key=_turn_order)
    if not fresh:
        return list(sources)
    if not sources or _turn_order(sources[-1]) < _turn_order(fresh[0]):
        return sources + fresh
    return sorted(have | set(fresh), key=_turn_order)


@functools.lru_cache(maxsize=1 << 16)
def _turn_order(turn_id: str) -> tuple[int, str]:
    """Sort key of a turn id (memoised: every update of the summary's sources compares keys)."""
    digits = re.sub(r"\D", "", turn_id)
    return (int(digits) if digits else 0, turn_id)


@functools.lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)


def _names(text: str, name: str) -> bool:
    return _name_pattern(name).search(text) is not None
