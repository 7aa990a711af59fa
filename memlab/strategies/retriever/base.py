"""What every retriever shares: a context section of retrieved memories and the retrieve_facts tool."""

from __future__ import annotations

from pydantic import Field

from memlab.memory.item import ScoredItem
from memlab.strategies.base import ContextLine, ContextSection
from memlab.strategies.slots import Component, Params
from memlab.strategies.state import Query, StrategyState
from memlab.strategies.tools import MemoryTool, object_schema


def memory_line(item) -> str:
    date = item.metadata.get("date")
    return f"[{date}] {item.text}" if date else item.text


class Retriever(Component):
    class Params(Params):
        k: int = Field(default=8, ge=1, description="Memories injected into the context per question (at least 1: a strategy that injects no memory has no retriever).")

    context_order = 20
    section_title = "Long-term memory"
    offered_tools = {"retrieve_facts": "Search long-term memory for facts relevant to a query; returns them with their ids."}

    def retrieve(self, store, namespace: str, query: Query) -> list[ScoredItem]:
        raise NotImplementedError

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        hits = self.retrieve(state.store, state.namespace, query)
        lines = [ContextLine(text=memory_line(h.item), source_turn_ids=list(h.item.source_turn_ids), kind=h.item.kind,
                             score=h.score, item_id=h.item.id) for h in hits]
        return [ContextSection(self.section_title, lines)]

    def tools(self, state: StrategyState) -> list[MemoryTool]:
        def hits(args: dict) -> list[ScoredItem]:
            question = str(args.get("query") or "").strip()
            if not question:
                raise ValueError("retrieve_facts needs a 'query'")
            return self.retrieve(state.store, state.namespace, Query(question, state.now, self.env.embedder))

        def retrieve_facts(args: dict) -> str:
            return "\n".join(f"- ({h.item.id}) {memory_line(h.item)}" for h in hits(args)) or "(no matching memories)"

        def found(args: dict) -> list[ContextLine]:
            return [ContextLine(text=memory_line(h.item), source_turn_ids=list(h.item.source_turn_ids), kind=h.item.kind,
                                score=h.score, item_id=h.item.id) for h in hits(args)]

        return [MemoryTool("retrieve_facts", self.offered_tools["retrieve_facts"],
                           object_schema(query=("string", "what to look for")), retrieve_facts, found=found)]
