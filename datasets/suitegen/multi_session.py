"""The multi_session suite: answers that combine facts from sessions far apart."""

from __future__ import annotations

from suitegen.vocab import ACKS, BOOKS, CITIES, COMPANIES, DOG_BREEDS, FEMALE, MALE, PET_NAMES, TITLES
from suitegen.core import Rng, number_gold
from suitegen.conv import Conv, distract, finish_probes, new_conv, run_sessions, start_date

PEOPLE_RELS = ["coworker", "cousin", "neighbour", "old university friend", "climbing partner", "landlord", "flatmate",
               "manager", "godmother", "bandmate"]
PERSON_CONTEXT = ["brought homemade cake to work today", "invited us to a barbecue on Sunday", "fixed my bike for free",
                  "is training for a marathon", "just got engaged", "lent me a drill and wants it back",
                  "sent me a very long voice note about nothing", "is the funniest person I know",
                  "helped me move a sofa up four flights of stairs", "recommended a great dentist"]
ATTRS = {
    "dog": (["{P} adopted a {breed} called {dog}!", "Met {P}'s new dog today, a {breed} named {dog}. Instant love."],
            ["What's the name of the dog my {rel} adopted?", "What did {user}'s {rel} call their new dog?"], "dog"),
    "city": (["{P} finally moved to {city}, the leaving drinks were emotional.", "{P} is packing for the big move to {city}."],
             ["Which city did my {rel} move to?", "Where is {user}'s {rel} moving?"], "city"),
    "company": (["{P} started at {company} on Monday and already hates the coffee.", "{P} got the job at {company}!"],
                ["Which company did my {rel} join?", "Where does {user}'s {rel} work now?"], "company"),
    "baby": (["{P} had a baby girl! They named her {baby}.", "Went to see {P}'s newborn, little {baby}. So tiny."],
             ["What's the name of my {rel}'s baby?", "What did {user}'s {rel} name the baby?"], "baby"),
}
TRIP_STMTS = ["Just got back from {city}, the food was unreal.", "Spent the long weekend in {city}. My feet hurt.",
              "Work sent me to {city} for three days, saw nothing but the hotel and one great bakery.",
              "Back from a few days in {city}, I could live there."]
TRIP_DISTRACT = ["I'd love to go to {city} someday.", "My cousin keeps telling me to visit {city}.",
                 "Almost booked {city} last month but chickened out."]
BOOK_DONE = ["Finally finished {book}.", "Just finished {book} on the train, loved it.", "Done with {book}! That ending."]
BOOK_DISTRACT = ["Started {book} but I'm not sure I'll finish it.", "My book club picked {book} for next time, haven't started."]
CONCERTS = ["Went to a jazz gig at the Crown last night.", "Saw a string quartet at the cathedral, gorgeous acoustics.",
            "Concert last night! A tiny indie band in a basement, my ears are still ringing.",
            "Went to the symphony with a friend, fell asleep in the second half.", "Caught a folk night at the pub, great fun."]
EXPENSE_ITEMS = [("my bike", ["The bike needed a new chain, that was €{x}.", "Another €{x} on the bike, new brake pads this time.",
                              "Bought a proper lock for the bike, €{x}, ouch."], "How much have I spent on my bike so far, in total?"),
                 ("the dog", ["Vet bill for a sore paw: €{x}.", "Spent €{x} on a new dog bed because the old one got destroyed.",
                              "Dog grooming was €{x}, he looks like a different animal."], "How much have I spent on the dog in total, based on what I told you?"),
                 ("the kitchen", ["Bought new pans for the kitchen, €{x}.", "The plumber fixed the kitchen sink for €{x}.",
                                  "New kitchen tiles were €{x}, worth it."], "In total, how much have I spent on the kitchen?")]


def suite_multi_session(rng: Rng) -> list[Conv]:
    """Answers that need 2-3 facts from sessions far apart: chains, aggregation, counting, comparison, sums."""
    convs, used_names = [], set()
    for i in range(7):
        c = new_conv("multi_session", i + 1, rng, used_names, start_date(rng))
        n = rng.randint(9, 11)
        plan: list[list] = [[] for _ in range(n)]
        pending: list[dict] = []
        ev: dict[str, list] = {}

        def rec(key):
            def _r(tid):
                ev.setdefault(key, []).append(tid)
                return tid
            return _r

        # (a) two people, same attribute kind, linked to their relation only by an early intro
        attr_kind = rng.pick(sorted(ATTRS))
        rels = rng.sample(PEOPLE_RELS, 2)
        people = []
        for r in rels:
            p = {"P": rng.fresh(FEMALE + MALE, c.used), "rel": r, "breed": rng.fresh(DOG_BREEDS, c.used),
                 "dog": rng.fresh(PET_NAMES, c.used), "city": rng.fresh(CITIES, c.used),
                 "company": rng.fresh(COMPANIES, c.used), "baby": rng.fresh(FEMALE, c.used)}
            people.append(p)
        for k, p in enumerate(people):
            si_intro = rng.randrange(0, 3)
            si_attr = rng.randrange(n - 4, n)
            ctx = rng.pick(PERSON_CONTEXT)
            plan[si_intro].append(lambda conv, p=p, ctx=ctx, k=k: rec(f"intro{k}")(
                conv.u(f"My {p['rel']} {p['P']} {ctx}.")) and conv.a(rng.pick(ACKS)))
            stmts, qs, slot = ATTRS[attr_kind]
            plan[si_attr].append(lambda conv, p=p, k=k, stmts=stmts: rec(f"attr{k}")(
                conv.u(rng.pick(stmts).format(**p))) and conv.a(rng.pick(ACKS)))
        for k, p in enumerate(people):
            stmts, qs, slot = ATTRS[attr_kind]
            pending.append(dict(at=n - 1, question=rng.pick(qs).format(rel=p["rel"], user=c.persona.first),
                                category="multi_session", gold=p[slot], evidence=("intro", k)))

        # (b) aggregation: trips (3) with "wish" distractors
        cities = [rng.fresh(CITIES, c.used) for _ in range(3)]
        for k, city in enumerate(cities):
            plan[rng.randrange(k * n // 3, (k + 1) * n // 3)].append(
                lambda conv, city=city: rec("trips")(conv.u(rng.pick(TRIP_STMTS).format(city=city))) and conv.a(rng.pick(ACKS)))
        for _ in range(2):
            dcity = rng.fresh(CITIES, c.used)
            plan[rng.randrange(n)].append(lambda conv, d=dcity: conv.u(rng.pick(TRIP_DISTRACT).format(city=d)) and conv.a(rng.pick(ACKS)))
        pending.append(dict(at=n - 1, question=rng.pick(["Which cities have I actually visited since we started talking?",
                                                         "List the places {user} has travelled to recently."]),
                            category="multi_session", gold=cities, gold_match="all", evidence=("trips",)))
        # (b2) aggregation: finished books, with started/unfinished distractors
        books = [rng.fresh(BOOKS, c.used) for _ in range(rng.randint(2, 3))]
        for k, b in enumerate(books):
            plan[rng.randrange(n)].append(
                lambda conv, b=b: rec("books")(conv.u(rng.pick(BOOK_DONE).format(book=b))) and conv.a(rng.pick(ACKS)))
        dbook = rng.fresh(BOOKS, c.used)
        plan[rng.randrange(n)].append(lambda conv, b=dbook: conv.u(rng.pick(BOOK_DISTRACT).format(book=b)) and conv.a(rng.pick(ACKS)))
        pending.append(dict(at=n - 1, question=rng.pick(["Which books have I finished reading?",
                                                         "What books has {user} said they finished?"]),
                            category="multi_session", gold=books, gold_match="all", evidence=("books",)))
        # (c) counting concerts
        n_conc = rng.randint(2, 4)
        for k, txt in enumerate(rng.sample(CONCERTS, n_conc)):
            plan[rng.randrange(n)].append(lambda conv, t=txt: rec("concerts")(conv.u(t)) and conv.a(rng.pick(ACKS)))
        pending.append(dict(at=n - 1, question="How many concerts or gigs have I told you I went to?", category="multi_session",
                            gold=number_gold(n_conc), evidence=("concerts",), literal=False))
        # (d) comparison: sibling ages
        sis, bro = rng.fresh(FEMALE, c.used), rng.fresh(MALE, c.used)
        a1, a2 = rng.sample(range(19, 46), 2)
        plan[rng.randrange(0, n // 2)].append(lambda conv: rec("ages")(conv.u(rng.pick([
            f"My sister {sis} is {a1} and still borrows my clothes.", f"It was my sister {sis}'s birthday, she's {a1} now."])))
            and conv.a(rng.pick(ACKS)))
        plan[rng.randrange(n // 2, n)].append(lambda conv: rec("ages")(conv.u(rng.pick([
            f"My brother {bro} just turned {a2}, we went bowling.", f"Can't believe my little brother {bro} is {a2}."])))
            and conv.a(rng.pick(ACKS)))
        pending.append(dict(at=n - 1, question=rng.pick(["Who is older, my sister or my brother?",
                                                         "Which of {user}'s siblings is older?"]),
                            category="multi_session", gold=sis if a1 > a2 else bro, evidence=("ages",)))
        # (e) sum of expenses
        item, tmpls, q = rng.pick(EXPENSE_ITEMS)
        amounts = [rng.randint(2, 30) * 5 for _ in range(3)]
        for k, (t, x) in enumerate(zip(tmpls, amounts)):
            plan[rng.randrange(k * n // 3, (k + 1) * n // 3)].append(
                lambda conv, t=t, x=x: rec("expense")(conv.u(t.format(x=x))) and conv.a(rng.pick(ACKS)))
        total = sum(amounts)
        pending.append(dict(at=n - 1, question=q, category="multi_session",
                            gold={"text": f"€{total}", "aliases": [f"{total} euros", f"{total} EUR", str(total)]},
                            evidence=("expense",), literal=False))
        # (f) attribute combination about the user's friend: city early, job late
        fr = rng.fresh(FEMALE + MALE, c.used)
        fcity, fjob = rng.fresh(CITIES, c.used), rng.fresh(TITLES, c.used)
        plan[rng.randrange(0, 3)].append(lambda conv: rec("friend")(conv.u(rng.pick([
            f"My best friend {fr} lives in {fcity}, we video-call most Fridays.",
            f"Visiting my best friend {fr} in {fcity} is always the highlight of my month."]))) and conv.a(rng.pick(ACKS)))
        plan[rng.randrange(n - 3, n)].append(lambda conv: rec("friend")(conv.u(rng.pick([
            f"{fr} got a job as a {fjob}! Huge change.", f"{fr} retrained and is now working as a {fjob}."])))
            and conv.a(rng.pick(ACKS)))
        pending.append(dict(at=n - 1, question=rng.pick(["Where does my best friend live, and what is their new job?",
                                                         "In which city does {user}'s best friend live, and what do they do now?"]),
                            category="multi_session", gold=[fcity, fjob], gold_match="all", evidence=("friend",)))
        # distractors
        for _ in range(3):
            kind = rng.pick(["pet", "city", "job", "sibling"])
            plan[rng.randrange(n)].append(lambda conv, kind=kind: distract(conv, kind))
        for actions in plan:
            rng.shuffle(actions)
        run_sessions(c, plan, 11, 17)
        for p in pending:
            key = p["evidence"]
            if key[0] == "intro":
                p["evidence"] = ev[f"intro{key[1]}"] + ev[f"attr{key[1]}"]
            else:
                p["evidence"] = ev[key[0]]
        finish_probes(c, pending)
        convs.append(c)
    return convs


PURPOSE = 'Answers that need two or three facts from sessions far apart: relation chains ("my coworker" introduced early, their dog named late, with a second person getting the same kind of news), aggregation across sessions (trips, finished books, with unfinished/wished-for distractors), counting, comparing ages, summing expenses, and combining attributes. Top-k retrieval that returns only one of the needed turns loses here.'
"""The card's purpose paragraph."""

build = suite_multi_session
