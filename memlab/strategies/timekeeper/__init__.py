"""Time tracking (seed 003's TimekeeperAgent): the agent logs hours as structured time entries and
queries them with totals; entries live apart from facts and conversations.

- timekeeper ``time_log`` offers two agent tools with the seed's ``MemoryAgent`` interface:
  ``log_time(task, hours, category, notes)`` stores one entry (the seed's ``TimeEntry``:
  timestamp, task, duration_hours, category "general" by default, notes, session_id, entry_id)
  and ``get_time_entries(period, category, task)`` lists the matching entries with their total.
- Store layout: the seed keeps every entry in the persistent ``andrew_time_tracking`` session,
  never in a conversation session and never among the long-term facts. Here entries are items of
  kind ``time_entry`` in their own store namespace, ``<unit namespace>/<session>``, so fact
  retrieval never sees them, they survive the unit's conversations, and another unit's entries
  are in another namespace.
- The seed routes a request to the TimekeeperAgent by its capability words; a question that names
  one of them (``query_words``) gets the query's answer injected — the entries of the period it
  names (today, this week, this month, else all), narrowed to the entries whose task or category
  it names, and their total — the way the TimekeeperAgent answers "How many hours have I logged?".

Time is dataset time: an entry's timestamp is the turn's, periods are counted back from the
question's time."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("timekeeper", "structured time entries an agent logs and queries, kept in their own namespace", order=85)
