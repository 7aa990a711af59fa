"""The long_task suite: agentic invocations of 25-40 steps, and later threads that need the task.

Every user has 3-5 threads. The first is one long task: the user's request and two tool calls, then
the user interjects with a durable fact (a user message starts a new invocation) and the task goes
on for 12-18 more tool calls (each an assistant turn and a long observation) in that one
invocation, so working memory grows past any sensible budget within it. Probes are asked in the
middle of the task about observations made early in it (answered from what the agent holds at
that step: working memory with its summaries, plus retrieved memory), and about the request the
user made at its start. Later threads (plain chats, days apart) ask for values the task observed
and for the fact the user stated mid-task: only long-term memory can carry those.
"""

from __future__ import annotations

from suitegen.conv import Conv, finish_probes, new_conv, run_sessions, start_date
from suitegen.core import Rng
from suitegen.cross_thread import MID_TASK_FACTS
from suitegen.tasks import DOMAINS, TaskRun, run_task
from suitegen.vocab import CITIES, FEMALE, MALE, MONTHS

THREADS = True
"""Each session is written as its own thread (conversation) of the user."""
USERS = 14


def suite_long_task(rng: Rng) -> list[Conv]:
    """One long tool-using task per user, probed mid-task and from later threads."""
    convs, used_names = [], set()
    domains = sorted(DOMAINS)
    for i in range(USERS):
        c = new_conv("long_task", i + 1, rng, used_names, start_date(rng), style="plain")
        c.speakers = {"user": c.persona.first, "assistant": "Agent", "tool": "tools"}
        n = rng.randint(3, 5)
        plan: list[list] = [[] for _ in range(n)]
        pending: list[dict] = []
        domain = DOMAINS[domains[i % len(domains)]]
        fact_text, fact_q, key = MID_TASK_FACTS[i % len(MID_TASK_FACTS)]
        fact_vals = {"city": rng.fresh(CITIES, c.used), "month": rng.pick(MONTHS),
                     "phone": f"+44 7{rng.randint(100, 999)} {rng.randint(100000, 999999)}",
                     "name": rng.fresh(FEMALE + MALE, c.used)}
        n_ent = rng.randint(14, 20)
        # the user interjects after the second observation; a user message starts a new invocation, so
        # the interjection, the remaining 12-18 calls (24-36 turns) and the report are one invocation of 26-38 steps
        mid_fact = 1
        probe_steps = sorted(rng.sample(range(n_ent - 6, n_ent - 1), 2))

        def mid_task_probe(run: TaskRun) -> None:
            """A value observed in the invocation's first calls, asked deep into it."""
            k = rng.randint(2, 4)
            q, gold, ev = run.question(k, rng.pick(sorted(run.domain.questions)))
            pending.append(dict(at=0, after=c.last(), question=q, category="agentic", gold=gold, evidence=ev))

        def task(conv: Conv) -> None:
            run = run_task(conv, domain, n_ent, interject={mid_fact: lambda cv: cv.u(fact_text.format(**fact_vals), raw=True)},
                           after_step={k: mid_task_probe for k in probe_steps})
            # the user's own instruction, given at the start of the task, asked at its end
            pending.append(dict(at=0, after=conv.last(), question=f"How many {_noun(domain.name)} did I ask you to go through?",
                                category="agentic", gold={"text": str(n_ent), "aliases": [_number(n_ent)]},
                                evidence=[run.request_tid]))
            later = list(range(1, n))
            for k in rng.sample(range(3, n_ent), min(3, n_ent - 3)):
                q, gold, ev = run.question(k, rng.pick(sorted(domain.questions)))
                pending.append(dict(at=rng.pick(later), question=q, category="agentic", gold=gold, evidence=ev))
            pending.append(dict(at=rng.pick(later), question=fact_q, category="single_hop", gold=fact_vals[key],
                                evidence=[run.interjections[0]]))
            conv.u("Great work, thanks.")
            conv.a("Anytime.")
        plan[0].append(task)
        run_sessions(c, plan, 6, 12, gaps=[0] + [rng.randint(1, 9) for _ in range(n - 1)])
        finish_probes(c, pending)
        c.meta["task"] = domain.name
        convs.append(c)
    return convs


def _noun(domain: str) -> str:
    return {"fleet": "hosts", "tables": "tables", "invoices": "invoices", "flats": "listings", "packages": "dependencies"}[domain]


def _number(n: int) -> str:
    words = {14: "fourteen", 15: "fifteen", 16: "sixteen", 17: "seventeen", 18: "eighteen", 19: "nineteen", 20: "twenty"}
    return words.get(n, str(n))


PURPOSE = ("One long tool-using task per user: a request, two tool calls, then the user interjects with a durable fact "
           "and the task goes on for 12-18 more tool calls with long observations (one invocation of 26-38 steps), followed by "
           "2-4 later threads. Probes asked deep inside the task need observations from its first calls (working memory "
           "holds them unless a compression lost them) and the count the user gave at its start; probes in later "
           "threads need values the task observed and the fact the user stated mid-task (only long-term memory carries "
           "them across threads).")
"""The card's purpose paragraph."""

build = suite_long_task
