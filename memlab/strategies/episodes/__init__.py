"""The episodes slot: episodic memory of finished tasks (seed 000's RecordEpisode / RecallEpisodes).

The slot is declared here; the components and their design notes are in
:mod:`memlab.strategies.episodes.episodic`."""

from __future__ import annotations

from memlab.strategies.slots import Needs, declare_slot

declare_slot("episodes", "episodic memory of finished tasks (goal, key steps, outcome, lessons)", order=60, needs=(
    Needs("store", default="in_memory"),  # episodes are stored memories
))
