"""The recall suite: single facts stated once, in varied phrasings, among chit-chat and distractors."""

from __future__ import annotations

from suitegen.vocab import FEMALE, MALE
from suitegen.core import Rng, norm
from suitegen.facts import FACTS
from suitegen.conv import Conv, distract, fill, finish_probes, new_conv, plant, plant_list, question_for, run_sessions, start_date


def suite_recall(rng: Rng) -> list[Conv]:
    """Single facts said once, in varied phrasings, among chit-chat and same-kind distractors."""
    convs, used_names = [], set()
    for i in range(7):
        c = new_conv("recall", i + 1, rng, used_names, start_date(rng))
        n_sessions = rng.randint(7, 9)
        kinds = rng.sample(sorted(FACTS), 9)
        facts = [(k, FACTS[k]["sample"](rng, c.used)) for k in kinds]
        plan: list[list] = [[] for _ in range(n_sessions)]
        pending: list[dict] = []
        household = i in (2, 5)
        partner_name = rng.fresh(FEMALE + MALE, used_names) if household else None
        speakers = None
        if household:
            c.used.add(partner_name)
            c.meta["household_member"] = partner_name
            speakers = [c.persona.first] * n_sessions
            partner_sessions = rng.sample(range(1, n_sessions - 1), 2)
            for ps in partner_sessions:
                speakers[ps] = partner_name
        # one list message with 2-3 facts
        list_group = facts[:rng.randint(2, 3)]
        rest = facts[len(list_group):]

        def ask(kind, vals, tid, si, who=None):
            text = norm(c.turn_text(tid))
            slots = [s for s in FACTS[kind]["slots"] if norm(str(vals[s])) in text]
            for slot in rng.sample(slots, min(len(slots), 1 if rng.random() < 0.7 else 2)):
                q, gold = question_for(c, kind, slot, vals)
                if who:
                    qs = [t for t in FACTS[kind]["slots"][slot][0] if "{user}" in t]
                    q = fill(rng.pick(qs), vals, user=who)
                at = rng.pick([si, rng.randint(si, n_sessions - 1), n_sessions - 1, n_sessions - 1])
                pending.append(dict(at=at, question=q, category="single_hop", gold=gold, evidence=[tid]))

        def list_action(conv, group=list_group):
            tid = plant_list(conv, group)
            si = len(conv.sessions) - 1
            for kind, vals in group:
                ask(kind, vals, tid, si)

        plan[rng.randrange(n_sessions)].append(list_action)
        for kind, vals in rest:
            si = rng.randrange(n_sessions)
            who = None
            if household and speakers[si] != c.persona.first:
                if kind in ("partner", "kid"):
                    si = rng.pick([s for s in range(n_sessions) if speakers[s] == c.persona.first])
                else:
                    who = speakers[si]

            def act(conv, kind=kind, vals=vals, who=who):
                tid = plant(conv, kind, vals)
                ask(kind, vals, tid, len(conv.sessions) - 1, who)

            plan[si].append(act)
            # a distractor of the same kind in another session
            dsi = rng.randrange(n_sessions)
            plan[dsi].append(lambda conv, kind=kind, vals=vals: distract(conv, kind, vals))
        for actions in plan:
            rng.shuffle(actions)
        run_sessions(c, plan, 10, 18, speakers=speakers)
        finish_probes(c, pending)
        convs.append(c)
    return convs


PURPOSE = "Single facts stated once, in varied phrasings (plain statements, asides inside longer messages, answers to the assistant's questions, third-person mentions, list messages), buried among impersonal chit-chat and same-kind distractors (a neighbour's dog, a cousin's city). Two conversations have a second household member using the same account (turn `speaker`)."
"""The card's purpose paragraph."""

build = suite_recall
