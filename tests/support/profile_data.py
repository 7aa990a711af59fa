"""A generated dataset with many items per behaviour knob, for the profile-recovery tests (issue 26).

Made up from templates here (no evaluation data; names and places are invented words): every
user message states several facts — new ones, changes of earlier values, retractions and
re-additions — followed by a task with three tool observations of six value lines each and
assistant replies that assert things, so one invocation gives items to every knob: extraction
and agent recall, corruption, UPDATE and DELETE recognition, what a working-memory fold keeps, and
(with questions about things never said) the answerer's abstention threshold.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

_SYLLABLES = ["ka", "lo", "ven", "tar", "mi", "zo", "rel", "dun", "sa", "bri", "qui", "mor", "tel", "vash", "ny", "gor",
              "le", "pa", "shi", "ru", "ost", "ban", "cor", "fel"]
ANIMALS = ["dog", "horse", "parrot", "rabbit", "tortoise", "goat", "hamster", "ferret", "canary", "pony", "donkey",
           "lizard", "gecko", "iguana", "snake", "frog", "toad", "duck", "goose", "hen", "rooster", "pigeon", "owl",
           "falcon", "alpaca", "llama", "sheep", "pig", "cow", "turkey", "peacock", "hedgehog", "otter", "mole",
           "newt", "swan", "crow", "heron", "badger", "weasel", "camel", "mule", "ostrich", "quail"]
"""Each animal is had and given up at most once per user, so no retraction is about the same slot as
an earlier one (the slot rule would read the second as a change of the first). Not "cat": the
user's number of cats is a slot of its own."""
KINSHIP = ["sister", "brother", "cousin", "uncle", "aunt", "nephew"]
ABSENT = [("grandmother", "violin teacher"), ("landlord", "sailboat"), ("neighbour", "allotment"), ("godfather", "vineyard"),
          ("piano tuner", "workshop"), ("barber", "motorbike"), ("mentor", "podcast"), ("pharmacist", "chess club"),
          ("optician", "greenhouse"), ("choir leader", "caravan"), ("kayak coach", "bakery"), ("florist", "canoe")]
QUESTIONS = ["What is the name of my {a}?", "Which {b} does my {a} own?", "Where did my {a} buy the {b}?",
             "Who repaired the {b} for my {a}?", "What colour is my {a}'s {b}?", "How old is my {a}'s {b}?",
             "Which town is my {a}'s {b} in?", "What did my {a} call the {b}?"]


def _word(rng: random.Random, n: int = 2) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(n)).capitalize()


class _Names:
    """Invented capitalised words, never repeated within one dataset."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.used = rng, set()

    def __call__(self, n: int = 2) -> str:
        while True:
            w = _word(self.rng, n + self.rng.randint(0, 1))
            if w not in self.used:
                self.used.add(w)
                return w


def _user(uid: int, rng: random.Random, names: _Names, invocations: int) -> dict[str, Any]:
    me = names(2)
    slots = {"live": names(), "work": names(), "drive": names(), "cats": rng.randint(2, 6)}
    animals = rng.sample(ANIMALS, len(ANIMALS))
    pets = {p: names() for p in animals[:4]}
    fresh = animals[4:]  # 4 + 3 per invocation ≤ 44 animals: up to 13 invocations
    turns: list[dict[str, Any]] = []
    probes: list[dict[str, Any]] = []
    n = 0

    def turn(role: str, text: str, **kw: Any) -> str:
        nonlocal n
        n += 1
        tid = f"u{uid}-t{n:03d}"
        turns.append({"id": tid, "role": role, "text": text, **kw})
        return tid

    first = turn("user", f"I live in {slots['live']}. I work at {slots['work']}. I drive a {slots['drive']}. "
                         f"I have {slots['cats']} cats. " + " ".join(f"I have a {p} called {v}." for p, v in pets.items()))
    turn("assistant", "Thanks, noted.")
    probes.append({"after_turn": turns[-1]["id"], "question": f"Where does {me} live?", "gold": slots["live"], "evidence": [first]})
    present = dict(pets)
    for k in range(invocations):
        said = []
        # two new facts, four changed values, three retractions, three new animals
        kin = rng.choice(KINSHIP)
        said += [f"My {kin} {names()} works at {names()}.", f"My locker number is {rng.randint(1000, 9999)}{k}."]
        for slot in rng.sample(["live", "work", "drive", "cats"], 4):
            slots[slot] = slots[slot] + rng.randint(1, 3) if slot == "cats" else names()
            said.append({"live": "I live in {} now.", "work": "I work at {} now.", "drive": "I drive a {} now.",
                         "cats": "I have {} cats now."}[slot].format(slots[slot]))
        gone = rng.sample(sorted(present), min(3, len(present)))
        said += [f"I don't have the {p} called {present[p]}." for p in gone]
        for p in fresh[3 * k:3 * k + 3]:
            present[p] = names()
            said.append(f"I have a {p} called {present[p]}.")
        for p in gone:
            present.pop(p)
        order = f"{rng.randint(10000, 99999)}"
        user = turn("user", " ".join(said) + f" Can you check order {order} for me?")
        turn("assistant", f"I booked a courier with {names()} for {rng.randint(2, 9)} parcels. I reserved a slot at "
                          f"{names()} depot. Calling `orders.get({order})`.")
        obs, carrier = [], ""
        for tool, keys in (("orders", ["carrier", "weight", "warehouse", "invoice", "delivery"]),
                           ("tracking", ["depot", "driver", "van", "parcels", "route", "hub"]),
                           ("billing", ["account", "amount", "bank", "reference", "payer", "due"])):
            lines = []
            for key in keys:  # every value distinct, so a summary that keeps one line never seems to keep another
                value = {"weight": f"{rng.randint(1000, 9999)} grams", "parcels": str(rng.randint(100, 999)),
                         "amount": f"{rng.randint(1000, 9999)} euro", "delivery": f"2024-0{rng.randint(4, 9)}-1{rng.randint(0, 9)}",
                         "due": f"2024-1{rng.randint(0, 2)}-0{rng.randint(1, 9)}",
                         "van": f"V{rng.randint(1000, 9999)}", "reference": f"R{rng.randint(10000, 99999)}"}.get(key, names())
                lines.append(f"{key}: {value}")
                carrier = value if key == "carrier" else carrier
            obs.append(turn("tool", "\n".join(lines), tool_name=tool))
            turn("assistant", f"Calling `{tool}.get({order})`." if tool != "billing" else
                 f"I told {names()} about the parcels. The invoice went to {names()}.")
        probes.append({"after_turn": turns[-1]["id"], "question": f"Which carrier handles order {order}?",
                       "gold": carrier, "evidence": [obs[0]]})
        for q in rng.sample(QUESTIONS, 3):
            a, b = rng.choice(ABSENT)
            probes.append({"after_turn": turns[-1]["id"], "question": q.format(a=a, b=b), "abstain": True,
                           "category": "abstention"})
        probes.append({"after_turn": turns[-1]["id"], "question": f"Where does {me} live now?", "gold": str(slots["live"]),
                       "evidence": [user]})
    sessions = [{"id": f"u{uid}-s1", "timestamp": "2024-03-01T09:00:00", "turns": turns}]
    for i, p in enumerate(probes):
        p.setdefault("category", "single_hop")
        p["id"] = f"u{uid}-p{i:03d}"
    return {"id": f"user{uid:02d}", "namespace": f"user{uid:02d}", "speakers": {"user": me, "assistant": "Agent"},
            "sessions": sessions, "probes": probes}


def write_profile_dataset(path: Path, users: int = 24, invocations: int = 12, seed: int = 7) -> Path:
    rng = random.Random(seed)
    names = _Names(rng)
    data = {"name": "profile-recovery", "description": "generated for the behaviour-profile tests (tests/support/profile_data.py)",
            "meta": {"split": "dev", "generated": "tests"},
            "conversations": [_user(u, rng, names, invocations) for u in range(users)]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
