"""Presets: named strategies, each a mapping of slot → component spec that a config can start from
(``preset: fact_rag``) and override slot by slot.

Two kinds. **Designs and bounds** every comparison uses: ``no_memory``, ``full_context`` (the current
thread), ``all_threads`` and ``oracle`` (bounds), ``recent_window``, ``fact_rag``, ``message_rag``,
``react`` and ``react_mem`` (seed 000's lifecycle). **Seed systems** (``shared/seeds/``), each built
from general components with the document's knobs and defaults: ``agent_memory_pg`` (seed 004),
``agent_chat`` (002), ``supervisor`` (001), ``son_of_andrew`` (003). The table of every seed
mechanism and knob — where it lives in memlab and its default — is ``evals/presets/README.md``.
"""

from __future__ import annotations

from typing import Any

from memlab.registry import Registry

PRESETS: Registry[dict[str, Any]] = Registry("strategy preset")

# -- designs and bounds ------------------------------------------------------------------------------
PRESETS.register("no_memory", {"description": "Lower bound: the agent sees only the question."})
PRESETS.register("full_context", {
    "description": "Upper bound without long-term memory: the whole current thread (conversation) so far goes into the prompt.",
    "short_term": {"type": "full_history"},
})
PRESETS.register("all_threads", {
    "description": "Upper bound: everything the user said in every thread so far goes into the prompt (threads reset "
                   "short-term memory; this bound does not).",
    "short_term": {"type": "all_threads"},
})
PRESETS.register("recent_window", {
    "description": "Last N messages only; no long-term memory.",
    "short_term": {"type": "recent_window", "n": 10},
})
PRESETS.register("fact_rag", {
    "description": "Post-turn fact extraction → vector store → top-k retrieval injected into the prompt, plus a short window.",
    "short_term": {"type": "recent_window", "n": 6},
    "extractor": {"type": "post_turn"},
    "consolidator": {"type": "reconcile"},
    "store": {"type": "in_memory"},
    "retriever": {"type": "vector", "k": 8},
})
PRESETS.register("message_rag", {
    "description": "Every user message stored verbatim → vector top-k (raw RAG baseline, no model calls to write).",
    "short_term": {"type": "recent_window", "n": 6},
    "extractor": {"type": "verbatim"},
    "consolidator": {"type": "append"},
    "store": {"type": "in_memory"},
    "retriever": {"type": "vector", "k": 8},
})
PRESETS.register("oracle", {
    "description": "Bound: injects exactly the probe's evidence turns (from any thread of the user) — the floor on tokens needed to answer.",
    "short_term": {"type": "evidence_oracle"},
})
PRESETS.register("react", {
    "description": "ReAct agent, no long-term memory: working memory per invocation, earlier invocations as summaries.",
    "short_term": {"type": "invocation_summaries"},
    "agent": {"type": "react"},
})
PRESETS.register("react_mem", {
    "description": "Seed 000's lifecycle: react plus facts and episodes extracted after each invocation (post-pass), reconciled, "
                   "retrieved at invocation start; conversation memory keeps the latest invocation summaries within 2,000 tokens.",
    "short_term": {"type": "invocation_summaries", "max_tokens": 2000},
    "agent": {"type": "react"},
    "extractor": {"type": "post_pass"},
    "consolidator": {"type": "reconcile"},
    "episodes": {"type": "episodic"},
    "store": {"type": "in_memory"},
    "retriever": {"type": "vector", "k": 8},
})

# -- seed systems (shared/seeds/; knob tables: evals/presets/README.md) --------------------------------
PRESETS.register("agent_memory_pg", {
    "description": "Seed 004: regex extraction every 10 messages (no model), the newest 20 memories injected grouped "
                   "by type, the last 40 messages, a substring search tool, TTL expiry and a FIFO cap of 1000, on Postgres.",
    "short_term": {"type": "recent_window", "n": 40},
    "extractor": {"type": "pattern", "every": 10},
    "consolidator": {"type": "append"},
    "lifecycle": {"type": "ttl_fifo", "max_items": 1000},
    "store": {"type": "postgres"},
    "retriever": {"type": "recent_by_type", "k": 20},
})
PRESETS.register("agent_chat", {
    "description": "Seed 002: last 10 messages; every 5 message pairs one call updates the conversation summary and an "
                   "entity graph (typed nodes, weighted relationships) merged by id; entities the question names retrieved.",
    "short_term": {"type": "recent_window", "n": 10},
    "extractor": {"type": "summary_entities", "every": 5},
    "consolidator": {"type": "entity_merge", "merge": "replace"},
    "store": {"type": "in_memory"},
    "retriever": {"type": "entity_graph", "k": 8, "hops": 1},
})
PRESETS.register("supervisor", {
    "description": "Seed 001: hot-path classifier over the last 3 user messages → categorised memory; merge above "
                   "cos 0.85, same-fact check from 0.60, recreate mode, low-importance creations dropped; vector top-10 "
                   "reranked by similarity, importance, recency and pinning, top 5 injected; episodes with cooldowns, a daily cap "
                   "and a merge window; a user profile synced from new memories injected as one line, the Now line in the "
                   "profile's time zone (UTC without one).",
    "short_term": {"type": "recent_window", "n": 10},
    "extractor": {"type": "hot_path", "window": 3},
    "consolidator": {"type": "thresholded_merge", "top_k": 5, "check_low": 0.60, "auto_update": 0.85, "mode": "recreate"},
    "episodes": {"type": "capped"},
    "store": {"type": "in_memory"},
    "retriever": {"type": "weighted_rerank", "top_k": 10, "top_n": 5, "time_zone": "UTC"},
    "profile": {"type": "synced_profile"},
})
PRESETS.register("son_of_andrew", {
    "description": "Seed 003: learning patterns trigger an analysis with high/medium/low confidence; conflicts "
                   "(temporal, negation, status change, general) resolved by confidence; superseded facts invalidated "
                   "and kept as history; current facts retrieved with their earlier versions; an agent logs and queries "
                   "time entries (log_time, get_time_entries), kept in their own namespace, totals on time questions.",
    "short_term": {"type": "recent_window", "n": 10},
    "extractor": {"type": "opportunistic"},
    "consolidator": {"type": "conflict_resolve", "similarity_threshold": 0.5},
    "store": {"type": "in_memory"},
    "retriever": {"type": "fact_history", "k": 8},
    "agent": {"type": "react"},
    "timekeeper": {"type": "time_log"},
})
