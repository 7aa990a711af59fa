"""Which sentences of a message are durable facts, written so they stand on their own.

Each sentence is classified by speech act (see ``text``): questions, greetings, backchannels,
hypotheticals, one-off tasks for the assistant and injected meta-instructions are dropped; an
assertion is kept with its relative dates resolved against the message date and its speaker's
first person replaced by their name (``attribution``). Three cases a sentence filter gets wrong
are handled on purpose:

* a standing request ("From now on, please keep recipes vegetarian") is a durable preference,
  stored as the speaker's preference with "you" read as the assistant;
* a sentence opening with an anaphor ("It's a golden retriever.") continues the sentence before
  it in the same message, so the two are stored together;
* a short elliptical answer ("Porto.") only means something with the question it answers, so when
  the preceding context line is a question the pair is stored; a fragment that answers no
  question ("Messy.", "Hiii!") is an exclamation and is dropped;
* informal writing drops the subject ("Moved to Antwerp last week"): a sentence that opens with a
  verb that is not addressed to the assistant has the speaker as its subject.

A tool observation is kept line by line when a line carries a concrete value (a ``key: value``
pair, a number or a name): it is what the user may need later.
"""

from __future__ import annotations

import datetime as dt
import re

from memlab.offline import lexicon as lx
from memlab.offline.attribution import attribute, bracketed_messages, parse_speaker, split_labelled
from memlab.offline.dates import resolve_relative
from memlab.offline.text import (MEMORY_DIRECTIVE, content_lemmas, is_hypothetical, is_injection, is_question,
                                 is_small_talk, is_verb_only, names, request_kind, sentences, words)

_KEY_VALUE = re.compile(r"^\s*[\w .#/-]{1,40}:\s*\S")
_CONTEXT_LINE = re.compile(r"^(?:\[[^\]]*\]\s*)?(?P<speaker>[^:\n]{1,40}):\s*(?P<text>.*)$")


def iso_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


def _is_fragment(sentence: str) -> bool:
    """An elliptical answer: a few words with no pronoun and no certain verb ("Porto.", "Two kids")."""
    w = words(sentence)
    return 0 < len(w) <= 4 and not any(is_verb_only(t) or t in lx.PRONOUNS or "'" in t for t in w)


def _last_question(context: str) -> str | None:
    """The previous line of the conversation when it is a question from someone else."""
    lines = [ln for ln in context.splitlines() if ln.strip()]
    if not lines:
        return None
    m = _CONTEXT_LINE.match(lines[-1].strip())
    text = m.group("text") if m else lines[-1]
    asked = [s for s in sentences(text) if is_question(s)]
    return asked[-1] if asked else None


def _drops_subject(sentence: str) -> bool:
    """Opens with a verb and no subject ("Started a class", "Live in Antwerp now"): the first word
    can be a verb and no later word is unambiguously one (else the first word is the subject:
    "Work is busy", "Sam just got promoted")."""
    from lemminflect import getAllLemmas

    w = words(sentence)
    if len(w) < 2 or w[0] in lx.AUXILIARIES | lx.REQUEST_VERBS | lx.INTERJECTIONS or "VERB" not in getAllLemmas(w[0]):
        return False
    return not any(is_verb_only(t) for t in w[1:])


def statement(sentence: str, name: str, ref: dt.date | None, you: str = "the assistant") -> str | None:
    """The durable fact a sentence asserts, attributed and dated, or None for another speech act
    (``you``: who the second person is — the assistant, for a user's sentence)."""
    sentence = MEMORY_DIRECTIVE.sub("", sentence).strip()
    if not sentence or is_injection(sentence) or is_question(sentence) or is_small_talk(sentence) \
            or is_hypothetical(sentence) or not content_lemmas(sentence):
        return None
    if _is_fragment(sentence) and not (names(" ".join(sentence.split()[1:])) or any(c.isdigit() for c in sentence)):
        return None
    if _drops_subject(sentence):
        sentence = "I " + sentence[0].lower() + sentence[1:]
    kind = request_kind(sentence)
    if kind == "one_off":
        return None
    text = attribute(resolve_relative(sentence, ref), name, you=you)
    if kind == "standing":
        text = re.sub(r"\bplease\b,?\s*", "", text, flags=re.I)
        return f"{name}'s standing request: {text[0].lower() + text[1:]}"
    return text[0].upper() + text[1:]


def tool_facts(text: str, tool: str) -> list[str]:
    """Lines of a tool observation that carry a concrete value."""
    keep = [ln.strip() for ln in text.splitlines() if ln.strip() and (
        _KEY_VALUE.match(ln) or re.search(r"\d", ln) or names(ln))]
    return [f"{tool} reported {ln}" for ln in keep]


def extract(message: str, speaker: str, date: str = "", context: str = "") -> list[str]:
    """Every durable fact of one message, in order."""
    role, name = parse_speaker(speaker)
    if role == "tool":
        return tool_facts(message, name)
    if role != "user":
        return []
    ref = iso_date(date)
    sents = sentences(message)
    facts: list[str] = []
    question = _last_question(context)
    previous_kept = False
    for i, s in enumerate(sents):
        if question and i == 0 and _is_fragment(s) and not is_small_talk(s) and not is_question(s):
            asked = attribute(question, name, you=name)
            facts.append(f"Asked \"{asked}\", {name} answered: {resolve_relative(s, ref)}")
            previous_kept = True
            continue
        fact = statement(s, name, ref)
        if fact is None:
            previous_kept = False
            continue
        if i and facts and words(s)[:1] and words(s)[0].split("'")[0] in lx.ANAPHORS and previous_kept:
            facts[-1] = f"{facts[-1].rstrip('.!')}; {fact[0].lower() + fact[1:]}"
            continue
        facts.append(fact)
        previous_kept = True
    return facts


def assistant_statements(message: str, name: str, date: str = "") -> list[str]:
    """The assertions of an assistant's message, attributed to it ("I booked the 7:30 train" →
    "Agent booked the 7:30 train"), with "you" read as the user. The stand-in as built extracts
    none (``extract`` keeps only what users state); ``extraction.assistant_recall`` reads these."""
    ref = iso_date(date)
    return [f for s in sentences(message) if (f := statement(s, name, ref, you="the user")) is not None]


def transcript_lines(transcript: str) -> list[tuple[str, str, str]]:
    """``[turn id] speaker: text`` lines as (turn id, speaker, text); a line without that shape
    continues the turn before it (a multi-line tool observation)."""
    return bracketed_messages(transcript)
