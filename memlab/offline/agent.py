"""The agent's memory-tool policy (AgentStep), using only the tools it is offered.

Only the newest working-memory step is acted on (the earlier ones were acted on when they were
newest):

* it is a tool result (its speaker is ``tool`` or one of the offered tools) → no call: the loop
  ends after the agent's own call comes back;
* memory usage (``memory_status``, e.g. "... (91%)") at or above ``COMPRESS_AT`` → ``compress_memory``;
* a user message is run through the extraction filter and attribution; each fact is compared
  with the context lines that carry a memory id (``[id] text``) by the slot rule: a changed value
  → ``update_fact(id, text)``, a retraction → ``delete_fact(id)``, already known → nothing, else
  ``store_fact(text)``; a time log in it ("spent 2 hours on X", :mod:`memlab.offline.timelog`) →
  ``log_time(task, hours)`` per duration, a question about logged time → ``get_time_entries(period)``.

Before answering a question with its memory out of sight (:func:`search_before_answering`, the
``SearchBeforeAnswering`` role of a strategy with ``answer: {type: tools}``), it searches once with
the question as the query and then lets the answerer read what came back.

Unlike post-pass extraction, the agent as built does not store tool observations: it is busy
with the task and stores only what the user states. Two knobs of the behaviour profile
(:mod:`memlab.offline.behaviour`) move that: ``agent.store_user_facts`` (formerly
``tool_reliability``) is the probability that a ``store_fact``/``update_fact``/``log_time`` it should
make for a user statement is made, drawn from a hash of (seed, text) as before, so reruns and
record/replay see the same choices; ``agent.store_tool_observations`` is the probability that
each value line of a tool observation (the newest step) is stored through ``store_fact``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable

from memlab.offline.attribution import parse_speaker, split_labelled
from memlab.offline.behaviour import AS_BUILT, Behaviour
from memlab.offline.similarity import Similarity
from memlab.offline.slots import reconcile
from memlab.offline.statements import extract, tool_facts
from memlab.offline.timelog import time_logs, time_question

SEARCH_TOOLS = ("retrieve_facts", "search_memories", "recall_episodes")
"""Read-only tools that take a free-text ``query``, in the order the policy prefers them."""
COMPRESS_AT = 75.0
"""Percent of the working-memory budget at which compressing beats running out mid-task."""
_MEMORY_LINE = re.compile(r"^\[(?P<id>[^\]]+)\]\s*(?P<text>.+)$")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
_FRACTION = re.compile(r"(\d[\d,]*)\s*/\s*(\d[\d,]*)")


def usage_percent(status: str) -> float:
    if m := _PERCENT.search(status):
        return float(m.group(1))
    if (m := _FRACTION.search(status)) and float(m.group(2).replace(",", "")):
        return 100 * float(m.group(1).replace(",", "")) / float(m.group(2).replace(",", ""))
    return 0.0


def keeps(text: str, reliability: float, seed: int) -> bool:
    """Whether a write the policy should make is made: a deterministic draw from (seed, text)."""
    draw = int(hashlib.sha256(f"{seed}\0{text}".encode()).hexdigest()[:8], 16) / 2**32
    return draw < reliability


def _memories(context: str) -> list[tuple[str, str]]:
    """Context lines that carry a memory id (a bracketed prefix that is not a date)."""
    out = []
    for line in context.splitlines():
        m = _MEMORY_LINE.match(line.strip())
        if m:
            try:
                dt.date.fromisoformat(m.group("id")[:10])
            except ValueError:
                out.append((m.group("id"), m.group("text")))
    return out


def _writes(facts: list[str], context: str, offered: set[str], sim: Similarity, keep: Callable[[str], bool],
            behaviour: Behaviour) -> list[tuple[str, dict[str, object]]]:
    """The memory writes for ``facts`` by the slot rule against the memories in the context: a
    changed value → ``update_fact``, a retraction → ``delete_fact``, known → nothing, else
    ``store_fact``; ``keep`` says whether a write the policy should make is made."""
    calls: list[tuple[str, dict[str, object]]] = []
    known = _memories(context)
    for fact in facts:
        if known:
            cos = [float(c) for c in sim.cosine(fact, [t for _, t in known])]
            verdict = reconcile(fact, [t for _, t in known], cos, behaviour)
        else:
            verdict = {"action": "ADD", "target": -1}
        target = known[int(verdict["target"])][0] if int(verdict["target"]) >= 0 else ""
        if verdict["action"] == "UPDATE" and "update_fact" in offered and keep(fact):
            calls.append(("update_fact", {"id": target, "text": fact}))
        elif verdict["action"] == "DELETE" and "delete_fact" in offered:
            calls.append(("delete_fact", {"id": target}))
        elif verdict["action"] == "ADD" and "store_fact" in offered and keep(fact):
            calls.append(("store_fact", {"text": fact}))
    return calls


def _newest_tool_observation(steps: list[str]) -> tuple[str, str] | None:
    """(tool name, observation text) when the newest step is a scripted tool observation (its
    ``tool: name:`` line and the continuation lines after it), else None."""
    for i in range(len(steps) - 1, -1, -1):
        labelled = split_labelled(steps[i])
        if labelled is None and not steps[i].lower().startswith("action:"):
            continue
        if labelled is None or parse_speaker(labelled[0])[0] != "tool":
            return None
        return parse_speaker(labelled[0])[1], "\n".join([labelled[1], *steps[i + 1:]])
    return None


def _tool_observation_writes(steps: list[str], context: str, offered: set[str], sim: Similarity,
                             behaviour: Behaviour) -> list[tuple[str, dict[str, object]]]:
    """``store_fact`` (or ``update_fact``) calls for the value lines of a tool observation that is
    the newest step, each made with probability ``agent.store_tool_observations``."""
    if behaviour.profile.agent.store_tool_observations <= 0 or "store_fact" not in offered:
        return []
    found = _newest_tool_observation(steps)
    if found is None:
        return []
    return _writes(tool_facts(found[1], found[0]), context, offered, sim,
                   lambda fact: behaviour.keeps("agent.store_tool_observations", fact), behaviour)


def agent_step(context: str, working_memory: str, memory_status: str, offered: set[str], sim: Similarity,
               *, reliability: float = 1.0, seed: int = 0,
               behaviour: Behaviour = AS_BUILT) -> tuple[str, list[tuple[str, dict[str, object]]]]:
    """(thought, [(tool name, arguments)]) for the newest step."""
    steps = [ln.strip() for ln in working_memory.splitlines() if ln.strip()]
    if not steps:
        return "Nothing has happened yet.", []
    if observed := _tool_observation_writes(steps, context, offered, sim, behaviour):
        return "; ".join(f"{name} {args.get('text') or args.get('id') or ''}".strip() for name, args in observed), observed
    speaker, text = split_labelled(steps[-1]) or (steps[-1].partition(":")[0], steps[-1].partition(":")[2])
    role = speaker.strip().lower()
    if role.startswith("tool") or role.partition("(")[0].strip() in offered:
        return "The tool call is done; nothing more to remember now.", []
    calls: list[tuple[str, dict[str, object]]] = []
    if usage_percent(memory_status) >= COMPRESS_AT and "compress_memory" in offered:
        calls.append(("compress_memory", {}))
    if role.startswith("user"):
        calls += _writes(extract(text.strip(), speaker.strip()), context, offered, sim,
                         lambda fact: keeps(fact, reliability, seed), behaviour)
        if "log_time" in offered:
            calls += [("log_time", log) for log in time_logs(text.strip()) if keeps(str(log), reliability, seed)]
        if "get_time_entries" in offered and (asked := time_question(text.strip())) is not None:
            calls.append(("get_time_entries", asked))
    thought = "; ".join(f"{name} {args.get('text') or args.get('id') or args.get('task') or ''}".strip()
                        for name, args in calls)
    return thought or "Nothing worth remembering in this step.", calls


def search_before_answering(question: str, findings: str, offered: set[str]) -> tuple[str, list[tuple[str, dict[str, object]]]]:
    """(thought, [(tool, arguments)]) before answering ``question``: search once, with the question
    itself, using the first offered tool that takes a query; stop once anything was found (or a
    search came back) — the offline answerer then reads the findings like any other context."""
    if findings.strip():
        return "The search results are in; answering from them.", []
    tool = next((t for t in SEARCH_TOOLS if t in offered), None)
    if tool is None:
        return "No search tool is offered; answering from what is in front of me.", []
    return f"Searching memory for: {question.strip()}", [(tool, {"query": question.strip()})]
