"""Dates and numbers: relative time expressions resolved against the message date, date spans
found for "when" questions, and number words read as values.

"Yesterday" means nothing a month later, so a memory must say which day it was: relative
expressions (yesterday, N days ago, in N weeks, last/next/this week|month|year|<weekday>|<month>)
are rewritten as absolute dates against the date the message was written. Calendar arithmetic is
python-dateutil's ``relativedelta``. Bare weekdays and months without last/next are left as written:
their reference depends on tense, which a rule would guess.
"""

from __future__ import annotations

import functools

import datetime as dt
import re

from memlab.offline import lexicon as lx

_COUNT = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|couple of|a few)"
_UNIT = r"(?:day|week|month|year)s?"
_NAMED = r"(?:week|weekend|month|year|" + "|".join(lx.WEEKDAYS) + "|" + "|".join(lx.MONTHS) + ")"
RELATIVE = re.compile(
    r"\b(?:the day before yesterday|the day after tomorrow|yesterday|today|tonight|tomorrow"
    rf"|(?P<n>{_COUNT})\s+(?P<unit>{_UNIT})\s+ago|in\s+(?P<n2>{_COUNT})\s+(?P<unit2>{_UNIT})"
    rf"|(?P<rel>last|next|this)\s+(?P<named>{_NAMED}))\b", re.I)
_PREPOSITIONS = frozenset("on in at since until by from before after till of during for around".split())
ABSOLUTE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:%(m)s)(?:,?\s+\d{4})?|(?:%(m)s)\s+\d{1,2}(?:st|nd|rd|th)?"
    r"(?:,?\s+\d{4})?|(?:%(m)s)(?:\s+\d{4})?|(?:19|20)\d{2}|(?:%(d)s)s?)\b"
    % {"m": "|".join(m.capitalize() for m in lx.MONTHS) + "|" + "|".join(m[:3].capitalize() + r"\." for m in lx.MONTHS),
       "d": "|".join(d.capitalize() for d in lx.WEEKDAYS)})


def fmt(day: dt.date) -> str:
    return f"{day.day} {lx.MONTHS[day.month - 1].capitalize()} {day.year}"


def _count(text: str) -> int:
    t = text.lower().removesuffix(" of")
    return int(t) if t.isdigit() else {"a": 1, "an": 1, "a couple": 2, "couple": 2, "a few": 3}.get(t, lx.NUMBER_WORDS.get(t, 1))


def _resolve(m: re.Match[str], ref: dt.date) -> tuple[str, str]:
    """(absolute text, preposition it needs) for one relative expression."""
    from dateutil.relativedelta import relativedelta

    word = m.group().lower()
    fixed = {"the day before yesterday": -2, "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1,
             "the day after tomorrow": 2}
    if word in fixed:
        return fmt(ref + dt.timedelta(days=fixed[word])), "on"
    if m.group("unit") or m.group("unit2"):
        sign = -1 if m.group("unit") else 1
        n = _count(m.group("n") or m.group("n2")) * sign
        unit = (m.group("unit") or m.group("unit2")).lower().rstrip("s") + "s"
        return fmt(ref + relativedelta(**{unit: n})), "on"
    rel, named = m.group("rel").lower(), m.group("named").lower()
    step = {"last": -1, "next": 1, "this": 0}[rel]
    if named == "year":
        return str(ref.year + step), "in"
    if named == "month":
        return f"{lx.MONTHS[(ref + relativedelta(months=step)).month - 1].capitalize()} {(ref + relativedelta(months=step)).year}", "in"
    if named in ("week", "weekend"):
        monday = ref - dt.timedelta(days=ref.weekday()) + dt.timedelta(weeks=step)
        return (f"the week of {fmt(monday)}", "in") if named == "week" else (
            f"the weekend of {fmt(monday + dt.timedelta(days=5))}", "on")
    if named in lx.WEEKDAYS:
        target = lx.WEEKDAYS.index(named)
        if step == 0:
            return fmt(ref - dt.timedelta(days=ref.weekday()) + dt.timedelta(days=target)), "on"
        delta = (target - ref.weekday()) % 7 or 7
        return fmt(ref + dt.timedelta(days=delta if step > 0 else delta - 7)), "on"
    month = lx.MONTHS.index(named) + 1
    year = ref.year + (step > 0 and month <= ref.month) - (step < 0 and month >= ref.month)
    return f"{named.capitalize()} {year}", "in"


def resolve_relative(text: str, ref: dt.date | None) -> str:
    """Rewrite relative time expressions as absolute ones: "yesterday" on 2024-05-08 → "on 7 May 2024"."""
    if ref is None:
        return text

    def sub(m: re.Match[str]) -> str:
        absolute, prep = _resolve(m, ref)
        before = text[: m.start()].split()
        if before and before[-1].lower() in _PREPOSITIONS:
            return absolute
        return f"{prep} {absolute}" if before else f"{prep.capitalize()} {absolute}"

    return RELATIVE.sub(sub, text)


def date_spans(text: str, ref: dt.date | None) -> list[str]:
    """Explicit dates in a sentence, relative ones resolved: the candidates for a "when" answer."""
    return list(_date_spans(text, ref))


@functools.lru_cache(maxsize=1 << 16)
def _date_spans(text: str, ref: dt.date | None) -> tuple[str, ...]:
    """:func:`date_spans`, memoised per (text, reference date): every line of a long context is read for each question."""
    resolved = resolve_relative(text, ref)
    spans = [m.group() for m in re.finditer(r"the (?:week|weekend) of \d{1,2} \w+ \d{4}", resolved)]
    return tuple(spans + [m.group() for m in ABSOLUTE.finditer(resolved) if not any(m.group() in s for s in spans)])


def number_value(token: str) -> float | None:
    """A number token or number word as a value: "3", "$1,200" → 1200, "twenty-five" → 25."""
    t = token.lower().strip("$€£%")
    if re.fullmatch(r"\d+(?:,\d{3})*(?:\.\d+)?", t):
        return float(t.replace(",", ""))
    parts = re.split(r"[-\s]+", t)
    if parts and all(p in lx.NUMBER_WORDS for p in parts):
        return float(sum(lx.NUMBER_WORDS[p] for p in parts))
    return None


NUMBER = re.compile(r"(?<![\w-])[$€£]?\d+(?:,\d{3})*(?:\.\d+)?%?(?![\w-])|\b(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
                    r"(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|zero|one|two|three|four|five|six|seven|"
                    r"eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
                    r"hundred|dozen)\b", re.I)
