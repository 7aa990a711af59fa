"""The offline entity extractor (SummarizeWithEntities' entity half): names, types, co-occurrence edges.

General mechanisms only, no topic word lists:

* an **entity** is a run of capitalised words (a proper name); a run that opens a sentence keeps
  only its words that are not closed-class (so "My sister Anna" gives "Anna", and "The" alone is
  nothing); the pronoun "I", month, weekday and number names are not entities;
* its **type** comes from its syntactic frame: after a locative preposition ("in", "to",
  "from", ...) it is a ``place``; after a possessive relation ("my sister", "her boss") or
  "named"/"called" it is a ``person``; a name followed by a third-person verb ending in -s or
  -ed ("Anna works", "Tom moved") is a ``person``; anything else ``other``. A node keeps the
  type it already has in the graph unless the new frame is informative (not ``other``);
* its **description** is the latest sentence that mentions it (what is known about it now);
  ``properties`` count its mentions and keep the date it was first seen;
* two entities in one sentence are **related**: the words between them name the relationship
  when they are few ("lives in", "works at"), else "mentioned with"; the strength grows with
  every sentence that ties them: 1 − 0.5^n after n sentences (0.5, 0.75, 0.875, ...).

Ids are the name's lowercase slug, so the same name always merges into the same node.

Under a reply budget (the call's ``max_tokens``) the nodes drop their weakest relationships
first (:func:`fit`): a node that many sentences mention would otherwise relate to everything the
conversation ever named, and the update that returns it would grow with the conversation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from memlab.offline import lexicon as lx
from memlab.offline.attribution import BRACKETED, NAMED, split_labelled
from memlab.offline.text import sentences

_NAME_RUN = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|of|de|da|van|von))*(?<![\s])")
_LOCATIVE = frozenset("in at to from near into inside outside around across visit visited visiting".split())
_NAMING = frozenset("named called".split())
_POSSESSIVES = frozenset("my your his her our their".split())
_MAX_RELATION_WORDS = 4
NOT_NAMES = frozenset({"i", *lx.MONTHS, *lx.WEEKDAYS, *lx.NUMBER_WORDS}) | lx.FUNCTION_WORDS | lx.INTERJECTIONS


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _lines(messages: str) -> list[tuple[str, str]]:
    """(date, text) per ``[date] speaker: text`` line (the speaker label, a role or a name, dropped)."""
    out = []
    for raw in messages.splitlines():
        m = BRACKETED.match(raw.strip())
        rest = m.group("rest") if m else raw.strip()
        labelled = split_labelled(rest)
        named = NAMED.match(rest)
        text = labelled[1] if labelled else named.group("text") if named else rest
        if text.strip():
            out.append((m.group("head") if m else "", text))
    return out


def mentions(sentence: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of every proper name in the sentence, left to right."""
    out = []
    for m in _NAME_RUN.finditer(sentence):
        words = m.group(0).split()
        start = m.start()
        while words and words[0].lower().strip("'’") in NOT_NAMES:
            start = sentence.index(words[1], start + len(words[0])) if len(words) > 1 else m.end()
            words = words[1:]
        while words and words[-1] in ("of", "de", "da", "van", "von"):
            words = words[:-1]
        if words:
            name = " ".join(words)
            out.append((name, start, start + len(name)))
    return out


def _type(sentence: str, start: int, end: int) -> str:
    before = sentence[:start].lower().split()
    after = sentence[end:].split()
    if before and before[-1] in _LOCATIVE:
        return "place"
    if before and (before[-1] in _NAMING or (len(before) >= 2 and before[-2] in _POSSESSIVES)):
        return "person"
    if after:
        verb = after[0].lower().strip(".,;!?")
        if len(verb) > 3 and verb.isalpha() and verb not in lx.FUNCTION_WORDS and (verb.endswith("ed") or verb.endswith("s")) \
                and not verb.endswith("ss"):
            return "person"
    return "other"


def _relation(sentence: str, a_end: int, b_start: int) -> str:
    between = [w for w in re.findall(r"[\w'’-]+", sentence[a_end:b_start])]
    if 0 < len(between) <= _MAX_RELATION_WORDS:
        return " ".join(w.lower() for w in between)
    return "mentioned with"


def update_graph(messages: str, graph: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The nodes the messages mention, merged with what the graph already says about them."""
    known = {str(n.get("id")): n for n in graph if isinstance(n, dict) and n.get("id")}
    touched: dict[str, dict[str, Any]] = {}

    def node(name: str) -> dict[str, Any]:
        nid = slug(name)
        if nid not in touched:
            old = known.get(nid) or {}
            touched[nid] = {"id": nid, "type": old.get("type") or "other", "name": old.get("name") or name,
                            "description": old.get("description") or "", "properties": dict(old.get("properties") or {}),
                            "relationships": [dict(r) for r in old.get("relationships") or []]}
        return touched[nid]

    for date, text in _lines(messages):
        for sent in sentences(text):
            found = mentions(sent)
            for name, start, end in found:
                n = node(name)
                kind = _type(sent, start, end)
                if kind != "other" or n["type"] == "other":
                    n["type"] = kind
                n["description"] = sent
                props = n["properties"]
                props["mentions"] = int(props.get("mentions") or 0) + 1
                props.setdefault("first_seen", date)
            for i, (a, _, a_end) in enumerate(found):
                for j, (b, b_start, _) in enumerate(found[i + 1:], start=i + 1):
                    if slug(a) != slug(b):  # the words between name the edge only when no other name sits there
                        _strengthen(node(a), slug(b), _relation(sent, a_end, b_start) if j == i + 1 else "mentioned with")
    return list(touched.values())


def _strengthen(n: dict[str, Any], target: str, relationship: str) -> None:
    for r in n["relationships"]:
        if r.get("targetId") == target:
            r["strength"] = round(1 - (1 - float(r.get("strength") or 0.0)) * 0.5, 4)
            if relationship != "mentioned with":
                r["relationship"] = relationship
            return
    n["relationships"].append({"targetId": target, "relationship": relationship, "strength": 0.5})


def fit(nodes: list[dict[str, Any]], reply_tokens: Callable[[list[dict[str, Any]]], int], max_tokens: int) -> list[dict[str, Any]]:
    """``nodes`` without their weakest relationships, as few dropped as make ``reply_tokens`` of
    them fit ``max_tokens`` (weakest strength first, then the older of equals — a node's list is
    in the order its relationships appeared); all of them when it fits already."""
    if reply_tokens(nodes) <= max_tokens:
        return nodes
    order = sorted(((float(r.get("strength") or 0.0), j, i) for i, n in enumerate(nodes)
                    for j, r in enumerate(n["relationships"])))

    def without(d: int) -> list[dict[str, Any]]:
        gone = {(i, j) for _, j, i in order[:d]}
        return [{**n, "relationships": [r for j, r in enumerate(n["relationships"]) if (i, j) not in gone]}
                for i, n in enumerate(nodes)]

    lo, hi = 1, len(order)  # the fewest dropped that fit (all dropped, if even that does not)
    while lo < hi:
        mid = (lo + hi) // 2
        if reply_tokens(without(mid)) <= max_tokens:
            hi = mid
        else:
            lo = mid + 1
    return without(lo) if order else nodes
