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

from memlab.strategies.slots import declare_slot

declare_slot("agent", "an agent that runs live in each invocation and may call memory tools", order=20)
