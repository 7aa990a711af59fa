"""Memory tools: what an agent can call, offered by the components that implement them.

A component contributes tools through its ``tools(state)`` hook: the ``agent_tool`` extractor
offers ``store_fact`` / ``update_fact`` / ``delete_fact``, a retriever ``retrieve_facts``,
episodic memory ``record_episode`` / ``recall_episodes``, an agent whose working memory is
compressed by the ``agent_driven`` trigger ``compress_memory``. The agent therefore never
offers a tool the strategy cannot carry out, and a strategy without the component simply has
no such tool. Tools that write are withheld while a probe is answered (probes are evaluation
queries, not part of the conversation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class MemoryTool:
    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema of the arguments (an object schema)."""
    run: Callable[[dict[str, Any]], str]
    """Carries out the call; returns the observation the agent sees. Raises ValueError on bad arguments."""
    writes: bool = False
    found: Callable[[dict[str, Any]], list[Any]] | None = None
    """For a search tool: the memories a call finds, as context lines with the dataset turns they
    derive from (what a probe answered by searching is scored on); None for other tools."""

    def schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


def object_schema(required: list[str] | None = None, **props: tuple[str, str]) -> dict[str, Any]:
    """``object_schema(text=("string", "the fact"))`` → a JSON object schema."""
    return {
        "type": "object",
        "properties": {k: {"type": t, "description": d} for k, (t, d) in props.items()},
        "required": list(required if required is not None else props),
        "additionalProperties": False,
    }


