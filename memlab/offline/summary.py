"""The extractive summariser (Summarize): the summary is a list of durable facts.

Each new message (``[date] speaker: text``, continuation lines included) goes through the same statement filter and
attribution as extraction, so pleasantries and questions drop out and what remains is concrete.
Each new fact is then reconciled against the summary's sentences with the slot rule
(``slots.decide``): a changed value replaces the old sentence, a retraction removes it, a
restatement is skipped, anything else is appended. No sentence is invented or paraphrased.
When the call gives ``max_tokens`` (agent_chat's update: seed 002's "Max tokens: 2000"), the summary
keeps its most recent sentences that fit the reply in that budget (:func:`fit`), so a summary of
a long conversation stays bounded instead of growing with every fact ever stated.

Two kinds of input reach it: a conversation summary's dated lines (``[date] speaker: text``) and
a working-memory fold's undated step lines (``user: Ana: …``, ``tool: orders: …``, ``action: …``).
As built it reads only the dated ones, so a working-memory fold keeps nothing. The profile's
``summariser`` knobs, when set to a number, make it read both kinds and keep each user statement
(``keep_values``) or tool value line (``keep_tool_observations``) with that probability — a draw
per item, so a value kept once stays kept (the previous summary's sentences are not drawn again).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memlab.offline.attribution import BRACKETED, NAMED, bracketed_messages, parse_speaker, split_labelled
from memlab.offline.behaviour import AS_BUILT, Behaviour
from memlab.offline.similarity import Similarity
from memlab.offline.slots import analyse, decide
from memlab.offline.statements import extract, tool_facts
from memlab.offline.text import sentences



def _messages(lines: str) -> list[tuple[str, str, str]]:
    """(date, speaker label, text) per ``[date] speaker: text`` line (a named speaker read as the
    user of that name); a line without a ``[date]`` continues the message before it."""
    return bracketed_messages(lines, named=True)


_IGNORED_STEP = re.compile(r"^(?:action:|\(summary of earlier steps\))", re.I)
"""Working-memory lines that are not what anyone said: the agent's own tool calls, an earlier summary."""


def _steps(lines: str) -> list[tuple[str, str, str, bool]]:
    """(date, speaker label, text, dated) per message of either kind: dated lines as
    :func:`_messages` reads them, undated labelled step lines (``user: Ana: …``, ``tool: orders: …``);
    an unlabelled line continues the message before it; an ``action:`` line is skipped."""
    out: list[tuple[str, str, str, bool]] = []
    skipping = False
    for line in lines.splitlines():
        line = line.strip()
        if not line:
            continue
        m = BRACKETED.match(line)
        labelled = split_labelled(m.group("rest")) if m else split_labelled(line)
        if m:
            named = NAMED.match(m.group("rest"))
            if labelled:
                out.append((m.group("head"), *labelled, True))
            elif named:
                out.append((m.group("head"), f"user: {named.group('name').strip()}", named.group("text"), True))
            skipping = not (labelled or named)
        elif _IGNORED_STEP.match(line):
            skipping = True
        elif labelled:
            out.append(("", *labelled, False))
            skipping = False
        elif out and not skipping:
            out[-1] = (*out[-1][:2], f"{out[-1][2]}\n{line}", out[-1][3])
    return out


def _is_tool(speaker: str) -> bool:
    """A tool's observation: the ``tool`` role, or a conversation line whose speaker is "tool(s)"."""
    role, name = parse_speaker(speaker)
    return role == "tool" or name.lower() in ("tool", "tools")


def _facts(lines: str, behaviour: Behaviour = AS_BUILT) -> list[str]:
    knobs = behaviour.profile.summariser
    if knobs.keep_values is None and knobs.keep_tool_observations is None:  # as built
        return [f for date, speaker, text in _messages(lines) for f in extract(text, speaker, date)]
    out: list[str] = []
    for date, speaker, text, dated in _steps(lines):
        tool = _is_tool(speaker)
        knob = "summariser.keep_tool_observations" if tool else "summariser.keep_values"
        if behaviour.profile.knob(knob) is None:  # as built for this kind of item: dated lines only
            out += extract(text, speaker, date) if dated else []
            continue
        facts = tool_facts(text, parse_speaker(speaker)[1]) if tool else extract(text, speaker, date)
        out += [f for f in facts if behaviour.keeps(knob, f)]
    return out


def summary_sentences(previous_summary: str, messages: str, sim: Similarity, behaviour: Behaviour = AS_BUILT) -> list[str]:
    """The summary's sentences after reading ``messages``, oldest first (new facts are appended)."""
    kept = sentences(previous_summary) if previous_summary.strip() else []
    for fact in _facts(messages, behaviour):
        if not kept:
            kept.append(fact)
            continue
        new = analyse(fact)
        cos = sim.cosine(fact, kept)
        actions = [decide(new, analyse(old), float(c)) for old, c in zip(kept, cos, strict=True)]
        if "NOOP" in actions:
            continue
        kept = [old for old, a in zip(kept, actions, strict=True) if a not in ("UPDATE", "DELETE")]
        if "DELETE" not in actions or "UPDATE" in actions:
            kept.append(fact)
    return kept


def render(kept: list[str]) -> str:
    return " ".join(s if s.endswith((".", "!", "?")) else s + "." for s in kept)


def summarize(previous_summary: str, messages: str, sim: Similarity, behaviour: Behaviour = AS_BUILT) -> str:
    return render(summary_sentences(previous_summary, messages, sim, behaviour))


def fit(kept: list[str], reply_tokens: Callable[[str], int], max_tokens: int | None) -> str:
    """The summary as long as the reply may be: with a ``max_tokens`` budget, the most recent
    sentences whose reply (``reply_tokens`` of a summary text) fits it — the oldest facts are the
    ones forgotten, as a model asked for a bounded summary would drop them. Without one, all."""
    text = render(kept)
    if max_tokens is None or reply_tokens(text) <= max_tokens:
        return text
    lo, hi = 0, len(kept) - 1  # keep the newest `keep` sentences: the most that fit, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if reply_tokens(render(kept[len(kept) - mid:])) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return render(kept[len(kept) - lo:]) if lo else ""
