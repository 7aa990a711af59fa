"""The conversation builder: sessions and turns, planting facts in varied phrasings, distractors, probes, scheduling."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from suitegen.vocab import ACKS, ASIDE_PRE, BOOKS, CHIT, CITIES, CLOSERS, DISHES, FOLLOWUPS, GREETS, OPENERS, PRELUDES
from suitegen.core import Persona, Rng, date_gold, lowfirst, make_persona, norm, number_gold, stylize
from suitegen.facts import FACTS


@dataclass
class Conv:
    suite: str
    idx: int
    rng: Rng
    persona: Persona
    start: datetime
    namespace: str | None = None
    used: set = field(default_factory=set)      # values reserved in this conversation
    sessions: list = field(default_factory=list)
    probes: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    speakers: dict | None = None
    speaker: str | None = None                  # display name put on user turns (multi-speaker conversations)
    chit_used: set = field(default_factory=set)

    def __post_init__(self):
        self.id = f"{self.suite.replace('_', '-')}-{self.idx:02d}"
        self.ts = self.start
        self.used.add(self.persona.first)

    # ---- sessions & turns
    def session(self, gap_days: int | None = None, hour: int | None = None) -> dict:
        if self.sessions:
            gap = gap_days if gap_days is not None else self.rng.randint(2, 16)
            day = (self.ts + timedelta(days=gap)).date()
        else:
            day = self.ts.date()
        hour = hour if hour is not None else self.rng.randint(7, 22)
        self.ts = datetime(day.year, day.month, day.day, hour, self.rng.choice([0, 5, 10, 15, 20, 30, 40, 45, 50]))
        s = {"id": f"s{len(self.sessions) + 1}", "timestamp": self.ts, "turns": []}
        self.sessions.append(s)
        return s

    @property
    def cur(self) -> dict:
        return self.sessions[-1]

    def _add(self, role: str, text: str, **extra) -> str:
        text = _ARTICLE.sub(lambda m: m.group(1) + "n ", text) if role != "tool" else text
        s = self.cur
        tid = f"{s['id']}-{len(s['turns']) + 1:02d}"
        turn = {"id": tid, "role": role, "text": text}
        turn.update({k: v for k, v in extra.items() if v is not None})
        s["turns"].append(turn)
        return tid

    def u(self, text: str, raw: bool = False, speaker: str | None = None) -> str:
        text = text if raw else stylize(text, self.persona.style, self.rng)
        return self._add("user", text, speaker=speaker or self.speaker)

    def a(self, text: str) -> str:
        return self._add("assistant", text.replace("{name}", self.persona.first))

    def tool(self, name: str, text: str) -> str:
        return self._add("tool", text, tool_name=name)

    def last(self) -> str:
        return self.cur["turns"][-1]["id"]

    def turn_text(self, tid: str) -> str:
        for s in self.sessions:
            for t in s["turns"]:
                if t["id"] == tid:
                    return t["text"]
        raise KeyError(tid)

    def session_date(self, tid: str) -> date:
        sid = tid.split("-")[0]
        return next(s["timestamp"].date() for s in self.sessions if s["id"] == sid)

    # ---- filler
    def chit(self, n: int = 1) -> None:
        for _ in range(n):
            banned = self._banned()
            ok = [k for k in range(len(CHIT)) if not banned.search(" ".join(CHIT[k]))]
            fresh = [k for k in ok if k not in self.chit_used] or ok
            k = self.rng.pick(fresh)
            self.chit_used.add(k)
            ex = CHIT[k]
            fill = {"city": self.rng.pick([c for c in CITIES if c not in self.used]),
                    "city2": self.rng.pick([c for c in CITIES if c not in self.used]),
                    "dish": self.rng.pick([d for d in DISHES if d not in self.used]),
                    "book": self.rng.pick([b for b in BOOKS if b not in self.used])}
            for i, text in enumerate(ex):
                text = text.format(**fill)
                self.u(text) if i % 2 == 0 else self.a(text)
            if self.rng.random() < 0.3:
                fu = self.rng.pick(FOLLOWUPS)
                self.u(fu[0])
                self.a(fu[1])

    def _banned(self) -> re.Pattern:
        """Words chit-chat must not contain: this conversation's fact values (no accidental answers)."""
        words = sorted((w for w in self.used if isinstance(w, str) and len(w) > 2), key=len, reverse=True)
        return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.I) if words else re.compile(r"(?!x)x")

    def open(self) -> None:
        if self.speaker and self.speaker != self.persona.first:  # someone else on the user's account
            self.u(f"Hi, it's {self.speaker} this time, borrowing {self.persona.first}'s account.")
            self.a(f"Hi {self.speaker}! Happy to help.")
            return
        self.u(self.rng.pick(OPENERS))
        self.a(self.rng.pick(GREETS))

    def close(self) -> None:
        c = self.rng.pick(CLOSERS)
        self.u(c[0])
        self.a(c[1].replace("{name}", self.speaker or self.persona.first))

    def pad_to(self, n_turns: int) -> None:
        while len(self.cur["turns"]) < n_turns - 2:
            self.chit(1)

    # ---- probes
    def probe(self, question: str, category: str, gold=None, evidence=(), after: str | None = None,
              superseded=(), abstain: bool = False, forbidden=(), gold_match: str = "any", literal: bool = True) -> dict:
        p: dict[str, Any] = {"id": f"{self.id}-p{len(self.probes) + 1:02d}", "after_turn": after or self.last(),
                             "question": question.replace("{user}", self.persona.first), "category": category}
        if gold is not None:
            items = gold if isinstance(gold, list) else [gold]
            p["gold"] = [g if isinstance(g, dict) else {"text": str(g)} for g in items]
            if len(items) > 1 and gold_match == "all":
                p["gold_match"] = "all"
        if evidence:
            p["evidence"] = sorted(dict.fromkeys(evidence), key=_tid_key)
        if superseded:
            p["superseded"] = list(dict.fromkeys(superseded))
        if abstain:
            p["abstain"] = True
        if forbidden:
            p["forbidden"] = list(forbidden)
        p["_literal"] = literal and gold is not None and bool(evidence)
        self.probes.append(p)
        return p

    def build(self) -> dict:
        conv: dict[str, Any] = {"id": self.id}
        conv["namespace"] = self.namespace or f"{self.id}-{self.persona.first.lower()}"
        conv["speakers"] = self.speakers or {"user": self.persona.first, "assistant": self.persona.assistant}
        sessions = []
        for s in self.sessions:
            sessions.append({"id": s["id"], "timestamp": s["timestamp"].isoformat(), "turns": s["turns"]})
        conv["sessions"] = sessions
        conv["probes"] = [{k: v for k, v in p.items() if not k.startswith("_")} for p in self.probes]
        if self.meta:
            conv["meta"] = self.meta
        self._check()
        return conv

    def build_threads(self) -> list[dict]:
        """The conversation as threads of one user: every session its own conversation (id
        ``<id>-t<k>``) in the user's namespace, each probe in the thread of its ``after_turn``.
        Turn ids stay unique per user, so a probe can cite evidence from an earlier thread."""
        whole = self.build()
        thread_of = {t["id"]: k for k, s in enumerate(whole["sessions"]) for t in s["turns"]}
        out = []
        for k, session in enumerate(whole["sessions"]):
            conv: dict[str, Any] = {"id": f"{self.id}-t{k + 1}", "namespace": whole["namespace"],
                                    "speakers": whole["speakers"], "sessions": [session],
                                    "probes": [p for p in whole["probes"] if thread_of[p["after_turn"]] == k]}
            if self.meta:
                conv["meta"] = {**self.meta, "thread": k + 1}
            out.append(conv)
        return out

    def _check(self) -> None:
        for p in self.probes:
            if not p["_literal"]:
                continue
            ev = norm(" ".join(self.turn_text(t) for t in p["evidence"]))
            hits = [any(norm(f) in ev for f in [g["text"], *g.get("aliases", [])]) for g in p["gold"]]
            ok = all(hits) if p.get("gold_match") == "all" else any(hits)
            if not ok:
                raise AssertionError(f"{p['id']}: gold {p['gold']} not in evidence {p['evidence']}: {ev[:300]}")


_ARTICLE = re.compile(r"\b([Aa]) (?=[aeiAEI]|[oO](?!ne)|u(?!ni|s[eu]|r[aeiou]|ti))")  # "a electrician" -> "an electrician"


def _tid_key(tid: str) -> tuple[int, int]:
    s, t = tid.split("-")
    return int(s[1:]), int(t)


# =============================================================================== planting facts


def fill(template: str, values: dict, user: str = "") -> str:
    return template.format(user=user, **{k: v for k, v in values.items() if not k.startswith("_")})


def plant(conv: Conv, kind: str, values: dict, mode: str | None = None, speaker: str | None = None) -> str:
    """Say a fact in the current session using one of several phrasings; return the evidence turn id."""
    f = FACTS[kind]
    rng = conv.rng
    mode = mode or rng.pick(["stmt", "stmt", "aside", "answer", "third"])
    if mode == "stmt":
        tid = conv.u(fill(rng.pick(f["stmt"]), values), speaker=speaker)
        conv.a(fill(rng.pick(f["ack"] + ACKS), values))
    elif mode == "aside":
        ex = rng.pick([e for e in CHIT if "{" not in e[0] + e[1]])
        stmt = fill(rng.pick(f["stmt"]), values)
        pre = rng.pick(ASIDE_PRE)
        stmt = stmt if pre[-1] in ".!?" else lowfirst(stmt)
        tid = conv.u(f"{pre} {stmt} Anyway, {lowfirst(ex[0])}", speaker=speaker)
        conv.a(ex[1])
    elif mode == "answer":
        conv.u(rng.pick(PRELUDES), speaker=speaker)
        conv.a("Sure. " + fill(rng.pick(f["ask"]), values))
        tid = conv.u(fill(rng.pick(f["ans"]), values), speaker=speaker)
        conv.a(fill(rng.pick(f["ack"] + ACKS), values))
    elif mode == "third":
        tid = conv.u(fill(rng.pick(f["third"]), values), speaker=speaker)
        conv.a(fill(rng.pick(f["ack"] + ACKS), values))
    else:
        raise ValueError(mode)
    annotate(conv, tid, [fact_text(conv, kind, values)])
    return tid


def fact_text(conv: Conv, kind: str, values: dict) -> str:
    """The oracle's canonical statement of a planted fact: who, which kind, every value."""
    who = conv.persona.first
    return f"{who}'s {kind.replace('_', ' ')}: " + "; ".join(f"{k.replace('_', ' ')} {v}" for k, v in values.items()
                                                          if isinstance(v, (str, int, float)))


def annotate(conv: Conv, tid: str, facts: list[str]) -> None:
    for s in conv.sessions:
        for t in s["turns"]:
            if t["id"] == tid:
                t.setdefault("facts", []).extend(facts)
                return


def plant_list(conv: Conv, items: list[tuple[str, dict]]) -> str:
    """Several facts in one message, as a list."""
    rng = conv.rng
    frags = [fill(rng.pick(FACTS[k]["frag"]), v) for k, v in items]
    if rng.random() < 0.5:
        body = "Life update, list form:\n" + "\n".join(f"- {fr}" for fr in frags)
    else:
        body = "Quick roundup: " + "; ".join(f"{i + 1}) {fr}" for i, fr in enumerate(frags)) + "."
    tid = conv.u(body)
    conv.a(rng.pick(["Thanks for the roundup!", "Lots going on. Thanks for the update.", "Noted, all of it."]))
    annotate(conv, tid, [fact_text(conv, k, v) for k, v in items])
    return tid


def distract(conv: Conv, kind: str, values: dict | None = None) -> None:
    """Mention another value of the same kind about someone else (shares vocabulary with the answer)."""
    f = FACTS[kind]
    base = values or f["sample"](conv.rng, set(conv.used))
    dvals = {f"d_{k}": v for k, v in f["sample"](conv.rng, conv.used).items() if not k.startswith("_")}
    conv.u(fill(conv.rng.pick(f["distract"]), {**base, **dvals}))
    conv.a(conv.rng.pick(ACKS))


def question_for(conv: Conv, kind: str, slot: str, values: dict) -> tuple[str, dict]:
    qs, extra_aliases = FACTS[kind]["slots"][slot]
    q = fill(conv.rng.pick(qs), values, user=conv.persona.first)
    gold = {"text": values[slot], "aliases": [fill(a, values) for a in extra_aliases]}
    if kind == "birthday":
        gold = date_gold(values["_date"])
    if kind == "dentist":
        gold = {"text": f"Dr. {values['dname']}", "aliases": [values["dname"]]}
    if kind == "kid" and slot == "kage":
        gold = number_gold(int(values["kage"]))
        gold["aliases"].append(f"{values['kage']} years old")
    if not gold.get("aliases"):
        gold = {"text": gold["text"]}
    return q, gold


def new_conv(suite: str, idx: int, rng: Rng, used_names: set, start: datetime, **kw) -> Conv:
    return Conv(suite, idx, rng, make_persona(rng, used_names, **kw), start)


def start_date(rng: Rng) -> datetime:
    return datetime(2023, rng.randint(1, 12), rng.randint(1, 28), 9, 0)


# =============================================================================== session scheduling


def run_sessions(conv: Conv, plan: list[list], min_turns: int = 10, max_turns: int = 18, gaps: list | None = None,
                 speakers: list | None = None) -> None:
    """Build one session per plan entry: opener, the entry's actions interleaved with chit-chat, padding, closer.

    An action is a callable taking the conversation; it appends turns (and usually records evidence ids).
    """
    for si, actions in enumerate(plan):
        conv.session(gap_days=gaps[si] if gaps else None)
        conv.speaker = speakers[si] if speakers else conv.speaker
        conv.open()
        target = conv.rng.randint(min_turns, max_turns)
        for act in actions:
            if conv.rng.random() < 0.55:
                conv.chit(1)
            act(conv)
        conv.pad_to(target)
        conv.close()


def spread(rng: Rng, n_items: int, n_sessions: int, first: int = 0) -> list[int]:
    """Session indices for n items, spread over the conversation (several per session allowed)."""
    return sorted(rng.randrange(first, n_sessions) for _ in range(n_items))


def end_of(conv: Conv, si: int) -> str:
    return conv.sessions[si]["turns"][-1]["id"]


def finish_probes(conv: Conv, pending: list[dict]) -> None:
    """Add probes recorded as dicts with an 'at' session index (asked after that session's last turn)."""
    pending.sort(key=lambda p: p["at"])
    for p in pending:
        kw = dict(p)
        at = kw.pop("at")
        kw.setdefault("after", end_of(conv, at))
        conv.probe(**kw)
