"""How a probe is answered: a design decision of the strategy, like any other slot.

The slot is declared here; the components and their design notes are in
:mod:`memlab.strategies.answer.modes`."""

from __future__ import annotations

from memlab.strategies.slots import declare_slot

declare_slot("answer", "how a probe is answered: everything injected at once, or long-term memory searched when asked",
             order=95)
