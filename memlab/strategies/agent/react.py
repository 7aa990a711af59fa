"""The agent slot: a ReAct-style agent that runs live inside replayed invocations.

Dataset conversations stay scripted (every strategy sees the same history), but at every step of
an invocation — the user's message, each scripted assistant turn and tool observation — the
agent runs: it sees its context (assembled once per invocation by the strategy's other
components: conversation memory, long-term memories), its **working memory** (the invocation's
steps so far, compressed by a trigger) and the memory tools the strategy's components offer, and
it may call tools (``AgentStep`` role, purpose ``agent``) for up to ``max_rounds`` rounds per step
before the next scripted step is appended. Its decisions — tool calls, compressions, writes — are
what is measured; the scripted assistant text stays what the next turn sees.

Working memory is per invocation (seed 000): it starts empty at each user message and its steps
end up in conversation memory through the short-term component (``invocation_summaries``).
Compression (:mod:`memlab.strategies.triggers`): ``never``, ``every_n_steps(n)``,
``token_threshold(max_tokens)`` or ``agent_driven`` — then the agent is offered
``compress_memory`` and told its working-memory size each step (Letta-style pressure).

The agent is DSPy's ReAct design with native tool calling: one predictor whose outputs are a
thought and tool calls, tool results fed back as observations, a step limit. With a real model
the tools reach the endpoint as OpenAI tool schemas (and cost prompt tokens under ``agent``)."""

from __future__ import annotations

import functools
import json
from typing import Any, Literal
import orjson
from pydantic import Field
from memlab.strategies.base import AgentStep, ContextLine, ContextSection, TurnEvent
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Invocation, Query, StrategyState
from memlab.strategies.tools import MemoryTool, object_schema
from memlab.strategies.summarizers import make_summarizer
from memlab.strategies.triggers import Compressor, Entry, NeverSpec, TriggerSpec, make_trigger


class _WorkingMemory(Params):
    trigger: TriggerSpec = Field(default_factory=NeverSpec)
    """When to compress working memory: never | every_n_steps(n) | token_threshold(max_tokens) | agent_driven
    | a plugin's trigger (a typed spec, validated once with the config and handed to the trigger as it is)."""
    keep_recent: int = Field(default=4, ge=0)
    """Steps kept raw when working memory is compressed."""
    budget_tokens: int = Field(default=2000, ge=1)
    """The working-memory budget the agent is told about (memory_status); token_threshold uses its own max_tokens."""
    summarizer: Literal["model", "verbatim", "planted_lossy"] = "model"
    """What folds the steps: the model's compress role (the design); ``verbatim`` (lossless) and
    ``planted_lossy`` (drops every value) are instruments that bracket it (memlab suite-check)."""


class _ReactParams(Params):
    max_rounds: int = Field(default=3, ge=1)
    """Tool-calling rounds allowed per step before the next scripted step arrives (the step limit)."""
    working_memory: _WorkingMemory = Field(default_factory=_WorkingMemory)
    observation_chars: int = Field(default=2000, ge=50)
    """A tool result longer than this is cut in working memory (the agent still saw it whole)."""


@component("agent", "react")
class ReactAgent(Component):
    """ReAct agent: working memory with a compression trigger, memory tools, step limit."""

    Params = _ReactParams
    context_order = 70
    offered_tools = {"compress_memory": "Summarise the older steps of your working memory to free room (keeps the "
                                        "most recent ones). Offered only with the agent_driven trigger."}

    def begin_conversation(self, state: StrategyState) -> None:
        wm = self.params.working_memory
        self.trigger = make_trigger(wm.trigger)
        self.memory = Compressor(self.trigger, wm.keep_recent, make_summarizer(wm.summarizer, self.env.roles),
                                 component="working_memory")
        self.context_text = ""
        self.invocation_index: int | None = None
        self.step = 0

    @property
    def working_memory_tokens(self) -> int:
        return self.memory.tokens

    @property
    def budget(self) -> int:
        return self.trigger.max_tokens or self.params.working_memory.budget_tokens

    # -- the loop --------------------------------------------------------------------------------
    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        if event.invocation != self.invocation_index:
            self._start_invocation(event, state)
        self.memory.add(Entry(_step_line(event), [event.turn.id]))
        self.step += 1
        self._run_rounds(state)
        comp = self.memory.maybe_compress()  # automatic triggers (agent_driven compresses inside the loop)
        if comp is not None:
            state.compressed(comp)
            if not comp.ok:
                self.failed("working-memory compression failed; steps kept", comp.reason)

    def _start_invocation(self, event: TurnEvent, state: StrategyState) -> None:
        """Working memory starts empty; the context (conversation memory, long-term memories
        retrieved for the user's message) is assembled once, as seed 000's invocation start."""
        self.invocation_index = event.invocation
        self.memory.reset()
        self.step = 0
        # only the agent's calls read the context, and an agent offered no tool makes none: assembling
        # it anyway rendered every earlier invocation's summary at every user turn (quadratic in a
        # conversation's length for `react`). Whether tools are offered is the same at every step.
        if state.assemble_context is not None and self._tools(state):
            ctx = state.assemble_context(Query(event.turn.text, event.timestamp, self.env.embedder))
            self.context_text = ctx.agent_text()
        else:
            self.context_text = ""

    def _tools(self, state: StrategyState) -> dict[str, MemoryTool]:
        tools = {t.name: t for t in state.tools()} if state.tools is not None else {}
        if self.trigger.type_name == "agent_driven":
            tools["compress_memory"] = MemoryTool(
                "compress_memory", self.offered_tools["compress_memory"].split(" Offered only")[0],
                object_schema([]), lambda args: self._compress_now(state))
        return tools

    def _compress_now(self, state: StrategyState) -> str:
        """The agent asked: compress at once, so its next round sees the smaller working memory."""
        comp = self.memory.maybe_compress(requested=True)
        if comp is None:
            return "nothing to compress (only the most recent steps are in working memory)"
        state.compressed(comp)
        if not comp.ok:
            self.failed("working-memory compression failed; steps kept", comp.reason)
            return f"compression failed: {comp.reason}"
        return f"compressed: {comp.tokens_before} → {comp.tokens_after} tokens"

    def _run_rounds(self, state: StrategyState) -> None:
        """Let the agent call tools until it calls none or hits the step limit."""
        from memlab.roles.program import RoleFailure

        tools = self._tools(state)
        if not tools:
            return
        for round_ in range(self.params.max_rounds):
            try:
                out = self.env.roles.agent_step(context=self.context_text or "(nothing yet)",
                                                working_memory=self._render(), memory_status=self._status(),
                                                tools=[_dspy_tool(t) for t in tools.values()])
            except RoleFailure as exc:
                self.failed("agent step call failed; the step ended", exc)
                state.acted(AgentStep(self.step, "(agent call)", {}, ok=False, error=str(exc)[:300]))
                return
            made = _calls(out)
            for bad in out.get("tool_call_errors") or []:  # malformed calls: shown to the agent, recorded
                state.acted(AgentStep(self.step, bad["name"], {}, ok=False, error=bad["error"]))
                self.memory.add(Entry(f"action: {bad['name']}(…) → error: {bad['error']}"))
            if not made and not out.get("tool_call_errors"):
                return
            for name, args in made:
                self._execute(tools, name, args, state)
            if round_ == self.params.max_rounds - 1:
                state.acted(AgentStep(self.step, "(step limit)", {}, ok=False,
                                      error=f"step limit: {self.params.max_rounds} tool rounds at this step"))

    def _execute(self, tools: dict[str, MemoryTool], name: str, args: dict[str, Any], state: StrategyState) -> None:
        tool = tools.get(name)
        if tool is None:
            obs, ok, err = f"error: no tool named {name!r}", False, f"unknown tool {name!r}"
        else:
            try:
                obs, ok, err = tool.run(args), True, None
            except (ValueError, KeyError, TypeError) as exc:
                obs, ok, err = f"error: {exc}", False, str(exc)
        state.acted(AgentStep(self.step, name, args, ok=ok, result_chars=len(obs), error=err))
        shown = obs if len(obs) <= self.params.observation_chars else obs[: self.params.observation_chars] + " …"
        self.memory.add(Entry(f"action: {name}({json.dumps(args, ensure_ascii=False)}) → {shown}"))

    def _render(self) -> str:
        m = self.memory
        lines = [f"(summary of earlier steps) {m.summary}"] if m.summary else []
        return "\n".join(lines + [e.text for e in m.entries]) or "(empty)"

    def _status(self) -> str:
        used = self.memory.tokens
        return f"working memory: {used} / {self.budget} tokens ({round(100 * used / self.budget)}%)"

    # -- what the answerer sees ------------------------------------------------------------------
    def on_invocation_end(self, invocation: Invocation, state: StrategyState) -> None:
        pass  # working memory stays visible until the next user message starts a new invocation

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        m = self.memory
        lines = [ContextLine(m.summary, list(m.summary_sources), kind="summary")] if m.summary else []
        lines += [ContextLine(e.text, list(e.turn_ids), kind="step") for e in m.entries]
        return [ContextSection("Working memory (current invocation)", lines)] if lines else []


def _dspy_tool(tool: MemoryTool) -> Any:
    """A memory tool as a ``dspy.Tool`` (schema only: memlab executes the calls itself, so every
    call is recorded and writes go through the strategy's components)."""
    # the schema's JSON is the cache key (key order kept: it is the prompt's order); orjson makes
    # it ~5x cheaper than json.dumps, which was most of this function's cost (per tool, per round)
    return _dspy_tool_for_schema(orjson.dumps(tool.schema()).decode())


@functools.lru_cache(maxsize=256)
def _dspy_tool_for_schema(schema_json: str) -> Any:
    """Built once per distinct schema: a ``dspy.Tool`` derives a pydantic model of its arguments,
    which cost the agent presets more than the rest of their own logic when done every round."""
    import dspy

    tool = json.loads(schema_json)
    props = tool["parameters"].get("properties") or {}
    return dspy.Tool(lambda **kw: None, name=tool["name"], desc=tool["description"], args=dict(props),
                     arg_types={k: Any for k in props}, arg_desc={k: v.get("description", "") for k, v in props.items()})


def _calls(out: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    calls = out.get("tool_calls")
    items = getattr(calls, "tool_calls", None) or []
    return [(c.name, dict(c.args or {})) for c in items]


def _step_line(event: TurnEvent) -> str:
    """A scripted step as it enters working memory, labelled by role (``user: Ana: …``,
    ``assistant: …``, ``tool: weather: …``) so the agent knows who said what."""
    from memlab.strategies.extractor.base import speaker_label

    return f"{speaker_label(event)}: {event.turn.text}"
