"""Who said it: speaker parsing and first-person rewriting.

A stored memory is read later, out of its conversation, by someone who does not know who "I" was.
So a speaker's first person becomes their name ("I moved to Porto" by Maria → "Maria moved to
Porto"; "my sister" → "Maria's sister"), with the verb made to agree ("I live" → "Maria lives",
using lemminflect's inflection tables).
"""

from __future__ import annotations

import re

from memlab.offline import lexicon as lx
from memlab.offline.text import is_base_verb

WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_AGREE = {"am": "is", "'m": "is", "have": "has", "'ve": "has", "do": "does", "don't": "doesn't", "haven't": "hasn't",
          "was": "was", "were": "was", "'d": "would", "'ll": "will", "are": "is", "aren't": "isn't"}
_ADVERBS = frozenset("also still just always never often usually now really only even already recently sometimes "
                     "finally actually currently generally mostly".split())


def parse_speaker(speaker: str) -> tuple[str, str]:
    """``"user: Maria"`` → ``("user", "Maria")``; ``"assistant"`` → ``("assistant", "The assistant")``;
    ``"tool: search"`` → ``("tool", "search")``; a bare name is a human user."""
    role, _, name = (speaker or "user").partition(":")
    role, name = role.strip(), name.strip()
    if role.lower() not in ("user", "assistant", "tool", "system"):
        return "user", role or "The user"
    return role.lower(), name or f"The {role.lower()}"


def attribute(sentence: str, name: str, *, you: str | None = None) -> str:
    """Rewrite the speaker's first person as ``name`` (and, when given, second person as ``you``)."""
    matches = list(WORD.finditer(sentence))
    out: list[str] = []
    last = 0
    replace_next_verb = False
    for i, m in enumerate(matches):
        tok = m.group()
        low = tok.lower().replace("’", "'")
        new = tok
        if low in ("i", "i'm", "i've", "i'd", "i'll"):
            new = name + (f" {_AGREE[low[1:]]}" if low != "i" else "")
            replace_next_verb = low == "i"
        elif low in ("me", "myself"):
            new = name
        elif low in ("my", "mine"):
            new = f"{name}'s"
        elif low in ("we", "us"):
            new = f"{name} and others"
        elif low in ("we're", "we've", "we'd", "we'll"):
            new = f"{name} and others " + {"re": "are", "ve": "have", "d": "would", "ll": "will"}[low[3:]]
        elif low in ("our", "ours"):
            new = f"{name}'s"
        elif you and low in ("you", "yourself"):
            new = you
        elif you and low in ("your", "yours"):
            new = f"{you}'s"
        elif replace_next_verb:
            if low in _ADVERBS or (low.endswith("ly") and not is_base_verb(low)):
                out.append(sentence[last:m.end()])
                last = m.end()
                continue
            new = _third_person(tok)
            replace_next_verb = False
        if new is not tok and i == 0 and new[:1].islower():
            new = new[0].upper() + new[1:]
        out.append(sentence[last:m.start()] + new)
        last = m.end()
    out.append(sentence[last:])
    return "".join(out)


def _third_person(verb: str) -> str:
    low = verb.lower().replace("’", "'")
    if low in _AGREE:
        return _AGREE[low]
    if low.endswith("n't") or not is_base_verb(low) or low in lx.AUXILIARIES:
        return verb
    from lemminflect import getInflection

    return (getInflection(low, tag="VBZ") or (verb,))[0]


_LABELLED = re.compile(r"^(?P<role>user|assistant|tool|system)(?::\s*(?P<name>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}|"
                       r"(?<=tool: )[\w.-]+))?:\s*(?P<text>.*)$", re.I | re.S)


BRACKETED = re.compile(r"^\[(?P<head>[^\]]+)\]\s*(?P<rest>.*)$")
"""A ``[head] rest`` line: the head is a turn id in an extraction transcript, a date in a summariser's input."""
NAMED = re.compile(r"^(?P<name>[^:\n]{1,60}?):\s*(?P<text>.*)$")
"""``Name: text``: a line whose speaker is named rather than labelled with a role (a conversation's own lines)."""


def bracketed_messages(text: str, *, named: bool = False) -> list[tuple[str, str, str]]:
    """(head, speaker label, text) per ``[head] speaker: text`` line; a line without a ``[head]``
    continues the message before it (a multi-line tool observation).

    A ``[head]`` line whose speaker is no role label: with ``named`` (a summariser's dated input, where
    a conversation names its speakers) ``Name: text`` reads as said by the user named Name and a line
    with no speaker at all is dropped; without (an extraction transcript, whose lines the harness
    labels) such a line continues the message before it."""
    out: list[tuple[str, str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        m = BRACKETED.match(line)
        labelled = split_labelled(m.group("rest")) if m else None
        if m and labelled:
            out.append((m.group("head"), *labelled))
        elif m and named:
            speaker = NAMED.match(m.group("rest"))
            if speaker:
                out.append((m.group("head"), f"user: {speaker.group('name').strip()}", speaker.group("text")))
        elif out and line:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + "\n" + line)
    return out


def split_labelled(line: str) -> tuple[str, str] | None:
    """``"user: Maria: I moved"`` → ``("user: Maria", "I moved")``; ``"tool: orders: id: 7"`` →
    ``("tool: orders", "id: 7")``; a line that does not open with a role → None."""
    m = _LABELLED.match(line.strip())
    if not m:
        return None
    label = m.group("role").lower() + (f": {m.group('name')}" if m.group("name") else "")
    return label, m.group("text")
