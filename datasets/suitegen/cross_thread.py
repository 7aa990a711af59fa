"""The cross_thread suite: users with several threads, where only long-term memory can answer.

Every user has 5-8 threads (one session each, days to weeks apart); a new thread starts with
empty short-term memory. Facts, preferences and knowledge updates are stated in one thread and
asked about in later ones; an update crosses threads (the old value in one thread, the new one in
a later thread, the probe later still); some questions were never answered in any thread; one
thread is a tool-heavy task in which the user states a durable fact mid-task and a tool returns a
value that a later thread asks for (an agent that stores only what the user says misses the tool
value; a post-invocation pass over the transcript sees both). Controls: facts asked about later in
the same thread (short-term memory can answer them) and a value from early in the task asked at
its end (working memory holds it unless a compression lost it).
"""

from __future__ import annotations

from suitegen.abstention import NEVER_SAID
from suitegen.conv import Conv, finish_probes, new_conv, plant, question_for, run_sessions, start_date
from suitegen.core import Rng, norm
from suitegen.facts import FACTS
from suitegen.knowledge_update import KU_SLOTS
from suitegen.preference import PREFS
from suitegen.tasks import DOMAINS, run_task
from suitegen.vocab import ACKS, CITIES, FEMALE, MALE, MONTHS

THREADS = True
"""Each session is written as its own thread (conversation) of the user."""
USERS = 14

MID_TASK_FACTS = [  # (durable fact stated mid-task, question, the value's key)
    ("Also, before I forget: I'm relocating to {city} in {month}, so flag anything that clashes with that.",
     "Which city am I relocating to?", "city"),
    ("Side note while you work: my new work phone number is {phone}, use that for anything urgent.",
     "What is my new work phone number?", "phone"),
    ("Oh, and my manager is now {name}, so approvals go through {name} from now on.",
     "Who is my manager now?", "name"),
]


def _ask_fact(c: Conv, kind: str, vals: dict, tid: str, at: int, pending: list[dict]) -> None:
    """One probe about the fact planted in turn ``tid``, asked at the end of thread ``at``."""
    text = norm(c.turn_text(tid))
    slots = [s for s in FACTS[kind]["slots"] if norm(str(vals[s])) in text] or list(FACTS[kind]["slots"])
    q, gold = question_for(c, kind, c.rng.pick(slots), vals)
    pending.append(dict(at=at, question=q, category="single_hop", gold=gold, evidence=[tid]))


def suite_cross_thread(rng: Rng) -> list[Conv]:
    """Users with 5-8 threads; what was said in one thread is asked about in later ones."""
    convs, used_names = [], set()
    for i in range(USERS):
        c = new_conv("cross_thread", i + 1, rng, used_names, start_date(rng))
        n = rng.randint(5, 8)
        gaps = [rng.randint(3, 20) for _ in range(n)]
        plan: list[list] = [[] for _ in range(n)]
        pending: list[dict] = []
        task_thread = rng.randint(1, n - 3)
        chat = [s for s in range(n) if s != task_thread]  # threads that are plain chats
        # personal facts: four said in one thread and asked in a later one, one asked in its own thread
        kinds = rng.sample(sorted(FACTS), 5)
        for kind in kinds[:4]:
            si = rng.pick([s for s in chat if s < n - 1])
            vals = FACTS[kind]["sample"](rng, c.used)

            def act(conv, kind=kind, vals=vals):
                tid = plant(conv, kind, vals)
                si = len(conv.sessions) - 1
                _ask_fact(conv, kind, vals, tid, rng.randint(si + 1, n - 1), pending)
            plan[si].append(act)
        control_kind = kinds[4]
        control_vals = FACTS[control_kind]["sample"](rng, c.used)
        control_si = rng.pick(chat)

        def control(conv, kind=control_kind, vals=control_vals):
            tid = plant(conv, kind, vals, mode="stmt")
            conv.chit(3)  # enough messages after it that a short window no longer shows it
            _ask_fact(conv, kind, vals, tid, len(conv.sessions) - 1, pending)
        plan[control_si].insert(0, control)
        # preferences: said early, applied in a later thread
        for pref in rng.sample([p for p in PREFS if p["group"] not in ("seat",)], 2):
            si = rng.pick([s for s in chat if s < n - 2])

            def pact(conv, pref=pref):
                tid = conv.u(rng.pick(pref["stated"] + pref["implied"]))
                conv.a(rng.pick(["Noted, I'll keep that in mind.", "Good to know!", "Got it."]))
                gold = {"text": pref["gold"], "aliases": pref["aliases"]} if pref["aliases"] else pref["gold"]
                pending.append(dict(at=rng.randint(len(conv.sessions), n - 1), question=rng.pick(pref["q"]),
                                    category="preference", gold=gold, evidence=[tid]))
            plan[si].append(pact)
        # a knowledge update that crosses threads: old value in thread a, new in b > a, asked in c > b
        slot = rng.pick(["city", "employer", "car", "gym", "commute", "drink"])
        spec = KU_SLOTS[slot]
        old, new = rng.fresh(spec["pool"], c.used), rng.fresh(spec["pool"], c.used)
        a = rng.pick([s for s in chat if s < n - 2])
        b = rng.pick([s for s in chat if a < s < n - 1])
        said: dict[str, str] = {}
        plan[a].append(lambda conv: said.__setitem__("old", conv.u(rng.pick(spec["init"]).format(v=old))) or conv.a(rng.pick(ACKS)))
        plan[b].append(lambda conv: said.__setitem__("new", conv.u(rng.pick(spec["negation"] + spec["status"]).format(
            old=old, new=new))) or conv.a("Thanks for the update!"))
        q = rng.pick(spec["q"]).format(user=c.persona.first)
        ku_probes = [dict(at=rng.randint(b + 1, n - 1), question=q, category="knowledge_update", gold=new, superseded=[old],
                          evidence=["new"])]
        if b - a >= 2:  # asked between the two statements: the old value is still current
            ku_probes.append(dict(at=rng.randint(a + 1, b - 1), question=q, category="single_hop", gold=old,
                                  evidence=["old"]))
        # never said: asked in later threads
        # the task thread: a tool-heavy invocation with a user fact mid-task
        domain = DOMAINS[rng.pick(sorted(DOMAINS))]
        fact_text, fact_q, key = rng.pick(MID_TASK_FACTS)
        never = [q for q in NEVER_SAID if not (key == "phone" and "phone" in q)]
        abstain = [dict(at=rng.randint(n // 2, n - 1), question=text, category="abstention", abstain=True)
                   for text in rng.sample(never, 2)]
        fact_vals = {"city": rng.fresh(CITIES, c.used), "month": rng.pick(MONTHS),
                     "phone": f"+44 7{rng.randint(100, 999)} {rng.randint(100000, 999999)}",
                     "name": rng.fresh(FEMALE + MALE, c.used)}

        def task(conv, domain=domain):
            n_ent = rng.randint(5, 7)
            # the user interjects after the first observation: a user message starts a new invocation,
            # so the rest of the task (and the probe at its end) is one invocation
            run = run_task(conv, domain, n_ent, interject={0: lambda cv: cv.u(fact_text.format(**fact_vals), raw=True)})
            si = len(conv.sessions) - 1
            later = rng.randint(si + 1, n - 1)
            attr = rng.pick(sorted(domain.questions))
            k_first = rng.randint(1, 2)
            # at the end of the task (still its invocation): a value observed early in it
            q0, g0, e0 = run.question(k_first, attr)
            pending.append(dict(at=si, after=conv.last(), question=q0, category="agentic", gold=g0, evidence=e0))
            # in a later thread: a tool value and the fact the user stated mid-task
            k_later = rng.randint(2, n_ent - 1)
            q1, g1, e1 = run.question(k_later, rng.pick(sorted(domain.questions)))
            pending.append(dict(at=later, question=q1, category="agentic", gold=g1, evidence=e1))
            pending.append(dict(at=rng.randint(si + 1, n - 1), question=fact_q, category="single_hop",
                                gold=fact_vals[key], evidence=[run.interjections[0]]))
            conv.u(rng.pick(["Thanks, that's everything for now.", "Great, thanks.", "Perfect, cheers."]))
            conv.a("You're welcome.")
        plan[task_thread].append(task)
        for si, actions in enumerate(plan):
            if si != task_thread and si != control_si:
                rng.shuffle(actions)
        run_sessions(c, plan, 8, 14, gaps=gaps)
        for p in ku_probes:
            p["evidence"] = [said[e] for e in p["evidence"]]
        finish_probes(c, pending + ku_probes + abstain)
        c.meta["task"] = domain.name
        convs.append(c)
    return convs


PURPOSE = ("Users with 5-8 threads each (one session per thread, days to weeks apart; a new thread starts with empty "
           "short-term memory). Facts, preferences and knowledge updates are stated in one thread and asked about in "
           "later threads, so only long-term memory can answer; an update crosses threads (old value in one thread, new "
           "value in a later one, probe later still, with a probe in between that expects the old value); questions "
           "about things never said are asked in later threads. One thread per user is a tool-heavy task in which the "
           "user states a durable fact mid-task and a tool returns values that a later thread asks for. Controls: a fact "
           "asked about at the end of its own thread, and a value observed early in the task asked at the task's end.")
"""The card's purpose paragraph."""

build = suite_cross_thread
