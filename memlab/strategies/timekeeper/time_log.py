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

import re
from datetime import datetime, timedelta
from typing import Any
from pydantic import Field
from memlab.memory.item import MemoryEvent, MemoryItem, Op
from memlab.strategies.base import ContextLine, ContextSection
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Query, StrategyState
from memlab.strategies.tools import MemoryTool, object_schema


PERIODS = ("today", "week", "month", "all")
"""The seed's ``period`` values (``get_time_entries(period="week")``, ``period="all"``)."""


SEED_003_TIMEKEEPER_WORDS = ["time", "schedule", "when", "date", "clock", "hours", "logged", "log", "track",
                             "tracking", "timekeeper", "timer"]
"""The TimekeeperAgent's ``capabilities`` list in seed 003's agent registry, verbatim."""


_WORD = re.compile(r"[a-z0-9]+")


_PERIOD_WORDS = [("today", re.compile(r"\btoday\b", re.I)), ("week", re.compile(r"\bthis week\b", re.I)),
                 ("month", re.compile(r"\bthis month\b", re.I))]


_FUNCTION_WORDS = frozenset("a an the on for in of to at my i me we our did do does have has had how many much what "
                            "which is are was were this that all total in total so far spent spend logged log hours "
                            "hour time entries entry tracked track".split())


def period_of(text: str) -> str:
    """The seed period a request names: "today", "this week", "this month", else "all"."""
    return next((p for p, rx in _PERIOD_WORDS if rx.search(text)), "all")


def period_start(period: str, now: datetime) -> datetime | None:
    """Start of ``period`` at ``now`` (weeks start on Monday); None for ``all``."""
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "today":
        return day
    if period == "week":
        return day - timedelta(days=day.weekday())
    if period == "month":
        return day.replace(day=1)
    if period == "all":
        return None
    raise ValueError(f"period must be one of {', '.join(PERIODS)}, got {period!r}")


def _hours(value: Any) -> float:
    try:
        hours = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"log_time needs 'hours' as a number, got {value!r}") from None
    if not 0 < hours <= 24:
        raise ValueError(f"log_time 'hours' must be more than 0 and at most 24 (one entry), got {hours:g}")
    return hours


def _fmt(hours: float) -> str:
    return f"{hours:.2f}".rstrip("0").rstrip(".")


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _FUNCTION_WORDS and len(w) > 1}


@component("timekeeper", "time_log")
class TimeLog(Component):
    """Agent tools log_time / get_time_entries over time entries in their own namespace; totals on request."""

    class Params(Params):
        session: str = "time_tracking"
        """The entries' namespace below the unit's (seed 003: the persistent "andrew_time_tracking" session)."""
        default_category: str = "general"
        """Category of an entry logged without one (seed 003's TimeEntry default)."""
        query_words: list[str] = Field(default_factory=lambda: list(SEED_003_TIMEKEEPER_WORDS))
        """A question naming one of these gets its time entries and total injected (seed 003's TimekeeperAgent
        capabilities); empty: entries reach the agent only through get_time_entries."""

    context_order = 30
    offered_tools = {
        "log_time": "Log hours spent on a task as a time entry (task, hours, optional category and notes); "
                    "entries persist across conversations.",
        "get_time_entries": "List logged time entries with their total hours, optionally only one period "
                            "(today, week, month, all), category or task.",
    }

    def namespace(self, state: StrategyState) -> str:
        return f"{state.namespace}/{self.params.session}"

    def begin_unit(self, state: StrategyState) -> None:
        state.store.reset(self.namespace(state))

    # -- the seed's MemoryAgent interface ---------------------------------------------------------
    def log_time(self, state: StrategyState, task: str, hours: float, category: str = "", notes: str = "") -> MemoryItem:
        """Store one entry citing the turn being taken in (its provenance) and emit its ADD."""
        task = " ".join(task.split())
        if not task:
            raise ValueError("log_time needs a 'task'")
        hours = _hours(hours)
        category = " ".join(category.split()) or self.params.default_category
        now, ns = state.now, self.namespace(state)
        entry_id = state.ids()
        text = f"{_fmt(hours)} {'hour' if hours == 1 else 'hours'} on {task} ({category})"
        item = MemoryItem(id=entry_id, namespace=ns, text=text, kind="time_entry", created_at=now, updated_at=now,
                          source_turn_ids=[state.event.turn.id] if state.event is not None else [],
                          metadata={"date": now.date().isoformat(), "timestamp": now.isoformat(), "task": task,
                                    "duration_hours": hours, "category": category, "notes": notes,
                                    "session_id": state.conversation_id, "entry_id": entry_id})
        state.store.add([item], self.env.embedder.embed([text]))
        state.emit(MemoryEvent(op=Op.ADD, item_id=entry_id, namespace=ns, kind="time_entry", text=text,
                               source_turn_ids=list(item.source_turn_ids), reason="log_time tool call",
                               store=state.store.name))
        return item

    def get_time_entries(self, state: StrategyState, now: datetime, period: str = "all", category: str = "",
                         task: str = "") -> list[MemoryItem]:
        """Entries of ``period`` (counted back from ``now``), of ``category``, whose task contains ``task``; oldest first."""
        start = period_start(period or "all", now)
        out = []
        for it in state.store.list(self.namespace(state), where={"kind": "time_entry"}, include_invalid=False):
            when = datetime.fromisoformat(str(it.metadata["timestamp"])).replace(tzinfo=None)
            if start is not None and not start <= when <= now.replace(tzinfo=None):
                continue
            if category and str(it.metadata.get("category", "")).casefold() != category.strip().casefold():
                continue
            if task and task.strip().casefold() not in str(it.metadata.get("task", "")).casefold():
                continue
            out.append(it)
        return out

    # -- tools ------------------------------------------------------------------------------------
    def tools(self, state: StrategyState) -> list[MemoryTool]:
        def log_time(args: dict) -> str:
            item = self.log_time(state, str(args.get("task") or ""), args.get("hours"),
                                 str(args.get("category") or ""), str(args.get("notes") or ""))
            return f"logged {item.text} on {item.metadata['date']} (entry {item.id})"

        def get_time_entries(args: dict) -> str:
            period = str(args.get("period") or "all").strip().lower()
            if period not in PERIODS:
                raise ValueError(f"get_time_entries 'period' must be one of {', '.join(PERIODS)}, got {period!r}")
            entries = self.get_time_entries(state, state.now, period, str(args.get("category") or ""),
                                            str(args.get("task") or ""))
            return "\n".join(_entry_lines(entries, period)) if entries else f"(no time entries for period {period})"

        return [
            MemoryTool("log_time", self.offered_tools["log_time"], object_schema(
                ["task", "hours"], task=("string", "what the time was spent on"), hours=("number", "hours spent"),
                category=("string", f"optional category (default {self.params.default_category!r})"),
                notes=("string", "optional notes")), log_time, writes=True),
            MemoryTool("get_time_entries", self.offered_tools["get_time_entries"], object_schema(
                [], period=("string", "today, week, month or all (default all)"),
                category=("string", "only this category (optional)"),
                task=("string", "only tasks containing this text (optional)")), get_time_entries),
        ]

    # -- the TimekeeperAgent's answer to a time question ------------------------------------------
    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        asked = set(_WORD.findall(query.question.lower()))
        if not asked & {w.lower() for w in self.params.query_words}:
            return []
        period = period_of(query.question)
        entries = self.get_time_entries(state, query.now, period)
        named = _content(query.question)
        chosen = [it for it in entries if named & _content(f"{it.metadata['task']} {it.metadata['category']}")]
        entries = chosen or entries
        if not entries:
            return []
        lines = [ContextLine(text=f"[{it.metadata['date']}] {it.text}", source_turn_ids=list(it.source_turn_ids),
                             kind="time_entry", item_id=it.id) for it in entries]
        total = sum(float(it.metadata["duration_hours"]) for it in entries)
        tasks = sorted({str(it.metadata["task"]) for it in entries}, key=str.lower)
        scope = f"on {', '.join(tasks)}" if chosen else "on all tasks"
        lines.append(ContextLine(text=f"[{query.now.date().isoformat()}] Total hours logged {scope}, "
                                      f"{'all time' if period == 'all' else 'this ' + ('day' if period == 'today' else period)}: "
                                      f"{_fmt(total)}",
                                 source_turn_ids=sorted({t for it in entries for t in it.source_turn_ids}),
                                 kind="time_total"))
        return [ContextSection("Time entries", lines)]


def _entry_lines(entries: list[MemoryItem], period: str) -> list[str]:
    lines = [f"- ({it.id}) [{it.metadata['date']}] {it.text}" for it in entries]
    total = sum(float(it.metadata["duration_hours"]) for it in entries)
    return lines + [f"total ({period}): {_fmt(total)} hours in {len(entries)} entries"]
