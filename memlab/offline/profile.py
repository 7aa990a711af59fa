"""The offline profile sync (SyncProfile, seed 001's ``_profile_sync_from_memory``): which profile
fields a memory sets.

Read from the memory's wording, field by field:

* ``city``: a capitalised place after a verb of residence and ``in`` / ``to`` ("lives in Porto",
  "moved to New York", "is based in Graz");
* ``time_zone``: an IANA zone name written in the memory ("Europe/Lisbon"), else the zone whose
  city part is the new city (Python's ``zoneinfo`` database: "Lisbon" → Europe/Lisbon, "New
  York" → America/New_York); a city that names no zone sets none;
* ``language``: the capitalised word after "speak", or after "in" following a verb of answering
  or writing ("answer in Portuguese", "speaks Dutch");
* ``tone``: the memory itself when it asks how answers should be (it names answers, replies,
  responses, messages, tone or style together with a preference or standing-request verb);
* ``goals``: the memory itself when it has a goal frame ("wants to", "plans to", …), added to
  the goals already there; the ``MAX_GOALS`` (5) most recent are kept — the profile is one line
  injected into every context and sent with every sync, so an ever-growing list made each turn
  of a long conversation cost more than the one before.

Limits: only what the memory states in these frames; a time zone is never guessed from a
country or a region, and a city that is not a zone's city part ("Porto") gives no time zone.
"""

from __future__ import annotations

import functools
import re
import zoneinfo

from memlab.offline.hotpath import GOAL_FRAMES
from memlab.offline.text import has_phrase

MAX_GOALS = 5
GOAL_SEPARATOR = "; "
_PLACE = r"((?:[A-Z][\w'-]*)(?:\s+[A-Z][\w'-]*)*)"
_RESIDENCE = re.compile(r"\b(?:live|lives|living|lived|moved|moving|moves|relocated|relocating|based|settled|"
                        r"residing|resides)\s+(?:now\s+)?(?:in|to)\s+" + _PLACE)
_ZONE = re.compile(r"\b([A-Z][A-Za-z]+/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?)\b")
_LANGUAGE = re.compile(r"\bspeak(?:s|ing)?\s+([A-Z][a-z]+)\b|\b(?:answer|repl(?:y|ies)|respond|write|talk)\w*\b[^.;]*?"
                       r"\bin\s+([A-Z][a-z]+)\b")
_STYLE = re.compile(r"\b(?:answers?|repl(?:y|ies)|responses?|messages?|tone|style)\b", re.I)
_WANTS = re.compile(r"\b(?:prefer|prefers|like|likes|want|wants|keep|always|never|please)\b", re.I)


@functools.lru_cache(maxsize=1)
def _zones_by_city() -> dict[str, str]:
    """City part of each IANA zone (``America/New_York`` → "new york"); ambiguous names dropped."""
    seen: dict[str, set[str]] = {}
    for name in zoneinfo.available_timezones():
        if "/" in name and not name.startswith(("Etc/", "SystemV/", "US/")):
            seen.setdefault(name.rsplit("/", 1)[1].replace("_", " ").lower(), set()).add(name)
    return {city: next(iter(zones)) for city, zones in seen.items() if len(zones) == 1}


def _zone(name: str) -> str:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return ""
    return name


def sync(memory: str, profile: dict[str, str]) -> dict[str, str]:
    """The profile fields ``memory`` sets (only those it changes)."""
    updates: dict[str, str] = {}
    if m := _RESIDENCE.search(memory):
        updates["city"] = m.group(1)
    written = next((z for z in (_zone(m.group(1)) for m in _ZONE.finditer(memory)) if z), "")
    if written or "city" in updates:
        zone = written or _zones_by_city().get(updates["city"].lower(), "")
        if zone:
            updates["time_zone"] = zone
    if (m := _LANGUAGE.search(memory)) and (m.group(1) or m.group(2)) != updates.get("city"):
        updates["language"] = m.group(1) or m.group(2)
    if _STYLE.search(memory) and _WANTS.search(memory):
        updates["tone"] = memory.strip()
    if has_phrase(memory, GOAL_FRAMES + ("wants to", "plans to", "hopes to", "aims to")):
        goals = profile.get("goals", "")
        if memory.strip() not in goals:
            kept = (goals.split(GOAL_SEPARATOR) if goals else [])[-(MAX_GOALS - 1):]
            updates["goals"] = GOAL_SEPARATOR.join([*kept, memory.strip()])
    return {k: v for k, v in updates.items() if profile.get(k) != v}
