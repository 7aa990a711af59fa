"""Time tracking (seed 003's TimekeeperAgent): the agent logs hours as structured time entries
and queries them with totals; entries live apart from facts and conversations.

The slot is declared here; the components and their design notes are in
:mod:`memlab.strategies.timekeeper.time_log`."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("timekeeper", "structured time entries an agent logs and queries, kept in their own namespace", order=85)
