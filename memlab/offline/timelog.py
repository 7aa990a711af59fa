"""Reading time logs and time questions out of a user's message, for the agent policy's
``log_time`` / ``get_time_entries`` calls.

A **time log** is a statement (not a question) that reports work done or asks for it to be
logged: a logging verb (log, spent, worked, put in, track, record, bill) and a duration (a number
or number word, "an", "half an", "N and a half", then hours / hrs / h / minutes / mins) followed by
``on`` / ``for`` / ``to`` and the task, which runs to the end of the clause (a punctuation mark,
the next duration, "and", or a time adverb such as "today"). Each duration in the sentence gives
one entry; minutes are converted to hours.

A **time question** is a question with a logging verb and "hours" or "time": the policy asks for
the entries of the period it names (today / this week / this month, else all).

Limits: the task must follow the duration ("2 hours on X", not "X took 2 hours"); the category is
never read (the tool's default applies); a duration without a logging verb ("commute by bike, 12
minutes") is not a log.
"""

from __future__ import annotations

import re

_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_NUM = r"(?:\d+(?:\.\d+)?|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"
_DURATION = re.compile(rf"\b(?:(?P<half>half an?)|(?P<num>{_NUM})(?P<and_half> and a half)?)\s*"
                       r"(?P<unit>hours?|hrs?|h|minutes?|mins?)\b", re.I)
_TASK = re.compile(r"^\s+(?:of\s+work\s+)?(?:on|for|to)\s+(?P<task>[^.,;!?]+)", re.I)
_VERB = re.compile(r"\b(?:log|logs|logged|logging|spent|spend|spending|worked|work|working|put in|track|tracked|"
                   r"record|recorded|bill|billed)\b", re.I)
_TASK_END = re.compile(r"\s+(?:and|today|yesterday|tonight|this (?:morning|afternoon|evening|week|month)|last night|"
                       r"earlier|please|so far)\b.*$", re.I)
_LEADING = re.compile(r"^(?:the|my|our|a|an)\s+", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _amount(m: re.Match[str]) -> float:
    raw = (m.group("num") or "").lower()
    value = 0.5 if m.group("half") else float(_NUMBER_WORDS[raw]) if raw in _NUMBER_WORDS else float(raw)
    if m.group("and_half"):
        value += 0.5
    return value / 60 if m.group("unit").lower().startswith("m") else value


def time_logs(text: str) -> list[dict[str, object]]:
    """``[{"task": ..., "hours": ...}]`` for each duration the message logs."""
    out: list[dict[str, object]] = []
    for sentence in _SENTENCE.split(text):
        if sentence.rstrip().endswith("?") or not _VERB.search(sentence):
            continue
        found = list(_DURATION.finditer(sentence))
        for m, nxt in zip(found, found[1:] + [None]):
            task = _TASK.match(sentence[m.end(): nxt.start() if nxt is not None else len(sentence)])
            name = _LEADING.sub("", _TASK_END.sub("", task.group("task").strip())).strip() if task else ""
            hours = _amount(m)
            if name and hours > 0:
                out.append({"task": name, "hours": round(hours, 2)})
    return out


def time_question(text: str) -> dict[str, str] | None:
    """``{"period": ...}`` when the message asks about logged time, else None."""
    if "?" not in text or not _VERB.search(text) or not re.search(r"\b(?:hours?|time)\b", text, re.I):
        return None
    for period, rx in (("today", r"\btoday\b"), ("week", r"\bthis week\b"), ("month", r"\bthis month\b")):
        if re.search(rx, text, re.I):
            return {"period": period}
    return {"period": "all"}
