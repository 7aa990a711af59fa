"""Retrieval: which long-term memories are injected for a question.

- ``vector``: cosine top-k over the shared embedder's vectors.
- ``keyword``: the store's keyword search (BM25 in Python stores, full-text index in Postgres).
- ``recency``: the k most recent memories, whatever the question.
- ``hybrid``: union of vector and keyword candidates (``pool`` × k each), reranked by
  ``w_similarity``·cosine + ``w_keyword``·normalised keyword score + ``w_recency``·exp(−age/half-life)
  + ``w_importance``·importance (``fusion: weighted``), or by reciprocal rank fusion of the two
  rankings (``fusion: rrf``, ``rrf_k``).

Every retriever also offers the agent a ``retrieve_facts(query)`` tool (mid-invocation retrieval),
which lists memories with their ids so the agent can update or delete them."""

from __future__ import annotations

from memlab.strategies.slots import Needs, declare_slot

declare_slot("retriever", "which long-term memories are injected for a question", order=80, needs=(
    Needs("store", default="in_memory"),
    Needs("extractor", why="a long-term store needs both an extractor and a retriever"),
))
