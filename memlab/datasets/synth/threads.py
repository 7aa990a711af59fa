"""A user and their assistant over months: the threads of one synthetic user's history.

What a long-horizon suite (``datasets/suitegen/long_horizon.py``) and the informative length scaler
(``memlab datasets scale --mode informative``) write: a user chats with an assistant, one thread per session,
and every thread tells the user's life (:mod:`.episodes`) with the density of real chat — new people,
places, titles and organisations in every episode, values that change (employer and job, manager, home city
and street, car), relatives' and friends' news that shares words with the user's own facts, chains that a
later thread closes — between long assistant answers (most of a real chat's tokens), things the assistant
recommends by name and tasks done with tools whose observations hold values the assistant does not always
repeat. :func:`user_history` writes one user; :func:`fact_annotations` gives each line the durable facts it
states (``Turn.facts``, what the oracle extractor stores).
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memlab.datasets.synth.episodes import (EPISODES, WEIGHTS, ep_car, ep_follow_up, ep_job, ep_meet, ep_move,
                                           ep_others_news)
from memlab.datasets.synth.vocab import (ASSISTANT_ASK, ASSISTANT_CLOSE, ASSISTANT_DONE, ASSISTANT_OPEN, ASSISTANT_REACT,
                                        ADVICE, ASSISTANT_REMARK, CITIES, DINNER_FILL, EMAIL_FILL, FIRST, GIFT_FILL, HELP, JOBS, PREFERENCES,
                                        RECOMMEND, RELATIVES, SURNAMES, TOOL_ITEMS, TOOL_TASKS, USER_CLOSE,
                                        USER_OPEN, WEEKDAYS)
from memlab.datasets.synth.world import Fact, Person, Session, Voice, World, an

ASSISTANT = Voice(ASSISTANT_REACT, ASSISTANT_ASK, ASSISTANT_REMARK, echo_share=0.5)
ASSISTANT_NAME = "Assistant"
TOPIC = {"ep_trip": "travel", "ep_event": "events", "ep_new_person": "people", "ep_family": "family", "ep_pet": "pets",
         "ep_hobby": "hobbies", "ep_book": "books and films", "ep_health": "health", "ep_purchase": "purchases",
         "ep_food": "food", "ep_plan": "plans", "ep_job": "work", "ep_move": "moving house", "ep_car": "purchases",
         "ep_meet": "people", "ep_follow_up": "follow-up", "ep_others_news": "others' news"}
"""The topic of each episode: what the assistant's replies during it talk about."""
SEGMENT_TOKENS = 400
"""About what one segment (an episode and the assistant's replies) adds: a thread stops half of one short of
its target, so threads land on their target on average."""
INTERJECT_SKIP = 0.5
"""Inside an episode, the share of the assistant's interjections left out: users tell a story in one long
message as often as in several short ones."""
ASSISTANT_MIN_WORDS = 90
"""An assistant line shorter than this gets a few sentences more, on the topic and general (real replies are
paragraphs: most of a chat's tokens are the assistant's)."""


class ThreadSession(Session):
    """A thread being written: the assistant answers at paragraph length, on the topic of the episode being told."""

    topic: str | None = None

    def reply(self, who, text, caption=None):
        name = who if isinstance(who, str) else who.name
        if name == ASSISTANT_NAME and self.topic is not None and self.lines and self.rng.random() < INTERJECT_SKIP:
            return self.ref()  # the user tells the next part of the story in the same message
        if name == ASSISTANT_NAME and len(text.split()) < ASSISTANT_MIN_WORDS:
            topical = ADVICE.get(self.topic or "", [])
            said = self.rng.sample(topical, min(len(topical), self.rng.randint(2, 3)))
            said += self.rng.sample(ASSISTANT_REMARK, self.rng.randint(1, 3) if topical else self.rng.randint(3, 5))
            text = " ".join([text, *said])
        return super().reply(who, text, caption)


def _tell(rng: random.Random, episode, s: ThreadSession, *args) -> object:
    """Tell one episode, the assistant's replies on its topic."""
    s.topic = TOPIC.get(episode.__name__)
    try:
        return episode(rng, *args)
    finally:
        s.topic = None


SLOT_QUESTIONS = {
    "job": "What is {p}'s current job?", "employer": "Where does {p} work now?", "manager": "Who is {p}'s manager now?",
    "city": "Which city does {p} live in now?", "street": "What street is {p}'s flat on now?",
    "car": "What brand of car does {p} drive now?"}
SLOT_EPISODE = {"job": ep_job, "city": ep_move, "car": ep_car}
"""The three things that change: a new job (job, employer, manager), a move (city, street), a car."""
def _count(text: str) -> int:
    from memlab.tokens import count_tokens

    return count_tokens(text)


# ------------------------------------------------------------------------------------------- assistant segments
def seg_intro(rng: random.Random, w: World, s: Session, p: Person, facts: list[Fact], history: dict) -> None:
    """The user introduces themselves: the first values of the slots that will change."""
    street = f"{rng.choice(SURNAMES)} {rng.choice(['Street', 'Road', 'Lane', 'Avenue'])}"
    rel, name = next(iter(p.relatives.items()))
    d1 = s.say(p, f"A bit about me so you can help better: I'm {an(p.job)} at {p.employer}, and I live in {p.city}, "
                  f"in a flat on {street}. My manager is {p.contacts['manager']}.")
    s.reply(s.other(p), f"Thanks, that's useful to know. {an(p.job).capitalize()} at {p.employer} sounds busy.")
    d2 = s.say(p, f"It is! Outside work it's mostly family; my {rel} {name} lives nearby.")
    s.reply(s.other(p), s.voice.resp(rng))
    for slot, value, ref in (("job", p.job, d1), ("employer", p.employer, d1), ("city", p.city, d1),
                             ("street", street, d1), ("manager", p.contacts["manager"], d1)):
        history.setdefault((slot, p.name), []).append((value, ref))
        facts.append(Fact("update", SLOT_QUESTIONS[slot].format(p=p.name), value, [ref], slot=slot, subject=p.name))
    facts.append(Fact("single", f"What is the name of {p.name}'s {rel}?", name, [d2], subject=p.name))


def seg_help(rng: random.Random, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    """A request for general help answered at length (no fact to remember; most of a chat's tokens)."""
    topic = rng.choice(sorted(HELP))
    ask, answer = HELP[topic]
    pool = {"dinner": DINNER_FILL, "email": EMAIL_FILL, "gift": GIFT_FILL}.get(topic, DINNER_FILL)
    a, b = rng.sample(pool, 2)
    s.reply(p, ask.format(a=a, b=b))
    sentences = answer[:2] + rng.sample(answer[2:], rng.randint(1, len(answer) - 2))
    s.reply(s.other(p), " ".join(x.format(a=a, b=b) for x in sentences))
    if rng.random() < 0.25:
        s.reply(p, rng.choice(["That's really helpful, thanks.", "Great, I'll try that.", "Perfect, that's what I needed."]))
        s.reply(s.other(p), rng.choice(ASSISTANT_REMARK))


def seg_recommend(rng: random.Random, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    """The assistant recommends something by name: a fact only the assistant's turn holds."""
    want, kind, template = rng.choice(RECOMMEND)
    city = rng.choice(CITIES)
    title = w.title() if kind != "trail" else w.trail()
    author = w.person()
    s.reply(p, f"Can you recommend {want.format(city=city)}?")
    d1 = s.reply(s.other(p), template.format(title=title, author=author, city=city, adj=rng.choice(["gentle", "gripping",
                                                                                                   "funny", "quiet"]),
                                             n=rng.randint(8, 18)))
    s.reply(p, rng.choice(["Sounds good, I'll give it a go.", "Noted, thanks!", "Oh, I hadn't heard of that one."]))
    facts.append(Fact("assistant", f"Which {kind} did the assistant recommend to {p.name} when asked for "
                                   f"{want.format(city=city)}?", title, [d1], subject=p.name))


def seg_tool(rng: random.Random, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    """A task done with a tool: the value sits in the tool's observation, repeated by the assistant only sometimes."""
    request, tool, observation, key, question = rng.choice(TOOL_TASKS)
    day = s.date + timedelta(days=rng.randint(2, 12))
    fill = {"n": rng.randint(2, 8), "venue": w.new_venue(p.city).removeprefix("the "), "day": WEEKDAYS[day.weekday()],
            "date": f"{day.day} {day.strftime('%B')}", "city": w.city({p.city}), "train": w.code("IC ", 4),
            "mm": f"{rng.randrange(60):02d}", "mm2": f"{rng.randrange(60):02d}", "plat": rng.randint(1, 14),
            "price": rng.randint(19, 480), "person": w.person(), "phone": f"0{rng.randint(100, 999)} {rng.randint(100000, 999999)}",
            "r": rng.randint(1, 9), "surname": rng.choice(SURNAMES), "room": rng.randint(2, 40),
            "item": rng.choice(TOOL_ITEMS), "order": w.code("#", 7), "code": w.code(rng.choice("BKRTX"), 6), "p": p.name}
    value = str(fill[key])
    s.reply(p, request.format(**fill))
    s.reply(s.other(p), rng.choice(["On it.", "Let me check.", "One moment.", "Sure, looking now."]))
    d_tool = s.reply(f"tool:{tool}", observation.format(**fill))
    if rng.random() < 0.4:
        d_said = s.reply(s.other(p), f"{rng.choice(ASSISTANT_DONE)} For your records: {value}.")
        evidence = [d_tool, d_said]
    else:
        s.reply(s.other(p), rng.choice(ASSISTANT_DONE))
        evidence = [d_tool]
    facts.append(Fact("tool", question.format(**fill), value, evidence, subject=p.name))


def seg_preference(rng: random.Random, s: Session, p: Person, facts: list[Fact], pref: tuple) -> None:
    _, said, value, question = pref
    d1 = s.reply(p, f"{rng.choice(['By the way, ', 'Oh, and ', 'Just so you know: ', ''])}{said}")
    s.reply(s.other(p), rng.choice(["Noted, I'll keep that in mind.", "Got it.", "Understood, I'll remember that."]))
    facts.append(Fact("preference", question.format(p=p.name), value, [d1], subject=p.name))


def _answer(rng: random.Random, s: Session, assistant: Person) -> None:
    """The assistant's paragraph after a segment, on its topic (what real replies are like: a few sentences,
    most of a chat's tokens); the next segment then opens a new user turn."""
    if not s.lines or s.lines[-1][0] == assistant.name and rng.random() < 0.5:
        return
    topic = s.topics[-1] if s.topics else None
    pool = ADVICE.get(topic or "", ASSISTANT_REMARK)
    text = " ".join(rng.sample(pool, min(len(pool), rng.randint(1, 3))))
    if s.lines[-1][0] != assistant.name:
        text = f"{rng.choice(ASSISTANT_REACT)} {text}"
    s.reply(assistant, text)


# ------------------------------------------------------------------------------------------- one user
@dataclass
class UserHistory:
    """One user's threads as written, and everything the probes are drawn from."""

    user: Person
    sessions: list[Session]
    facts: list[tuple[int, Fact]]
    """(the session index of its last evidence, fact)."""
    history: dict
    world: World
    tokens: int
    changes: dict[str, list[int]]
    """slot → the session indexes where its value changed."""


def norm(s: str) -> str:
    """memlab's answer normalisation: lowercase, no punctuation, no articles (to find an answer in a line)."""
    s = "".join(" " if ch in string.punctuation else ch for ch in s.lower())
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def user_history(rng: random.Random, threads: tuple[int, int], tokens: int) -> UserHistory:
    """One user's history: between ``threads`` (inclusive range) threads holding about ``tokens`` tokens in all,
    each thread's length drawn around the mean (real threads vary), every slot changing 2-4 times."""
    w = World(rng)
    name = rng.choice(FIRST)
    w.used.update({name, ASSISTANT_NAME})
    user = Person(name, rng.choice(CITIES), rng.choice(JOBS), w.org())
    for rel in rng.sample(RELATIVES, rng.randint(1, 3)):
        user.relatives[rel] = w.first()
    user.contacts["manager"] = w.person()
    assistant = Person(ASSISTANT_NAME, "", "", "")
    n_threads = rng.randint(*threads)
    per_thread = tokens / n_threads
    # the changes of every slot, spread over the history (never in the first thread: it states the first values)
    changes = {slot: sorted(rng.sample(range(1, n_threads), rng.randint(2, 4))) for slot in SLOT_EPISODE}
    prefs = rng.sample(PREFERENCES, 3)
    pref_at = {rng.randrange(0, max(1, n_threads // 2)): pref for pref in prefs}
    facts: list[tuple[int, Fact]] = []
    history: dict = {}
    sessions: list[Session] = []
    date = datetime(2023, 1, 1) + timedelta(days=rng.randint(0, 300), hours=rng.randint(7, 21))
    total = 0
    for n in range(1, n_threads + 1):
        if n > 1:
            date = date + timedelta(days=rng.randint(2, 10), hours=rng.randint(-3, 3), minutes=rng.randrange(60))
        s = ThreadSession(n, date, user, assistant, rng, voice=ASSISTANT)
        new: list[Fact] = []
        s.reply(user, rng.choice(USER_OPEN))
        s.reply(assistant, rng.choice(ASSISTANT_OPEN).format(o=user.name))
        target = per_thread * rng.uniform(0.6, 1.4)
        if n == 1:
            seg_intro(rng, w, s, user, new, history)
        for slot in SLOT_EPISODE:
            if n - 1 in changes[slot]:
                _tell(rng, SLOT_EPISODE[slot], s, w, s, user, new, history)
        if n - 1 in pref_at:
            seg_preference(rng, s, user, new, pref_at[n - 1])
        while sum(_count(line[1]) for line in s.lines) < target - SEGMENT_TOKENS / 2:
            _answer(rng, s, assistant)
            r = rng.random()
            if r < 0.16:
                seg_help(rng, w, s, user, new)
            elif r < 0.22:
                seg_tool(rng, w, s, user, new)
            elif r < 0.26:
                seg_recommend(rng, w, s, user, new)
            elif r < 0.30:
                _tell(rng, ep_meet, s, w, s, user, new)
            elif r < 0.36:
                if not _tell(rng, ep_follow_up, s, w, s, user, new):
                    _tell(rng, ep_others_news, s, w, s, user, new)
            elif r < 0.44:
                _tell(rng, ep_others_news, s, w, s, user, new)
            else:
                _tell(rng, rng.choices(EPISODES, WEIGHTS)[0], s, w, s, user, new)
        _answer(rng, s, assistant)
        s.reply(user, rng.choice(USER_CLOSE))
        s.reply(assistant, rng.choice(ASSISTANT_CLOSE).format(o=user.name))
        total += sum(_count(line[1]) for line in s.lines)
        sessions.append(s)
        for f in new:
            if f.kind != "other":  # the assistant has no life of its own to be confused with
                facts.append((max(session_of(e) for e in f.evidence), f))
    return UserHistory(user, sessions, facts, history, w, total, changes)


def session_of(ref: str) -> int:
    """The 0-based session (thread) index of a line ref ``D<session>:<line>``."""
    return int(ref[1:].split(":")[0]) - 1


def turn_id(ref: str) -> str:
    session, line = ref[1:].split(":")
    return f"s{session}-{int(line):03d}"


SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z'\"])")


def fact_annotations(h: UserHistory) -> dict[str, list[str]]:
    """Line ref → the durable facts the line states (``Turn.facts``: what the oracle extractor stores): for every
    fact of the history, asked or not, the sentences of its evidence lines that hold its answer (the first sentence
    when none does, e.g. a date said as "yesterday"). A memory then has as much to keep as the history says —
    not only what the probes will ask, which no real memory knows in advance."""
    texts = {f"D{s.n}:{j}": line[1] for s in h.sessions for j, line in enumerate(s.lines, 1)}
    out: dict[str, list[str]] = {}
    for _, f in h.facts:
        for ref in f.evidence:
            sentences = [x.strip() for x in SENTENCE.split(texts[ref]) if x.strip()]
            hits = [x for x in sentences if norm(f.answer) and norm(f.answer) in norm(x)] or sentences[:1]
            kept = out.setdefault(ref, [])
            kept += [x for x in hits if x not in kept]
    return out



def thread_turns(s: Session, user: str, facts: dict[str, list[str]] | None = None) -> list[dict[str, Any]]:
    """A written thread's lines as memlab turns (``s<session>-<line>`` ids; tool lines with their tool's name; the
    durable facts of :func:`fact_annotations` on the lines that state them)."""
    turns = []
    for j, (speaker, text, _caption) in enumerate(s.lines, 1):
        tid = f"s{s.n}-{j:03d}"
        if speaker.startswith("tool:"):
            turn: dict[str, Any] = {"id": tid, "role": "tool", "text": text, "tool_name": speaker[5:]}
        else:
            turn = {"id": tid, "role": "user" if speaker == user else "assistant", "text": text}
        if facts and f"D{s.n}:{j}" in facts:
            turn["facts"] = facts[f"D{s.n}:{j}"]
        turns.append(turn)
    return turns
