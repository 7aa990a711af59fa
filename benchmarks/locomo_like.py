"""A generator of long conversations with LoCoMo's shape and LoCoMo's variety (issue 22).

The length scaler (``memlab datasets scale``) pads conversations with impersonal chit-chat: few
names, few places, no dates, the same sentences again and again. A memory strategy whose cost
grows with the number of *distinct* things it has seen (an entity graph, a summary of facts, a
store of extracted memories) never shows that growth on it. LoCoMo's conversations are two people
catching up over months: every session brings new friends, relatives, colleagues, places, events,
books and dates, and picks up old ones.

This module writes conversations in LoCoMo's own file format (``locomo10.json``: samples with
``conversation.speaker_a/_b``, ``session_N`` turns ``{speaker, dia_id, text[, blip_caption]}``,
``session_N_date_time`` like ``"1:56 pm on 8 May, 2023"``, and ``qa`` items ``{question, answer,
evidence, category}`` with LoCoMo's five categories), so memlab reads them through the same
loader as the public file. Per conversation, by default: 27 sessions of 14–30 turns (LoCoMo:
272 sessions, 5,882 turns, 1,986 questions over 10 conversations), alternating speakers, each
session a few episodes of the speakers' lives (trips, events, new people, work, family, pets,
hobbies, books and films, food, health, moving house, purchases; knowledge updates such as a new
job or a new city) with small talk around them, shared photos as ``blip_caption``, relative and
absolute dates. The questions are generated from the facts the episodes state, with the turns
that state them as evidence: single-hop, multi-hop (across sessions), temporal (dates resolved
against the session date, as LoCoMo's gold answers are), open-domain (a habit inferred from a
stated routine) and adversarial (a fact of one speaker asked about the other, which should be
abstained from).

Everything is drawn from one seeded ``random.Random``: the same arguments give the same file
byte for byte. Entity names are composed from general word lists written here (first names,
surnames, cities, venue and title patterns), not taken from any evaluation data.

CLI::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/locomo_like.py --out locomo_like.json            # LoCoMo size
    PYTHONPATH=$PWD .venv/bin/python benchmarks/locomo_like.py --conversations 1 --sessions 280 --out long.json  # ~6,000 turns
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

# ------------------------------------------------------------------------------------------- word lists
FIRST = """Aaliyah Abel Ada Adrian Agnes Aiko Alba Alec Alina Amara Amir Ana Anders Andile Anika Anton Arjun Astrid
Aurora Ayla Bea Ben Bianca Bilal Boris Bruno Camila Carla Carmen Cecile Chidi Chloe Clara Colin Dalia Damian Dana
Daniel Dario Dev Diego Dina Dmitri Edith Efe Eleni Elias Elif Elin Ellis Emeka Emil Enzo Erik Esme Esther Eva
Ezra Fatima Felix Femi Fiona Florian Freya Gabriel Gemma Gideon Greta Hamza Hana Hannah Harvey Hassan Hector Heidi
Helga Hugo Ida Ilse Imani Ines Ingrid Ira Isaac Isla Ivan Jada Jakob Jamal Janek Jasper Javier Jonas Joy Julian
June Kai Kamal Karin Kasia Keanu Kenji Kira Kofi Lara Laszlo Leila Lena Leon Lila Linus Liv Lorenzo Luca Lucia
Lukas Mabel Maeve Malik Mara Marco Margot Mateo Maya Mehmet Mei Milan Mina Miro Nadia Naomi Nico Nika Nils Noor
Nora Oskar Otto Paloma Pavel Petra Priya Quinn Rafael Rania Ravi Remy Rhea Rosa Rowan Ruby Rui Sami Sana Sasha
Selin Seth Signe Silas Sofia Soren Stella Sven Tala Tariq Tess Theo Tomas Uma Vera Viktor Vivian Wanda Wes Yara
Yusuf Zara Zeynep Zoe""".split()
SURNAMES = """Abbott Adeyemi Alvarez Andersen Arslan Baker Banerjee Barros Becker Bell Bianchi Brandt Byrne Castillo
Chen Costa Dahl Delgado Dubois Eriksen Farouk Ferreira Fischer Flynn Fontaine Garcia Gallo Greco Haddad Hansen
Hartmann Hayes Horvat Ibrahim Ito Jansen Jensen Kader Kaur Keller Kim Kowalski Kruger Laine Lambert Larsen Leclerc
Lindqvist Lopez Lund Mahler Marsh Medina Mendes Moreau Moretti Murphy Nakamura Navarro Nguyen Novak Nowak Okafor
Olsen Ortiz Osei Park Patel Pereira Petrov Quinn Reyes Richter Rossi Sato Schmidt Silva Sousa Stewart Suzuki Svensson
Tanaka Torres Varga Vogel Wagner Walsh Weber Wolff Yilmaz Young Zhang Ziegler""".split()
CITIES = """Aberdeen Accra Adelaide Amsterdam Antwerp Athens Austin Barcelona Bergen Berlin Bilbao Bologna Boston
Bratislava Bristol Brno Bruges Budapest Cairo Calgary Cape-Town Cardiff Chicago Cork Copenhagen Denver Dublin
Dubrovnik Edinburgh Florence Gdansk Geneva Ghent Glasgow Gothenburg Granada Graz Hamburg Helsinki Istanbul Kyoto
Krakow Leeds Leipzig Lille Lima Lisbon Ljubljana Lyon Madrid Malaga Manchester Marseille Melbourne Milan Montreal
Munich Nairobi Nantes Naples Nice Osaka Oslo Ottawa Palermo Porto Prague Quebec Reykjavik Riga Rotterdam Salzburg
Santiago Seattle Seville Sofia Split Stockholm Tallinn Tampere Toronto Toulouse Trieste Turin Utrecht Valencia
Vancouver Venice Vienna Vilnius Warsaw Wellington York Zagreb Zurich""".split()
CITIES = [c.replace("-", " ") for c in CITIES]  # multi-word names are written with a hyphen: 'Cape-Town' 
ADJ = """Amber Blue Bright Cedar Copper Crooked Golden Green Hidden Iron Little Lucky Maple Misty Northern Old Quiet
Red Rolling Silver Stone Sunny Velvet Wild Winding""".split()
NOUN = """Anchor Badger Bell Bridge Canyon Compass Crane Fox Garden Harbour Hare Heron Kettle Lantern Meadow Mill
Orchard Otter Pine Raven River Sparrow Tide Willow""".split()
VENUES = ["Café", "Bakery", "Bistro", "Gallery", "Theatre", "Community Centre", "Climbing Gym", "Library", "Market",
          "Music Hall", "Park", "Brewery", "Bookshop", "Studio", "Arena", "Gardens", "Museum", "Yoga Studio"]
ORG_KINDS = ["Architects", "Health", "Logistics", "Robotics", "Media", "Analytics", "Foods", "Labs", "Design",
             "Energy", "Insurance", "Engineering", "Publishing", "Clinic", "Consulting", "Software"]
JOBS = ["nurse", "software developer", "teacher", "graphic designer", "accountant", "physiotherapist", "chef",
        "civil engineer", "pharmacist", "journalist", "data analyst", "architect", "social worker", "electrician",
        "marketing manager", "veterinarian", "paramedic", "librarian", "lab technician", "photographer"]
RELATIVES = ["sister", "brother", "cousin", "aunt", "uncle", "mum", "dad", "grandmother", "grandfather", "niece",
             "nephew", "daughter", "son"]
CONTACTS = ["friend", "neighbour", "colleague", "old school friend", "flatmate", "coach", "teammate", "manager"]
PETS = ["dog", "cat", "rabbit", "parrot", "tortoise", "hamster", "ferret", "budgie"]
PET_NAMES = """Biscuit Bramble Clover Cookie Dotty Ember Fig Gizmo Hazel Juniper Koda Loki Mango Maple Miso Nacho
Nimbus Olive Pepper Pickle Pixel Poppy Rocket Rusty Sage Scout Shadow Sprout Sunny Tofu Waffles Ziggy""".split()
HOBBIES = [("pottery", "a pottery class"), ("rock climbing", "a climbing club"), ("salsa", "a salsa group"),
           ("watercolour painting", "a painting workshop"), ("chess", "a chess club"), ("trail running", "a running club"),
           ("baking sourdough", "a baking course"), ("the cello", "a community orchestra"), ("birdwatching", "a birding group"),
           ("photography", "a photo walk group"), ("woodworking", "a woodworking course"), ("swimming", "a masters swim squad"),
           ("Spanish", "an evening Spanish class"), ("gardening", "an allotment society"), ("choir singing", "a local choir"),
           ("kayaking", "a kayak club"), ("improv theatre", "an improv troupe"), ("knitting", "a knitting circle")]
EVENTS = ["a jazz festival", "a charity run", "a food market", "a film festival", "a book fair", "a street parade",
          "a craft fair", "a science fair", "a folk concert", "a wine tasting", "a comedy night", "a pride march",
          "a farmers' market", "an art exhibition", "a fundraising gala", "a marathon", "a poetry reading",
          "an open-air cinema", "a classical concert", "a board-game night"]
DISHES = ["ramen", "paella", "pho", "dumplings", "tacos", "risotto", "shakshuka", "pad thai", "falafel", "lasagne",
          "jollof rice", "bibimbap", "moussaka", "goulash", "ceviche", "pierogi", "curry laksa", "gnocchi"]
CARS = ["Volvo", "Skoda", "Mazda", "Kia", "Toyota", "Fiat", "Renault", "Hyundai", "Subaru", "Peugeot"]
CAR_KINDS = ["estate", "hatchback", "electric hatchback", "van", "SUV", "hybrid"]
INSTRUMENTS = ["guitar", "piano", "violin", "drums", "ukulele", "saxophone"]
ILLNESS = ["a sprained ankle", "the flu", "a bad back", "a pulled hamstring", "a broken wrist", "a nasty cold",
           "knee surgery", "a chest infection"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
PHOTO = ["a photo of {x} on a sunny day", "a picture of {x} with people smiling", "a photo of {x} at sunset",
         "a close-up photo of {x}", "a blurry picture of {x} taken from a distance"]

REACT = ["That sounds amazing!", "Wow, I didn't expect that!", "Oh no, I'm sorry to hear that.", "That's so cool.",
         "Haha, that's brilliant.", "I love that for you.", "That must have been a lot.", "How exciting!",
         "Good for you!", "That's lovely to hear.", "No way, really?", "That sounds like a lot of fun.",
         "Oh nice, I've always wanted to try that.", "That's a big step!", "I'm really proud of you."]
ASK = ["How did it go?", "What was it like?", "Who did you go with?", "How are you feeling about it?",
       "Was it what you expected?", "What made you decide to do that?", "Would you do it again?",
       "What was the best part?", "How long did it take?", "Tell me more!"]
SMALL_OPEN = ["Hey {o}! It's been a while, how have you been?", "Hi {o}, good to hear from you! What's new?",
              "Hey {o}, long time no chat! How's everything?", "Hi {o}! I was just thinking about you. How are things?",
              "{o}! How was your week?", "Morning {o}! Got a minute to catch up?"]
SMALL_REPLY = ["Hey {o}! Busy as always, but good. How about you?", "Hi! Things are hectic but fine. You?",
               "Good to hear from you too! Work has been crazy. What about you?",
               "Not bad at all, thanks for asking. What's been going on with you?",
               "Pretty good! I've got lots to tell you actually."]
SMALL_CLOSE = ["I have to run, talk soon!", "Let's catch up again next week.", "Take care, {o}!",
               "Great chatting, {o}. Speak soon.", "Okay, I'll let you go. Bye for now!", "Talk later, {o}!"]
SMALL_CLOSE_REPLY = ["Bye {o}! Take care.", "Talk soon!", "Sounds good, see you!", "Have a good one, {o}!",
                     "You too, bye!"]


def _titles(rng: random.Random) -> str:
    return rng.choice([f"The {rng.choice(NOUN)} of {rng.choice(CITIES)}", f"{rng.choice(ADJ)} {rng.choice(NOUN)}",
                       f"A {rng.choice(ADJ)} {rng.choice(NOUN)}", f"The Last {rng.choice(NOUN)}",
                       f"{rng.choice(NOUN)}s in the {rng.choice(NOUN)}"])


# ------------------------------------------------------------------------------------------- the world
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
    visited: list[tuple[str, str]] = field(default_factory=list)  # (city, dia id)
    books: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Fact:
    category: int
    question: str
    answer: str
    evidence: list[str]


class World:
    """Names in use in one conversation: every new person, place and title is distinct."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.venues: dict[str, list[str]] = {}
        self.entities: Counter = Counter()
        """Per kind: how many distinct entities were introduced (for the stats)."""

    def _fresh(self, make, kind: str) -> str:
        for _ in range(200):
            name = make()
            if name not in self.used:
                self.used.add(name)
                self.entities[kind] += 1
                return name
        name = f"{make()} {len(self.used)}"
        self.used.add(name)
        self.entities[kind] += 1
        return name

    def person(self) -> str:
        return self._fresh(lambda: f"{self.rng.choice(FIRST)} {self.rng.choice(SURNAMES)}"
                           if self.rng.random() < 0.3 else self.rng.choice(FIRST), "person")

    def first(self) -> str:
        return self._fresh(lambda: self.rng.choice(FIRST), "person")

    def venue(self, city: str) -> str:
        """A place in ``city``: often one already talked about (a favourite café comes up again)."""
        r = self.rng
        known = self.venues.setdefault(city, [])
        if known and r.random() < 0.45:
            return r.choice(known)
        known.append(self._new_venue(city))
        return known[-1]

    def _new_venue(self, city: str) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice([f"the {r.choice(ADJ)} {r.choice(NOUN)} {r.choice(VENUES)}",
                                             f"{r.choice(SURNAMES)}'s {r.choice(VENUES)}",
                                             f"the {city} {r.choice(VENUES)}"]), "place")

    def org(self) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice([f"{r.choice(SURNAMES)} {r.choice(ORG_KINDS)}",
                                             f"{r.choice(ADJ)} {r.choice(NOUN)} {r.choice(ORG_KINDS)}"]), "organisation")

    def title(self) -> str:
        return self._fresh(lambda: _titles(self.rng), "title")

    def pet_name(self) -> str:
        return self._fresh(lambda: self.rng.choice(PET_NAMES), "pet")

    def city(self, exclude: set[str] = frozenset()) -> str:
        choices = [c for c in CITIES if c not in exclude]
        return self.rng.choice(choices)


def _date(d: datetime) -> str:
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


def _when_past(rng: random.Random, today: datetime) -> tuple[str, str]:
    """A relative past date as said in the turn, and the gold answer LoCoMo-style."""
    k = rng.randrange(7)
    if k == 0:
        return "yesterday", _date(today - timedelta(days=1))
    if k == 1:
        n = rng.choice([2, 3, 4])
        return f"{['', '', 'two', 'three', 'four'][n]} days ago", _date(today - timedelta(days=n))
    if k == 2:
        back = (today.weekday() - 5) % 7 or 7
        return "last Saturday", _date(today - timedelta(days=back))
    if k == 3:
        return "last week", f"the week before {_date(today)}"
    if k == 4:
        prev = (today.replace(day=1) - timedelta(days=1))
        return "last month", f"{MONTHS[prev.month - 1]} {prev.year}"
    if k == 5:
        d = today - timedelta(days=rng.randint(5, 20))
        return f"on {d.day} {MONTHS[d.month - 1]}", _date(d)
    return "over the weekend", f"the weekend before {_date(today)}"


def _when_future(rng: random.Random, today: datetime) -> tuple[str, str]:
    k = rng.randrange(4)
    if k == 0:
        return "next month", f"{MONTHS[today.month % 12]} {today.year + (today.month == 12)}"
    if k == 1:
        ahead = (5 - today.weekday()) % 7 or 7
        return "this Saturday", _date(today + timedelta(days=ahead))
    if k == 2:
        return "next week", f"the week after {_date(today)}"
    d = today + timedelta(days=rng.randint(10, 40))
    return f"on {d.day} {MONTHS[d.month - 1]}", _date(d)


# ------------------------------------------------------------------------------------------- episodes
class Session:
    """One session's turns being written: (speaker, text, caption) lines and the facts they state."""

    def __init__(self, n: int, date: datetime, a: Person, b: Person, rng: random.Random) -> None:
        self.n, self.date, self.a, self.b, self.rng = n, date, a, b, rng
        self.lines: list[list[Any]] = []  # [speaker, text, caption]
        self.topics: list[str] = []
        self.dates = 0

    def say(self, who: Person, text: str, caption: str | None = None) -> str:
        """A line of the speaker telling the story, often with a sentence of colour; returns its dia id."""
        return self.reply(who, _extra(self.rng, text, who, self.date), caption)

    def reply(self, who: Person, text: str, caption: str | None = None) -> str:
        """Add a line; consecutive lines of one speaker become one turn. Returns its dia id."""
        if self.lines and self.lines[-1][0] == who.name:
            self.lines[-1][1] += " " + text
            if caption:
                self.lines[-1][2] = caption
        else:
            self.lines.append([who.name, text, caption])
        return f"D{self.n}:{len(self.lines)}"


EXTRA = ["It rained the whole time, but honestly I didn't care.", "I took about a hundred photos, I'll send you some.",
         "I'm still thinking about it, to be honest.", "We got home really late and I was wrecked the next day.",
         "It was one of those days where everything just worked out.", "I wish you'd been there, you'd have loved it.",
         "The kids couldn't stop talking about it afterwards.", "It cost more than I planned, but it was worth every penny.",
         "I nearly didn't go because I was so tired after work.", "It reminded me of that summer we spent by the lake.",
         "My phone died halfway through, so no pictures of that part.", "I'd definitely go back, maybe in the spring.",
         "Everyone there was so friendly and welcoming.", "It took ages to get there because of the traffic.",
         "I felt so calm afterwards, like a reset button.", "There's a funny story about that, remind me to tell you.",
         "The weather was perfect, not a cloud in the sky.", "I've been meaning to tell you about it for weeks."]


COLOUR = ["It reminded me of that summer in {city}.", "{rel} says hi, by the way.",
          "I was so tired after a long {day} at work, but I'm glad I went.", "I told {rel} all about it on the phone.",
          "We stopped for coffee on the way home and talked about it for an hour.",
          "Next time I'm bringing {rel} along, they'd love it.", "I had to leave early to catch the last train to {city}.",
          "It's the kind of thing I never would have done a year ago.", "{rel} thinks I'm mad, obviously.",
          "I keep meaning to write it all down before I forget.", "It was freezing, even for {month}."]


def _extra(rng: random.Random, text: str, who: Person | None = None, date: datetime | None = None) -> str:
    """A turn with, often, a sentence or two of colour (LoCoMo's turns are two or three sentences)."""
    if rng.random() < 0.8:
        text = f"{text} {rng.choice(EXTRA)}"
    if who is not None and rng.random() < 0.65:
        rel = rng.choice(list(who.relatives.values()) or ["Mum"])
        text = f"{text} " + rng.choice(COLOUR).format(city=rng.choice(CITIES), rel=rel, day=rng.choice(WEEKDAYS),
                                                      month=MONTHS[(date or datetime(2023, 1, 1)).month - 1])
    return text


ECHO = ["I remember when I tried something like that in {city}, it was chaos.", "My {rel} would be so jealous.",
        "We should do that together some time.", "I've been so stuck at home lately, this makes me want to get out more.",
        "That's exactly what I needed to hear today.", "You always find the best things to do.",
        "I'm writing that down so I remember it.", "It's been a long week here, so that's lovely to hear."]


def _resp(rng: random.Random, pool: list[str] = REACT) -> str:
    """A reply: a reaction and, often, a question back or a remark."""
    text = rng.choice(pool)
    if rng.random() < 0.75 and text.endswith((".", "!")):
        text = f"{text} {rng.choice(ASK)}"
    if rng.random() < 0.6:
        text = f"{text} " + rng.choice(ECHO).format(city=rng.choice(CITIES), rel=rng.choice(RELATIVES))
    return text


def _other(s: Session, p: Person) -> Person:
    return s.b if p is s.a else s.a


def ep_trip(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    city = w.city({p.city, *(c for c, _ in p.visited)})
    companion_rel = rng.choice(list(p.relatives) or ["friend"])
    companion = p.relatives.get(companion_rel) or w.first()
    when, gold = _when_past(rng, s.date)
    venue = w.venue(city)
    dish = rng.choice(DISHES)
    cap = rng.choice(PHOTO).format(x=f"a street in {city}") if rng.random() < 0.4 else None
    s.say(p, rng.choice([f"I just got back from {city}! We flew out {when}.",
                         f"Guess what, I was in {city} {when}. Such a great trip.",
                         f"I went to {city} {when} with my {companion_rel} {companion}."]))
    d1 = f"D{s.n}:{len(s.lines)}"
    s.reply(q, rng.choice(ASK + [f"{city}! Who did you go with?"]))
    d2 = s.say(p, rng.choice([f"My {companion_rel} {companion} came along. We spent a whole afternoon at {venue}.",
                              f"Just me and {companion}, my {companion_rel}. The highlight was {venue}.",
                              f"{companion} came with me and we found {venue}, which was incredible."]), cap)
    s.reply(q, _resp(rng))
    d3 = s.say(p, rng.choice([f"And the food! I had the best {dish} of my life there.",
                              f"We ate {dish} every single day, no regrets.",
                              f"{companion} insisted on trying {dish} at a tiny place near the station."]))
    p.visited.append((city, d1))
    s.topics.append("travel")
    s.dates += 1
    facts += [Fact(4, f"Which city did {p.name} visit with {companion}?", city, [d1, d2]),
              Fact(2, f"When did {p.name} go to {city}?", gold, [d1]),
              Fact(4, f"What did {p.name} eat in {city}?", dish, [d3]),
              Fact(4, f"Which place in {city} did {p.name} visit with {companion}?", venue.removeprefix("the "), [d2]),
              Fact(5, f"Which city did {q.name} visit with {companion}?", city, [d1, d2])]


def ep_event(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    event = rng.choice(EVENTS)
    venue = w.venue(p.city)
    when, gold = _when_past(rng, s.date)
    friend = rng.choice(list(p.contacts.values()) or [w.first()])
    cap = rng.choice(PHOTO).format(x=event.removeprefix("a ").removeprefix("an ")) if rng.random() < 0.35 else None
    d1 = s.say(p, rng.choice([f"I went to {event} at {venue} {when} with {friend}.",
                              f"{when.capitalize()} {friend} and I went to {event} at {venue}.",
                              f"So {when} I finally made it to {event}. It was at {venue}, and {friend} came too."]), cap)
    s.reply(q, _resp(rng, ASK))
    d2 = s.say(p, rng.choice(["It was packed, but the atmosphere was electric.", "Honestly better than I expected.",
                              f"{friend} knew half the people there, so we stayed until the end.",
                              "The music was a bit loud, but we had a great time."]))
    s.reply(q, _resp(rng))
    s.topics.append("events")
    s.dates += 1
    facts += [Fact(2, f"When did {p.name} go to {event} at {venue.removeprefix('the ')}?", gold, [d1]),
              Fact(4, f"Where was the {event.split(' ', 1)[1]} that {p.name} went to with {friend}?",
                   venue.removeprefix("the "), [d1]),
              Fact(4, f"Who went to {event} with {p.name}?", friend, [d1, d2]),
              Fact(5, f"When did {q.name} go to {event} at {venue.removeprefix('the ')}?", gold, [d1])]


def ep_new_person(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    rel = rng.choice(CONTACTS)
    name = w.person()
    venue = w.venue(p.city)
    job = rng.choice(JOBS)
    d1 = s.say(p, rng.choice([f"I met someone really interesting at {venue}, {name}. Turns out they're a {job}.",
                              f"My new {rel} {name} invited me over last night. They work as a {job}.",
                              f"Have I told you about {name}? We got talking at {venue}; they're a {job}."]))
    s.reply(q, rng.choice([f"Oh nice, how did you two get talking?", f"A {job}? That's cool.", "Tell me more!"]))
    d2 = s.say(p, rng.choice([f"We both reached for the last copy of the same book, can you believe it.",
                              f"They grew up in {w.city()}, so we swapped travel stories for hours.",
                              f"We're meeting again on {rng.choice(WEEKDAYS)} for coffee."]))
    p.contacts[f"{rel} {len(p.contacts)}"] = name.split()[0]
    s.topics.append("people")
    facts += [Fact(4, f"What does {p.name}'s acquaintance {name} do for work?", job, [d1]),
              Fact(4, f"Where did {p.name} meet {name}?", venue.removeprefix("the "), [d1]),
              Fact(5, f"What does {q.name}'s acquaintance {name} do for work?", job, [d1])]
    if "grew up" in s.lines[-1][1]:
        facts.append(Fact(4, f"Where did {name} grow up?", s.lines[-1][1].split("grew up in ")[1].split(",")[0], [d2]))


def ep_job(rng, w: World, s: Session, p: Person, facts: list[Fact], history: dict) -> None:
    q = _other(s, p)
    old_job, old_org = p.job, p.employer
    p.job, p.employer = rng.choice([j for j in JOBS if j != old_job]), w.org()
    boss = w.person()
    when, gold = _when_past(rng, s.date)
    d1 = s.say(p, rng.choice([f"Big news: I left {old_org} and started at {p.employer} {when} as a {p.job}.",
                              f"I finally quit being a {old_job}! I'm a {p.job} at {p.employer} now, started {when}.",
                              f"So I accepted the offer from {p.employer}. I started {when}, working as a {p.job}."]))
    s.reply(q, rng.choice(["Congratulations!!", "No way, that's huge!", "How's the new place?"]))
    d2 = s.say(p, rng.choice([f"My manager is {boss}, who seems great so far.", f"I report to {boss}. Very organised person.",
                              f"The team is small; {boss} runs it."]))
    s.topics.append("work")
    s.dates += 1
    history.setdefault(("job", p.name), []).append((p.job, d1))
    facts += [Fact(4, f"What is {p.name}'s current job?", p.job, [d1]),
              Fact(4, f"Where does {p.name} work now?", p.employer, [d1]),
              Fact(2, f"When did {p.name} start working at {p.employer}?", gold, [d1]),
              Fact(4, f"Who is {p.name}'s manager at {p.employer}?", boss, [d2]),
              Fact(5, f"Who is {q.name}'s manager at {p.employer}?", boss, [d2])]


def ep_family(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    rel = rng.choice(RELATIVES)
    if rel not in p.relatives:
        p.relatives[rel] = w.first()
    name = p.relatives[rel]
    when, gold = _when_past(rng, s.date)
    thing = rng.choice([("graduated from university", "graduation"), ("got engaged", "engagement"),
                        ("ran their first half marathon", "half marathon"), ("moved to " + w.city(), "move"),
                        ("had a baby girl", "baby"), ("opened a bakery", "bakery opening"),
                        ("retired after thirty years", "retirement"), ("won a local chess tournament", "tournament")])
    d1 = s.say(p, rng.choice([f"My {rel} {name} {thing[0]} {when}!", f"{when.capitalize()} my {rel} {name} {thing[0]}.",
                              f"Family news: {name}, my {rel}, {thing[0]} {when}."]),
               rng.choice(PHOTO).format(x=f"a family celebration") if rng.random() < 0.3 else None)
    s.reply(q, _resp(rng))
    s.say(p, rng.choice(["We're all so happy for them.", "It's been an emotional few days.", "Mum cried, obviously."]))
    s.topics.append("family")
    s.dates += 1
    facts += [Fact(4, f"What is the name of {p.name}'s {rel}?", name, [d1]),
              Fact(2, f"When did {p.name}'s {rel} {name} celebrate their {thing[1]}?", gold, [d1]),
              Fact(4, f"What did {p.name}'s {rel} {name} do recently?", thing[0], [d1]),
              Fact(5, f"What is the name of {q.name}'s {rel}?", name, [d1])]


def ep_pet(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    kind = rng.choice(PETS)
    name = w.pet_name()
    when, gold = _when_past(rng, s.date)
    shelter = w.venue(p.city)
    d1 = s.say(p, rng.choice([f"We adopted a {kind} {when}! Her name is {name}.",
                              f"Meet {name}, our new {kind}. We brought him home {when}.",
                              f"I couldn't resist: I adopted a {kind} called {name} from {shelter} {when}."]),
               rng.choice(PHOTO).format(x=f"a {kind}"))
    s.reply(q, rng.choice([f"Oh my goodness, {name} is adorable!", f"A {kind}! How is {name} settling in?"]))
    d2 = s.say(p, rng.choice([f"{name} already has the whole house wrapped around her paw.",
                              f"{name} hides under the sofa most of the day, but he's getting braver.",
                              f"{name} is eating everything in sight."]))
    p.pets.append((kind, name))
    s.topics.append("pets")
    s.dates += 1
    facts += [Fact(4, f"What is the name of {p.name}'s {kind}?", name, [d1]),
              Fact(2, f"When did {p.name} adopt {name}?", gold, [d1]),
              Fact(4, f"What kind of animal is {name}?", kind, [d1, d2]),
              Fact(5, f"What is the name of {q.name}'s {kind}?", name, [d1])]


def ep_hobby(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    hobby, group = rng.choice(HOBBIES)
    day = rng.choice(WEEKDAYS)
    venue = w.venue(p.city)
    teacher = w.person()
    d1 = s.say(p, rng.choice([f"I've started {hobby}! I joined {group} at {venue} that meets every {day}.",
                              f"New hobby alert: {hobby}. There's {group} at {venue} on {day} evenings.",
                              f"I signed up for {group} at {venue}, every {day}. I've always wanted to try {hobby}."]))
    s.reply(q, rng.choice(["How are you finding it?", "That's so you!", f"I tried {hobby} once, it's harder than it looks."]))
    d2 = s.say(p, rng.choice([f"The instructor, {teacher}, is very patient with beginners.",
                              f"I'm terrible so far, but {teacher}, who runs it, says everyone is at first.",
                              f"{teacher} who leads the sessions has been doing it for twenty years."]),
               rng.choice(PHOTO).format(x=hobby) if rng.random() < 0.3 else None)
    p.hobbies.append((hobby, group, day))
    s.topics.append("hobbies")
    facts += [Fact(4, f"What hobby did {p.name} take up at {venue.removeprefix('the ')}?", hobby, [d1]),
              Fact(3, f"What is {p.name} likely to be doing on {day} evenings?", hobby, [d1]),
              Fact(4, f"Who leads the {hobby} sessions {p.name} attends?", teacher, [d2]),
              Fact(5, f"What hobby did {q.name} take up at {venue.removeprefix('the ')}?", hobby, [d1])]


def ep_book(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    title = w.title()
    author = w.person()
    medium = rng.choice(["book", "novel", "film", "documentary", "podcast series"])
    verb = "watched" if medium in ("film", "documentary") else "listened to" if medium.startswith("podcast") else "read"
    d1 = s.say(p, rng.choice([f"I just {verb} a {medium} called '{title}' by {author}. Couldn't put it down.",
                              f"Have you come across '{title}'? It's a {medium} by {author}; I {verb} it in two days.",
                              f"'{title}' by {author} is the best {medium} I've {verb} this year."]))
    s.reply(q, rng.choice(["What's it about?", "Adding it to my list!", "Is it sad? I can't do sad right now."]))
    about = rng.choice([f"a lighthouse keeper in {w.city()}", "two sisters who inherit a failing vineyard",
                        "an engineer who builds a bridge nobody wants", "a chef who loses her sense of taste",
                        f"a detective in {w.city()} in the 1920s", "a family road trip that goes wrong"])
    d2 = s.say(p, f"It's about {about}.")
    p.books.append((title, d1))
    s.topics.append("books and films")
    facts += [Fact(4, f"Who made the {medium} '{title}' that {p.name} {verb}?", author, [d1]),
              Fact(4, f"What is '{title}' about?", about, [d2]),
              Fact(5, f"Who made the {medium} '{title}' that {q.name} {verb}?", author, [d1])]


def ep_move(rng, w: World, s: Session, p: Person, facts: list[Fact], history: dict) -> None:
    q = _other(s, p)
    old = p.city
    p.city = w.city({old})
    when, gold = _when_future(rng, s.date)
    street = f"{rng.choice(SURNAMES)} {rng.choice(['Street', 'Road', 'Lane', 'Avenue'])}"
    d1 = s.say(p, rng.choice([f"We're moving from {old} to {p.city} {when}! We found a flat on {street}.",
                              f"Decision made: I'm leaving {old}. Moving to {p.city} {when}, a place on {street}.",
                              f"I signed a lease in {p.city}, on {street}. The move is {when}."]))
    s.reply(q, rng.choice([f"{p.city}! I'll miss having you in {old}.", "Wow, how do you feel about it?"]))
    s.say(p, rng.choice(["Nervous but excited.", "Packing is a nightmare already.", "It's time for a change."]))
    s.topics.append("moving house")
    s.dates += 1
    history.setdefault(("city", p.name), []).append((p.city, d1))
    facts += [Fact(4, f"Which city is {p.name} moving to?", p.city, [d1]),
              Fact(2, f"When is {p.name} moving to {p.city}?", gold, [d1]),
              Fact(4, f"What street is {p.name}'s new flat on?", street, [d1]),
              Fact(5, f"Which city is {q.name} moving to?", p.city, [d1])]


def ep_health(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    ill = rng.choice(ILLNESS)
    when, gold = _when_past(rng, s.date)
    doc = w.person()
    clinic = w.venue(p.city)
    d1 = s.say(p, rng.choice([f"I've been out of action since {when}: {ill}.",
                              f"Ugh, I picked up {ill} {when}. Doctor {doc.split()[0]} at {clinic} says rest.",
                              f"{when.capitalize()} I ended up with {ill}. Not my finest week."]))
    s.reply(q, rng.choice(["Oh no! Are you okay?", "That's awful, I hope you feel better soon.", "What happened?"]))
    s.say(p, rng.choice(["Getting there, slowly.", "Lots of tea and bad TV.", "I'll be back on my feet in no time."]))
    s.topics.append("health")
    s.dates += 1
    facts += [Fact(4, f"What health problem did {p.name} have in {MONTHS[s.date.month - 1]} {s.date.year}?", ill, [d1]),
              Fact(2, f"When did {p.name} get {ill}?", gold, [d1])]


def ep_purchase(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    if rng.random() < 0.5:
        brand, kind = rng.choice(CARS), rng.choice(CAR_KINDS)
        thing, colour = f"a {kind}", rng.choice(["red", "grey", "dark green", "white", "blue"])
        d1 = s.say(p, rng.choice([f"I finally bought a car: a {colour} {brand} {kind}.",
                                  f"We traded in the old car for a {colour} {brand}. It's a {kind}."]),
                   rng.choice(PHOTO).format(x=f"a {colour} car") if rng.random() < 0.4 else None)
        facts += [Fact(4, f"What brand of car did {p.name} buy?", brand, [d1]),
                  Fact(4, f"What colour is {p.name}'s {brand}?", colour, [d1]),
                  Fact(5, f"What brand of car did {q.name} buy?", brand, [d1])]
    else:
        inst = rng.choice(INSTRUMENTS)
        shop = w.venue(p.city)
        d1 = s.say(p, f"I bought a second-hand {inst} at {shop}. Time to finally learn properly.")
        facts += [Fact(4, f"What instrument did {p.name} buy at {shop.removeprefix('the ')}?", inst, [d1])]
    s.reply(q, _resp(rng))
    s.topics.append("purchases")


def ep_food(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    dish = rng.choice(DISHES)
    place = w.venue(p.city)
    chef = w.first()
    d1 = s.say(p, rng.choice([f"You have to try the {dish} at {place}. The chef, {chef}, makes it from scratch.",
                              f"I've found the best {dish} in town: {place}. {chef} runs the kitchen."]),
               rng.choice(PHOTO).format(x=f"a bowl of {dish}") if rng.random() < 0.3 else None)
    s.reply(q, rng.choice(["Noted! I'll go this weekend.", f"I love {dish}!", "Is it expensive?"]))
    s.topics.append("food")
    facts += [Fact(4, f"Where does {p.name} recommend for {dish}?", place.removeprefix("the "), [d1]),
              Fact(4, f"Who is the chef at {place.removeprefix('the ')}?", chef, [d1])]


def ep_plan(rng, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    q = _other(s, p)
    when, gold = _when_future(rng, s.date)
    what = rng.choice([f"a hike up {rng.choice(ADJ)} Peak", f"a weekend in {w.city({p.city})}",
                       f"a surprise party for {rng.choice(list(p.relatives.values()) or [w.first()])}",
                       f"a camping trip by {rng.choice(ADJ)} Lake", f"a workshop at {w.venue(p.city)}"])
    d1 = s.say(p, rng.choice([f"I'm planning {what} {when}.", f"{when.capitalize()} I've got {what} coming up.",
                              f"Put it in your diary: {what}, {when}. You should come!"]))
    s.reply(q, rng.choice(["I'd love to join if I can.", "Sounds perfect.", "Let me check my calendar."]))
    s.topics.append("plans")
    s.dates += 1
    facts += [Fact(2, f"When is {p.name} planning {what}?", gold, [d1])]


EPISODES = [ep_trip, ep_event, ep_new_person, ep_family, ep_pet, ep_hobby, ep_book, ep_health, ep_purchase, ep_food,
            ep_plan]
WEIGHTS = [3, 4, 4, 3, 1, 3, 3, 2, 2, 3, 3]
UPDATES = [ep_job, ep_move]


def small_talk(rng, s: Session, p: Person, q: Person) -> None:
    s.reply(p, rng.choice(REACT + ["Anyway, enough about me.", "Sorry, I keep getting distracted.",
                                 f"How's {q.city} treating you these days?"]))


# ------------------------------------------------------------------------------------------- one conversation
def conversation(rng: random.Random, idx: int, sessions: int, probes: int, start: datetime) -> dict[str, Any]:
    w = World(rng)
    names = rng.sample(FIRST, 2)
    w.used.update(names)
    people = []
    for n in names:
        p = Person(n, w.city(), rng.choice(JOBS), w.org())
        for rel in rng.sample(RELATIVES, rng.randint(1, 3)):
            p.relatives[rel] = w.first()
        people.append(p)
    a, b = people
    conv: dict[str, Any] = {"speaker_a": a.name, "speaker_b": b.name}
    facts: list[Fact] = []
    history: dict = {}
    date = start
    per_session = []
    for n in range(1, sessions + 1):
        date = date + timedelta(days=rng.randint(3, 24), hours=rng.randint(0, 6), minutes=rng.randrange(60))
        s = Session(n, date, a, b, rng)
        first, second = (a, b) if rng.random() < 0.5 else (b, a)
        s.reply(first, rng.choice(SMALL_OPEN).format(o=second.name))
        s.reply(second, rng.choice(SMALL_REPLY).format(o=first.name))
        target = rng.randint(13, 27)
        while len(s.lines) < target - 2:
            teller = rng.choice((a, b))
            if rng.random() < 0.07:
                rng.choice(UPDATES)(rng, w, s, teller, facts, history)
            else:
                rng.choices(EPISODES, WEIGHTS)[0](rng, w, s, teller, facts)
            if rng.random() < 0.5:
                small_talk(rng, s, _other(s, teller), teller)
        closer = s.lines[-1][0]
        p = a if closer != a.name else b
        s.reply(p, rng.choice(SMALL_CLOSE).format(o=_other(s, p).name))
        s.reply(_other(s, p), rng.choice(SMALL_CLOSE_REPLY).format(o=p.name))
        hour = date.hour % 12 or 12
        conv[f"session_{n}_date_time"] = f"{hour}:{date.minute:02d} {'am' if date.hour < 12 else 'pm'} on " \
                                         f"{date.day} {MONTHS[date.month - 1]}, {date.year}"
        conv[f"session_{n}"] = [{"speaker": sp, "dia_id": f"D{n}:{k + 1}", "text": text,
                                 **({"blip_caption": cap} if cap else {})} for k, (sp, text, cap) in enumerate(s.lines)]
        per_session.append((len(s.lines), len(s.topics), s.dates, len(set(s.topics))))
    # multi-hop questions: what several sessions say together
    for p in (a, b):
        if len(p.visited) >= 2:
            cities = list(dict.fromkeys(c for c, _ in p.visited))
            facts.append(Fact(1, f"Which cities has {p.name} visited?", ", ".join(cities), [d for _, d in p.visited]))
        if len(p.pets) >= 2:
            facts.append(Fact(1, f"What pets does {p.name} have?", ", ".join(f"a {k} named {n}" for k, n in p.pets),
                              []))
        if len(p.hobbies) >= 2:
            facts.append(Fact(1, f"Which hobbies has {p.name} taken up?", ", ".join(dict.fromkeys(h for h, _, _ in p.hobbies)),
                              []))
        if len(p.books) >= 2:
            facts.append(Fact(1, f"Which titles has {p.name} mentioned enjoying?", ", ".join(t for t, _ in p.books),
                              [d for _, d in p.books]))
        for key in (("job", p.name), ("city", p.name)):
            hist = history.get(key, [])
            if len(hist) >= 2:
                facts.append(Fact(1, f"Which {'jobs has' if key[0] == 'job' else 'cities has'} {p.name} "
                                     f"{'had' if key[0] == 'job' else 'moved to'} over time?",
                                  ", ".join(v for v, _ in hist), [d for _, d in hist]))
    # multi-hop pairs: two single facts about the same person, joined (LoCoMo's cat. 1 often reads so)
    singles = [f for f in facts if f.category == 4]
    for _ in range(max(0, probes // 7 - sum(f.category == 1 for f in facts))):
        if len(singles) < 2:
            break
        f1, f2 = rng.sample(singles, 2)
        facts.append(Fact(1, f"{f1.question[:-1]}, and {f2.question[0].lower()}{f2.question[1:]}",
                          f"{f1.answer}; {f2.answer}", f1.evidence + f2.evidence))
    qa = _pick(rng, facts, probes)
    return {"sample_id": f"conv-{idx + 1}", "conversation": conv, "qa": qa,
            "meta": {"sessions": per_session, "entities": dict(w.entities)}}


SHARE = {1: 282, 2: 321, 3: 96, 4: 841, 5: 446}
"""locomo10.json's questions per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial)."""


def _pick(rng: random.Random, facts: list[Fact], n: int) -> list[dict[str, Any]]:
    """``n`` questions in LoCoMo's category proportions (as far as the facts allow), in generation order."""
    total = sum(SHARE.values())
    by_cat: dict[int, list[int]] = {}
    for i, f in enumerate(facts):
        if f.category != 1 or f.evidence:
            by_cat.setdefault(f.category, []).append(i)
    chosen: list[int] = []
    for cat, share in SHARE.items():
        pool = by_cat.get(cat, [])
        chosen += rng.sample(pool, min(len(pool), round(n * share / total)))
    rest = [i for i in range(len(facts)) if i not in set(chosen) and (facts[i].category != 1 or facts[i].evidence)]
    chosen += rng.sample(rest, max(0, min(len(rest), n - len(chosen))))
    out = []
    for i in sorted(chosen)[:n]:
        f = facts[i]
        item: dict[str, Any] = {"question": f.question, "evidence": f.evidence, "category": f.category}
        item["adversarial_answer" if f.category == 5 else "answer"] = f.answer
        out.append(item)
    return out


def generate(conversations: int = 10, sessions: int = 27, probes: int = 199, seed: int = 0) -> list[dict[str, Any]]:
    """``conversations`` LoCoMo-shaped samples (a list, as ``locomo10.json`` holds them)."""
    rng = random.Random(seed)
    out = []
    for i in range(conversations):
        n_sessions = sessions if conversations == 1 else max(1, sessions + rng.randint(-8, 8))
        out.append(conversation(rng, i, n_sessions, probes, datetime(2022, 1, 1) + timedelta(days=rng.randint(0, 500))))
    return out


def write(path: str | Path, **kwargs: Any) -> Path:
    path = Path(path)
    data = generate(**kwargs)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=None))
    return path


def describe(data: list[dict[str, Any]]) -> dict[str, Any]:
    """Shape figures to compare with LoCoMo: sessions, turns, questions, and per session the
    distinct entities, dates and topics (counted by the generator as it writes them)."""
    sessions = [s for d in data for s in d["meta"]["sessions"]]
    entities = Counter()
    for d in data:
        entities.update(d["meta"]["entities"])
    return {"conversations": len(data), "sessions": len(sessions), "turns": sum(s[0] for s in sessions),
            "questions": sum(len(d["qa"]) for d in data),
            "questions by category": dict(sorted(Counter(q["category"] for d in data for q in d["qa"]).items())),
            "distinct entities introduced": dict(entities),
            "per session: episodes": round(sum(s[1] for s in sessions) / len(sessions), 2),
            "per session: dates mentioned": round(sum(s[2] for s in sessions) / len(sessions), 2),
            "per session: distinct topics": round(sum(s[3] for s in sessions) / len(sessions), 2),
            "new entities per session": round(sum(entities.values()) / len(sessions), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--sessions", type=int, default=27, help="sessions per conversation (±8 when several)")
    ap.add_argument("--probes", type=int, default=199, help="questions per conversation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    write(args.out, conversations=args.conversations, sessions=args.sessions, probes=args.probes, seed=args.seed)
    print(json.dumps(describe(json.loads(args.out.read_text())), indent=1))


if __name__ == "__main__":
    main()
