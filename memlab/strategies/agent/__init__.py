"""The agent slot: a ReAct-style agent that runs live inside replayed invocations.

The slot is declared here; the components and their design notes are in
:mod:`memlab.strategies.agent.react`."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("agent", "an agent that runs live in each invocation and may call memory tools", order=20)
