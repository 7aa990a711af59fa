"""mem0 (open source, ``mem0ai`` 2.2.x) as a strategy: ``type: mem0``.

What the adapter does with the real library, and nothing else:

- **Local, nothing leaves the machine.** mem0 runs with ``MEM0_TELEMETRY=False`` (set before it
  is imported; a process that imported it with telemetry on is refused), an in-process Qdrant in
  memory (a fresh one per unit: a unit's memory is cleared when it starts), its history in an
  in-memory SQLite, and its OpenAI embedder and LLM pointed at memlab's endpoint on 127.0.0.1
  (:mod:`memlab.external.ledger`) with that endpoint's own token as key. Embeddings are memlab's
  MiniLM (384 dimensions); chat calls go to the run's model for ``extract``. A process with
  ``OPENROUTER_API_KEY`` set is refused (mem0 would send its calls to OpenRouter instead).
- **Writes.** Each finished invocation (``write_every``) is handed to ``Memory.add`` as chat
  messages of the turns whose role is in ``roles``, with ``user_id`` = the unit's namespace (so
  long-term memory carries over the conversations of a namespace). ``infer: false`` stores every
  message as it is (mem0 embeds each one); ``infer: true`` runs mem0's own extraction prompt
  through the endpoint (JSON mode). Every event mem0 returns (``ADD`` — mem0 2.2's add pipeline is
  additive — and ``UPDATE`` / ``DELETE`` / ``NONE`` where a version reports them) becomes a memlab
  memory operation citing the turns of the add call (with ``infer: false``, each message's own
  turn).
- **Reads.** ``Memory.search(question, top_k=k, filters={"user_id": ...})`` with mem0's own
  scoring and threshold; the context lists the memories' text as mem0 returns it.
- **The conversation's clock.** mem0 writes today's date into its extraction prompt; its prompt
  module is given the conversation's clock (:mod:`memlab.external.determinism`), so it sees the
  date of the turns it is reading, and recorded prompts repeat on any day.

Without spaCy / fastembed installed (memlab does not install them) mem0 turns lemmatisation,
BM25 keyword scoring and entity boosts off and ranks by vector similarity; the manifest says so.
"""

from __future__ import annotations

import logging
import os
import warnings
from datetime import datetime
from typing import Any

from pydantic import Field

from memlab.external.base import ExternalParams, ExternalStrategy, Hit, Message
from memlab.strategies.types import module_available, strategy_type
from memlab.memory.item import MemoryEvent, Op

_EVENTS = {"ADD": Op.ADD, "UPDATE": Op.UPDATE, "DELETE": Op.DELETE, "NONE": Op.NOOP, "NOOP": Op.NOOP}


class Mem0Params(ExternalParams):
    infer: bool = Field(default=False, description="False: store the messages as they are (mem0's raw mode, no model "
                        "calls, runs offline). True: mem0's own extraction through memlab's endpoint (needs a chat model).")
    threshold: float = Field(default=0.1, ge=0.0, le=1.0, description="mem0's minimum search score (its default 0.1).")


def import_mem0(home: str) -> Any:
    """Import mem0 with telemetry off and its home folder inside the run; refuse a process where
    mem0 could send anything anywhere."""
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", home)
    import mem0.memory.telemetry as telemetry  # noqa: F401  (reads MEM0_TELEMETRY at import)
    from mem0 import Memory

    if telemetry.MEM0_TELEMETRY:
        raise RuntimeError("mem0 was imported with telemetry on before memlab could turn it off: set "
                           "MEM0_TELEMETRY=False before importing mem0 (memlab runs it with nothing leaving the machine)")
    return Memory


@strategy_type("mem0")
class Mem0Strategy(ExternalStrategy):
    """mem0 (OSS) on a local in-memory Qdrant: infer=false stores raw messages, infer=true runs mem0's extraction."""

    library = "mem0ai"
    module = "mem0"
    extra = "mem0"
    Params = Mem0Params

    @classmethod
    def needs_chat_model(cls, params: Any) -> bool:
        return bool(params.infer)

    def __init__(self, params: Mem0Params, env: Any) -> None:
        super().__init__(params, env)
        self.memory_kind = "fact" if params.infer else "message"
        if params.infer and os.environ.get("OPENROUTER_API_KEY"):
            raise RuntimeError("OPENROUTER_API_KEY is set: mem0 would send its model calls to OpenRouter instead of "
                               "memlab's endpoint; unset it for this run")
        if module_available("spacy") and not module_available("en_core_web_sm"):
            raise RuntimeError("spaCy is installed without its en_core_web_sm model, which mem0 would download at first "
                               "use: install the model (or uninstall spaCy) so nothing leaves the machine")
        self._Memory = import_mem0(str(env.work_dir / "mem0_home"))
        import mem0.configs.prompts as prompts

        from memlab.external.determinism import install_clock

        install_clock(prompts)
        logging.getLogger("mem0").setLevel(logging.ERROR)  # per-unit notices about optional features; in describe()
        self.ledger = env.ledger("mem0", self.model_purpose, chat=params.infer)
        self.memory: Any = None
        self.user_id = ""

    def library_description(self) -> dict[str, Any]:
        return {"settings": {"vector_store": "qdrant (in-process, in memory, one per unit)", "history_db": ":memory:",
                             "embedder": "openai provider → memlab endpoint (MiniLM, 384 dims)",
                             "llm": f"openai provider → memlab endpoint ({self.env.model_name(self.model_purpose)})"
                             if self.params.infer else "none (infer: false)", "telemetry": False},
                "features_off": [f for f, m in (("lemmatisation and entity boosts (spaCy)", "spacy"),
                                                ("BM25 keyword scoring (fastembed)", "fastembed")) if not module_available(m)]}

    def reset(self, namespace: str) -> None:
        from qdrant_client import QdrantClient

        self.close_library()
        self.user_id = "".join(c if not c.isspace() else "_" for c in namespace) or "user"
        ledger = self.ledger
        config = {
            "vector_store": {"provider": "qdrant", "config": {"collection_name": "memlab", "embedding_model_dims": 384,
                                                             "client": QdrantClient(location=":memory:")}},
            "embedder": {"provider": "openai", "config": {"model": "memlab-minilm", "api_key": ledger.token,
                                                          "openai_base_url": ledger.base_url, "embedding_dims": 384}},
            "llm": {"provider": "openai", "config": {"model": self.env.model_name(self.model_purpose), "api_key": ledger.token,
                                                     "openai_base_url": ledger.base_url}},
            "history_db_path": ":memory:",
        }
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Payload indexes have no effect", category=UserWarning)
            self.memory = self.call("Memory.from_config", self._Memory.from_config, config)

    def write(self, messages: list[Message]) -> list[MemoryEvent]:
        result = self.call("Memory.add", self.memory.add, [m.openai() for m in messages], user_id=self.user_id,
                           infer=self.params.infer)
        events = (result or {}).get("results") or []
        turn_ids = [m.turn_id for m in messages]
        raw = not self.params.infer and len(events) == len(messages)  # raw mode: one memory per message, in order
        ops = []
        for i, ev in enumerate(events):
            op = _EVENTS.get(str(ev.get("event", "")).upper())
            if op is None:
                continue
            sources = [messages[i].turn_id] if raw else turn_ids
            ops.append(self.op(op, ev.get("id"), str(ev.get("memory") or ""), sources,
                               reason=f"mem0 {ev.get('event')}" + (" (infer=false)" if not self.params.infer else "")))
        return ops

    def search(self, query: str, now: datetime) -> list[Hit]:
        found = self.memory.search(query, top_k=self.params.k, filters={"user_id": self.user_id},
                                   threshold=self.params.threshold)
        return [Hit(text=str(r.get("memory") or ""), item_id=r.get("id"), score=r.get("score"))
                for r in (found or {}).get("results") or []]

    def close_library(self) -> None:
        if self.memory is not None:
            try:
                self.memory.close()
            finally:
                self.memory = None
