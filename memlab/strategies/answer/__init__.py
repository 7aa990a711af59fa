"""How a probe is answered: a design decision of the strategy, like any other slot.

- ``inject`` (the default; also what a strategy without this slot does): when the question comes,
  every component's context — conversation memory, working memory and the long-term memories
  retrieved *for the question* — is assembled once and the answerer reads it.
- ``tools``: "search when asked". Long-term memory is *not* injected; the agent sees only what is
  already in front of it (conversation and working memory) and searches long-term memory with the
  strategy's read-only tools (``retrieve_facts``, ``search_memories``, ``recall_episodes``,
  ``facts_as_of``, ``get_time_entries``: whatever its components offer) for up to ``max_rounds``
  rounds (``SearchBeforeAnswering`` role, purpose ``answer``); the answerer then reads the context
  plus what the searches found. Every call is an agent step of the probe (``agent_steps.jsonl``,
  phase ``probe``) and its tokens count under ``answer``; the memories found enter the recorded
  context with the turns they derive from, so recall measures what the searches found.

Both answer with the run's one answerer (``AnswerFromMemory``), so the comparison is between what
reaches it, not between answerers."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("answer", "how a probe is answered: everything injected at once, or long-term memory searched when asked",
             order=95)
