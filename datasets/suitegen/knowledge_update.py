"""The knowledge_update suite: facts that change two to four times, with every stale value listed."""

from __future__ import annotations

from typing import Any

from suitegen.vocab import ACKS, CAR_MODELS, CITIES, COMMUTES, COMPANIES, FEMALE, GYMS, MALE, MONTHS
from suitegen.core import Rng
from suitegen.conv import Conv, finish_probes, new_conv, run_sessions, start_date

DIETS = ["vegetarian", "pescatarian", "vegan", "flexitarian", "keto", "paleo", "low-carb", "gluten-free"]
DRINKS = ["coffee", "green tea", "matcha", "rooibos", "hot chocolate", "yerba mate", "chai", "kombucha"]
KU_SLOTS: dict[str, dict[str, Any]] = {
    "city": dict(
        pool=CITIES,
        init=["I live in {v}, in a flat with very thin walls.", "Been in {v} for a few years now and I still love the bakeries."],
        negation=["I don't live in {old} anymore! We moved to {new} a few weeks ago.",
                  "Not in {old} anymore, by the way. The move to {new} finally happened."],
        status=["My old place in {old} is someone else's problem now; home is {new}.",
                "Since leaving {old} for {new}, my commute is half as long."],
        restate=["I live in {new}, just so you have it right for the weather stuff.", "Our new flat in {new} gets so much morning light."],
        retract=["Wait, did I say {old}? Actually, not {old}: I live in {new}. Long week, my brain is mush."],
        wrong=["How's everything in {wrong} these days?", "Is the weather in {wrong} still miserable?"],
        fix=["I'm in {cur}, not {wrong}! {wrong} is where my cousin lives.", "Ha, no, {cur}. I've never lived in {wrong}."],
        distract=["My cousin just moved to {d}, she won't stop sending photos.", "A colleague is relocating to {d} next year."],
        q=["Which city do I live in now?", "Where does {user} currently live?", "What city is {user} based in these days?"]),
    "employer": dict(
        pool=COMPANIES,
        init=["I work at {v}, mostly on boring but important stuff.", "Long day at {v}, the quarterly review is brutal."],
        negation=["I don't work at {old} anymore, handed in my notice. Starting at {new} on Monday!",
                  "No more {old} for me. I start at {new} next week."],
        status=["My former employer {old} still emails me about my pension. Anyway, I'm now at {new} and loving it.",
                "I'm now at {new}. {old} feels like a lifetime ago."],
        restate=["Another long day at {new}. Their office is massive.",
                 "I work at {new}, in case I haven't said, so expect complaints about their canteen."],
        retract=["Sorry, I wrote {old} earlier, but that's my old company. I'm at {new}."],
        wrong=["How's the team at {wrong} treating you?"],
        fix=["I work at {cur}, not {wrong}. {wrong} is my partner's company, easy to mix up."],
        distract=["A recruiter from {d} messaged me again, not interested.", "My friend just got hired at {d}."],
        q=["Where do I work now?", "Which company does {user} currently work for?", "Who is {user}'s current employer?"]),
    "partner": dict(
        pool=FEMALE + MALE,
        init=["My partner {v} is cooking tonight, which means takeaway.", "{v}, my partner, says hi, by the way."],
        negation=["{old} and I broke up. It was time. And, well, I'm seeing someone new: {new}.",
                  "I'm not with {old} anymore. I've started dating {new}, early days."],
        status=["My ex, {old}, texted me out of nowhere. {new}, my new partner, told me to ignore it."],
        restate=["My partner {new} and I are going away this weekend.", "{new} (my partner) got me flowers for no reason."],
        retract=["Oops, I typed {old}, I meant {new}. My partner is {new}; {old} is my boss."],
        wrong=["Are you and {wrong} doing anything fun this weekend?"],
        fix=["It's {cur}, not {wrong}! {wrong} is my sister's name."],
        distract=["My friend {d} is getting married in the spring.", "My coworker {d} brought cake in today."],
        q=["Who is my partner now?", "Who is {user} dating at the moment?", "What's the name of {user}'s current partner?"]),
    "diet": dict(
        pool=DIETS,
        init=["I'm {v}, so keep that in mind for any recipes.", "Being {v} makes work lunches tricky."],
        negation=["I'm not {old} anymore. I've gone {new}, long story involving a documentary.",
                  "Not {old} these days; I'm {new} now."],
        status=["After years of being {old}, I'm {new} now.", "I used to be {old}; now I'm {new}."],
        restate=["Being {new} is easier than I expected, honestly.", "I'm {new}, so the new canteen menu is a win."],
        retract=["Actually, not {old}, I misspoke: I'm {new}."],
        wrong=["Since you're {wrong}, want a recipe with lots of cheese?"],
        fix=["I'm {cur}, not {wrong}. Please keep the suggestions right."],
        distract=["My flatmate went {d} this month.", "Half my team is {d} now, the office lunch order is chaos."],
        q=["What diet do I follow these days?", "Which diet does {user} follow now?"]),
    "car": dict(
        pool=CAR_MODELS,
        init=["I drive a {v}, old but reliable."],
        negation=["I don't have the {old} anymore. Sold it and bought a {new}.", "No more {old}! Picked up a {new} yesterday."],
        status=["My previous car, the {old}, went to my nephew. I drive a {new} now."],
        restate=["The {new} is great on the motorway.", "I drive a {new}, so parking is easy."],
        retract=["Not a {old}, sorry, autocorrect. It's a {new}."],
        wrong=["Is the {wrong} still making that noise?"],
        fix=["I drive a {cur}, not a {wrong}. Never owned a {wrong} in my life."],
        distract=["My neighbour bought a {d} and won't stop talking about it."],
        q=["What car do I drive now?", "What car does {user} currently drive?"]),
    "gym": dict(
        pool=GYMS,
        init=["I train at {v}, usually before work."],
        negation=["I'm not going to {old} anymore, cancelled the membership. Joined {new} instead."],
        status=["My former gym, {old}, keeps sending me offers. I'm at {new} now."],
        restate=["Great session at {new} this morning.", "I train at {new}; the showers are finally warm."],
        retract=["I said {old}? I meant {new}, sorry, I go to {new}."],
        wrong=["How was the class at {wrong}?"], fix=["I go to {cur} now, not {wrong}."],
        distract=["A new gym called {d} opened near the station."],
        q=["Which gym do I go to now?", "Where does {user} train these days?"]),
    "commute": dict(
        pool=COMMUTES,
        init=["I commute by {v}, about forty minutes."],
        negation=["I don't commute by {old} anymore; it's the {new} now."],
        status=["I used to commute by {old}, now I go by {new}."],
        restate=["Commuting by {new} is so much calmer.", "I go to work by {new}, so I can finally read again."],
        retract=["Did I say {old}? I meant {new}. I go by {new}."],
        wrong=["Was the {wrong} packed this morning?"], fix=["I go by {cur}, not {wrong}."],
        distract=["Half my team comes in by {d} now."],
        q=["How do I commute these days?", "How does {user} get to work now?"]),
    "drink": dict(
        pool=DRINKS,
        init=["I can't function without {v} in the morning."],
        negation=["I don't drink {old} anymore, I switched to {new}."],
        status=["Former {old} addict, now strictly {new}."],
        restate=["Morning {new}, best part of the day.", "{new} first, then emails. That's the rule."],
        retract=["Actually, not {old}: {new}. I never liked {old} much."],
        wrong=["Shall I add {wrong} to your shopping list?"], fix=["{cur}, not {wrong}!"],
        distract=["My coworker lives on {d}, I don't know how."],
        q=["What's my go-to morning drink now?", "What does {user} drink in the morning these days?"]),
    "sibling_city": dict(
        pool=CITIES,
        init=["My {rel} {S} lives in {v}."],
        negation=["{S} doesn't live in {old} anymore; {S} moved to {new}."],
        status=["{S} left {old} for {new} last month, my {rel} is happy about it."],
        restate=["My {rel} {S} loves life in {new}.", "{S} sent photos from {new}, where my {rel} lives now."],
        retract=["Wait, {S} is in {new}, not {old}. I always mix up the cities."],
        wrong=["Has your {rel} settled in {wrong}?"], fix=["{S} is in {cur}, not {wrong}."],
        distract=["My colleague's family lives in {d}."],
        q=["Where does my {rel} live now?", "Which city does {user}'s {rel} {S} live in now?"]),
    "trip": dict(
        pool=CITIES,
        init=["We're going to {v} in {month}, finally booked it."],
        negation=["We're not going to {old} after all. It's {new} in {month} now."],
        status=["The {old} plan is dead; {new} it is, same dates in {month}."],
        restate=["Packing list for {new} is getting long, and it's only {month} soon."],
        retract=["Actually, scratch {old}. We're going to {new} in {month} instead, flights were cheaper."],
        wrong=["Excited for {wrong} in {month}?"], fix=["It's {cur}, not {wrong}. {wrong} was last year."],
        distract=["My boss is off to {d} in {month} too."],
        q=["Where am I going on holiday in {month}?", "Where is {user} travelling in {month}?"]),
}


def suite_knowledge_update(rng: Rng) -> list[Conv]:
    """Facts that change (2-4 values per slot): moves, job changes, breakups, reversals, retractions, corrections."""
    convs, used_names = [], set()
    for i in range(8):
        c = new_conv("knowledge_update", i + 1, rng, used_names, start_date(rng))
        n = 10
        slots = [rng.pick(["city", "employer"])]
        slots += rng.sample([k for k in KU_SLOTS if k not in slots], rng.randint(3, 4))
        lengths = [4, 3] + [rng.pick([2, 2, 3]) for _ in slots[2:]]
        rng.shuffle(lengths)
        lengths = [min(L, 3) if len(KU_SLOTS[sl]["pool"]) < 10 else L for sl, L in zip(slots, lengths)]
        ctx = {"rel": rng.pick(["sister", "brother"]), "S": rng.fresh(FEMALE + MALE, c.used), "month": rng.pick(MONTHS)}
        update_types = ["negation", "status", "restate"]
        plan: list[list] = [[] for _ in range(n)]
        pending: list[dict] = []
        records: dict[str, list] = {}
        corrected = rng.pick(slots)
        type_cycle = rng.sample(update_types, 3)
        ti = 0
        retract_slot = rng.pick(slots)
        for slot, L in zip(slots, lengths):
            spec = KU_SLOTS[slot]
            values = [rng.fresh(spec["pool"], c.used) for _ in range(L)]
            sess = sorted(rng.sample(range(n - 1), L))
            records[slot] = []
            for k, (v, si) in enumerate(zip(values, sess)):
                if k == 0:
                    kind, tmpl = "init", rng.pick(spec["init"])
                elif k == L - 1 and slot == retract_slot:
                    kind, tmpl = "retract", rng.pick(spec["retract"])
                else:
                    kind = type_cycle[ti % 3]
                    ti += 1
                    tmpl = rng.pick(spec[kind])

                def act(conv, slot=slot, tmpl=tmpl, k=k, values=values, kind=kind, spec=spec):
                    stale = None
                    if kind == "retract":
                        # a slip, some chit-chat, then "actually, not X: Y"
                        stale = rng.fresh(spec["pool"], conv.used)
                        conv.u(rng.pick(spec["init"]).format(v=stale, **ctx))
                        conv.a(rng.pick(ACKS))
                        conv.chit(1)
                    old = stale if kind == "retract" else values[k - 1] if k else ""
                    tid = conv.u(tmpl.format(v=values[k], old=old, new=values[k], **ctx))
                    conv.a(rng.pick(["Thanks for the update!", "Noted, I'll remember that.", "Oh, big change!", "Got it, updated.",
                                     "Good to know.", "Ah, okay."]))
                    rec = {"v": values[k], "tid": tid, "si": len(conv.sessions) - 1, "kind": kind}
                    if stale:
                        rec["stale"] = stale
                    records[slot].append(rec)
                plan[si].append(act)
            if slot == corrected:
                wrong = rng.fresh(spec["pool"], c.used)

                def fix_act(conv, slot=slot, wrong=wrong, spec=spec):
                    cur = records[slot][-1]["v"]
                    conv.u(rng.pick(["Morning.", "Quick question coming.", "Hey."]))
                    conv.a(rng.pick(spec["wrong"]).format(wrong=wrong, cur=cur, **ctx))
                    tid = conv.u(rng.pick(spec["fix"]).format(wrong=wrong, cur=cur, **ctx))
                    conv.a("Sorry about that, I've corrected it.")
                    records[slot].append({"v": cur, "tid": tid, "si": len(conv.sessions) - 1, "kind": "fix", "stale": wrong})
                plan[n - 1].insert(0, fix_act)
            for _ in range(rng.randint(1, 2) if len(spec["pool"]) >= 10 else 1):
                d = rng.fresh(spec["pool"], c.used)
                plan[rng.randrange(n)].append(lambda conv, d=d, spec=spec: conv.u(rng.pick(spec["distract"]).format(d=d, **ctx))
                                              and conv.a(rng.pick(ACKS)))
        for si, actions in enumerate(plan):
            if si < n - 1:
                rng.shuffle(actions)
        run_sessions(c, plan, 10, 16)
        for slot in slots:
            recs = records[slot]
            spec = KU_SLOTS[slot]
            chain = [r for r in recs if r["kind"] != "fix"]
            stale_extra = [r["stale"] for r in recs if "stale" in r]
            final = recs[-1]
            values_seen = list(dict.fromkeys(r["v"] for r in chain))
            superseded = [v for v in values_seen if v != final["v"]] + [s for s in stale_extra if s != final["v"]]
            ev = [final["tid"]]
            cur_stmt = [r for r in chain if r["v"] == final["v"]]
            if final["kind"] == "fix" and cur_stmt:
                ev.append(cur_stmt[-1]["tid"])
            q = rng.pick(spec["q"]).format(user=c.persona.first, **ctx)
            pending.append(dict(at=n - 1, question=q, category="knowledge_update", gold=final["v"], superseded=superseded,
                                evidence=ev))
            # mid-chain probes: asked right after an intermediate value was stated
            for k in range(1, len(chain) - 1):
                r = chain[k]
                nxt = chain[k + 1]
                if nxt["si"] == r["si"]:
                    continue
                pending.append(dict(at=r["si"], question=rng.pick(spec["q"]).format(user=c.persona.first, **ctx), category="knowledge_update",
                                    gold=r["v"], superseded=[x["v"] for x in chain[:k] if x["v"] != r["v"]], evidence=[r["tid"]]))
        finish_probes(c, pending)
        c.meta["slots"] = ",".join(slots)
        convs.append(c)
    return convs


PURPOSE = 'Facts that change two to four times: moves, job changes, relationships ended, diet/drink/commute reversals, retractions ("actually, not X"), and corrections of the assistant. Updates are phrased as negation ("I don\'t live in X anymore"), status change ("my former employer", "I\'m now at") and plain restatement. Probes ask for the current value (some mid-way) and list every stale value in `superseded`, so stale leakage can be measured.'
"""The card's purpose paragraph."""

build = suite_knowledge_update
