"""The world one long conversation happens in: people, fresh names, dates, and the facts its turns state.

Both writers of the long-horizon generator (:mod:`.locomo`, two friends in LoCoMo's file format, and
:mod:`.native`, a user and their assistant as memlab threads) tell the same kind of life story through
the same episodes (:mod:`.episodes`). This module holds what the episodes share: a :class:`World` that
hands out names nobody in the conversation has used yet (so a question has one answer), the
:class:`Person` whose life is told, the :class:`Session` being written and the :class:`Fact` records
the episodes leave behind for questions.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Callable

from memlab.datasets.synth.vocab import (ADJ, ASK, CITIES, COLOUR, ECHO, EXTRA, FIRST, MONTHS, NOUN, ORG_KINDS, PET_NAMES, PET_TITLES,
                                        REACT, RELATIVES, SURNAMES, VENUES, WEEKDAYS)


@dataclass
class Person:
    name: str
    city: str
    job: str
    employer: str
    relatives: dict[str, str] = field(default_factory=dict)
    contacts: dict[str, str] = field(default_factory=dict)
    pets: list[tuple[str, str]] = field(default_factory=list)
    hobbies: list[tuple[str, str, str]] = field(default_factory=list)  # (hobby, group, weekday)
    visited: list[tuple[str, str]] = field(default_factory=list)  # (city, line ref)
    books: list[tuple[str, str]] = field(default_factory=list)
    car: str | None = None


@dataclass
class Fact:
    """Something a turn said that can be asked about.

    ``kind``: ``single`` (one turn states it), ``temporal`` (a date, resolved against the session's),
    ``multi`` (several turns, possibly sessions apart, together), ``open`` (inferred from a stated
    routine), ``other`` (the other speaker's fact asked about the teller: LoCoMo's adversarial
    questions), ``update`` (the current value of something that changed; ``superseded`` holds the
    earlier values). ``evidence`` are line refs ``D<session>:<line>``.
    """

    kind: str
    question: str
    answer: str
    evidence: list[str]
    day: date | None = None
    """For ``temporal`` facts resolved to one day: that day (the native writer gives its surface forms)."""
    superseded: list[str] = field(default_factory=list)
    slot: str | None = None
    """For values that change (``employer``, ``city``, ...): the slot, so later values supersede this one."""
    subject: str = ""
    literal: bool = True
    """The answer is written in its evidence (checked by the writers); False for derived answers."""


class World:
    """Names in use in one conversation: every new person, place and title is distinct."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.venues: dict[str, list[str]] = {}
        self.entities: Counter = Counter()
        """Per kind: how many distinct entities were introduced (for the stats)."""
        self.pending: list[dict[str, Any]] = []
        """Open chains: something introduced in one session whose detail a later session gives (multi-hop)."""

    def _fresh(self, make: Callable[[], str], kind: str) -> str:
        for _ in range(200):
            name = make()
            if name not in self.used:
                self.used.add(name)
                self.entities[kind] += 1
                return name
        raise RuntimeError(f"the {kind} pool is exhausted after {self.entities[kind]} names; enlarge its word lists")

    def person(self) -> str:
        """A new person: a first name, or (often, and always once first names run short) a full name."""
        full = self.rng.random() < 0.3 or self.entities["person"] > len(FIRST) // 2
        return self._fresh(lambda: f"{self.rng.choice(FIRST)} {self.rng.choice(SURNAMES)}" if full
                           else self.rng.choice(FIRST), "person")

    def full_name(self) -> str:
        """A new person under a first name and surname (third parties the user introduces by full name)."""
        return self._fresh(lambda: f"{self.rng.choice(FIRST)} {self.rng.choice(SURNAMES)}", "person")

    def trail(self) -> str:
        """A new walking trail's name ("Copper Heron"), counted with the titles."""
        return self._fresh(lambda: f"{self.rng.choice(ADJ)} {self.rng.choice(NOUN)}", "title")

    def first(self) -> str:
        if self.entities["person"] > len(FIRST) // 2:
            return self.person()
        return self._fresh(lambda: self.rng.choice(FIRST), "person")

    def venue(self, city: str) -> str:
        """A place in ``city``: often one already talked about (a favourite café comes up again)."""
        r = self.rng
        known = self.venues.setdefault(city, [])
        if known and r.random() < 0.45:
            return r.choice(known)
        known.append(self.new_venue(city))
        return known[-1]

    def new_venue(self, city: str) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice([f"the {r.choice(ADJ)} {r.choice(NOUN)} {r.choice(VENUES)}",
                                             f"{r.choice(SURNAMES)}'s {r.choice(VENUES)}",
                                             f"the {city} {r.choice(VENUES)}"]), "place")

    def org(self) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice([f"{r.choice(SURNAMES)} {r.choice(ORG_KINDS)}",
                                             f"{r.choice(ADJ)} {r.choice(NOUN)} {r.choice(ORG_KINDS)}"]), "organisation")

    def title(self) -> str:
        return self._fresh(lambda: titles(self.rng), "title")

    def pet_name(self) -> str:
        """A pet name; once the plain names are used up (the longest histories), a titled one ("Captain Biscuit")."""
        if self.entities["pet"] < len(PET_NAMES) * 3 // 4:
            return self._fresh(lambda: self.rng.choice(PET_NAMES), "pet")
        return self._fresh(lambda: f"{self.rng.choice(PET_TITLES)} {self.rng.choice(PET_NAMES)}", "pet")

    def code(self, prefix: str, digits: int = 5) -> str:
        """A booking code, order number or train number nobody else in the conversation has."""
        return self._fresh(lambda: f"{prefix}{self.rng.randrange(10 ** (digits - 1), 10 ** digits)}", "code")

    def city(self, exclude: set[str] | frozenset[str] = frozenset()) -> str:
        """A city not in ``exclude`` (any city once every one is excluded: the longest histories revisit)."""
        return self.rng.choice([c for c in CITIES if c not in exclude] or CITIES)


def an(noun: str) -> str:
    """The noun with its indefinite article ("an architect", "a nurse")."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def titles(rng: random.Random) -> str:
    return rng.choice([f"The {rng.choice(NOUN)} of {rng.choice(CITIES)}", f"{rng.choice(ADJ)} {rng.choice(NOUN)}",
                       f"A {rng.choice(ADJ)} {rng.choice(NOUN)}", f"The Last {rng.choice(NOUN)}",
                       f"{rng.choice(NOUN)}s in the {rng.choice(NOUN)}"])


# ------------------------------------------------------------------------------------------- dates
def date_text(d: datetime | date) -> str:
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


def when_past(rng: random.Random, today: datetime) -> tuple[str, str, date | None]:
    """A past time as said in a turn, the LoCoMo-style gold answer, and the day when it names one."""
    k = rng.randrange(7)
    if k == 0:
        d = today - timedelta(days=1)
        return "yesterday", date_text(d), d.date()
    if k == 1:
        n = rng.choice([2, 3, 4])
        d = today - timedelta(days=n)
        return f"{['', '', 'two', 'three', 'four'][n]} days ago", date_text(d), d.date()
    if k == 2:
        d = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
        return "last Saturday", date_text(d), d.date()
    if k == 3:
        return "last week", f"the week before {date_text(today)}", None
    if k == 4:
        prev = today.replace(day=1) - timedelta(days=1)
        return "last month", f"{MONTHS[prev.month - 1]} {prev.year}", None
    if k == 5:
        d = today - timedelta(days=rng.randint(5, 20))
        return f"on {d.day} {MONTHS[d.month - 1]}", date_text(d), d.date()
    return "over the weekend", f"the weekend before {date_text(today)}", None


def when_future(rng: random.Random, today: datetime) -> tuple[str, str, date | None]:
    k = rng.randrange(4)
    if k == 0:
        return "next month", f"{MONTHS[today.month % 12]} {today.year + (today.month == 12)}", None
    if k == 1:
        d = today + timedelta(days=(5 - today.weekday()) % 7 or 7)
        return "this Saturday", date_text(d), d.date()
    if k == 2:
        return "next week", f"the week after {date_text(today)}", None
    d = today + timedelta(days=rng.randint(10, 40))
    return f"on {d.day} {MONTHS[d.month - 1]}", date_text(d), d.date()


# ------------------------------------------------------------------------------------------- sessions
@dataclass
class Voice:
    """How the listener answers a story: a friend (LoCoMo) or an assistant (memlab threads)."""

    react: list[str]
    ask: list[str]
    echo: list[str]
    echo_share: float = 0.6

    def resp(self, rng: random.Random, pool: list[str] | None = None) -> str:
        """A reply: a reaction and, often, a question back or a remark."""
        text = rng.choice(pool or self.react)
        if rng.random() < 0.75 and text.endswith((".", "!")):
            text = f"{text} {rng.choice(self.ask)}"
        if rng.random() < self.echo_share:
            text = f"{text} " + rng.choice(self.echo).format(city=rng.choice(CITIES), rel=rng.choice(RELATIVES))
        return text

    def question(self, rng: random.Random, extra: list[str] = ()) -> str:
        return rng.choice(self.ask + list(extra))


FRIEND = Voice(REACT, ASK, ECHO)


class Session:
    """One session's lines being written: ``[speaker, text, caption]`` and the facts they state."""

    def __init__(self, n: int, date: datetime, a: Person, b: Person, rng: random.Random, voice: Voice = FRIEND) -> None:
        self.n, self.date, self.a, self.b, self.rng, self.voice = n, date, a, b, rng, voice
        self.lines: list[list[Any]] = []  # [speaker, text, caption]
        self.topics: list[str] = []
        self.dates = 0

    def ref(self) -> str:
        """The line ref of the last line."""
        return f"D{self.n}:{len(self.lines)}"

    def say(self, who: Person, text: str, caption: str | None = None) -> str:
        """A line of the speaker telling the story, often with a sentence of colour; returns its ref."""
        return self.reply(who, extra(self.rng, text, who, self.date), caption)

    def reply(self, who: Person | str, text: str, caption: str | None = None) -> str:
        """Add a line; consecutive lines of one speaker become one turn (never a tool's). Returns its ref."""
        name = who if isinstance(who, str) else who.name
        if self.lines and self.lines[-1][0] == name and not name.startswith("tool:"):
            self.lines[-1][1] += " " + text
            if caption:
                self.lines[-1][2] = caption
        else:
            self.lines.append([name, text, caption])
        return self.ref()

    def other(self, p: Person) -> Person:
        return self.b if p is self.a else self.a


def extra(rng: random.Random, text: str, who: Person | None = None, date: datetime | None = None) -> str:
    """A turn with, often, a sentence or two of colour (LoCoMo's turns are two or three sentences)."""
    if rng.random() < 0.8:
        text = f"{text} {rng.choice(EXTRA)}"
    if who is not None and rng.random() < 0.65:
        rel = rng.choice(list(who.relatives.values()) or ["Mum"])
        text = f"{text} " + rng.choice(COLOUR).format(city=rng.choice(CITIES), rel=rel, day=rng.choice(WEEKDAYS),
                                                      month=MONTHS[(date or datetime(2023, 1, 1)).month - 1])
    return text


def unambiguous(facts: list[Fact]) -> list[Fact]:
    """The facts whose question has one answer when asked after every session: for a value that changed
    (``update``), only its latest fact; for any other question asked twice with different answers (two
    dogs, say), neither."""
    groups: dict[str, list[Fact]] = {}
    for f in facts:
        groups.setdefault(f.question, []).append(f)
    keep: set[int] = set()
    for group in groups.values():
        if group[0].kind == "update":
            keep.add(id(group[-1]))
        elif len({f.answer for f in group}) == 1:
            keep.add(id(group[0]))
    return [f for f in facts if id(f) in keep]
