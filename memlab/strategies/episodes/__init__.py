"""The episodes slot: episodic memory of finished tasks (seed 000's RecordEpisode / RecallEpisodes).

An invocation is *task-like* when the agent used tools in it (a tool turn) or it ran for at least
``min_steps`` steps. At its end an episode — goal, key steps, outcome, lessons — is written:

- ``capture: post_pass``: one ``RecordEpisode`` call over the invocation's transcript (purpose
  ``extract``), like the post-pass fact extractor;
- ``capture: agent_tool``: only when the agent calls ``record_episode`` (the agent decides).

Episodes live in their own store namespace (``<namespace>#episodes``), embedded by
``goal + outcome``, so fact retrieval never mixes them in. At each invocation start the ``k`` most
similar episodes are injected ("Relevant past episodes"); the agent may also call
``recall_episodes(query)`` mid-invocation. Every episode cites the turns of its invocation."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("episodes", "episodic memory of finished tasks (goal, key steps, outcome, lessons)", order=60)
