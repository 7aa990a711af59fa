"""The ceiling of string recall: can a probe's gold answer be found in *any* context at all?

String recall credits a context that holds a gold form. What a context can hold from the dataset
is more than the turns' words: a history renders every turn as ``[date] speaker: text``, stored
memories carry their turn's date, an oracle extractor stores the turn's ``facts`` annotation, a
time-aware reranker shows the question's date and weekday ("Now: Tuesday 2024-05-07 05:00"), an
extraction transcript names the tool of a tool turn. A gold answer "May 2023" written nowhere in
the turns but in a session date is recalled by ``full_context`` — so a ceiling that read only the
turn text said 0.40 where full_context reached 0.435 on LoCoMo.

The sources of one probe are the turns its context could see — every turn of the user's earlier
threads (long-term memory may carry any of them), then its own thread's turns up to and including
the one it is asked after — rendered as the history renders them (``[date] speaker: text``), in
order, plus each turn's facts, its session's and its own timestamp in the renderings strategies
use (ISO date, weekday, 24- and 12-hour time), tool names and speakers, plus the probe's
``asked_at`` as the "Now:" line renders it (UTC). A gold is attested when every part
(``gold_match: all``) or some part (``any``) occurs in them, normalised as recall normalises
(:mod:`memlab.scoring`).

**Computed at read-back**, not while playing: it depends on the dataset only, and the run
pipeline imports nothing from the analysis package (docs/architecture.md). :class:`Ceilings`
answers for one run from the datasets its manifest names (:mod:`memlab.analysis.played_datasets`,
hash-checked), once per (dataset, conversation, probe) whatever the number of strategies, from one
canonical text per user built once (a probe's sources are a prefix of it). A probe record that
carries ``gold_written`` (runs recorded before read-back computed it) keeps its recorded value;
without it and without the dataset (moved, changed since the run) the ceiling is unknown (None).

Limits, stated: a gold form that only appears across two lines that no context puts side by side
(retrieved lines in another order) or in a date shifted into another time zone is not counted; a
memory that writes a derived value itself ("3 trips") can still exceed the ceiling — the ceiling
bounds what carrying the dataset's own text can reach.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone
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


def turn_sources(conv: Any) -> list[tuple[str, str, str]]:
    """Per turn of ``conv`` (a :class:`memlab.datasets.models.Conversation`), in order: (turn id, its
    history line, the other dataset text a context can carry with it), both canonical. The line and
    the time are those the harness gives strategies (``TurnEvent.line``: a turn without its own time
    is its session's, a microsecond per earlier turn of the session later; the speaker's display
    name); ``tests/test_ceiling.py`` checks ``full_context`` against them on every shipped dataset."""
    within: Counter = Counter()
    out = []
    for session, turn in conv.turns():
        when = turn.timestamp or session.timestamp + timedelta(microseconds=within[session.id])
        within[session.id] += 1
        speaker = turn.speaker or conv.speakers.get(turn.role, turn.role)
        line = f"[{when.date().isoformat()}] {speaker}: {turn.text}"
        extras = [*turn.facts, timestamp_renderings(when), str(speaker)]
        if turn.timestamp is not None:
            extras.append(timestamp_renderings(turn.timestamp))
        if turn.tool_name:
            extras.append(f"tool: {turn.tool_name}")
        if session.timestamp is not None:
            extras.append(timestamp_renderings(session.timestamp))
        out.append((turn.id, canonical(line), " ".join(canonical(x) for x in extras)))
    return out


class _UserText:
    """One user's canonical dataset text: every turn of their threads in play order, the history
    lines joined as a history shows them and the extras each fenced by ``|`` (never part of a
    canonical gold form, so nothing matches across it), with where each turn ends — a probe's
    sources are a prefix of both."""

    def __init__(self, convs: Sequence[Any]) -> None:
        lines: list[str] = []
        extras: list[str] = []
        self.line_end: list[int] = []  # after n turns: the prefix of the joined lines (n ≥ 1)
        self.extra_end: list[int] = []
        self.position: dict[tuple[str, str], int] = {}  # (conversation, turn) → turns up to and including it
        self.conv_end: dict[str, int] = {}
        n_line = n_extra = 0
        for conv in convs:
            for turn_id, line, extra in turn_sources(conv):
                n_line += len(line) + (1 if lines else 0)
                n_extra += len(extra) + (3 if extras else 0)
                lines.append(line)
                extras.append(extra)
                self.line_end.append(n_line)
                self.extra_end.append(n_extra)
                self.position[(conv.id, turn_id)] = len(lines)
            self.conv_end[conv.id] = len(lines)
        self.lines = " ".join(lines)
        self.extras = " | ".join(extras)

    def text(self, conversation_id: str, upto_turn: str, asked_at: datetime | None) -> str:
        """The canonical sources of a probe of ``conversation_id`` asked after ``upto_turn`` (the
        whole conversation when that turn is not in it): lines side by side, the rest after."""
        n = self.position.get((conversation_id, upto_turn), self.conv_end[conversation_id])
        lines = self.lines[:self.line_end[n - 1]] if n else ""
        extras = self.extras[:self.extra_end[n - 1]] if n else ""
        if asked_at is not None:
            now = canonical(now_rendering(asked_at))
            extras = f"{extras} | {now}" if n else now
        return lines + " | " + extras


class Ceilings:
    """Each probe's ceiling (``gold_written``) for one run, computed from ``datasets`` (name → the
    dataset as the run played it): once per (dataset, conversation, probe), from one text per user."""

    def __init__(self, datasets: Mapping[str, Any]) -> None:
        self.datasets = datasets
        self._users: dict[tuple[str, str], _UserText] = {}
        self._user_of: dict[tuple[str, str], str] = {}
        self._memo: dict[tuple[str, str, str], bool | None] = {}
        for name, ds in datasets.items():
            for conv in ds.conversations:
                self._user_of[(name, conv.id)] = conv.ns

    def _user(self, dataset: str, namespace: str) -> _UserText:
        key = (dataset, namespace)
        if key not in self._users:
            convs = [c for c in self.datasets[dataset].conversations if c.ns == namespace]
            self._users[key] = _UserText(convs)
        return self._users[key]

    def text(self, dataset: str, conversation_id: str, upto_turn: str, asked_at: datetime | None) -> str | None:
        """The canonical sources of a probe, or None when its dataset or conversation is unknown."""
        ns = self._user_of.get((dataset, conversation_id))
        if ns is None:
            return None
        return self._user(dataset, ns).text(conversation_id, upto_turn, asked_at)

    def gold_written(self, probe: Mapping[str, Any]) -> bool | None:
        """Whether some context could hold the gold of ``probe`` (a probe record: ``dataset``,
        ``conversation_id``, ``probe_id``, ``after_turn``, ``gold``, ``gold_match``, ``asked_at``);
        None without a gold, or without the dataset it was asked in."""
        if not probe.get("gold"):
            return None
        key = (str(probe["dataset"]), str(probe["conversation_id"]), str(probe["probe_id"]))
        if key not in self._memo:
            asked = probe.get("asked_at")
            asked_at = datetime.fromisoformat(asked) if isinstance(asked, str) else asked
            text = self.text(key[0], key[1], str(probe.get("after_turn")), asked_at)
            self._memo[key] = None if text is None else gold_attested(probe["gold"], probe.get("gold_match") or "any", text)
        return self._memo[key]

    def fill(self, records: Iterable[dict[str, Any]]) -> None:
        """Set ``gold_written`` on each probe record that does not carry one (in place)."""
        for rec in records:
            if rec.get("gold_written") is None:
                rec["gold_written"] = self.gold_written(rec)
