"""Short-term memory: what of the current conversation goes into the prompt.

- ``full_history``: every message of the current thread so far (the upper bound of a design
  without long-term memory; cost grows with history).
- ``all_threads``: every message the user ever sent or received, in every thread so far (the
  true upper bound when threads reset short-term memory).
- ``recent_window``: the last ``n`` messages.
- ``summarizing``: the messages plus a summary of older ones; a trigger (``every_n_steps``,
  ``token_threshold``, ``never``; see :mod:`memlab.strategies.triggers`) decides when to fold
  all but the last ``keep_recent`` messages into the summary (Summarize role, purpose
  ``summarize``). Each compression is recorded with the turns it folded.
- ``rolling_summary``: ``summarizing`` with ``every_n_steps(2·every)`` and ``keep_recent = n``
  (re-summarise each time ``every`` more message pairs have left an ``n``-message window).
- ``invocation_summaries``: conversation memory in seed 000's sense — at the end of every
  invocation, one summary of it ("user asked X, the agent did Y, the result was Z") is kept;
  the prompt gets those summaries (the current invocation is the agent's working memory)."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("short_term", "what of the current conversation goes into the prompt", order=10)
