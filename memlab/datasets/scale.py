"""Deterministic length scaler: lengthen every conversation with inserted sessions up to a token target.

``scale_dataset(ds, 100_000)`` returns a copy of ``ds`` whose conversations have been padded with
filler sessions interleaved between (and before) the original sessions, until the dataset holds
about 100k cl100k tokens of turn text. Probes, evidence ids and the original sessions are kept
untouched, so every probe stays valid; filler sessions get fresh ids (``fill0001``, turn ids
``fill0001-01``) and timestamps placed between their neighbours, so timestamps stay monotonic.

Inserted sessions come from one of three sources:

* ``chitchat`` (default; ``--mode filler`` on the command line): generated impersonal chit-chat
  (cooking, tech help, trivia, ...). It never states personal facts, so it cannot contradict a probe —
  and holds nothing a memory must keep, so it cannot show what a memory keeps.
* ``informative`` (``--mode informative``): sessions that carry information, written by the synthetic
  history generator (:mod:`memlab.datasets.synth.informative`): new people with jobs, employers, cities,
  pets and cars, their updates in later sessions (the earlier values stale), between the assistant's
  long answers — the distinct entities, updates and distractors of real chat. Every fact is about a
  third party the conversation does not know, under a fresh name, so no probe becomes wrong.
* ``conversations``: whole sessions of *other* conversations (of ``filler_from`` or of the dataset
  itself), ids re-prefixed. Sessions that contain evidence for one of their own probes are skipped.
  This is closer to LongMemEval-style haystacks but can add unrelated personal facts.

In every mode an inserted exchange that mentions any gold, alias, superseded or forbidden string of the
conversation being lengthened is dropped, so inserted text never creates false evidence or stale leakage.
Everything is seeded: the same input, target and seed give the same output.

CLI: ``memlab datasets scale IN --target-tokens N --out OUT [--mode filler|informative] [--seed S]
[--filler-from OTHER.yaml]``.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memlab.datasets.models import Conversation, Dataset, Session, Turn

# ------------------------------------------------------------------------------------------- filler text

_DISHES = ["lentil soup", "roast vegetables", "fried rice", "banana bread", "tomato sauce", "potato salad", "omelette",
           "flatbread", "chilli con carne", "vegetable curry", "pancakes", "minestrone", "granola", "stir-fry", "focaccia"]
_INGREDIENTS = ["leftover rice", "stale bread", "overripe bananas", "half a cabbage", "a tin of chickpeas", "spinach", "carrots",
                "a bag of lemons", "frozen peas", "feta", "mushrooms", "sweet potatoes", "oats", "yoghurt", "courgettes"]
_TECH = [("RAM", "storage"), ("HTTP", "HTTPS"), ("a VPN", "a proxy"), ("SSD", "HDD"), ("Bluetooth", "Wi-Fi Direct"),
         ("a router", "a modem"), ("cloud backup", "cloud sync"), ("USB-C", "Thunderbolt"), ("JPEG", "PNG")]
_SKILLS = ["juggling", "touch typing", "knitting", "chess openings", "speed reading", "sketching", "mental arithmetic",
           "public speaking", "baking bread", "basic first aid", "map reading", "bike maintenance"]
_ANIMALS = ["hedgehogs", "octopuses", "crows", "bees", "otters", "axolotls", "pigeons", "sloths", "squid", "ravens"]
_OBJECTS = ["a leaky tap", "a squeaky door", "a wobbly table", "a stuck zip", "a slow drain", "a flickering bulb",
            "a cracked phone screen", "a sticking drawer", "a dripping radiator valve"]
_WORDS = ["serendipity", "nostalgia", "algorithm", "quarantine", "salary", "robot", "sandwich", "muscle", "disaster", "clue"]

# (questions, answers): answers is a pool shared by all questions, or one pool per question.
_TOPICS: list[tuple[list[str], list]] = [
    (["What's a good way to use up {ing}?", "What can I make with {ing} and {ing2}?", "Any quick idea for {ing}?"],
     ["Roasting is the easiest route: high heat, a little oil and plenty of salt.",
      "A quick soup works for almost anything: soften an onion, add the {ing}, cover with stock and simmer.",
      "Fritters are underrated: bind it with an egg and a spoon of flour, then pan-fry.",
      "You could fold it into a frittata with whatever cheese is around.",
      "A squeeze of lemon at the end lifts almost any dish.", "If it tastes flat, it usually needs salt or acid, not more spice."]),
    (["Can I freeze {dish}?", "How do I make {dish} less bland?", "Any tips for {dish} on a weeknight?"],
     [["Freezing works well for stews, soups and sauces; anything crisp loses its texture.",
       "Cool it quickly and freeze in flat bags so it thaws evenly.", "Label the bags; everything looks the same frozen."],
      ["Season in layers: a little salt at each stage, not all at the end.",
       "Toasting the spices in oil for a minute makes a big difference.",
       "A spoon of miso or a dash of soy adds depth without tasting of either."],
      ["Prep the vegetables in advance and the rest takes twenty minutes.", "Make a double batch and freeze half.",
       "One pan, high heat, and don't crowd it."]]),
    (["What's the difference between {t1} and {t2}?", "Should I care about {t1} vs {t2}?"],
     ["They solve related problems at different layers, so it depends on what you're trying to fix.",
      "For everyday use the difference rarely matters; it shows up at the extremes.",
      "If you're buying something new, check which one your existing devices support first.",
      "Marketing names blur the line, so look at the actual spec sheet."]),
    (["How do I free up space on my laptop?", "Why is my wifi slow in the evening?", "How do I set up two-factor authentication?",
      "Is it worth restarting my router every week?"],
     [["Start with the biggest offenders: downloads, old installers and duplicate photos.",
       "The storage settings page usually lists what is taking the most space."],
      ["Evenings are busy on shared networks; switching to the 5 GHz band or another channel often helps.",
       "Move the router off the floor and away from the microwave."],
      ["Use an authenticator app rather than SMS if the service offers it.", "Save the backup codes somewhere safe and offline."],
      ["A restart clears memory leaks in cheap routers, but it shouldn't be necessary on a good one.",
       "If you need it weekly, a firmware update is worth checking."]]),
    (["How long does it take to get decent at {skill}?", "Any tips for learning {skill}?", "Is {skill} hard to pick up?"],
     ["Short daily practice beats long weekly sessions for almost any skill.",
      "Expect a frustrating plateau after the first few weeks; it's normal and it passes.",
      "Find one small measurable goal for the month, so progress is visible.",
      "Watching someone good do it slowly is worth more than reading about it.",
      "Most people get to 'decent' in two or three months of regular practice."]),
    (["Tell me something interesting about {animal}.", "Why are {animal} so clever?", "How long do {animal} live?"],
     ["Researchers are still working out how complex their social behaviour is.",
      "Lifespans vary a lot by species and by whether they live in the wild or in captivity.",
      "Many animals we think of as simple turn out to use tools or solve puzzles.",
      "Their senses work very differently from ours, which explains a lot of their odd behaviour."]),
    (["How do I fix {obj}?", "Is {obj} something I can fix myself?"],
     ["Usually yes: turn off the supply first, take a photo before you take anything apart, and keep the screws in a cup.",
      "Nine times out of ten it's a worn washer, a loose screw or a bit of grit.",
      "A cheap multi-bit screwdriver and some silicone spray solve a surprising number of these.",
      "If it's behind a wall or involves gas, call a professional.",
      "Repair guides with photos are better than videos for small jobs like this."]),
    (["Where does the word '{word}' come from?", "Is '{word}' an old word?"],
     ["Many everyday English words arrived through French or Latin, sometimes by a winding route.",
      "Meanings drift a lot over a few centuries, so the original sense can be surprising.",
      "Etymology dictionaries are the best source; popular stories about word origins are often made up."]),
    (["What's {a} times {b}?", "Quick maths: {a} plus {b}?", "What's {a} percent of {b}?"], ["{answer}"]),
    (["How do I stick to a budget?", "Is it better to pay off debt or save first?", "How big should an emergency fund be?"],
     [["Track everything for a month before setting limits; most people underestimate small spends.",
       "Automate the saving on payday so it happens before you can spend it."],
      ["High-interest debt usually comes first, but keep a small buffer so surprises don't go on a card."],
      ["A common rule of thumb is three to six months of essential expenses.", "Keep it somewhere boring and easy to reach."]]),
    (["Can you make this clearer: 'Due to the fact that the meeting was moved we was late'?",
      "Is it 'fewer' or 'less' for people?", "When do I use a semicolon?"],
     [["'Because the meeting was moved, we were late.' Shorter and grammatical."],
      ["'Fewer' for things you can count, like people; 'less' for amounts, like time or water."],
      ["A semicolon joins two complete sentences that are closely related; if in doubt, use a full stop."]]),
    (["What's a good film for a rainy afternoon?", "Recommend a podcast about history.", "Any good board games for two?"],
     [["Something long and absorbing works best on a rainy day: a classic epic or a cosy mystery."],
      ["Narrative history podcasts with one long story per season are easy to get hooked on."],
      ["For two players, short card games and tile-laying games are a good start."]]),
    (["Why is the sea salty?", "How do clouds float?", "Why do we get hiccups?", "How do magnets work?"],
     [["Rivers carry dissolved minerals from rocks into the sea, and evaporation leaves the salt behind."],
      ["Cloud droplets are tiny, so rising air and turbulence keep them aloft."],
      ["Hiccups are involuntary spasms of the diaphragm; nobody is entirely sure why we have them."],
      ["In a magnet the spins of many electrons line up, adding up to a field you can feel."]]),
    (["How do I stop procrastinating?", "What's a good morning routine?", "How do I keep a to-do list that works?"],
     [["Make the first step absurdly small, like opening the document.", "Put a timer on for 25 minutes and stop when it rings."],
      ["Pick your three most important tasks the night before, and do one before checking messages."],
      ["Keep one list, not five, and review it at the same time every day."]]),
    (["When should I sow tomatoes?", "Why are my houseplant's leaves going brown at the tips?", "How often should I water succulents?"],
     [["Sow indoors six to eight weeks before the last frost, then harden them off."],
      ["Brown tips usually mean dry air or inconsistent watering."],
      ["Let succulents dry out completely between waterings; most houseplants die from too much water, not too little."]]),
]
_TAILS = ["Hope that helps.", "Happy to go into more detail.", "Let me know if you want a step-by-step version.", "", "", ""]
_OPEN = [["Hi!", "Hello! What can I do for you?"], ["Hey, random questions today.", "Go for it."],
         ["Morning.", "Good morning! What's up?"], ["Evening, quick ones.", "Sure, fire away."],
         ["Back again.", "Welcome back."], ["Hello there.", "Hi! How can I help?"]]
_CLOSE = [["Thanks, that's all.", "Anytime!"], ["Great, cheers.", "Happy to help."], ["Okay, bye for now.", "Bye!"],
          ["Perfect.", "Glad it helped."]]
_FOLLOW = [["Makes sense, thanks.", "You're welcome."], ["Huh, interesting.", "Isn't it?"], ["Got it.", "Anything else?"],
           ["Good to know.", "Sure thing."], ["I'll try that.", "Let me know how it goes."]]


def _answer(rng: random.Random, pool: list[str], fill: dict[str, str]) -> str:
    k = rng.randint(1, min(3, len(pool)))
    return " ".join(s.format(**fill) for s in rng.sample(pool, k))


def _exchange(rng: random.Random) -> list[tuple[str, str]]:
    qs, answers = rng.choice(_TOPICS)
    t1, t2 = rng.choice(_TECH)
    a, b = rng.randint(3, 99), rng.randint(3, 99)
    fill = {"ing": rng.choice(_INGREDIENTS), "ing2": rng.choice(_INGREDIENTS), "dish": rng.choice(_DISHES), "t1": t1, "t2": t2,
            "skill": rng.choice(_SKILLS), "animal": rng.choice(_ANIMALS), "obj": rng.choice(_OBJECTS), "word": rng.choice(_WORDS),
            "a": str(a), "b": str(b)}
    qi = rng.randrange(len(qs))
    q = qs[qi]
    if "{a}" in q:
        fill["answer"] = (f"{a} times {b} is {a * b}." if "times" in q else f"{a} plus {b} is {a + b}." if "plus" in q
                          else f"{a}% of {b} is {a * b / 100:g}.")
        return [("user", q.format(**fill)), ("assistant", fill["answer"])]
    pool = answers[qi] if isinstance(answers[0], list) else answers
    text = (_answer(rng, pool, fill) + " " + rng.choice(_TAILS)).strip()
    out = [("user", q.format(**fill)), ("assistant", text)]
    if rng.random() < 0.35:
        f = rng.choice(_FOLLOW)
        out += [("user", f[0]), ("assistant", f[1])]
    return out


def chitchat_session(rng: random.Random) -> list[tuple[str, str]]:
    """(role, text) pairs of one generated chit-chat session."""
    turns = list(rng.choice(_OPEN))
    out = [("user", turns[0]), ("assistant", turns[1])]
    for _ in range(rng.randint(3, 8)):
        out += _exchange(rng)
    c = rng.choice(_CLOSE)
    return out + [("user", c[0]), ("assistant", c[1])]


# ------------------------------------------------------------------------------------------- helpers

_PUNCT = re.compile(f"[{re.escape(string.punctuation)}]")


def _norm(s: str) -> str:
    s = _PUNCT.sub(" ", s.lower())
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def _banned_pattern(conv: Conversation) -> re.Pattern | None:
    """Every answer-like string of the conversation's probes, as a word-bounded regex over normalised text."""
    forms: set[str] = set()
    for p in conv.probes:
        for g in p.gold:
            forms.update(g.forms())
        forms.update(p.superseded)
        forms.update(p.forbidden)
    normed = sorted({_norm(f) for f in forms if _norm(f)}, key=len, reverse=True)
    if not normed:
        return None
    return re.compile(r"(?<![a-z0-9])(" + "|".join(re.escape(f) for f in normed) + r")(?![a-z0-9])")


def _count(texts: list[str]) -> list[int]:
    from memlab.tokens import encoding

    enc = encoding("cl100k_base").encode_ordinary  # same ids as count_tokens (special tokens as plain text)
    return [len(enc(t)) if t else 0 for t in texts]


def parse_tokens(text: str) -> int:
    """'100000', '100k', '1M', '1.5m' -> int (ValueError when it is not a positive count)."""
    t = str(text).strip().lower().replace("_", "").replace(",", "")
    mult = 1
    if t.endswith("k"):
        mult, t = 1_000, t[:-1]
    elif t.endswith("m"):
        mult, t = 1_000_000, t[:-1]
    try:
        value = int(float(t) * mult)
    except ValueError:
        raise ValueError(f"not a token count: {text!r} (e.g. 10000, 100k, 1M)") from None
    if value <= 0:
        raise ValueError("token target must be positive")
    return value


def format_tokens(n: int) -> str:
    """10_000 -> '10k', 1_000_000 -> '1M', 1_500_000 -> '1.5M'."""
    if n >= 1_000_000:
        v = n / 1_000_000
        return f"{v:g}M" if v == int(v) or n % 100_000 == 0 else f"{round(v, 1):g}M"
    if n >= 1000:
        return f"{round(n / 1000):d}k"
    return str(n)


@dataclass
class _Source:
    """Yields inserted sessions as (role, text, tool_name) lists, deterministically."""

    rng: random.Random
    mode: str
    pool: list[list[tuple[str, str, str | None]]]
    cursor: int = 0
    informative: Any = None
    """``informative`` mode: (the user's third parties, the user as a Person) — kept across the user's threads."""

    def next(self) -> list[tuple[str, str, str | None]]:
        if self.mode == "conversations" and self.pool:
            s = self.pool[self.cursor % len(self.pool)]
            self.cursor += 1
            return s
        if self.mode == "informative":
            from memlab.datasets.synth.informative import informative_session

            parties, user = self.informative
            return informative_session(self.rng, parties, user, datetime(2024, 1, 1), self.rng.randint(600, 1400))
        return [(r, t, None) for r, t in chitchat_session(self.rng)]


MODES = ("chitchat", "informative", "conversations")
"""Where inserted sessions come from (``filler`` on the command line is ``chitchat``)."""
_NAME = re.compile(r"\b[A-Z][\w'-]+")


def _informative_state(convs: list[Conversation], seed: int) -> tuple[Any, Any]:
    """A user's third parties (fresh names: none is a capitalised word of the user's conversations) and the user."""
    from memlab.datasets.synth.informative import third_parties
    from memlab.datasets.synth.world import Person

    used: set[str] = set()
    for conv in convs:
        used.update(conv.speakers.values())
        for _, t in conv.turns():
            used.update(_NAME.findall(t.text))
            used.update(" ".join(pair) for pair in zip(_NAME.findall(t.text), _NAME.findall(t.text)[1:]))
    name = convs[0].speakers.get("user") or convs[0].ns
    return third_parties(f"{seed}:{convs[0].ns}", used), Person(name, "", "", "")


def _session_pool(source: Dataset, exclude_ns: str | None) -> list[list[tuple[str, str, str | None]]]:
    """Sessions of other conversations that hold no evidence of their own probes."""
    pool = []
    for conv in source.conversations:
        if exclude_ns is not None and conv.ns == exclude_ns:
            continue
        evidence = {e for p in conv.probes for e in p.evidence}
        for s in conv.sessions:
            if any(t.id in evidence for t in s.turns):
                continue
            pool.append([(t.role, t.text, t.tool_name) for t in s.turns])
    return pool


# ------------------------------------------------------------------------------------------- scaling


def scale_dataset(ds: Dataset, target_tokens: int, seed: int = 0, filler_from: Dataset | None = None,
                  mode: str | None = None, suffix: str | None = None) -> Dataset:
    """Return a padded copy of ``ds`` holding about ``target_tokens`` tokens (cl100k, turn text).

    ``mode``: ``"chitchat"`` (default without ``filler_from``) or ``"conversations"`` (default with it;
    without ``filler_from`` it draws on the dataset's own other conversations).
    """
    if target_tokens <= 0:
        raise ValueError("target_tokens must be positive")
    mode = mode or ("conversations" if filler_from is not None else "chitchat")
    mode = "chitchat" if mode == "filler" else mode
    if mode not in MODES:
        raise ValueError(f"unknown filler mode {mode!r} (filler/chitchat, informative or conversations)")
    out = ds.model_copy(deep=True)
    per_conv = [sum(_count([t.text for _, t in c.turns()])) for c in out.conversations]
    total = sum(per_conv)
    deficits = _deficits(per_conv, target_tokens)
    added_total = 0
    # a user's threads share turn ids (unique per user) and a timeline: filler session ids are
    # drawn per user, and filler before a thread's first session stays after the previous thread
    user_ids: dict[str, set[str]] = {}
    for conv in out.conversations:
        user_ids.setdefault(conv.ns, set()).update(s.id for s in conv.sessions)
    user_end: dict[str, datetime] = {}
    states: dict[str, Any] = {}  # informative: each user's third parties, kept across the user's threads
    for conv, deficit in zip(out.conversations, deficits):
        if deficit > 0:
            rng = random.Random(f"{seed}:{conv.id}")
            pool = _session_pool(filler_from or ds, conv.ns) if mode == "conversations" else []
            if pool:
                rng.shuffle(pool)
            if mode == "informative" and conv.ns not in states:
                states[conv.ns] = _informative_state([c for c in out.conversations if c.ns == conv.ns], seed)
            source = _Source(rng, mode, pool, informative=states.get(conv.ns))
            added_total += _pad(conv, deficit, source, rng, user_ids[conv.ns], user_end.get(conv.ns))
        user_end[conv.ns] = max([conv.sessions[-1].timestamp, *(t.timestamp for t in conv.sessions[-1].turns if t.timestamp)],
                                key=lambda ts: ts.replace(tzinfo=None))
    out.name = f"{ds.name}-{suffix or format_tokens(target_tokens)}" + ("-informative" if mode == "informative" else "")
    out.meta = {**ds.meta, "scaled_from": ds.name, "target_tokens": target_tokens, "scale_seed": seed,
                "filler": mode, "tokens": total + added_total}
    return out


def _deficits(per_conv: list[int], target: int) -> list[int]:
    """Tokens to add per conversation so lengths even out and the sum reaches the target."""
    need = target - sum(per_conv)
    if need <= 0:
        return [0] * len(per_conv)
    # water-filling: raise the shortest conversations first
    order = sorted(range(len(per_conv)), key=lambda i: per_conv[i])
    level_budget = need
    out = [0] * len(per_conv)
    remaining = list(order)
    while remaining:
        cur = [per_conv[i] + out[i] for i in remaining]
        level = (sum(cur) + level_budget) / len(remaining)
        too_long = [i for i in remaining if per_conv[i] > level]
        if not too_long:
            for i in remaining:
                out[i] = int(round(level - per_conv[i]))
            break
        remaining = [i for i in remaining if i not in too_long]
    return out


def _blocks(turns: list[tuple[str, str, str | None]]) -> list[list[tuple[str, str, str | None]]]:
    """Split a session into exchanges: each starts at a user turn and runs up to the next one."""
    out: list[list] = []
    for t in turns:
        if t[0] == "user" or not out:
            out.append([t])
        else:
            out[-1].append(t)
    return out


def _pad(conv: Conversation, deficit: int, source: _Source, rng: random.Random, used_ids: set[str],
         after: datetime | None = None) -> int:
    banned = _banned_pattern(conv)
    new_sessions: list[list[tuple[str, str, str | None]]] = []
    added = 0
    misses = 0
    while added < deficit and misses < 200:
        # drop whole exchanges that mention an answer of this conversation, so turns still alternate
        blocks = [b for b in _blocks(source.next()) if not (banned and any(banned.search(_norm(t)) for _, t, _ in b))]
        if not blocks:
            misses += 1
            continue
        session: list[tuple[str, str, str | None]] = []
        for block in blocks:
            if added >= deficit and session:
                break  # trim the last session so the total lands near the target
            session.extend(block)
            added += sum(_count([t for _, t, _ in block]))
        new_sessions.append(session)
    _interleave(conv, new_sessions, used_ids, rng, after, ordered=source.mode == "informative")
    return added


def _interleave(conv: Conversation, fillers: list, used_ids: set[str], rng: random.Random,
                after: datetime | None = None, ordered: bool = False) -> None:
    """Insert filler sessions into the gaps before/between the original sessions, timestamps in between
    (and, for a later thread of a user, after the user's previous thread: ``after``). ``ordered``: keep the
    inserted sessions in the order they were written (informative sessions: an update after its introduction)."""
    n_orig = len(conv.sessions)
    gaps: list[list] = [[] for _ in range(n_orig)]  # gap g: before original session g
    where = [rng.randrange(n_orig) for _ in fillers]
    for f, g in zip(fillers, sorted(where) if ordered else where):
        gaps[g].append(f)
    prefix_n = 0
    result: list[Session] = []
    for g, orig in enumerate(conv.sessions):
        items = gaps[g]
        if items:
            if g == 0:
                lo = orig.timestamp - timedelta(days=len(items) + 1)
                if after is not None and _naive(after) > _naive(lo):
                    lo = after if _naive(after) <= _naive(orig.timestamp) else orig.timestamp
            else:
                lo = conv.sessions[g - 1].timestamp
            hi = orig.timestamp
            for j, turns in enumerate(items):
                ts = _between(lo, hi, j + 1, len(items) + 1)
                prefix_n += 1
                sid = f"fill{prefix_n:04d}"
                while sid in used_ids:
                    prefix_n += 1
                    sid = f"fill{prefix_n:04d}"
                used_ids.add(sid)
                result.append(Session(id=sid, timestamp=ts, turns=[
                    Turn(id=f"{sid}-{k + 1:02d}", role=r, text=t, tool_name=tn if r == "tool" else None)
                    for k, (r, t, tn) in enumerate(turns)]))
        result.append(orig)
    conv.sessions = result


def _naive(ts: datetime) -> datetime:
    return ts.replace(tzinfo=None)


def _between(lo: datetime, hi: datetime, j: int, parts: int) -> datetime:
    """The j-th of parts-1 evenly spaced points strictly inside [lo, hi] (or lo when the gap is empty)."""
    if hi <= lo:
        return lo
    ts = lo + (hi - lo) * j / parts
    ts = ts.replace(second=0, microsecond=0)
    return min(max(ts, lo), hi)


# ------------------------------------------------------------------------------------------- I/O


def write_scaled(ds: Dataset, path: str | Path) -> None:
    """Write a (possibly large) dataset quickly: JSON for .json, else YAML with the C dumper when available."""
    from memlab.datasets.io import write_dataset_file

    write_dataset_file(ds, path)


def scale_file(src: str | Path, target_tokens: int, out: str | Path, seed: int = 0,
               filler_from: str | Path | None = None, mode: str | None = None) -> Dataset:
    """Load ``src`` (any supported format), scale it, write ``out``; return the scaled dataset."""
    from memlab.datasets.stats import load_any

    ds = load_any(src)
    filler = load_any(filler_from) if filler_from else None
    scaled = scale_dataset(ds, target_tokens, seed=seed, filler_from=filler, mode=mode)
    write_scaled(scaled, out)
    return scaled


def scaled_copies(src: str | Path, targets: list[int], out_dir: str | Path, seed: int = 0,
                  mode: str = "chitchat") -> list[Path]:
    """Scaled copies of ``src`` at each total-token target, written once under ``out_dir`` and reused.

    A history-length sweep replays the same lengths many times (notebook reruns, CI); scaling is
    the slow part, so each copy is named by the source's content hash, target and seed and is
    only written when absent — an edited source gets new copies instead of stale ones."""
    import hashlib

    src = Path(src)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()[:10]
    out = []
    for target in targets:
        kind = "" if mode in ("chitchat", "filler") else f"-{mode}"
        path = Path(out_dir) / f"{src.stem}-{format_tokens(target)}{kind}-s{seed}-{digest}.yaml"
        if not path.exists():  # written atomically: a killed run leaves no half-written copy under the final name
            scale_file(src, target, path, seed=seed, mode=mode)
        out.append(path)
    return out
