"""The extractive answerer (AnswerFromMemory): find the best-supported context line, answer with
the span the question asks for, or abstain.

1. The context is split into lines (section headers dropped); a leading ``[date]`` is the line's
   date, a leading ``speaker:`` its speaker, and the first person of a user line is read as the
   speaker (so "I" matches a question about them).
2. Support of a line = cosine(question, line) + idf-weighted coverage of the question's content
   words. Words on every line (the user's own name) weigh almost nothing (idf over the lines).
3. Among lines whose support is close to the best (within ``CONFLICT_MARGIN``) the most recent
   wins: later memories supersede earlier ones.
4. Abstain ("I don't know") when the chosen line shares no *topic* word with the question (its
   content words other than names: a name says whose fact is asked, not which) and the cosine
   is below ``MIN_COSINE``: the context is about something else.
5. The answer is the span for the question type: who → a name, when → a date (resolved against
   the line's date, or the line's own date), where → a place (a name after a locative
   preposition), how many/much → a number, else the clause of the line that covers most of the
   question's focus.

One embedding batch (cached by the run's embedder) and one linear scan per probe.
"""

from __future__ import annotations

import re

from memlab.offline import lexicon as lx
from memlab.offline.attribution import attribute
from memlab.offline.dates import NUMBER, date_spans, fmt
from memlab.offline.similarity import Similarity, coverage, idf_weights
from memlab.offline.statements import iso_date
from memlab.offline.text import content_lemmas, names, words

ABSTAIN = "I don't know"
MIN_COSINE = 0.55
"""Below this cosine a line with no shared focus word is about something else (MiniLM scale)."""
CONFLICT_MARGIN = 0.1
"""Support gap within which two lines count as answering the same question (then the newer wins)."""
_LINE = re.compile(r"^(?:\[(?P<date>[^\]]+)\]\s*)?(?:(?P<speaker>[A-Z][\w .'-]{0,30}):\s+)?(?P<text>.+)$")
_CLAUSE = re.compile(r"[;,]\s+|\s+(?:and|but|because|while|so)\s+")
_LOCATIVE = re.compile(r"\b(?:in|at|to|from|near|into)\s+((?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")


def _lines(context: str) -> list[tuple[str, str, str]]:
    """(date, raw line, text with the speaker's first person resolved)."""
    out = []
    for raw in context.splitlines():
        raw = raw.strip()
        if not raw or raw.startswith("## ") or raw == "(no memory)":
            continue
        m = _LINE.match(raw)
        date, speaker, text = (m.group("date") or "", m.group("speaker"), m.group("text")) if m else ("", None, raw)
        if speaker and speaker.lower() not in ("assistant", "tool", "system"):
            text = attribute(text, speaker)
        out.append((date, raw, text))
    return out


def _question_type(question: str) -> str:
    w = words(question)
    if w[:2] in (["how", "many"], ["how", "much"], ["how", "old"], ["how", "long"]):
        return "number"
    for wh in ("who", "when", "where"):
        if wh in w[:3] or (wh == "when" and w[:2] == ["what", "date"]):
            return wh
    return "what"


def _span(kind: str, text: str, date: str, question: str, focus: set[str]) -> str:
    asked = {n.lower() for n in names(question)}
    if kind == "when":
        found = date_spans(text, iso_date(date))
        if found:
            return found[0]
        return fmt(iso_date(date)) if iso_date(date) else text
    if kind == "number":
        nums = [m.group() for m in NUMBER.finditer(text) if m.group().lower() not in question.lower()]
        if nums:
            return nums[0]
    if kind == "where":
        places = [p for p in _LOCATIVE.findall(text) if p.lower() not in asked]
        if places:
            return places[0]
    if kind in ("who", "where"):
        found = [n for n in names(text) if n.lower() not in asked]
        if found:
            return found[0]
    clauses = [c for c in _CLAUSE.split(text) if c.strip()]
    return max(clauses, key=lambda c: (len(content_lemmas(c) & focus), -len(c))).strip().rstrip(".")


def answer(context: str, question: str, sim: Similarity) -> str:
    lines = _lines(context)
    if not lines:
        return ABSTAIN
    focus = content_lemmas(question)
    docs = [content_lemmas(text) for _, _, text in lines]
    idf = idf_weights(docs)
    cos = sim.cosine(question, [text for _, _, text in lines])
    cover = [coverage(focus, d, idf) for d in docs]
    support = [float(c) + v for c, v in zip(cos, cover, strict=True)]
    best = max(support)
    close = [i for i, s in enumerate(support) if s >= best - CONFLICT_MARGIN]
    pick = max(close, key=lambda i: (lines[i][0], i))
    topic = focus - {w.lower() for n in names(question) for w in words(n)}
    if not topic & docs[pick] and cos[pick] < MIN_COSINE:
        return ABSTAIN
    date, _, text = lines[pick]
    return _span(_question_type(question), text, date, question, focus)


def is_abstention(text: str) -> bool:
    low = text.lower().replace("’", "'")
    return any(re.search(p, low) for p in lx.ABSTENTION_PATTERNS)
