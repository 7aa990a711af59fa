"""The ceiling of string recall: can a probe's gold answer be found in *any* context at all?

String recall credits a context that holds a gold form. What a context can hold from the dataset
is more than the turns' words: a history renders every turn as ``[date] speaker: text``, stored
memories carry their turn's date, an oracle extractor stores the turn's ``facts`` annotation, a
time-aware reranker shows the question's date and weekday ("Now: Tuesday 2024-05-07 05:00"), an
extraction transcript names the tool of a tool turn. A gold answer "May 2023" written nowhere in
the turns but in a session date is recalled by ``full_context`` — so a ceiling that read only the
turn text said 0.40 where full_context reached 0.435 on LoCoMo.

:class:`CeilingSources` is the dataset text one probe's context could draw on: the turns it can
see (today the conversation up to the probe; a caller may pass more, e.g. a user's earlier
threads) rendered as the history renders them, in order, plus each turn's facts, its session's
and its own timestamp in the renderings strategies use (ISO date, weekday, 24- and 12-hour time),
tool names and speakers, plus the probe's ``asked_at`` as the "Now:" line renders it (UTC). A
gold is attested when every part (``gold_match: all``) or some part (``any``) occurs in it,
normalised as recall normalises (:mod:`memlab.scoring`).

Limits, stated: a gold form that only appears across two lines that no context puts side by side
(retrieved lines in another order) or in a date shifted into another time zone is not counted; a
memory that writes a derived value itself ("3 trips") can still exceed the ceiling — the ceiling
bounds what carrying the dataset's own text can reach.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from memlab.scoring.attestation import gold_attested
from memlab.scoring.values import canonical


def timestamp_renderings(ts: datetime) -> str:
    """A time as strategies render it: ISO date, weekday, 24-hour and 12-hour clock."""
    return f"{ts:%Y-%m-%d} {ts:%A} {ts:%H:%M} {ts:%I:%M %p}"


def now_rendering(asked_at: datetime) -> str:
    """The probe's time as a "Now:" line shows it (in UTC; a zone-shifted date is not included)."""
    when = asked_at if asked_at.tzinfo is None else asked_at.astimezone(timezone.utc)
    return f"Now: {timestamp_renderings(when)}"


def event_texts(event: Any) -> tuple[str, list[str]]:
    """(the turn's history line, the other dataset text a context can carry with it) of one
    :class:`memlab.strategies.base.TurnEvent`."""
    turn = event.turn
    extras = list(turn.facts)
    extras.append(timestamp_renderings(event.timestamp))
    extras.append(str(event.speaker))
    if turn.timestamp is not None:
        extras.append(timestamp_renderings(turn.timestamp))
    if turn.tool_name:
        extras.append(f"tool: {turn.tool_name}")
    return event.line, extras


class CeilingSources:
    """The canonical dataset text of a set of turns, built once per turn and shared by every probe
    and strategy (a LoCoMo conversation has ~600 turns and ~200 probes)."""

    def __init__(self) -> None:
        self._canon: dict[Any, tuple[str, str]] = {}
        self._sessions: dict[Any, str] = {}

    def _of(self, key: Any, event: Any, session_time: datetime | None) -> tuple[str, str]:
        if key not in self._canon:
            line, extras = event_texts(event)
            if session_time is not None:
                extras.append(timestamp_renderings(session_time))
            self._canon[key] = (canonical(line), " ".join(canonical(x) for x in extras))
        return self._canon[key]

    def text(self, events: Sequence[tuple[Any, Any, datetime | None]], asked_at: datetime | None) -> str:
        """Canonical text of ``events`` — ``(key, TurnEvent, session timestamp)`` in the order a history
        shows them — and the probe's time: lines side by side as a history puts them, the rest after,
        each on its own (``|`` is never part of a canonical gold form, so nothing matches across it)."""
        lines, extras = [], []
        for key, event, session_time in events:
            line, extra = self._of(key, event, session_time)
            lines.append(line)
            extras.append(extra)
        if asked_at is not None:
            extras.append(canonical(now_rendering(asked_at)))
        return " ".join(lines) + " | " + " | ".join(extras)

    def attested(self, gold: Sequence[Sequence[str]], gold_match: str,
                 events: Sequence[tuple[Any, Any, datetime | None]], asked_at: datetime | None) -> bool:
        """Whether some context built from ``events`` (and the probe's time) could hold the gold."""
        return gold_attested(gold, gold_match, self.text(events, asked_at))


def probe_events(dataset: str, conv: Any, events: Sequence[Any], upto_turn: str) -> list[tuple[Any, Any, datetime | None]]:
    """The turns a probe asked right after ``upto_turn`` could see: ``events`` (the conversation's
    :func:`memlab.harness.units.turn_events`) up to and including that turn. Where a user's earlier threads
    share the namespace, a caller widens this by passing their events first."""
    ids = [e.turn.id for e in events]
    end = ids.index(upto_turn) + 1 if upto_turn in ids else len(events)
    return conversation_events(dataset, conv, events[:end])


def conversation_events(dataset: str, conv: Any, events: Iterable[Any]) -> list[tuple[Any, Any, datetime | None]]:
    """A conversation's events as :meth:`CeilingSources.text` takes them (keyed by dataset,
    conversation and turn, with their session's timestamp)."""
    sessions = {s.id: s.timestamp for s in conv.sessions}
    return [((dataset, conv.id, e.turn.id), e, sessions.get(e.session_id)) for e in events]
