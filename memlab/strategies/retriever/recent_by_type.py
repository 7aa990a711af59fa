"""The newest memories grouped by type, plus a substring search tool (seed 004's read path).

Seed 004 loads ``SELECT * FROM agent_memories WHERE agent_id = :id ORDER BY created_at DESC
LIMIT 20`` on every message and injects them into the system prompt grouped by type
("## Your Memories / Facts: 1. ... / Preferences: 1. ..."), whatever the question; its search
endpoint filters ``content ILIKE '%term%'`` (optionally by type), newest first, ``LIMIT 50``,
never returning an expired row. ``recent_by_type`` does both: the grouped injection as its
context, and the search as an agent tool (``search_memories``). The search is a plain
case-insensitive substring match over the namespace, done here rather than in a backend so
every store gives the same answer (a store's own keyword search ranks, stems and tokenises)."""

from __future__ import annotations

from pydantic import Field
from memlab.memory.item import MemoryItem, ScoredItem
from memlab.memory.stores.base import newest_first
from memlab.strategies.base import ContextLine, ContextSection
from memlab.strategies.lifecycle.ttl_fifo import expired
from memlab.strategies.retriever.base import Retriever, memory_line
from memlab.strategies.slots import Params, component
from memlab.strategies.state import Query, StrategyState
from memlab.strategies.tools import MemoryTool, object_schema


def _heading(kind: str) -> str:
    """'fact' → 'Facts', 'conversation_summary' → 'Conversation summaries' (the seed's group labels)."""
    words = kind.replace("_", " ").strip() or "other"
    plural = words[:-1] + "ies" if words.endswith("y") else words + "s"
    return plural[0].upper() + plural[1:]


@component("retriever", "recent_by_type")
class RecentByType(Retriever):
    """The k newest current memories, grouped by type in the prompt; a substring search tool."""

    class Params(Params):
        k: int = Field(default=20, ge=1)
        """How many of the newest memories are injected (seed 004: 20)."""
        type_order: list[str] = ["fact", "preference", "context", "conversation_summary"]
        """Order of the groups (seed 004's memory_type enum); other kinds follow in order of first appearance."""
        search_limit: int = Field(default=50, ge=1)
        """Most results the search tool returns (seed 004: LIMIT 50)."""

    section_title = "Your Memories"
    offered_tools = {
        **Retriever.offered_tools,
        "search_memories": "Find stored memories whose text contains a term (case-insensitive), newest first; "
                           "optionally only one type (fact, preference, ...).",
    }

    def _current(self, store, namespace: str, now) -> list[MemoryItem]:
        """Every current, unexpired memory of the namespace, newest first."""
        return newest_first(it for it in store.list(namespace, include_invalid=False) if it.valid and not expired(it, now))

    def retrieve(self, store, namespace, query: Query) -> list[ScoredItem]:
        return [ScoredItem(item=it, score=0.0) for it in self._current(store, namespace, query.now)[: self.params.k]]

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        groups: dict[str, list[MemoryItem]] = {}
        for hit in self.retrieve(state.store, state.namespace, query):
            groups.setdefault(hit.item.kind, []).append(hit.item)
        order = [k for k in self.params.type_order if k in groups] + [k for k in groups if k not in self.params.type_order]
        return [ContextSection(f"{self.section_title}: {_heading(kind)}",
                               [ContextLine(text=f"{i}. {memory_line(it)}", source_turn_ids=list(it.source_turn_ids),
                                            kind=it.kind) for i, it in enumerate(groups[kind], start=1)])
                for kind in order]

    def search(self, store, namespace: str, now, term: str, kind: str | None = None) -> list[MemoryItem]:
        """Seed 004's search: ``content ILIKE '%term%'`` (and ``memory_type = kind``), newest first, limited."""
        needle = term.casefold()
        hits = [it for it in self._current(store, namespace, now)
                if needle in it.text.casefold() and (not kind or it.kind == kind)]
        return hits[: self.params.search_limit]

    def tools(self, state: StrategyState) -> list[MemoryTool]:
        def search_memories(args: dict) -> str:
            term = str(args.get("query") or "").strip()
            if not term:
                raise ValueError("search_memories needs a 'query'")
            kind = str(args.get("type") or "").strip() or None
            hits = self.search(state.store, state.namespace, state.now, term, kind)
            return "\n".join(f"- ({it.id}) [{it.kind}] {memory_line(it)}" for it in hits) or "(no matching memories)"

        return super().tools(state) + [
            MemoryTool("search_memories", self.offered_tools["search_memories"],
                       object_schema(["query"], query=("string", "the term to look for"),
                                     type=("string", "only this memory type (optional)")), search_memories)]
