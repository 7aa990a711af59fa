"""Is a new statement the same *slot* as a remembered one, and what happens to the old value?

A statement is read as subject + relation + values: the subject is the noun phrase before the
first verb ("Maria's sister"), the values are what a slot holds by shape (names, numbers, dates),
and the relation is the head of the predicate: its first content word that is not a light verb
("lives", "works", "prefers"; for "has three kids" the noun, "kid"). Sharing any content word is
not enough: "Maria prefers index funds for her savings" does not change "Maria's savings goal".
Then:

* near-identical, or nothing new → NOOP;
* the new statement negates or retracts the old one (same subject and relation) without giving a
  new value → DELETE;
* same subject and relation with a different value → UPDATE (the new statement replaces the old).
  A relation is single-valued when the statement describes a present state ("lives in", "is",
  "has three kids", "Maria's dentist is …"); episodic ones ("visited Rome") keep several values,
  unless the new statement carries a change cue ("now", "moved", "instead", "no longer");
* a change cue about the same subject and a close topic (embedding cosine) → UPDATE even across
  different verbs ("moved to Porto" replaces "lives in Lisbon");
* the new statement restates the old one with more detail → UPDATE (the richer text wins);
* otherwise ADD.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from memlab.offline import lexicon as lx
from memlab.offline.behaviour import AS_BUILT, Behaviour
from memlab.offline.dates import NUMBER, date_spans, number_value
from memlab.offline.text import content_lemmas, has_change_cue, lemma, names, negated, tokens, words

NEAR_DUPLICATE = 0.95
"""Cosine above which two statements say the same thing."""
SAME_TOPIC = 0.6
"""Cosine above which a statement with a change cue replaces another about the same subject."""


@dataclass(frozen=True)
class Statement:
    text: str
    subject: str
    relation: frozenset[str]
    values: frozenset[str]
    content: frozenset[str]
    negated: bool
    change: bool
    state: bool
    slot_in_subject: bool
    """A copula with a possessive subject ("Maria's dentist is …"): the subject names the slot."""


@functools.lru_cache(maxsize=1 << 15)
def analyse(text: str) -> Statement:
    """The statement's slot analysis. Memoised: it depends on the text only, a Statement is
    immutable, and the summariser and reconciler analyse the same remembered sentences again
    for every new fact (the extractive summary's sentences, once per fact per update)."""
    toks = tokens(text)
    w = [t.lower().replace("’", "'") for t in toks]
    cut = _subject_end(text, toks)
    subject = " ".join(w[:cut])
    dates = [d.lower() for d in date_spans(text, None)]
    undated = text
    for d in date_spans(text, None):
        undated = undated.replace(d, " ")
    numbers = {m.group().lower() for m in NUMBER.finditer(undated)}
    values = frozenset({n.lower() for n in names(text)} - {t.removesuffix("'s") for t in w[:cut]}
                       | {_canonical(number_value(n), n) for n in numbers} | set(dates))
    value_words = {lemma(x) for v in values | numbers for x in words(v)}
    content = frozenset(content_lemmas(text) - content_lemmas(subject) - value_words - lx.CHANGE_CUES - lx.RETRACTION_VERBS)
    predicate = [t for t in w[cut:] if t.isalpha() and t not in lx.NEGATORS and t not in lx.FUNCTION_WORDS - lx.AUXILIARIES]
    copula = bool(predicate) and lemma(predicate[0]) == "be"
    slot_in_subject = copula and "'s" in subject
    head = next((lemma(t) for t in predicate if lemma(t) in content and lemma(t) not in lx.LIGHT_VERBS), None)
    return Statement(text, subject, frozenset({head} if head and not slot_in_subject else ()),
                     values if not slot_in_subject else values | content, content, negated(text), has_change_cue(text),
                     _is_state(predicate), slot_in_subject)


def _canonical(value: float | None, surface: str) -> str:
    return surface if value is None else str(int(value)) if value == int(value) else str(value)


def _subject_end(text: str, toks: list[str]) -> int:
    """The subject is the leading noun phrase: names, nouns and adjectives up to the first other word
    (a verb, an adverb, a negator), or everything before a short topic and a colon."""
    head = text.split(":", 1)
    if len(head) == 2 and 0 < len(words(head[0])) <= 5:
        return len(words(head[0]))
    for i, t in enumerate(toks):
        low = t.lower().replace("’", "'")
        if i == 0 or toks[i - 1].lower().endswith(("'s", "’s")) or toks[i - 1].lower() in lx.DETERMINERS:
            continue
        if not (t[:1].isupper() or _nominal(low)):
            return i
    return len(toks)


def _nominal(word: str) -> bool:
    from lemminflect import getAllLemmas

    found = getAllLemmas(word)
    return word not in lx.FUNCTION_WORDS and bool(found) and "VERB" not in found and "AUX" not in found and "ADV" not in found


def _is_state(predicate: list[str]) -> bool:
    """Present tense and not perfect aspect: "lives", "is", "has three kids" (not "visited", "has visited")."""
    if not predicate:
        return False
    v = predicate[0]
    if v in ("has", "have") and len(predicate) > 1 and lemma(predicate[1]) != predicate[1] and not predicate[1].endswith("s"):
        return False
    return v in ("is", "are", "am", "has", "have", "does", "do", "isn't", "aren't", "doesn't") or (
        v.endswith("s") and lemma(v) != v)


def decide(new: Statement, old: Statement, cos: float) -> str:
    """One of ADD, UPDATE, DELETE, NOOP for ``new`` against one remembered ``old``."""
    if new.text.strip().lower() == old.text.strip().lower() or (
            cos >= NEAR_DUPLICATE and new.negated == old.negated and new.values == old.values):
        return "NOOP"
    if new.subject != old.subject or new.subject in lx.ANAPHORS:
        return "ADD"
    shared_relation = bool(new.relation & old.relation) or (new.slot_in_subject and old.slot_in_subject)
    if new.negated and not old.negated:
        retracts = shared_relation or bool(new.values) and new.values <= old.values
        return "DELETE" if retracts and not (new.values - old.values) else "ADD"
    new_only, old_only = new.content - old.content, old.content - new.content
    if new.negated == old.negated and not new_only and new.values <= old.values:
        return "NOOP"
    if new.negated == old.negated and not old_only and old.values <= new.values:
        return "UPDATE"
    if shared_relation and new.values != old.values and (new.state or new.change) and old.values:
        return "UPDATE"
    if new.change and cos >= SAME_TOPIC:
        return "UPDATE"
    return "ADD"


RECOGNISED = {"UPDATE": "reconcile.update", "DELETE": "reconcile.delete"}
"""The behaviour knob that says how often a change (a retraction) is recognised as such."""


def reconcile(new_fact: str, existing: list[str], cosines: list[float], behaviour: Behaviour = AS_BUILT) -> dict[str, object]:
    """ReconcileMemory: the first memory (most similar first) the new fact is a duplicate of, else
    the first whose slot it changes (UPDATE, the new statement as merged text) or retracts (DELETE),
    else ADD. A change the profile's ``reconcile.update`` does not recognise for this fact is an
    ADD (the new value beside the stale one); a retraction ``reconcile.delete`` does not recognise
    is ignored (NOOP: the retracted value stays)."""
    new = analyse(new_fact)
    decisions = [decide(new, analyse(old), cos) for old, cos in zip(existing, cosines, strict=True)]
    for action in ("NOOP", "UPDATE", "DELETE"):
        if action in decisions:
            target = decisions.index(action)
            if action in RECOGNISED and not behaviour.keeps(RECOGNISED[action], new_fact):
                return {"action": "ADD", "target": -1, "merged": ""} if action == "UPDATE" else \
                    {"action": "NOOP", "target": target, "merged": ""}
            return {"action": action, "target": target, "merged": new_fact if action == "UPDATE" else ""}
    return {"action": "ADD", "target": -1, "merged": ""}
