"""Long-horizon suites: users as long as real ones, as memlab threads.

A user chats with their assistant over months, one thread per conversation (20–40 threads): a new
thread starts with empty short-term memory and only long-term memory carries what earlier threads
said. The sizes (:data:`SIZES`) are about 25k (S), 100k (M) and 400k (L) tokens of history per user
— the public long-conversation benchmarks' 25–30k (LoCoMo, REALTALK) and LongMemEval_s's ~115k per
question — with the density of real chat rather than filler:

* **many entities**: every episode of the user's life (:mod:`.episodes`) introduces people,
  places, titles, organisations and pets no earlier turn named — hundreds per user;
* **facts said once early and asked much later**: probes are asked at the end of threads all
  through the history, about anything said before, so the gap between evidence and probe runs from
  the same thread to the whole history;
* **values that change several times** (employer and job, manager, home city and street, car): each
  slot changes 2–4 times; a knowledge-update probe asks the current value with every earlier value as
  ``superseded``, between two changes;
* **distractors that share words with the asked fact**: relatives' and friends' jobs, moves, pets and
  cars (:func:`~.episodes.ep_others_news`), other people met at other places;
* **multi-hop chains across threads**: someone met at a place in one thread, what they do said in a
  later one (asked by the place); a pet adopted in one thread, its vet named in a later one;
* **assistant and tool turns**: long help answers (most of a real chat's tokens), things the
  assistant recommended by name, and tasks done with tools whose observations hold values (booking
  codes, order numbers, phone numbers) the assistant does not always repeat;
* **abstention**: relatives, pets and classes the user never mentioned.

Every literal gold answer occurs in its evidence turns (checked); dates are resolved against the
session's date and carry their surface forms as aliases. Each user is drawn from its own seeded
``random.Random``, so a slice of users is the same users as in the whole suite, and the same
arguments give the same bytes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from suitegen.core import date_gold, norm
from suitegen.longhorizon.episodes import (EPISODES, WEIGHTS, ep_car, ep_follow_up, ep_job, ep_meet, ep_move,
                                           ep_others_news)
from suitegen.longhorizon.vocab import (ASSISTANT_ASK, ASSISTANT_CLOSE, ASSISTANT_DONE, ASSISTANT_OPEN, ASSISTANT_REACT,
                                        ADVICE, ASSISTANT_REMARK, CITIES, DINNER_FILL, EMAIL_FILL, FIRST, GIFT_FILL, HELP, JOBS, PETS, PREFERENCES,
                                        RECOMMEND, RELATIVES, HOBBIES, SURNAMES, TOOL_ITEMS, TOOL_TASKS, USER_CLOSE,
                                        USER_OPEN, WEEKDAYS, ADJ, NOUN, VENUES)
from suitegen.longhorizon.world import Fact, Person, Session, Voice, World, an

ASSISTANT = Voice(ASSISTANT_REACT, ASSISTANT_ASK, ASSISTANT_REMARK, echo_share=0.5)
ASSISTANT_NAME = "Assistant"
TOPIC = {"ep_trip": "travel", "ep_event": "events", "ep_new_person": "people", "ep_family": "family", "ep_pet": "pets",
         "ep_hobby": "hobbies", "ep_book": "books and films", "ep_health": "health", "ep_purchase": "purchases",
         "ep_food": "food", "ep_plan": "plans", "ep_job": "work", "ep_move": "moving house", "ep_car": "purchases",
         "ep_meet": "people", "ep_follow_up": "follow-up", "ep_others_news": "others' news"}
"""The topic of each episode: what the assistant's replies during it talk about."""
SEGMENT_TOKENS = 250
"""About what one segment (an episode and the assistant's replies) adds: a thread stops half of one short of
its target, so threads land on their target on average."""
ASSISTANT_MIN_WORDS = 55
"""An assistant line shorter than this gets a few sentences more on the topic (real replies are paragraphs)."""


class ThreadSession(Session):
    """A thread being written: the assistant answers at paragraph length, on the topic of the episode being told."""

    topic: str | None = None

    def reply(self, who, text, caption=None):
        name = who if isinstance(who, str) else who.name
        if name == ASSISTANT_NAME and len(text.split()) < ASSISTANT_MIN_WORDS:
            pool = ADVICE.get(self.topic or "", ASSISTANT_REMARK)
            text = " ".join([text, *self.rng.sample(pool, min(len(pool), self.rng.randint(2, 4)))])
        return super().reply(who, text, caption)


def _tell(rng: random.Random, episode, s: ThreadSession, *args) -> object:
    """Tell one episode, the assistant's replies on its topic."""
    s.topic = TOPIC.get(episode.__name__)
    try:
        return episode(rng, *args)
    finally:
        s.topic = None


@dataclass(frozen=True)
class Size:
    """One suite size: users, threads per user, tokens of history per user, probes per user."""

    name: str
    users: int
    threads: tuple[int, int]
    tokens: int
    probes: int


SIZES = {
    "S": Size("s", users=16, threads=(20, 28), tokens=26_000, probes=64),
    "M": Size("m", users=12, threads=(28, 36), tokens=104_000, probes=90),
    "L": Size("l", users=12, threads=(32, 40), tokens=410_000, probes=110),
}
"""S and M ship in ``datasets/suites/``; L is generated on demand (same bytes every time)."""

SLOT_QUESTIONS = {
    "job": "What is {p}'s current job?", "employer": "Where does {p} work now?", "manager": "Who is {p}'s manager now?",
    "city": "Which city does {p} live in now?", "street": "What street is {p}'s flat on now?",
    "car": "What brand of car does {p} drive now?"}
SLOT_EPISODE = {"job": ep_job, "city": ep_move, "car": ep_car}
"""The three things that change: a new job (job, employer, manager), a move (city, street), a car."""
QUOTA = {"single_hop": 0.34, "multi_session": 0.12, "temporal": 0.08, "knowledge_update": 0.16, "agentic": 0.10,
         "preference": 0.05, "abstention": 0.08, "open_domain": 0.03, "assistant": 0.04}
"""Share of a user's probes per kind (``assistant``: what the assistant recommended, scored as single_hop)."""


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
    if rng.random() < 0.5:
        s.reply(p, rng.choice(["That's really helpful, thanks.", "Great, I'll try that.", "Perfect, that's what I needed."]))
        s.reply(s.other(p), rng.choice(ASSISTANT_REMARK))


def seg_recommend(rng: random.Random, w: World, s: Session, p: Person, facts: list[Fact]) -> None:
    """The assistant recommends something by name: a fact only the assistant's turn holds."""
    want, kind, template = rng.choice(RECOMMEND)
    city = rng.choice(CITIES)
    title = w.title() if kind != "trail" else w._fresh(lambda: f"{rng.choice(ADJ)} {rng.choice(NOUN)}", "title")
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


def user_history(rng: random.Random, size: Size, idx: int) -> UserHistory:
    w = World(rng)
    name = rng.choice(FIRST)
    w.used.update({name, ASSISTANT_NAME})
    user = Person(name, rng.choice(CITIES), rng.choice(JOBS), w.org())
    for rel in rng.sample(RELATIVES, rng.randint(1, 3)):
        user.relatives[rel] = w.first()
    user.contacts["manager"] = w.person()
    assistant = Person(ASSISTANT_NAME, "", "", "")
    n_threads = rng.randint(*size.threads)
    per_thread = size.tokens / n_threads
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
                facts.append((max(_session(e) for e in f.evidence), f))
    return UserHistory(user, sessions, facts, history, w, total, changes)


def _session(ref: str) -> int:
    """The 0-based session (thread) index of a line ref ``D<session>:<line>``."""
    return int(ref[1:].split(":")[0]) - 1


def _turn_id(ref: str) -> str:
    session, line = ref[1:].split(":")
    return f"s{session}-{int(line):03d}"


def _conversations(size: Size, idx: int, h: UserHistory, probes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ns = f"lh-{size.name}-{idx + 1:02d}"
    out = []
    for k, s in enumerate(h.sessions):
        turns = []
        for j, (speaker, text, _caption) in enumerate(s.lines, 1):
            tid = f"s{s.n}-{j:03d}"
            if speaker.startswith("tool:"):
                turns.append({"id": tid, "role": "tool", "text": text, "tool_name": speaker[5:]})
            else:
                turns.append({"id": tid, "role": "user" if speaker == h.user.name else "assistant", "text": text})
        conv: dict[str, Any] = {"id": f"{ns}-t{k + 1:02d}", "namespace": ns,
                                "speakers": {"user": h.user.name, "assistant": ASSISTANT_NAME},
                                "sessions": [{"id": f"s{s.n}", "timestamp": s.date.isoformat(), "turns": turns}],
                                "probes": [{k2: v for k2, v in p.items() if k2 != "_t"} for p in probes if p["_t"] == k]}
        out.append(conv)
    return out


def _category(kind: str, evidence_threads: set[int]) -> str:
    return {"single": "single_hop", "assistant": "single_hop", "temporal": "temporal", "update": "knowledge_update",
            "tool": "agentic", "preference": "preference", "open": "open_domain",
            "multi": "multi_session" if len(evidence_threads) > 1 else "single_hop"}[kind]


def plan_probes(rng: random.Random, size: Size, h: UserHistory, ns: str) -> list[dict[str, Any]]:
    """The user's probes, asked at the ends of threads all through the history (see the module docstring)."""
    n = len(h.sessions)
    texts = {f"D{s.n}:{j}": line[1] for s in h.sessions for j, line in enumerate(s.lines, 1)}
    last_ref = {k: f"D{s.n}:{len(s.lines)}" for k, s in enumerate(h.sessions)}
    candidates: dict[str, list[tuple[int, int, Fact, list[str]]]] = {}
    seen_questions: dict[str, set[str]] = {}
    for at, f in h.facts:
        seen_questions.setdefault(f.question, set()).add(f.answer)
    for at, f in h.facts:
        if f.kind != "update" and len(seen_questions[f.question]) > 1:
            continue  # asked twice with different answers (two dogs): ambiguous whenever asked late
        if f.kind == "temporal" and f.day is None:
            continue  # "last week": no single day to score
        superseded: list[str] = []
        last = n - 1
        if f.kind == "update":
            values = h.history[(f.slot, f.subject)]
            i = next(i for i, v in enumerate(values) if v[0] == f.answer and v[1] == f.evidence[0])
            superseded = [v for v, _ in values[:i] if v != f.answer and norm(v) not in norm(f.answer)]
            if i + 1 < len(values):  # current until the thread of the next change: asked before it
                last = _session(values[i + 1][1]) - 1
            if not superseded:
                f = Fact("single", f.question.replace(" now?", "?").replace("current ", ""), f.answer, f.evidence,
                         slot=f.slot, subject=f.subject)  # the first value, asked before any change
        threads = {_session(e) for e in f.evidence}
        kind = "assistant" if f.kind == "assistant" else _category(f.kind, threads)
        if f.literal:
            ev = norm(" ".join(texts[e] for e in f.evidence))
            assert norm(f.answer) in ev, f"{ns}: gold {f.answer!r} not in evidence of {f.question!r}: {ev[:300]}"
        if last >= at:
            candidates.setdefault(kind, []).append((at, last, f, superseded))
    probes: list[dict[str, Any]] = []
    for kind, share in QUOTA.items():
        want = round(size.probes * share)
        if kind == "abstention":
            probes += _abstentions(rng, h, want, last_ref)
            continue
        pool = candidates.get(kind, [])
        for at, last, f, superseded in rng.sample(pool, min(want, len(pool))):
            ask = rng.randint(at, last)  # uniform over where it can be asked: the age runs from 0 to the whole history
            probe: dict[str, Any] = {"after_turn": _turn_id(last_ref[ask]), "question": f.question,
                                     "category": "single_hop" if kind == "assistant" else kind,
                                     "gold": [date_gold(f.day) if f.kind == "temporal" else {"text": f.answer}],
                                     "evidence": [_turn_id(e) for e in f.evidence], "_t": ask}
            if superseded:
                probe["superseded"] = superseded
            probes.append(probe)
    probes.sort(key=lambda p: (p["_t"], p["after_turn"], p["question"]))
    for j, p in enumerate(probes, 1):
        p["id"] = f"{ns}-p{j:03d}"
    return [{"id": p["id"], **{k: v for k, v in p.items() if k != "id"}} for p in probes]


def _abstentions(rng: random.Random, h: UserHistory, want: int, last_ref: dict[int, str]) -> list[dict[str, Any]]:
    """Questions about what the user never mentioned in the whole history: relatives, pets, classes."""
    p = h.user
    said = " ".join(line[1].lower() for s in h.sessions for line in s.lines)
    options = [f"What is the name of {p.name}'s {rel}?" for rel in RELATIVES
               if rel not in p.relatives and f"my {rel}" not in said]
    options += [f"What is the name of {p.name}'s {kind}?" for kind in PETS if kind not in {k for k, _ in p.pets}]
    options += [f"Who teaches the {hobby} class {p.name} goes to?" for hobby, _ in HOBBIES
                if hobby not in {x for x, _, _ in p.hobbies} and hobby.lower() not in said]
    out = []
    for question in rng.sample(options, min(want, len(options))):
        ask = rng.randrange(len(h.sessions))
        out.append({"after_turn": _turn_id(last_ref[ask]), "question": question, "category": "abstention",
                    "abstain": True, "_t": ask})
    return out


def build_user(size: Size, idx: int, seed: int) -> tuple[list[dict[str, Any]], UserHistory]:
    """User ``idx`` of a suite: its threads (memlab conversations, probes in place) and its history."""
    rng = random.Random(f"long_horizon-{size.name}-{seed}-{idx}")
    h = user_history(rng, size, idx)
    ns = f"lh-{size.name}-{idx + 1:02d}"
    probes = plan_probes(rng, size, h, ns)
    return _conversations(size, idx, h, probes), h


def build(size: str, seed: int, users: int | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every user's threads, and what the suite card reports about them (entities, tokens, threads)."""
    spec = SIZES[size.upper()]
    convs: list[dict[str, Any]] = []
    stats: dict[str, Any] = {"entities": [], "tokens": [], "threads": [], "changes": []}
    for i in range(spec.users if users is None else users):
        threads, h = build_user(spec, i, seed)
        convs += threads
        stats["entities"].append(sum(h.world.entities.values()) + len(h.user.relatives))
        stats["tokens"].append(h.tokens)
        stats["threads"].append(len(h.sessions))
        stats["changes"].append(sum(len(v) for v in h.changes.values()))
    return convs, stats
