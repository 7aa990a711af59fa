"""The abstention suite: questions about things never said (and near misses), with answerable controls."""

from __future__ import annotations

from suitegen.vocab import INSTRUMENTS
from suitegen.core import Rng, norm
from suitegen.facts import FACTS
from suitegen.conv import Conv, distract, fill, finish_probes, new_conv, plant, question_for, run_sessions, start_date

OTHER_INSTR = {i: [x for x in INSTRUMENTS if x != i] for i in INSTRUMENTS}
# near misses: (question template, kinds that must NOT be planted for the question to stay unanswerable)
NEAR_MISS: dict[str, list[tuple[str, tuple]]] = {
    "pet": [("What is my {other_species} called?", ()), ("What's the name of my vet?", ())],
    "sibling": [("What's my {other_rel}'s name?", ()), ("Where does my {other_rel} live?", ()),
                ("What does my {rel} {sname} do for a living?", ())],
    "partner": [("What was the name of my ex?", ()), ("What is my {prel}'s birthday?", ()),
                ("Where did I meet my {prel} {pname}?", ())],
    "kid": [("How old is my {other_krel}?", ()), ("Which school does my {krel} {kname} go to?", ())],
    "job": [("Where did I work before {company}?", ()), ("What's my manager's name at {company}?", ())],
    "city": [("Which city was I born in?", ("hometown",)), ("What's my street address in {city}?", ())],
    "hometown": [("Which city do I live in now?", ("city",))],
    "car": [("What colour is my motorbike?", ()), ("What year is my {model}?", ())],
    "instrument": [("Who is my {other_instrument} teacher?", ()), ("How long have I been playing the {instrument}?", ())],
    "hobby": [("When did I start {hobby}?", ()), ("Who got me into {hobby}?", ())],
    "allergy": [("What is my partner allergic to?", ()), ("When was my last allergic reaction?", ())],
    "birthday": [("When is my partner's birthday?", ("partner",)), ("How old will I be on my next birthday?", ())],
    "commute": [("What time do I usually leave for work?", ())],
    "language": [("What's the name of my {lang} tutor?", ()), ("Why did I start learning {lang}?", ())],
    "garden": [("How many {veg} plants do I have?", ())],
    "cafe": [("What's my usual order at {cafe}?", ())],
    "dentist": [("Who is my GP?", ()), ("When is my next appointment with Dr. {dname}?", ())],
    "team": [("Who is my favourite player on {team}?", ())],
    "dish": [("What's my least favourite food?", ())],
}
NEVER_SAID = ["What's my blood type?", "What's my shoe size?", "Which university did I go to?", "What's my favourite colour?",
              "What is my middle name?", "How tall am I?", "What's my landlord's name?", "Which hospital was I born in?",
              "What's my phone number?", "What was my first car?", "What did I have for breakfast yesterday?",
              "What is {user}'s star sign?", "What is the name of {user}'s best friend from school?"]
DISTRACT_NEAR = {  # distractor kind -> question it makes tempting (asked only if that kind is not planted)
    "pet": "What's my {species}'s name?", "sibling": "Where does my {rel} live?", "job": "Which company do I work for?",
    "car": "What car do I drive?", "instrument": "Which instrument do I play?", "language": "Which language am I learning?",
    "dish": "What's my favourite dish?", "cafe": "Which café do I usually go to?", "team": "Which team do I support?",
}


def suite_abstention(rng: Rng) -> list[Conv]:
    """Questions about things never said, or close to what was said; plus answerable controls."""
    convs, used_names = [], set()
    for i in range(7):
        c = new_conv("abstention", i + 1, rng, used_names, start_date(rng))
        n = rng.randint(7, 9)
        kinds = rng.sample(sorted(NEAR_MISS), 6)
        if "city" in kinds and "hometown" in kinds:
            kinds.remove("hometown")
        facts = [(k, FACTS[k]["sample"](rng, c.used)) for k in kinds]
        plan: list[list] = [[] for _ in range(n)]
        pending: list[dict] = []
        planted: dict[str, tuple[dict, str]] = {}
        for kind, vals in facts:
            def act(conv, kind=kind, vals=vals):
                planted[kind] = (vals, plant(conv, kind, vals))
            plan[rng.randrange(n - 1)].append(act)
        # distractors that tempt an answer for a kind the user never talked about
        dkinds = [k for k in sorted(DISTRACT_NEAR) if k not in kinds]
        dk = rng.sample(dkinds, 2)
        dvals = {k: FACTS[k]["sample"](rng, set(c.used)) for k in dk}
        for k in dk:
            plan[rng.randrange(n)].append(lambda conv, k=k: distract(conv, k, dvals[k]))
        for actions in plan:
            rng.shuffle(actions)
        run_sessions(c, plan, 10, 16)
        last = n - 1
        # controls: answerable single-hop questions
        for kind in rng.sample(kinds, 4):
            vals, tid = planted[kind]
            text = norm(c.turn_text(tid))
            slots = [s for s in FACTS[kind]["slots"] if norm(str(vals[s])) in text]
            q, gold = question_for(c, kind, rng.pick(slots), vals)
            pending.append(dict(at=rng.randint(min(int(tid.split("-")[0][1:]) - 1, last), last), question=q,
                                category="single_hop", gold=gold, evidence=[tid]))
        # near misses on planted facts
        near = []
        for kind in kinds:
            vals = dict(planted[kind][0])
            vals.update(other_species="cat" if vals.get("species") == "dog" else "dog",
                        other_rel="brother" if vals.get("rel") == "sister" else "sister",
                        other_krel="son" if vals.get("krel") == "daughter" else "daughter",
                        other_instrument=rng.pick(OTHER_INSTR.get(vals.get("instrument", "piano"), INSTRUMENTS)))
            for tmpl, excl in NEAR_MISS[kind]:
                if not any(e in kinds for e in excl):
                    near.append((kind, fill(tmpl, vals, user=c.persona.first), planted[kind][1]))
        for kind, q, tid in rng.sample(near, 4):
            pending.append(dict(at=last, question=q, category="abstention", abstain=True))
        for k in dk:
            vals = dvals[k]
            pending.append(dict(at=last, question=fill(DISTRACT_NEAR[k], vals, user=c.persona.first), category="abstention",
                                abstain=True))
        pending.append(dict(at=last, question=rng.pick(NEVER_SAID).replace("{user}", c.persona.first), category="abstention",
                            abstain=True))
        finish_probes(c, pending)
        convs.append(c)
    return convs


PURPOSE = "Questions about things never said, and about things close to what was said (brother when only a sister was mentioned, a cat when the user has a dog, a neighbour's dog when the user has none), mixed with answerable single-hop controls so that always abstaining does not win."
"""The card's purpose paragraph."""

build = suite_abstention
