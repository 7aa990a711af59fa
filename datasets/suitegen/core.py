"""Small helpers of the suite generators: the seeded RNG, date and number gold forms, personas and texting styles."""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass
from datetime import date
from typing import Any

from suitegen.vocab import ASSISTANT_NAMES, FEMALE, MALE, MONTHS, NUMBER_WORDS, SURNAMES


def ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def date_text(d: date) -> str:
    return f"{MONTHS[d.month - 1]} {d.day}"


def date_gold(d: date) -> dict[str, Any]:
    """Gold answer for a date, with the common surface forms as aliases."""
    m, mon = MONTHS[d.month - 1], MONTHS[d.month - 1][:3]
    return {"text": f"{m} {d.day}", "aliases": [
        f"{d.day} {m}", f"{m} {ordinal(d.day)}", f"{ordinal(d.day)} of {m}", d.isoformat(), f"{mon} {d.day}",
        f"{d.day} {mon}", f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.month:02d}/{d.day:02d}/{d.year}",
        f"{m} {d.day}, {d.year}", f"{d.day} {m} {d.year}"]}


def number_gold(n: int, unit: str = "") -> dict[str, Any]:
    text = f"{n} {unit}".strip()
    aliases = [str(n)] if unit else []
    if n in NUMBER_WORDS:
        aliases.append(f"{NUMBER_WORDS[n]} {unit}".strip())
    return {"text": text, "aliases": aliases}


def norm(s: str) -> str:
    """The harness's answer normalisation: lowercase, no punctuation, no articles."""
    s = s.lower()
    s = "".join(" " if ch in string.punctuation else ch for ch in s)
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def lowfirst(s: str) -> str:
    return s[:1].lower() + s[1:] if s[:2] != s[:2].upper() else s


class Rng(random.Random):
    def pick(self, seq):
        return seq[self.randrange(len(seq))]

    def fresh(self, pool, used: set, key=None):
        """A pool value not yet used in this conversation (marks it used)."""
        options = [v for v in pool if (key(v) if key else v) not in used]
        value = self.pick(options)
        used.add(key(value) if key else value)
        return value


# =============================================================================== personas & styles

STYLES = ["plain", "terse", "chatty", "formal", "plain", "chatty"]


@dataclass
class Persona:
    first: str
    last: str
    gender: str
    style: str
    assistant: str

    @property
    def name(self) -> str:
        return self.first


def make_persona(rng: Rng, used_names: set, style: str | None = None) -> Persona:
    gender = rng.pick(["f", "m"])
    first = rng.fresh(FEMALE if gender == "f" else MALE, used_names)
    return Persona(first, rng.pick(SURNAMES), gender, style or rng.pick(STYLES), rng.pick(ASSISTANT_NAMES))


CHATTY_PRE = ["Okay so ", "Omg, ", "Haha ok, ", "Right, ", "Ooh, ", "Honestly? ", "So! "]
CHATTY_POST = [" 😅", "!!", " lol", " 🙃", "", " haha"]
FORMAL_PRE = ["", "", "Good day. ", "If I may: ", ""]


def stylize(text: str, style: str, rng: Rng) -> str:
    if style == "terse":
        text = text.replace("I am ", "I'm ").replace(" do not ", " don't ").rstrip("!")
        text = re.sub(r"([.!?]) ([A-Z])", lambda m: m.group(1) + " " + m.group(2).lower(), text)
        return lowfirst(text).rstrip(".")
    if style == "chatty":
        if rng.random() < 0.35:
            text = rng.pick(CHATTY_PRE) + lowfirst(text)
        if rng.random() < 0.4:
            text = text.rstrip(".") + rng.pick(CHATTY_POST)
        return text
    if style == "formal":
        return rng.pick(FORMAL_PRE) + text.replace("gonna", "going to").replace("kinda", "somewhat")
    return text
