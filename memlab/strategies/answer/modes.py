"""How a probe is answered: a design decision of the strategy, like any other slot.

- ``inject`` (the default; also what a strategy without this slot does): when the question comes,
  every component's context — conversation memory, working memory and the long-term memories
  retrieved *for the question* — is assembled once and the answerer reads it.
- ``tools``: "search when asked". Long-term memory is *not* injected; the agent sees only what is
  already in front of it (conversation and working memory) and searches long-term memory with the
  strategy's read-only tools (``retrieve_facts``, ``search_memories``, ``recall_episodes``,
  ``facts_as_of``, ``get_time_entries``: whatever its components offer) for up to ``max_rounds``
  rounds (``SearchBeforeAnswering`` role, purpose ``answer``); the answerer then reads the context
  plus what the searches found. Every call is an agent step of the probe (``agent_steps.jsonl``,
  phase ``probe``) and its tokens count under ``answer``; the memories found enter the recorded
  context with the turns they derive from, so recall measures what the searches found.

Both answer with the run's one answerer (``AnswerFromMemory``), so the comparison is between what
reaches it, not between answerers."""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any
from pydantic import Field
from memlab.strategies.base import AgentStep, Answer, ContextLine, ContextSection, MemoryContext
from memlab.strategies.slots import Component, Needs, Params, component
from memlab.strategies.state import Query


LONG_TERM_SLOTS = ("retriever", "episodes")
"""Components whose context is long-term memory: injected by ``inject``, searched by ``tools``."""


FOUND_TITLE = "Found by searching long-term memory"


@component("answer", "inject")
class InjectAnswer(Component):
    """Inject at the start: the whole context, long-term memories retrieved for the question included."""

    def answer(self, strategy: Any, query: Query) -> Answer:
        return answer_from_context(self.env.roles, strategy.context(query), query.question, query.now)


@component("answer", "tools")
class ToolAnswer(Component):
    """Search when asked: no long-term memory injected; the agent searches it with read-only tools, then answers."""

    needs = (Needs(("retriever", "episodes"), why="answer 'tools' searches long-term memory with read-only tools, so "
                   "it needs a retriever (or episodes) to search; add one, or answer by 'inject'"),)

    class Params(Params):
        max_rounds: int = Field(default=3, ge=1)
        """Search rounds before the answer is written from what was found."""

    def answer(self, strategy: Any, query: Query) -> Answer:
        from memlab.roles.program import RoleFailure
        from memlab.strategies.agent.react import _calls, _dspy_tool
        ctx = strategy.context(query, skip_slots=LONG_TERM_SLOTS)
        tools = {t.name: t for t in strategy.tools(phase="probe") if not t.writes}
        found = ContextSection(FOUND_TITLE)
        seen: set[str] = set()
        steps: list[AgentStep] = []
        findings: list[str] = []
        t0 = time.perf_counter()
        for round_ in range(self.params.max_rounds):
            if not tools:
                break
            try:
                out = self.env.roles.search_before_answering(
                    context=ctx.text or "(nothing)", question=query.question, findings="\n".join(findings),
                    tools=[_dspy_tool(t) for t in tools.values()])
            except RoleFailure as exc:
                steps.append(AgentStep(round_, "(search call)", {}, ok=False, error=str(exc)[:300], phase="probe"))
                self.failed("search call failed; answered from what was found", exc)
                break
            made = _calls(out)
            for bad in out.get("tool_call_errors") or []:
                steps.append(AgentStep(round_, bad["name"], {}, ok=False, error=bad["error"], phase="probe"))
            if not made:
                break
            for name, args in made:
                tool = tools.get(name)
                if tool is None:
                    steps.append(AgentStep(round_, name, args, ok=False, error=f"unknown tool {name!r}", phase="probe"))
                    findings.append(f"{name}: error: no such tool")
                    continue
                try:
                    observation = tool.run(args)
                    lines = tool.found(args) if tool.found is not None else [ContextLine(observation, [], kind=name)]
                except (ValueError, KeyError, TypeError) as exc:
                    steps.append(AgentStep(round_, name, args, ok=False, error=str(exc), phase="probe"))
                    findings.append(f"{name}({json.dumps(args, ensure_ascii=False)}) → error: {exc}")
                    continue
                steps.append(AgentStep(round_, name, args, ok=True, result_chars=len(observation), phase="probe"))
                findings.append(f"{name}({json.dumps(args, ensure_ascii=False)}) →\n{observation}")
                for line in lines:  # one line per memory, however many searches found it
                    key = line.item_id or line.text
                    if key not in seen:
                        seen.add(key)
                        found.lines.append(line)
        search_s = time.perf_counter() - t0
        if found.lines:
            ctx.sections.append(found)
        ans = answer_from_context(self.env.roles, ctx, query.question, query.now)
        ans.agent_steps = steps
        ans.latency_s += search_s
        return ans


def answer_from_context(roles: Any, ctx: MemoryContext, question: str, now: datetime) -> Answer:
    """The run's answerer over an assembled context: what every non-agent strategy answers with
    (composed or another type), so all of a comparison's strategies share one answerer. In a
    retrieval-only run (``answer_probes: false``) the context is returned unanswered: every step
    that builds it (an agent's searches included) has run, the answer role is not called."""
    from memlab.roles.program import RoleFailure

    if not getattr(roles, "answering", True):
        return Answer(ctx, None, answered=False)
    t0 = time.perf_counter()
    try:
        out = roles.answer(context=ctx.text or "(no memory)", question=question, date=now.date().isoformat())
        return Answer(ctx, str(out["answer"]).strip(), latency_s=time.perf_counter() - t0)
    except RoleFailure as exc:
        return Answer(ctx, None, error=str(exc), latency_s=time.perf_counter() - t0)


__all__ = ["FOUND_TITLE", "InjectAnswer", "LONG_TERM_SLOTS", "ToolAnswer"]
