"""Facts written only through the agent's own tools (store_fact, update_fact, delete_fact)."""

from __future__ import annotations

from memlab.memory.item import MemoryEvent, Op
from memlab.strategies.slots import Component, Needs, component
from memlab.strategies.state import Candidate, StrategyState
from memlab.strategies.tools import MemoryTool, object_schema


@component("extractor", "agent_tool")
class AgentToolExtractor(Component):
    """Facts are written only through the agent's store_fact / update_fact / delete_fact tools."""

    offered_tools = {
        "store_fact": "Store a durable fact about the user or their world in long-term memory.",
        "update_fact": "Replace the text of a stored fact (by its id from retrieve_facts) with a corrected one.",
        "delete_fact": "Retract a stored fact (by its id from retrieve_facts) that is no longer true.",
    }
    needs = (Needs("agent", why="extractor 'agent_tool' writes through an agent's tools; add an agent slot"),)

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
