"""Seed 003's retrieval: current facts with their earlier versions, and as-of lookups."""

from __future__ import annotations

from datetime import datetime
from pydantic import Field
import memlab.strategies.extractor.model  # noqa: F401  (declares the "extractor" slot)
from memlab.memory.item import MemoryItem, ScoredItem
from memlab.strategies.base import ContextLine, ContextSection
from memlab.strategies.retriever.base import Retriever, memory_line
from memlab.strategies.slots import Params, component
from memlab.strategies.state import Query, StrategyState
from memlab.strategies.tools import MemoryTool, object_schema


def _when(value: object, fallback: datetime) -> datetime:
    return datetime.fromisoformat(str(value)).replace(tzinfo=None) if value else fallback.replace(tzinfo=None)


@component("retriever", "fact_history")
class FactHistory(Retriever):
    """Current facts by similarity, each with the versions it replaced; facts valid at a date on request."""

    class Params(Params):
        k: int = Field(default=8, ge=1)
        history: bool = True
        """Show the versions a current fact replaced, with their validity intervals."""
        cache_ttl_s: float = Field(default=300.0, ge=0)
        """Search cache lifetime in seconds of dataset time (seed 003: 5 minutes; 0 disables)."""

    section_title = "Facts"
    offered_tools = {**Retriever.offered_tools,
                     "facts_as_of": "List the facts that were believed at a date (ISO), including ones since replaced."}

    def begin_unit(self, state: StrategyState) -> None:
        self.cache: dict[tuple[str, str], tuple[datetime, list[ScoredItem]]] = {}
        self.cache_hits = 0

    def retrieve(self, store, namespace: str, query: Query) -> list[ScoredItem]:
        """Vector top-k of current facts, through the seed's search cache: the same normalised
        question within ``cache_ttl_s`` (dataset time) gets the cached answer, even if memory
        changed meanwhile (the staleness the seed's cache accepts)."""
        ttl = self.params.cache_ttl_s
        key = (namespace, " ".join(query.question.lower().split()))
        cached = self.cache.get(key) if ttl > 0 and query.now is not None else None
        if cached is not None and 0 <= (query.now - cached[0]).total_seconds() < ttl:
            self.cache_hits += 1
            return list(cached[1])
        hits = store.search(namespace, embedding=query.embedding(), k=self.params.k)
        if ttl > 0 and query.now is not None:
            self.cache[key] = (query.now, list(hits))
        return hits

    def chain(self, store, namespace: str, item: MemoryItem) -> list[MemoryItem]:
        """The versions ``item`` replaced, newest first."""
        out, seen = [], {item.id}
        prev = item.metadata.get("replaces")
        while prev and prev not in seen:
            seen.add(prev)
            found = store.get(namespace, [str(prev)])
            if not found:
                break
            out.append(found[0])
            prev = found[0].metadata.get("replaces")
        return out

    def as_of(self, store, namespace: str, when: datetime) -> list[MemoryItem]:
        """Facts valid at ``when``: valid_from ≤ when < invalid_at (current facts have no invalid_at)."""
        t = when.replace(tzinfo=None)
        out = []
        for it in store.list(namespace, where={"kind": "fact"}, include_invalid=True):
            start = _when(it.metadata.get("valid_from"), it.created_at)
            end = it.metadata.get("invalid_at")
            if start <= t and (end is None or t < _when(end, it.created_at)):
                out.append(it)
        return out

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        lines = []
        for h in self.retrieve(state.store, state.namespace, query):
            lines.append(ContextLine(text=memory_line(h.item), source_turn_ids=list(h.item.source_turn_ids),
                                     kind=h.item.kind, score=h.score))
            if self.params.history:
                for old in self.chain(state.store, state.namespace, h.item):
                    start = _when(old.metadata.get("valid_from"), old.created_at).date().isoformat()
                    end = _when(old.metadata.get("invalid_at"), old.updated_at).date().isoformat()
                    lines.append(ContextLine(text=f"  (earlier, {start} to {end}: {old.text})",
                                             source_turn_ids=list(old.source_turn_ids), kind="history"))
        return [ContextSection(self.section_title, lines)]

    def tools(self, state: StrategyState) -> list[MemoryTool]:
        def facts_as_of(args: dict) -> str:
            raw = str(args.get("date") or "").strip()
            try:
                when = datetime.fromisoformat(raw)
            except ValueError:
                raise ValueError(f"facts_as_of needs an ISO 'date', got {raw!r}") from None
            items = self.as_of(state.store, state.namespace, when)
            return "\n".join(f"- {memory_line(it)}" for it in items) or "(no facts believed then)"

        return super().tools(state) + [MemoryTool("facts_as_of", self.offered_tools["facts_as_of"],
                                                  object_schema(date=("string", "ISO date")), facts_as_of)]
