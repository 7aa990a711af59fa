"""The extractive answerer (AnswerFromMemory): find the best-supported context line, answer with
the span the question asks for, or abstain.

1. The context is split into lines (section headers dropped); a leading ``[date]`` is the line's
   date, a leading ``speaker:`` its speaker, and the first person of a user line is read as the
   speaker (so "I" matches a question about them). Sentences that assert nothing are dropped
   from a line: questions, one-off requests, and text aimed at the assistant's rules (injection).
   A fragment right after a question ("Graz." after "Where did you grow up?") is read together
   with it. Each distinct line is read once per process (memoised), so a probe costs one scan
   and one embedding batch of its lines (each distinct line embedded once per run: the shared
   cache), so a line that paraphrases the question is found in a long history as in a short one.
2. Support of a line = cosine(question, line) + idf-weighted coverage of the question's content
   words (a word on every line, like the user's own name, weighs almost nothing) + a bonus when
   the line holds a span of the type the question asks for (a date for "when"...).
3. The answer type filters the candidates (classic question answering): for a when / where /
   who / how-many question, when some line about the question (sharing a topic word, or with a
   cosine of at least ``MIN_COSINE``) states a span of that type, only such lines compete. Among
   the candidates whose support is close to the best (within ``CONFLICT_MARGIN``) the most recent
   wins: later memories supersede earlier ones (a line that states no value of the asked type
   cannot supersede one that does).
4. Abstain ("I don't know") when the chosen line shares no *topic* word with the question (its
   content words other than names: a name says whose fact is asked, not which) and the cosine
   is below ``MIN_COSINE``: the context is about something else.
5. The answer is the span for the question type: who/which/"name" → a name, when → a date
   (resolved against the line's date, or the line's own date), where → a place (a name after a
   locative preposition), how many/much → a number — when there are several, the one nearest a
   focus word of the question — else the clause of the line (not a quoted question) that covers
   most of the question's focus.
"""

from __future__ import annotations

import functools
import re

from memlab.offline import lexicon as lx
from memlab.offline.attribution import attribute
from memlab.offline.dates import NUMBER, date_spans, fmt
from memlab.offline.similarity import Similarity, coverages, idf_weights
from memlab.offline.slots import SAME_TOPIC
from memlab.offline.statements import iso_date
from memlab.offline.text import content_lemmas, is_injection, lemma, names, request_kind, words

ABSTAIN = "I don't know"
MIN_COSINE = SAME_TOPIC
"""Below this cosine a line with no shared topic word is about something else (the same MiniLM
"same topic" level the slot rule uses)."""
CONFLICT_MARGIN = 0.1
"""Support gap within which two lines count as answering the same question (then the newer wins)."""
TYPED_KINDS = frozenset({"when", "where", "number", "name"})
"""Question kinds whose answer is a typed span (a date, a place, a number, a name)."""
TYPE_MATCH = 0.2
"""Support bonus for holding the kind of span asked for: a line without a date cannot say when."""
_LINE = re.compile(r"^(?:\[(?P<date>[^\]]+)\]\s*)?(?:(?P<speaker>[A-Z][\w .'-]{0,30}):\s+)?(?P<text>.+)$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE = re.compile(r"[;,]\s+|\s+(?:and|but|because|while|so)\s+")
_LOCATIVE = re.compile(r"\b(?:in|at|to|from|near|into|for)\s+((?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")
_NON_PERSON = ("assistant", "tool", "system")


@functools.lru_cache(maxsize=200_000)
def _read_line(raw: str, previous: str) -> tuple[str, str, str, frozenset[str]] | None:
    """(date, text to embed, text to score and cut, its content lemmas) of one context line, or
    None if it asserts nothing."""
    m = _LINE.match(raw)
    if not m:
        return None
    date, speaker, text = m.group("date") or "", m.group("speaker"), m.group("text")
    kept = [s for s in _SENTENCE_END.split(text) if s.strip() and not s.rstrip().endswith("?")
            and request_kind(s) != "one_off" and not is_injection(s)]
    if not kept:
        return None
    text = " ".join(kept)
    person = speaker if speaker and speaker.lower() not in _NON_PERSON else None
    if person:
        text = attribute(text, person)
    asked = _SENTENCE_END.split(previous)[-1] if previous.rstrip().endswith("?") else ""
    if asked and len(words(text)) <= 4:
        text = f"{attribute(asked, person or 'the user', you=person or 'the user')} {text}"
    undated = raw[m.start("speaker") if speaker else m.start("text"):]
    return date, undated, text, frozenset(content_lemmas(text))


@functools.lru_cache(maxsize=64)
def _context(context: str) -> tuple[tuple[tuple[str, str, str, frozenset[str]], ...], dict[str, float]]:
    """The context's lines and their idf weights, memoised: every probe asked at one point of a
    conversation gets the same context (a full history's ~600 lines, ~200 probes in LoCoMo), and
    reading it was most of each answer's cost. Both are read only."""
    lines = tuple(_lines(context))
    return lines, idf_weights([d for *_, d in lines])


def _lines(context: str) -> list[tuple[str, str, str, frozenset[str]]]:
    out, previous = [], ""
    for raw in context.splitlines():
        raw = raw.strip()
        if not raw or raw.startswith("## ") or raw == "(no memory)":
            continue
        line = _read_line(raw, previous)
        if line:
            out.append(line)
        m = _LINE.match(raw)
        previous = m.group("text") if m else raw
    return out


def question_type(question: str) -> str:
    w = words(question)
    if w[:2] in (["how", "many"], ["how", "much"], ["how", "old"], ["how", "long"]):
        return "number"
    for wh in ("who", "when", "where", "which"):
        if wh in w[:3]:
            return "name" if wh in ("who", "which") else wh
    if w[:2] == ["what", "date"] or w[:2] == ["what", "time"]:
        return "when"
    return "name" if "name" in w else "what"


def _typed_spans(kind: str, text: str, date: str, asked: set[str]) -> list[str]:
    if kind == "when":
        return date_spans(text, iso_date(date))
    if kind == "number":
        return [m.group() for m in NUMBER.finditer(text) if m.group().lower() not in asked]
    if kind == "where":
        places = [p for p in _LOCATIVE.findall(text) if p.lower() not in asked]
        return places or [n for n in names(text) if n.lower() not in asked]
    if kind == "name":
        return [n for n in names(text) if n.lower() not in asked]
    return []


def _nearest_focus(spans: list[str], text: str, focus: set[str]) -> str:
    """The span closest to a word of the question's focus: "which bakery" is answered next to "bakery"."""
    low = text.lower()
    at = [m.start() for m in re.finditer(r"[a-z]+", low) if lemma(m.group()) in focus]
    if not at:
        return spans[0]
    return min(spans, key=lambda s: min(abs(low.find(s.lower()) - a) for a in at))


def _span(kind: str, text: str, date: str, asked: set[str], focus: set[str]) -> str:
    found = _typed_spans(kind, text, date, asked)
    if found:
        return _nearest_focus(found, text, focus)
    if kind == "when" and iso_date(date):
        return fmt(iso_date(date))
    clauses = [c for c in _CLAUSE.split(text) if c.strip() and "?" not in c] or [text]
    return max(clauses, key=lambda c: (len(content_lemmas(c) & focus), -len(c))).strip().rstrip(".")


def _choose(context: str, question: str, sim: Similarity):
    """(the line picked, whether it shares a topic word with the question, its cosine, and what
    cutting the answer from it needs), or None when the context has no line that asserts anything."""
    lines, idf = _context(context)
    if not lines:
        return None
    kind = question_type(question)
    asked = {w for n in names(question) for w in (n.lower(), *words(n))} | set(words(question))
    focus = content_lemmas(question)
    topic = focus - {w.lower() for n in names(question) for w in words(n)}
    cover = coverages(focus, [d for *_, d in lines], idf)  # idf over every line of the context (memoised)
    docs = [d for *_, d in lines]
    # every line is a candidate: a lexical shortlist would drop a paraphrase of the question from a
    # long history that a short one keeps (each line is embedded once: the shared cache)
    cos = sim.cosine(question, [undated for _, undated, _, _ in lines])
    typed = [bool(_typed_spans(kind, text, date, asked)) for date, _, text, _ in lines]
    support = [float(c) + v + (TYPE_MATCH if t else 0.0) for c, v, t in zip(cos, cover, typed, strict=True)]
    relevant = [i for i in range(len(lines)) if topic & docs[i] or cos[i] >= MIN_COSINE]
    # the answer type filters candidates, as in classic question answering: when a line about the
    # question states a span of the kind asked for (a date for "when"), a line that states none
    # cannot answer it, however well it matches the question's words — a longer context holds more
    # such lines, and the answer must not get worse for them
    pool = [i for i in relevant if typed[i]] if kind in TYPED_KINDS else []
    pool = pool or list(range(len(lines)))
    best = max(support[i] for i in pool)
    near = [i for i in pool if support[i] >= best - CONFLICT_MARGIN]
    # recency settles a conflict between lines that each state a value of the asked kind (a newer
    # value supersedes an older one); a line that states none cannot supersede one that does
    pick = max([i for i in near if typed[i]] or near, key=lambda i: (lines[i][0], i))
    return lines[pick], bool(topic & docs[pick]), float(cos[pick]), (kind, asked, focus)


def abstention_support(context: str, question: str, sim: Similarity) -> float | None:
    """The cosine the abstention threshold is compared with for this probe: the chosen line's, when
    it shares no topic word with the question (the answerer abstains iff it is below
    ``abstain_below``); None when the threshold plays no part (no line, or a shared topic word)."""
    chosen = _choose(context, question, sim)
    if chosen is None or chosen[1]:
        return None
    return chosen[2]


def answer(context: str, question: str, sim: Similarity, abstain_below: float = MIN_COSINE) -> str:
    """The answer to ``question`` from ``context``, or :data:`ABSTAIN` (``abstain_below``: the
    behaviour profile's ``answerer.abstain_below``)."""
    chosen = _choose(context, question, sim)
    if chosen is None:
        return ABSTAIN
    (date, _, text, _), shares_topic, cosine, (kind, asked, focus) = chosen
    if not shares_topic and cosine < abstain_below:
        return ABSTAIN
    return _span(kind, text, date, asked, focus)


def is_abstention(text: str) -> bool:
    low = text.lower().replace("’", "'")
    return any(re.search(p, low) for p in lx.ABSTENTION_PATTERNS)
