"""Time tracking (seed 003's TimekeeperAgent): the agent logs hours as structured time entries
and queries them with totals; entries live apart from facts and conversations.

The slot is declared here; the components and their design notes are in
:mod:`memlab.strategies.timekeeper.time_log`."""

from __future__ import annotations

from memlab.strategies.slots import Needs, declare_slot

declare_slot("timekeeper", "structured time entries an agent logs and queries, kept in their own namespace", order=85, needs=(
    Needs("store", default="in_memory"),  # time entries live in the store, in their own namespace
    Needs("agent", why="timekeeper {type!r} offers tools an agent calls; add an agent slot"),
))
