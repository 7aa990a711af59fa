"""Sessions that lengthen a history with information, not filler (``memlab datasets scale --mode informative``).

Filler (impersonal chit-chat) makes a history longer without making it harder: nothing in it is worth
keeping, so a memory that keeps everything and one that keeps nothing look alike on it. These sessions
carry what real chat carries — **new distinct facts** (people nobody in the conversation has named, with
their jobs, employers, home cities, pets and cars), **updates** (the same people changing job or city again in
a later session, the earlier value now stale) and **distractors** (the same kinds of facts a user's own
probes ask about: jobs, cities, pets, cars, dates) — between the assistant's long answers.

They never make a probe wrong. Every fact is about a third party introduced here by a full name and a
relation no probe names ("an old classmate of mine", "someone from my book club"), never about the user or
a relative or friend the conversation knows; names are fresh (not a capitalised word of the conversation);
and the scaler drops any exchange that mentions a gold, superseded or forbidden string of the conversation.
The third parties of one user persist across that user's threads, so their updates span threads.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memlab.datasets.synth.threads import ASSISTANT, ASSISTANT_NAME, ThreadSession, seg_help
from memlab.datasets.synth.vocab import (ASSISTANT_CLOSE, ASSISTANT_OPEN, CAR_KINDS, CARS, HOBBIES, JOBS, PETS, USER_CLOSE,
                                        USER_OPEN)
from memlab.datasets.synth.world import Person, World, an

RELATIONS = ["an old classmate of mine", "someone from my book club", "a friend of a friend", "my old flatmate's brother",
             "a woman from my evening class", "a man I used to work with years ago", "someone I met on a train once",
             "the owner of the shop downstairs"]
"""How the user knows a third party: relations no probe of a dataset asks about (no "my sister", "my manager")."""


@dataclass
class ThirdParty:
    name: str
    relation: str
    job: str
    org: str
    city: str
    pets: list[str] = field(default_factory=list)


@dataclass
class ThirdParties:
    """One user's third parties, kept across the user's threads (their news continues)."""

    rng: random.Random
    world: World
    people: list[ThirdParty] = field(default_factory=list)

    def news(self, s: ThreadSession, user: Person) -> None:
        """One piece of news: someone new (a job, a city, a pet or a car), or an update of someone known."""
        rng, w = self.rng, self.world
        s.topic = "others' news"
        if self.people and rng.random() < 0.4:
            p = rng.choice(self.people)
            if rng.random() < 0.5:
                old = f"{an(p.job)} at {p.org}"
                p.job, p.org = rng.choice([j for j in JOBS if j != p.job]), w.org()
                s.reply(user, f"Update on {p.name}: they left their job as {old} and are now {an(p.job)} at {p.org}.")
            else:
                old, p.city = p.city, w.city({p.city})
                s.reply(user, f"{p.name} has moved again, from {old} to {p.city}. That's the third time in two years.")
        else:
            name = w.full_name()
            p = ThirdParty(name, rng.choice(RELATIONS), rng.choice(JOBS), w.org(), w.city())
            self.people.append(p)
            k = rng.randrange(4)
            if k == 0:
                s.reply(user, f"I ran into {p.name}, {p.relation}. They live in {p.city} now and work as {an(p.job)} at "
                              f"{p.org}.")
            elif k == 1:
                pet, pet_name = rng.choice(PETS), w.pet_name()
                p.pets.append(pet_name)
                s.reply(user, f"{p.name}, {p.relation}, adopted {an(pet)} called {pet_name}. They sent me about forty "
                              f"photos.")
            elif k == 2:
                s.reply(user, f"{p.name}, {p.relation}, just bought {an(rng.choice(['red', 'grey', 'white', 'blue']))} "
                              f"{rng.choice(CARS)} {rng.choice(CAR_KINDS)} and drove it all the way to {p.city}.")
            else:
                hobby, group = rng.choice(HOBBIES)
                s.reply(user, f"Apparently {p.name}, {p.relation}, runs {group} for {hobby} in {p.city} now.")
        s.reply(ASSISTANT_NAME, s.voice.resp(rng))
        s.topic = None


def informative_session(rng: random.Random, parties: ThirdParties, user: Person, date: datetime,
                        target_tokens: int) -> list[tuple[str, str, str | None]]:
    """One session of third parties' news and the assistant's help, about ``target_tokens`` long: (role, text,
    tool name) triples as the length scaler inserts them."""
    from memlab.tokens import count_tokens

    assistant = Person(ASSISTANT_NAME, "", "", "")
    s = ThreadSession(1, date, user, assistant, rng, voice=ASSISTANT)
    s.reply(user, rng.choice(USER_OPEN))
    s.reply(assistant, rng.choice(ASSISTANT_OPEN).format(o=user.name))
    while sum(count_tokens(line[1]) for line in s.lines) < target_tokens:
        if rng.random() < 0.6:
            parties.news(s, user)
        else:
            seg_help(rng, parties.world, s, user, [])
    s.reply(user, rng.choice(USER_CLOSE))
    s.reply(assistant, rng.choice(ASSISTANT_CLOSE).format(o=user.name))
    return [("user" if who == user.name else "assistant", text, None) for who, text, _ in s.lines]


def third_parties(seed: Any, used: set[str]) -> ThirdParties:
    """A user's third parties, drawn from ``seed``; ``used``: names the conversation already has (never reused)."""
    rng = random.Random(f"informative:{seed}")
    world = World(rng)
    world.used.update(used)
    return ThirdParties(rng, world)
