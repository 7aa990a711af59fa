"""Extraction: how long-term memory candidates get proposed — one design axis memlab exists for.

Per message (today's classic designs):
- ``post_turn``: after each turn by an allowed role, the ExtractFacts role (purpose ``extract``)
  turns the message into zero or more facts.
- ``gated``: the ShouldRemember role (purpose ``gate``) classifies each message on the hot path;
  only messages it keeps go through ExtractFacts. Cheaper when most turns are chit-chat.
- ``verbatim``: store every message of an allowed role as-is (no model calls) — the raw-RAG
  baseline, and an upper bound on what extraction can lose.

Per invocation (seed 000's two options):
- ``post_pass``: after each invocation, ONE extraction call over the invocation's transcript
  (ExtractFromTranscript, purpose ``extract``) proposes facts, each citing the turns it came from.
- ``agent_tool``: facts are written only when the agent calls ``store_fact`` / ``update_fact`` /
  ``delete_fact`` while it works; the tool schemas and calls are part of the agent's own prompts
  (purpose ``agent``). This component only offers those tools; without an agent, or when the
  agent calls no tool, nothing is written.

Every candidate carries the ids of the turns it came from (provenance); the consolidator decides
what it does to the store."""

from __future__ import annotations

from memlab.strategies.slots import Needs, declare_slot

declare_slot("extractor", "how long-term memory candidates are proposed", order=30, needs=(
    Needs("store", default="in_memory"),  # candidates become memories in a store (in memory unless given)
    Needs("retriever", why="a long-term store needs both an extractor and a retriever"),
    Needs("consolidator", default="append"),  # how a candidate changes the store: ADD unless given
))
