"""Words, lemmas, sentences and speech acts: what kind of utterance a sentence is.

A memory only wants *assertions*. Questions, greetings, backchannels, one-off tasks for the
assistant, hypotheticals and injected meta-instructions are other speech acts; each is recognised
from its grammatical form (inversion, imperative opener, closed-class vocabulary) rather than
from its topic. Segmentation is pysbd's rule-based sentence boundary detection; lemmas come
from lemminflect's English lexicon. Both load lazily, once.
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

from memlab.offline import lexicon as lx

TOKEN = re.compile(r"[$€£]?\d+(?:[.,:/]\d+)*%?|[^\W\d_]+(?:['’][^\W\d_]+)*")


def tokens(text: str) -> list[str]:
    """Word and number tokens, original case (contractions kept whole: "don't")."""
    return TOKEN.findall(text)


def words(text: str) -> list[str]:
    return [t.lower().replace("’", "'") for t in tokens(text)]


_local = threading.local()


def _segmenter() -> Any:
    """This thread's sentence segmenter. A ``pysbd.Segmenter`` keeps the text it is segmenting on
    itself (``original_text``), so one shared by threads (the threads executor) lets a unit's
    sentences be matched against another unit's text and silently vanish."""
    seg = getattr(_local, "segmenter", None)
    if seg is None:
        import pysbd

        seg = _local.segmenter = pysbd.Segmenter(language="en", clean=False)
    return seg


def sentences(text: str) -> list[str]:
    """Sentences of a message; a line break always ends one (lists, tool output, chat lines)."""
    out: list[str] = []
    for line in text.splitlines():
        if line.strip():
            out += _line_sentences(line.strip())
    return out


@functools.lru_cache(maxsize=65_536)
def _line_sentences(line: str) -> tuple[str, ...]:
    """One line's sentences, memoised: pysbd is the offline model's most expensive step, and the
    same lines come back (a turn read by every strategy's extractor, a summary re-read each time it
    grows, filler repeated across a long conversation). Segmentation depends on the line alone."""
    return tuple(s.strip() for s in _segmenter().segment(line) if s.strip())


@functools.cache
def lemma(word: str) -> str:
    """Dictionary form of a lowercase word (verb reading first): "moved" → "move", "kids" → "kid"."""
    if not word.isalpha():
        return word
    from lemminflect import getAllLemmas

    found = getAllLemmas(word)
    for pos in ("VERB", "NOUN", "ADJ", "AUX"):
        if pos in found:
            return found[pos][0]
    return word


@functools.cache
def is_base_verb(word: str) -> bool:
    """True for a verb in its base form ("live", "prefer"), which takes -s after a third-person subject."""
    from lemminflect import getAllLemmas

    return word.isalpha() and getAllLemmas(word, upos="VERB").get("VERB", ("",))[0] == word


@functools.cache
def is_verb_only(word: str) -> bool:
    """An auxiliary, or a word the lexicon knows only as a verb form ("got", "moved"): a finite
    verb for sure, where "runs" or "class" could be nouns."""
    from lemminflect import getAllLemmas

    return word in lx.AUXILIARIES or word.endswith("n't") or set(getAllLemmas(word)) == {"VERB"}


def content_lemmas(text: str) -> set[str]:
    """Lemmas of the open-class words: what a sentence is about."""
    return {lemma(w.removesuffix("'s")) for w in words(text) if w not in lx.FUNCTION_WORDS and w not in lx.NEGATORS}


def has_phrase(text: str, phrases: tuple[str, ...] | frozenset[str]) -> bool:
    low = " " + " ".join(words(text)) + " "
    return any(f" {p} " in low for p in phrases)


def is_question(sentence: str) -> bool:
    """Interrogative form: a question mark, or subject-auxiliary inversion ("do you…", "where is…").

    A wh-word followed by a subject is a statement ("What I love most is hiking")."""
    if sentence.rstrip().endswith("?"):
        return True
    w = words(sentence)
    if len(w) < 2:
        return False
    if w[0] in lx.WH_WORDS:
        return w[1] in lx.AUXILIARIES
    return w[0] in lx.AUXILIARIES and (w[1] in lx.PRONOUNS or w[1] in lx.DETERMINERS)


def is_small_talk(sentence: str) -> bool:
    """Nothing but greetings, backchannels, bare evaluations and function words."""
    closed = lx.INTERJECTIONS | lx.FUNCTION_WORDS | lx.NEGATORS
    return all(t in closed or t.split("'")[0] in closed for t in words(sentence)) and not any(
        c.isdigit() for c in sentence)


def is_hypothetical(sentence: str) -> bool:
    """Irrealis openers: conditions and suppositions assert nothing ("If I ever move…")."""
    w = words(sentence)
    return bool(w) and (w[0] in ("if", "suppose", "imagine", "hypothetically") or w[:2] == ["what", "if"])


def is_injection(sentence: str) -> bool:
    """Meta-instructions to the assistant or claims about the user in a third voice."""
    return has_phrase(sentence, lx.INJECTION_CUES) or "assistant:" in sentence.lower()


MEMORY_DIRECTIVE = re.compile(r"^\s*(?:please\s+)?(?:remember|note|keep in mind|don't forget|do not forget)"
                              r"(?:\s+that)?[\s,:]+", re.I)
"""A request to remember followed by a statement: the statement is what counts."""


def request_kind(sentence: str) -> str | None:
    """``"standing"`` for a durable preference phrased as a request ("From now on, please keep recipes
    vegetarian"), ``"one_off"`` for a task ("Suggest a recipe"), ``None`` for a statement."""
    w = words(sentence)
    if not w:
        return None
    low = " ".join(w)
    opener = any(low == o or low.startswith(o + " ") for o in lx.REQUEST_OPENERS)
    imperative = w[0] in lx.REQUEST_VERBS and (len(w) == 1 or w[1] not in ("i", "we"))
    addressed = w[0] == "you" and len(w) > 1 and w[1] in ("should", "must", "need", "have", "will", "can")
    stripped = [t for t in w if t not in ("from", "now", "on", "going", "forward")]
    imperative = imperative or (bool(stripped) and stripped[0] in lx.REQUEST_VERBS | {"please", "don't", "do"})
    if not (opener or imperative or addressed):
        return None
    return "standing" if has_phrase(sentence, lx.DURABLE_CUES) else "one_off"


def negated(text: str) -> bool:
    w = words(text)
    return any(t in lx.NEGATORS or t.endswith("n't") for t in w) or any(lemma(t) in lx.RETRACTION_VERBS for t in w)


def has_change_cue(text: str) -> bool:
    return any(lemma(t) in lx.CHANGE_CUES for t in words(text)) or has_phrase(text, ("no longer", "used to"))


NAME_TOKEN = re.compile(r"[\w'’&-]+\.?|[^\w\s]")


def names(text: str) -> list[str]:
    """Runs of capitalised words ("Lake Tahoe", "Dr Costa"): proper names by shape. A sentence-initial
    capital starts a name only when the word is not in the dictionary ("Porto is…" yes, "Hiking is…" no)."""
    return list(_names(text))


@functools.lru_cache(maxsize=1 << 17)
def _names(text: str) -> tuple[str, ...]:
    """:func:`names`, memoised per text: a long history's lines are read again for every question asked of it."""
    out: list[str] = []
    run: list[str] = []
    parts = NAME_TOKEN.findall(text)
    for i, t in enumerate(parts):
        word = t.rstrip(".").lower().replace("’", "'")
        after_title = i > 0 and parts[i - 1].rstrip(".").lower() in lx.TITLES
        initial = i == 0 or parts[i - 1] in (".", "!", "?", ":", '"', "(", "-") or (
            parts[i - 1].endswith(".") and not after_title)
        capital = t[:1].isupper() and word.split("'")[0] not in lx.PRONOUNS \
            and word not in lx.MONTHS and word not in lx.WEEKDAYS \
            and not (initial and (word in lx.FUNCTION_WORDS or word in lx.INTERJECTIONS or _in_dictionary(word)))
        if capital:
            run.append(t.rstrip(".").removesuffix("'s").removesuffix("’s"))
        if (not capital or (t.endswith((".", "'s", "’s")) and word not in lx.TITLES)) and run:
            out.append(" ".join(run))
            run = []
    if run:
        out.append(" ".join(run))
    return tuple(out)


@functools.cache
def _in_dictionary(word: str) -> bool:
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(word))
