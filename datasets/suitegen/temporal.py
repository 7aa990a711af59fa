"""The temporal suite: dates and order resolved against session timestamps."""

from __future__ import annotations

import re
from datetime import date, timedelta

from suitegen.vocab import ACKS, COMPANIES, MONTHS, NUMBER_WORDS
from suitegen.core import Rng, cap, date_gold, date_text, number_gold
from suitegen.conv import Conv, finish_probes, new_conv, run_sessions, start_date

EVENTS = [  # (past-tense clause, noun phrase for questions, literal key, base verb phrase)
    ("ran my first half marathon", "the half marathon", "half marathon", "run my first half marathon"),
    ("adopted a kitten", "adopting the kitten", "kitten", "adopt the kitten"),
    ("went to my first pottery class", "the first pottery class", "pottery class", "go to my first pottery class"),
    ("passed my driving test", "the driving test", "driving test", "pass my driving test"),
    ("had my wisdom teeth out", "the wisdom teeth removal", "wisdom teeth", "have my wisdom teeth out"),
    ("painted the kitchen", "painting the kitchen", "painted the kitchen", "paint the kitchen"),
    ("got my first tattoo", "the tattoo", "tattoo", "get my first tattoo"),
    ("bought a second-hand piano", "buying the piano", "piano", "buy the piano"),
    ("submitted my thesis", "the thesis submission", "thesis", "submit my thesis"),
    ("planted an apple tree in the garden", "planting the apple tree", "apple tree", "plant the apple tree"),
    ("sprained my ankle playing five-a-side", "the sprained ankle", "sprained my ankle", "sprain my ankle"),
    ("gave a talk at the public library", "the library talk", "talk at the public library", "give the library talk"),
    ("signed the lease on a new flat", "signing the lease", "lease", "sign the lease"),
    ("baked my first sourdough loaf", "the first sourdough loaf", "sourdough", "bake my first sourdough loaf"),
    ("renewed my passport", "renewing the passport", "passport", "renew my passport"),
    ("volunteered at the food bank", "volunteering at the food bank", "food bank", "volunteer at the food bank"),
    ("went camping by the lake", "the camping trip", "camping", "go camping by the lake"),
    ("fixed the brakes on my bike", "fixing the bike brakes", "brakes", "fix the bike brakes"),
    ("met my newborn niece", "meeting my niece", "niece", "meet my niece"),
    ("sold my old sofa", "selling the sofa", "sofa", "sell the sofa"),
]
APPOINTMENTS = [("a dentist appointment", "dentist appointment"), ("a job interview", "job interview"),
                ("an MRI scan", "MRI scan"), ("my citizenship ceremony", "citizenship ceremony"),
                ("a parent-teacher meeting", "parent-teacher meeting"), ("the car's MOT", "MOT")]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _their(phrase: str) -> str:
    return re.sub(r"\bmy\b", "their", phrase)


def ev_gold(ev: tuple) -> dict:
    """Gold for 'which event': the literal key, plus the noun phrase used in questions."""
    np = re.sub(r"^(the|a|an) ", "", ev[1])
    aliases = [x for x in dict.fromkeys([np, ev[0].replace("my ", "")]) if x != ev[2]]
    return {"text": ev[2], "aliases": aliases}


def rel_past(rng: Rng, day: date) -> tuple[str, date]:
    """A relative time expression for a past event and the date it denotes."""
    kind = rng.pick(["today", "yesterday", "ago", "last", "this morning"])
    if kind in ("today", "this morning"):
        return kind, day
    if kind == "yesterday":
        return "yesterday", day - timedelta(days=1)
    if kind == "ago":
        k = rng.randint(2, 5)
        return f"{NUMBER_WORDS[k]} days ago", day - timedelta(days=k)
    wd = rng.randrange(7)
    back = (day.weekday() - wd) % 7 or 7
    return f"last {WEEKDAYS[wd]}", day - timedelta(days=back)


def rel_future(rng: Rng, day: date) -> tuple[str, date]:
    kind = rng.pick(["tomorrow", "on", "in"])
    if kind == "tomorrow":
        return "tomorrow", day + timedelta(days=1)
    if kind == "in":
        k = rng.randint(3, 9)
        return f"in {k} days", day + timedelta(days=k)
    wd = rng.randrange(7)
    ahead = (wd - day.weekday()) % 7 or 7
    return f"next {WEEKDAYS[wd]}" if ahead > 6 else f"on {WEEKDAYS[wd]}", day + timedelta(days=ahead)


def suite_temporal(rng: Rng) -> list[Conv]:
    """When / order / interval / 'as of' questions resolved against session timestamps."""
    convs, used_names = [], set()
    for i in range(6):
        c = new_conv("temporal", i + 1, rng, used_names, start_date(rng))
        n = rng.randint(9, 10)
        events = rng.sample(EVENTS, 7)
        ev_sessions = sorted(rng.sample(range(n), 7))
        plan: list[list] = [[] for _ in range(n)]
        happened: list[dict] = []  # filled while building: event, date, tid, session index

        for ev, si in zip(events, ev_sessions):
            def act(conv, ev=ev):
                day = conv.ts.date()
                for _ in range(20):  # keep event dates distinct
                    expr, d = rel_past(rng, day)
                    if all(h["date"] != d for h in happened):
                        break
                text = rng.pick([f"{cap(expr)} I {ev[0]}!", f"Big news: I {ev[0]} {expr}.",
                                 f"So, {expr} I finally {ev[0]}.", f"I {ev[0]} {expr}, still buzzing."])
                tid = conv.u(text)
                conv.a(rng.pick(["Congratulations!", "That's a milestone!", "How did it go?", "Oh wow, tell me more!"]))
                conv.u(rng.pick(["It went better than expected.", "Honestly it was a lot.", "Mixed feelings, but good.",
                                 "I'll tell you more another time."]))
                conv.a(rng.pick(ACKS))
                happened.append({"ev": ev, "date": d, "tid": tid, "si": len(conv.sessions) - 1})
            plan[si].append(act)
        # an appointment in the future
        appt = rng.pick(APPOINTMENTS)
        appt_box: dict = {}
        asi = rng.randrange(1, n - 2)

        def appt_act(conv):
            expr, d = rel_future(rng, conv.ts.date())
            appt_box.update(tid=conv.u(rng.pick([f"I've got {appt[0]} {expr}, wish me luck.",
                                                   f"Reminder to self: {appt[0]} {expr}."])), date=d, si=len(conv.sessions) - 1)
            conv.a(rng.pick(["Good luck!", "Noted, I hope it goes smoothly.", "Fingers crossed!"]))
        plan[asi].append(appt_act)
        # a job that changes, for an 'as of' question
        c1, c2 = rng.fresh(COMPANIES, c.used), rng.fresh(COMPANIES, c.used)
        job_box: dict = {}
        jsi1, jsi2 = rng.randrange(0, 2), rng.randrange(n // 2 + 1, n)
        plan[jsi1].append(lambda conv: job_box.update(t1=conv.u(f"Another week at {c1}, nothing new."), s1=len(conv.sessions) - 1)
                          or conv.a(rng.pick(ACKS)))
        plan[jsi2].append(lambda conv: job_box.update(t2=conv.u(rng.pick([
            f"Last day at {c1} was Friday. I start at {c2} tomorrow!", f"I've left {c1}. I'm now at {c2}, first week done."])),
            s2=len(conv.sessions) - 1) or conv.a(rng.pick(["Congratulations on the move!", "Big change, good luck!"])))
        for actions in plan:
            rng.shuffle(actions)
        run_sessions(c, plan, 10, 16, gaps=[None] + [rng.randint(3, 18) for _ in range(n - 1)])

        last = n - 1
        pending: list[dict] = []
        h = sorted(happened, key=lambda x: x["date"])
        # when did I ... (2)
        for e in rng.sample(happened, 2):
            pending.append(dict(at=rng.randint(e["si"], last), question=rng.pick([
                f"When did I {e['ev'][3]}?", f"On what date did {{user}} {_their(e['ev'][3])}?"]),
                category="temporal", gold=date_gold(e["date"]), evidence=[e["tid"]], literal=False))
        # which first (2)
        for _ in range(2):
            a, b = rng.sample(happened, 2)
            first = a if a["date"] < b["date"] else b
            pending.append(dict(at=last, question=rng.pick([
                f"Which happened first: {a['ev'][1]} or {b['ev'][1]}?",
                f"Did {b['ev'][1]} come before or after {a['ev'][1]}? Name the earlier one."]),
                category="temporal", gold=ev_gold(first["ev"]), evidence=[a["tid"], b["tid"]]))
        # ordering among three -> most recent
        three = rng.sample(happened, 3)
        latest = max(three, key=lambda x: x["date"])
        pending.append(dict(at=last, question=f"Of {three[0]['ev'][1]}, {three[1]['ev'][1]} and {three[2]['ev'][1]}, which happened most recently?",
                            category="temporal", gold=ev_gold(latest["ev"]), evidence=[t["tid"] for t in three]))
        # days between
        a, b = rng.sample(happened, 2)
        gap = abs((a["date"] - b["date"]).days)
        pending.append(dict(at=last, question=f"How many days passed between {a['ev'][1]} and {b['ev'][1]}?",
                            category="temporal", gold=number_gold(gap, "days"), evidence=[a["tid"], b["tid"]], literal=False))
        # days ago relative to the time of asking
        e = rng.pick(h[:4])
        asked = c.sessions[last]["timestamp"].date()
        pending.append(dict(at=last, question=f"How many days ago did I {e['ev'][3]}?", category="temporal",
                            gold=number_gold((asked - e["date"]).days, "days"), evidence=[e["tid"]], literal=False))
        # what did I say in the session on DATE
        e = rng.pick(happened)
        sdate = c.sessions[e["si"]]["timestamp"].date()
        pending.append(dict(at=last, question=rng.pick([
            f"In our conversation on {date_text(sdate)}, what did I tell you I had done?",
            f"What milestone did {{user}} mention in the session on {date_text(sdate)}, {sdate.year}?"]),
            category="temporal", gold=ev_gold(e["ev"]), evidence=[e["tid"]]))
        # month
        e = rng.pick(happened)
        pending.append(dict(at=last, question=f"In which month did I {e['ev'][3]}?", category="temporal",
                            gold=MONTHS[e["date"].month - 1], evidence=[e["tid"]], literal=False))
        # appointment date
        pending.append(dict(at=rng.randint(appt_box["si"], last), question=rng.pick([
            f"When is (or was) my {appt[1]}?", f"On what date was {{user}}'s {appt[1]} scheduled?"]),
            category="temporal", gold=date_gold(appt_box["date"]), evidence=[appt_box["tid"]], literal=False))
        # as of
        s1d = c.sessions[job_box["s1"]]["timestamp"].date()
        s2d = c.sessions[job_box["s2"]]["timestamp"].date()
        mid = s1d + (s2d - s1d) // 2
        pending.append(dict(at=last, question=f"As of {date_text(mid)}, {mid.year}, where did I work?", category="temporal",
                            gold=c1, evidence=[job_box["t1"]]))
        finish_probes(c, pending)
        convs.append(c)
    return convs


PURPOSE = 'Dates and order resolved against session timestamps: events told with relative expressions ("yesterday", "three days ago", "last Friday", "next Tuesday"), asked as when/which-first/most-recent/how-many-days/days-ago/which-month/"in our conversation on <date>"/"as of <date>" questions.'
"""The card's purpose paragraph."""

build = suite_temporal
