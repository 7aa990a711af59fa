"""What folds working-memory steps into a summary when a trigger fires: the model, or an instrument.

The trigger (:mod:`memlab.strategies.triggers`) decides *when* to compress; the summariser decides
*what survives*. ``model`` is the design being measured: the strategy's ``compress`` role (an LLM,
or the offline stand-in). The other two are **measurement instruments**, not designs anyone would
deploy: they bracket what any summariser can do, so a dataset can be checked for whether it puts
compression under pressure at all (``memlab suite-check``, the compression contrast):

- ``verbatim``: lossless — the "summary" is the folded steps themselves, so nothing is lost (and
  nothing is saved). The upper bound of any summariser.
- ``planted_lossy``: drops every folded step and keeps a placeholder: a summariser planted to lose
  every value. The lower bound.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SUMMARIZERS = ("model", "verbatim", "planted_lossy")
"""Working-memory summarisers: the model's ``compress`` role, or the two instruments."""

PLACEHOLDER = "(earlier steps were compressed away)"


def _verbatim(previous_summary: str = "", messages: str = "", **_: Any) -> dict[str, str]:
    return {"summary": "\n".join(t for t in (previous_summary.strip(), messages.strip()) if t)}


def _planted_lossy(previous_summary: str = "", messages: str = "", **_: Any) -> dict[str, str]:
    return {"summary": PLACEHOLDER}


def make_summarizer(name: str, roles: Any) -> Callable[..., dict[str, Any]]:
    """The callable a :class:`~memlab.strategies.triggers.Compressor` folds steps with."""
    if name == "model":
        return roles.compress
    if name == "verbatim":
        return _verbatim
    if name == "planted_lossy":
        return _planted_lossy
    raise ValueError(f"unknown summarizer {name!r}; one of: {', '.join(SUMMARIZERS)}")
