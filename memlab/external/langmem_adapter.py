"""LangMem (``langmem`` 0.0.30, LangGraph 1.x) as a strategy: ``type: langmem``.

LangMem's memory store manager (``create_memory_store_manager``) over LangGraph's
``InMemoryStore`` (a fresh one per unit), with its chat model a LangChain ``ChatOpenAI`` and the
store's index embeddings a LangChain ``OpenAIEmbeddings``, both pointed at memlab's endpoint on
127.0.0.1 (:mod:`memlab.external.ledger`): chat calls go to the run's model for ``extract``
(LangMem extracts through tool calls, so it needs a tool-calling model), embeddings are memlab's
MiniLM. LangSmith tracing is off for every call, so nothing leaves the machine.

- **Writes.** Each finished invocation is handed to the manager (``invoke({"messages": ...})``)
  with the unit's namespace as ``langgraph_user_id`` (the store namespace is
  ``("memories", <namespace>)``): LangMem searches its store for related memories, asks the model
  to insert, patch (and, with ``enable_deletes``, remove) memories, and writes the result. The
  keys it writes are ``ADD`` (new) or ``UPDATE`` (known) operations citing the invocation's turns;
  keys that disappeared from the namespace are ``DELETE`` s.
- **Reads.** ``store.search(("memories", ns), query=question, limit=k)`` — LangMem's own
  retrieval path; the context lists each memory's content.

LangMem draws a fresh uuid for every extraction session and quotes it in the prompt, and memory
keys are uuids the next prompt quotes again: the adapter seeds those ids per unit
(:mod:`memlab.external.determinism`), so a replay sends the same prompts. ``OpenAIEmbeddings`` is
built with ``check_embedding_ctx_length=False`` (its length check needs tiktoken files from the
network; MiniLM truncates at 256 tokens itself).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import Field

from memlab.external.base import ExternalParams, ExternalStrategy, Hit, Message
from memlab.strategies.types import strategy_type
from memlab.memory.item import MemoryEvent, Op


class LangMemParams(ExternalParams):
    query_limit: int = Field(default=5, ge=1, description="Related memories LangMem retrieves before extracting (its default 5).")
    enable_inserts: bool = Field(default=True, description="LangMem may create new memories (its default).")
    enable_deletes: bool = Field(default=False, description="LangMem may remove memories (off by default in "
                                 "create_memory_store_manager).")
    instructions: str | None = Field(default=None, description="Replace LangMem's memory instructions (None: its own).")


def _no_tracing() -> Any:
    """A context in which LangSmith sends nothing, whatever the environment says."""
    try:
        from langsmith.run_helpers import tracing_context
    except ImportError:  # pragma: no cover - langsmith comes with langchain-core
        import contextlib

        return contextlib.nullcontext()
    return tracing_context(enabled=False)


def memory_text(value: Any) -> str:
    """The text of a stored LangMem memory (``{"kind": "Memory", "content": {"content": ...}}``)."""
    content = value.get("content", value) if isinstance(value, dict) else value
    if isinstance(content, dict) and set(content) == {"content"}:
        content = content["content"]
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, sort_keys=True)


@strategy_type("langmem")
class LangMemStrategy(ExternalStrategy):
    """LangMem's memory store manager over LangGraph's InMemoryStore (needs a tool-calling chat model)."""

    library = "langmem"
    module = "langmem"
    extra = "langmem"
    Params = LangMemParams

    @classmethod
    def needs_chat_model(cls, params: Any) -> bool:
        return True

    def __init__(self, params: LangMemParams, env: Any) -> None:
        super().__init__(params, env)
        from langchain_openai import ChatOpenAI, OpenAIEmbeddings

        self.ledger = env.ledger("langmem", self.model_purpose)
        self._chat = ChatOpenAI(model=env.model_name(self.model_purpose), base_url=self.ledger.base_url,
                                api_key=self.ledger.token)
        self._embeddings = OpenAIEmbeddings(model="memlab-minilm", base_url=self.ledger.base_url, api_key=self.ledger.token,
                                            check_embedding_ctx_length=False)
        self.store: Any = None
        self.manager: Any = None
        self.ns: tuple[str, ...] = ()

    def library_description(self) -> dict[str, Any]:
        return {"settings": {"store": "langgraph InMemoryStore (one per unit), index dims 384",
                             "chat_model": f"langchain_openai.ChatOpenAI → memlab endpoint ({self.env.model_name(self.model_purpose)})",
                             "embeddings": "langchain_openai.OpenAIEmbeddings → memlab endpoint (MiniLM)",
                             "langsmith_tracing": False}}

    def reset(self, namespace: str) -> None:
        from langgraph.store.memory import InMemoryStore
        from langmem import create_memory_store_manager

        self.store = InMemoryStore(index={"dims": 384, "embed": self._embeddings})
        kwargs: dict[str, Any] = {"namespace": ("memories", "{langgraph_user_id}"), "store": self.store,
                                  "query_limit": self.params.query_limit, "enable_inserts": self.params.enable_inserts,
                                  "enable_deletes": self.params.enable_deletes}
        if self.params.instructions is not None:
            kwargs["instructions"] = self.params.instructions
        self.manager = self.call("create_memory_store_manager", create_memory_store_manager, self._chat, **kwargs)
        self.ns = ("memories", namespace)
        self._config = {"configurable": {"langgraph_user_id": namespace}}

    def _keys(self) -> set[str]:
        return {item.key for item in self.store.search(self.ns, limit=1_000_000)}

    def write(self, messages: list[Message]) -> list[MemoryEvent]:
        def run() -> list[dict[str, Any]]:
            with _no_tracing():
                return self.manager.invoke({"messages": [m.openai() for m in messages]}, config=self._config)

        before = set(self.sources)
        puts = self.call("manager.invoke", run) or []
        turn_ids = [m.turn_id for m in messages]
        ops = []
        for put in puts:
            key = str(put.get("key"))
            ops.append(self.op(Op.UPDATE if key in before else Op.ADD, key, memory_text(put.get("value")), turn_ids,
                               reason="langmem put"))
        gone = sorted(k for k in before if k not in self._keys()) if before else []
        for key in gone:
            ops.append(self.op(Op.DELETE, key, self.texts.get(key, ""), turn_ids, reason="langmem delete"))
        return ops

    def search(self, query: str, now: datetime) -> list[Hit]:
        with _no_tracing():
            items = self.store.search(self.ns, query=query, limit=self.params.k)
        return [Hit(text=memory_text(item.value), item_id=item.key, score=item.score) for item in items]

    def close_library(self) -> None:
        self.store = None
        self.manager = None
