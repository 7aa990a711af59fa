"""The offline hot-path classifier (ClassifyMemory), same-fact check (SameFact) and composer
(ComposeSummaries) of seed 001's write path.

ClassifyMemory reads the newest of the user's recent messages sentence by sentence and applies
the seed's "DO NOT create" rules as speech-act and deixis tests, not topic lists:

* meta / capability questions and any other question: ``is_question``;
* one-off actions: a request for a task (``request_kind == "one_off"``);
* time-bound events: a sentence anchored to a relative time ("tomorrow", "next week", "two days
  ago") that carries no change cue — "I moved to Porto last year" is a lasting change and stays;
* small talk, hypotheticals, injected instructions: the extraction filter (``statements.statement``).

What is left is the memory's summary (its sentences, attributed to the user); the category is
``goal`` when a goal frame is present ("want to", "plan to", "hope to", "goal"), else
``preference`` when a preference verb or standing request is, else ``fact``; importance is the
ShouldRemember gate's cue score.

SameFact and ComposeSummaries use the slot rule of ``slots.decide``: same subject and relation
(a changed value, a retraction, a restatement) is the same fact; composing keeps the new text
when it changes or restates the old value, the richer text for a duplicate, and joins the two
otherwise.
"""

from __future__ import annotations

from memlab.offline import gate, lexicon as lx
from memlab.offline.attribution import parse_speaker
from memlab.offline.dates import RELATIVE
from memlab.offline.slots import analyse, decide
from memlab.offline.statements import statement
from memlab.offline.text import has_change_cue, has_phrase, lemma, request_kind, sentences, words

GOAL_FRAMES = ("want to", "plan to", "planning to", "hope to", "hoping to", "trying to", "aim to", "my goal", "goal is")


def time_bound(sentence: str) -> bool:
    """Anchored to a relative time and not a lasting change: a one-time event."""
    return RELATIVE.search(sentence) is not None and not has_change_cue(sentence)


def classify(recent_user_turns: list[str], speaker: str) -> dict[str, object]:
    none = {"should_create": False, "category": "fact", "summary": "", "importance": 0.0}
    if not recent_user_turns:
        return none
    newest = recent_user_turns[-1]
    _, name = parse_speaker(speaker)
    kept = [s for s in sentences(newest) if not time_bound(s)]
    facts = [f for f in (statement(s, name, None) for s in kept) if f]
    if not facts:
        return none
    text = " ".join(facts)
    low_words = set(words(newest))
    if has_phrase(newest, GOAL_FRAMES):
        category = "goal"
    elif any(lemma(w) in lx.PREFERENCE_VERBS for w in low_words) or any(request_kind(s) == "standing" for s in kept):
        category = "preference"
    else:
        category = "fact"
    importance = float(gate.gate(newest, speaker).get("importance") or 0.0)
    return {"should_create": True, "category": category, "summary": text, "importance": importance}


def same_fact(existing: str, new: str, cosine: float) -> bool:
    return decide(analyse(new), analyse(existing), cosine) in ("NOOP", "UPDATE", "DELETE")


def compose(existing: str, new: str, cosine: float) -> str:
    action = decide(analyse(new), analyse(existing), cosine)
    if action in ("UPDATE", "DELETE"):
        return new
    if action == "NOOP":
        return max((existing, new), key=len)
    return f"{existing.rstrip('. ')}; {new[0].lower() + new[1:]}" if new else existing
