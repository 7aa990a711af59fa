"""The long_horizon suites (S, M, L): users as long as real ones, one module for the three sizes.

Unlike the other suites (``build(rng) -> list[Conv]`` over the shared conversation builder), the users are
written by memlab's synthetic-history generator (:mod:`memlab.datasets.synth`): one world, one set of
episodes and one vocabulary, told between a user and their assistant as threads here
(:mod:`memlab.datasets.synth.threads`), between two friends in LoCoMo's format for the speed benchmark
(``benchmarks/locomo_like.py``), and as third parties' news by the informative length scaler
(``memlab datasets scale --mode informative``). This module chooses the sizes and plans the probes.

Probes are asked at the ends of threads all through the history, about anything said before, so the gap
between evidence and probe runs from the same thread to the whole history (uniform over where a fact can
still be asked); a value that changed is asked between two of its changes, with every earlier value as
``superseded``; abstention probes ask for relatives, pets and classes the user never mentioned. Every
literal gold answer occurs in its evidence turns (checked). Each user is drawn from its own seeded
``random.Random``, so a slice of users is the same users as in the whole suite.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from memlab.datasets.synth.threads import (ASSISTANT_NAME, UserHistory, fact_annotations, norm, session_of, thread_turns,
                                           turn_id, user_history)
from memlab.datasets.synth.vocab import HOBBIES, PETS, RELATIVES
from memlab.datasets.synth.world import Fact
from memlab.scoring import gold_present
from suitegen.core import date_gold

PURPOSE = (
    "Users as long as real ones: each user chats with their assistant over months in 20-40 threads, with about 25k "
    "(S), 100k (M) or 400k (L) tokens of history, and probes asked at the ends of threads all through it. The data "
    "has the density of real chat rather than filler: hundreds of distinct people, places, titles, organisations and "
    "pets per user; facts said once early and asked much later; values that change two to four times (employer and "
    "job, manager, home city and street, car; knowledge-update probes carry every earlier value as `superseded`); "
    "relatives' and friends' news that shares words with the user's own facts (distractors); chains across threads "
    "(someone met at a place in one thread, what they do said in a later one; a pet adopted in one thread, its vet "
    "named in another); long assistant answers, things the assistant recommended by name, tool tasks whose "
    "observations hold values the assistant does not always repeat; and questions about what the user never "
    "mentioned. Every turn that states a fact carries it in `facts` (what the oracle extractor stores), asked or "
    "not. A bounded memory must choose what to keep here, and what it drops shows in recall by evidence age "
    "(`res.recall_by_age()`): the gap between evidence and probe runs from the same thread to the whole history.")


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
QUOTA = {"single_hop": 0.34, "multi_session": 0.12, "temporal": 0.08, "knowledge_update": 0.16, "agentic": 0.10,
         "preference": 0.05, "abstention": 0.08, "open_domain": 0.03, "assistant": 0.04}
"""Share of a user's probes per kind (``assistant``: what the assistant recommended, scored as single_hop)."""


def _category(kind: str, evidence_threads: set[int]) -> str:
    return {"single": "single_hop", "assistant": "single_hop", "temporal": "temporal", "update": "knowledge_update",
            "tool": "agentic", "preference": "preference", "open": "open_domain",
            "multi": "multi_session" if len(evidence_threads) > 1 else "single_hop"}[kind]


def plan_probes(rng: random.Random, size: Size, h: UserHistory, ns: str) -> list[dict[str, Any]]:
    """The user's probes, asked at the ends of threads all through the history (see the module docstring)."""
    n = len(h.sessions)
    texts = {f"D{s.n}:{j}": line[1] for s in h.sessions for j, line in enumerate(s.lines, 1)}
    last_ref = {k: f"D{s.n}:{len(s.lines)}" for k, s in enumerate(h.sessions)}
    answers: dict[str, set[str]] = {}
    for _, f in h.facts:
        answers.setdefault(f.question, set()).add(f.answer)
    candidates: dict[str, list[tuple[int, int, Fact, list[str]]]] = {}
    for at, f in h.facts:
        if f.kind != "update" and len(answers[f.question]) > 1:
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
                last = session_of(values[i + 1][1]) - 1
            if not superseded:  # the first value, asked before any change
                f = Fact("single", f.question.replace(" now?", "?").replace("current ", ""), f.answer, f.evidence,
                         slot=f.slot, subject=f.subject)
        kind = "assistant" if f.kind == "assistant" else _category(f.kind, {session_of(e) for e in f.evidence})
        if f.literal:  # string-recallable by memlab's own matching (the scorer's, not a substring test)
            ev = " ".join(texts[e] for e in f.evidence)
            assert gold_present(ev, [[f.answer]], "any"), f"{ns}: gold {f.answer!r} not in evidence of {f.question!r}: {ev[:300]}"
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
            probe: dict[str, Any] = {"after_turn": turn_id(last_ref[ask]), "question": f.question,
                                     "category": "single_hop" if kind == "assistant" else kind,
                                     "gold": [date_gold(f.day) if f.kind == "temporal" else {"text": f.answer}],
                                     "evidence": [turn_id(e) for e in f.evidence], "_t": ask}
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
        out.append({"after_turn": turn_id(last_ref[ask]), "question": question, "category": "abstention",
                    "abstain": True, "_t": ask})
    return out


def build_user(size: Size, idx: int, seed: int) -> tuple[list[dict[str, Any]], UserHistory]:
    """User ``idx`` of a suite: its threads (memlab conversations, probes in place) and its history."""
    rng = random.Random(f"long_horizon-{size.name}-{seed}-{idx}")
    h = user_history(rng, size.threads, size.tokens)
    ns = f"lh-{size.name}-{idx + 1:02d}"
    probes = plan_probes(rng, size, h, ns)
    facts = fact_annotations(h)
    convs = []
    for k, s in enumerate(h.sessions):
        convs.append({"id": f"{ns}-t{k + 1:02d}", "namespace": ns,
                      "speakers": {"user": h.user.name, "assistant": ASSISTANT_NAME},
                      "sessions": [{"id": f"s{s.n}", "timestamp": s.date.isoformat(),
                                    "turns": thread_turns(s, h.user.name, facts)}],
                      "probes": [{key: v for key, v in p.items() if key != "_t"} for p in probes if p["_t"] == k]})
    return convs, h


def size_of(name: str) -> str:
    """``long_horizon_m`` → ``M``."""
    size = name.rsplit("_", 1)[-1].upper()
    if size not in SIZES:
        raise ValueError(f"unknown long-horizon size in {name!r}; one of: {', '.join(SIZES)}")
    return size


def build_dataset(name: str, seed: int, users: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The suite's dataset mapping (every user's threads; ``users``: only the first N) and per-user figures."""
    size = size_of(name)
    spec = SIZES[size]
    convs: list[dict[str, Any]] = []
    stats: dict[str, Any] = {"entities": [], "tokens": [], "threads": [], "changes": []}
    for i in range(spec.users if users is None else users):
        threads, h = build_user(spec, i, seed)
        convs += threads
        stats["entities"].append(sum(h.world.entities.values()) + len(h.user.relatives))
        stats["tokens"].append(h.tokens)
        stats["threads"].append(len(h.sessions))
        stats["changes"].append(sum(len(v) for v in h.changes.values()))
    data = {"name": f"suite-{name.replace('_', '-')}", "version": "1",
            "description": f"Long-horizon users, size {size}: about {spec.tokens // 1000}k tokens of history per "
                           "user over 20-40 threads, with the density of real chat.",
            "conversations": convs,
            "meta": {"generator": "datasets/generate_suites.py", "seed": seed, "suite": name, "size": size,
                     "split": "eval"}}
    return data, stats
