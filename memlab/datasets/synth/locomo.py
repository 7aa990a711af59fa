"""Long conversations with LoCoMo's shape and LoCoMo's variety, in LoCoMo's own file format.

The length scaler (``memlab datasets scale --mode filler``) pads conversations with impersonal chit-chat:
few names, few places, no dates, the same sentences again and again. A memory strategy whose cost
grows with the number of *distinct* things it has seen (an entity graph, a summary of facts, a store
of extracted memories) never shows that growth on it. LoCoMo's conversations are two people catching
up over months: every session brings new friends, relatives, colleagues, places, events, books and
dates, and picks up old ones.

This writer tells two friends' lives through the episodes of :mod:`.episodes` and writes them in
``locomo10.json``'s format (samples with ``conversation.speaker_a/_b``, ``session_N`` turns
``{speaker, dia_id, text[, blip_caption]}``, ``session_N_date_time`` like ``"1:56 pm on 8 May,
2023"``, and ``qa`` items ``{question, answer, evidence, category}`` with LoCoMo's five categories),
so memlab reads them through the same loader as the public file. Per conversation, by default: 27
sessions of 14–30 turns (LoCoMo: 272 sessions, 5,882 turns, 1,986 questions over 10 conversations).
The questions come from the facts the episodes state, with the turns that state them as evidence:
single-hop, multi-hop (across sessions), temporal (dates resolved against the session date, as
LoCoMo's gold answers are), open-domain (a habit inferred from a stated routine) and adversarial (a
fact of one speaker asked about the other, which should be abstained from).

Everything is drawn from one seeded ``random.Random``: the same arguments give the same file byte
for byte. ``benchmarks/locomo_like.py`` is this module's command line.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memlab.datasets.synth.episodes import EPISODES, UPDATES, WEIGHTS, ep_follow_up, ep_meet, ep_others_news
from memlab.datasets.synth.vocab import (FIRST, JOBS, MONTHS, REACT, RELATIVES, SMALL_CLOSE, SMALL_CLOSE_REPLY,
                                        SMALL_OPEN, SMALL_REPLY)
from memlab.datasets.synth.world import Fact, Person, Session, World, unambiguous

CATEGORY = {"multi": 1, "temporal": 2, "open": 3, "single": 4, "update": 4, "other": 5}
"""Fact kind → LoCoMo's question category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial)."""
SHARE = {1: 282, 2: 321, 3: 96, 4: 841, 5: 446}
"""locomo10.json's questions per category."""


def small_talk(rng: random.Random, s: Session, p: Person, q: Person) -> None:
    s.reply(p, rng.choice(REACT + ["Anyway, enough about me.", "Sorry, I keep getting distracted.",
                                   f"How's {q.city} treating you these days?"]))


def conversation(rng: random.Random, idx: int, sessions: int, probes: int, start: datetime) -> dict[str, Any]:
    w = World(rng)
    names = rng.sample(FIRST, 2)
    w.used.update(names)
    people = []
    for n in names:
        p = Person(n, w.city(), rng.choice(JOBS), w.org())
        for rel in rng.sample(RELATIVES, rng.randint(1, 3)):
            p.relatives[rel] = w.first()
        people.append(p)
    a, b = people
    conv: dict[str, Any] = {"speaker_a": a.name, "speaker_b": b.name}
    facts: list[Fact] = []
    history: dict = {}
    date = start
    per_session = []
    for n in range(1, sessions + 1):
        date = date + timedelta(days=rng.randint(3, 24), hours=rng.randint(0, 6), minutes=rng.randrange(60))
        s = Session(n, date, a, b, rng)
        first, second = (a, b) if rng.random() < 0.5 else (b, a)
        s.reply(first, rng.choice(SMALL_OPEN).format(o=second.name))
        s.reply(second, rng.choice(SMALL_REPLY).format(o=first.name))
        target = rng.randint(13, 27)
        while len(s.lines) < target - 2:
            teller = rng.choice((a, b))
            r = rng.random()
            if r < 0.07:
                rng.choice(UPDATES)(rng, w, s, teller, facts, history)
            elif r < 0.12:
                if not ep_follow_up(rng, w, s, teller, facts):
                    ep_meet(rng, w, s, teller, facts)
            elif r < 0.16:
                ep_others_news(rng, w, s, teller, facts)
            else:
                rng.choices(EPISODES, WEIGHTS)[0](rng, w, s, teller, facts)
            if rng.random() < 0.5:
                small_talk(rng, s, s.other(teller), teller)
        closer = s.lines[-1][0]
        p = a if closer != a.name else b
        s.reply(p, rng.choice(SMALL_CLOSE).format(o=s.other(p).name))
        s.reply(s.other(p), rng.choice(SMALL_CLOSE_REPLY).format(o=p.name))
        hour = date.hour % 12 or 12
        conv[f"session_{n}_date_time"] = f"{hour}:{date.minute:02d} {'am' if date.hour < 12 else 'pm'} on " \
                                         f"{date.day} {MONTHS[date.month - 1]}, {date.year}"
        conv[f"session_{n}"] = [{"speaker": sp, "dia_id": f"D{n}:{k + 1}", "text": text,
                                 **({"blip_caption": cap} if cap else {})} for k, (sp, text, cap) in enumerate(s.lines)]
        per_session.append((len(s.lines), len(s.topics), s.dates, len(set(s.topics))))
    # multi-hop questions: what several sessions say together
    for p in (a, b):
        if len(p.visited) >= 2:
            cities = list(dict.fromkeys(c for c, _ in p.visited))
            facts.append(Fact("multi", f"Which cities has {p.name} visited?", ", ".join(cities), [d for _, d in p.visited]))
        if len(p.books) >= 2:
            facts.append(Fact("multi", f"Which titles has {p.name} mentioned enjoying?", ", ".join(t for t, _ in p.books),
                              [d for _, d in p.books]))
        for slot, what in (("job", "jobs has {} had"), ("city", "cities has {} moved to")):
            hist = history.get((slot, p.name), [])
            if len(hist) >= 2:
                facts.append(Fact("multi", f"Which {what.format(p.name)} over time?", ", ".join(v for v, _ in hist),
                                  [d for _, d in hist]))
    facts = unambiguous(facts)  # every question is asked after the last session
    # multi-hop pairs: two single facts about the same person, joined (LoCoMo's cat. 1 often reads so)
    singles = [f for f in facts if f.kind == "single"]
    for _ in range(max(0, probes // 7 - sum(f.kind == "multi" for f in facts))):
        if len(singles) < 2:
            break
        f1, f2 = rng.sample(singles, 2)
        facts.append(Fact("multi", f"{f1.question[:-1]}, and {f2.question[0].lower()}{f2.question[1:]}",
                          f"{f1.answer}; {f2.answer}", f1.evidence + f2.evidence))
    qa = _pick(rng, facts, probes)
    return {"sample_id": f"conv-{idx + 1}", "conversation": conv, "qa": qa,
            "meta": {"sessions": per_session, "entities": dict(w.entities)}}


def _pick(rng: random.Random, facts: list[Fact], n: int) -> list[dict[str, Any]]:
    """``n`` questions in LoCoMo's category proportions (as far as the facts allow), in generation order."""
    total = sum(SHARE.values())
    by_cat: dict[int, list[int]] = {}
    for i, f in enumerate(facts):
        by_cat.setdefault(CATEGORY[f.kind], []).append(i)
    chosen: list[int] = []
    for cat, share in SHARE.items():
        pool = by_cat.get(cat, [])
        chosen += rng.sample(pool, min(len(pool), round(n * share / total)))
    taken = set(chosen)
    rest = [i for i in range(len(facts)) if i not in taken]
    chosen += rng.sample(rest, max(0, min(len(rest), n - len(chosen))))
    out = []
    for i in sorted(chosen)[:n]:
        f = facts[i]
        cat = CATEGORY[f.kind]
        item: dict[str, Any] = {"question": f.question, "evidence": f.evidence, "category": cat}
        item["adversarial_answer" if cat == 5 else "answer"] = f.answer
        out.append(item)
    return out


def generate(conversations: int = 10, sessions: int = 27, probes: int = 199, seed: int = 0) -> list[dict[str, Any]]:
    """``conversations`` LoCoMo-shaped samples (a list, as ``locomo10.json`` holds them)."""
    rng = random.Random(seed)
    out = []
    for i in range(conversations):
        n_sessions = sessions if conversations == 1 else max(1, sessions + rng.randint(-8, 8))
        out.append(conversation(rng, i, n_sessions, probes, datetime(2022, 1, 1) + timedelta(days=rng.randint(0, 500))))
    return out


def write(path: str | Path, **kwargs: Any) -> Path:
    path = Path(path)
    data = generate(**kwargs)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=None))
    return path


def describe(data: list[dict[str, Any]]) -> dict[str, Any]:
    """Shape figures to compare with LoCoMo: sessions, turns, questions, and per session the
    distinct entities, dates and topics (counted by the generator as it writes them)."""
    sessions = [s for d in data for s in d["meta"]["sessions"]]
    entities: Counter = Counter()
    for d in data:
        entities.update(d["meta"]["entities"])
    return {"conversations": len(data), "sessions": len(sessions), "turns": sum(s[0] for s in sessions),
            "questions": sum(len(d["qa"]) for d in data),
            "questions by category": dict(sorted(Counter(q["category"] for d in data for q in d["qa"]).items())),
            "distinct entities introduced": dict(entities),
            "per session: episodes": round(sum(s[1] for s in sessions) / len(sessions), 2),
            "per session: dates mentioned": round(sum(s[2] for s in sessions) / len(sessions), 2),
            "per session: distinct topics": round(sum(s[3] for s in sessions) / len(sessions), 2),
            "new entities per session": round(sum(entities.values()) / len(sessions), 2)}
