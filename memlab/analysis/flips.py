"""Probes that flipped between two sides of a comparison, as ``memlab check`` counts them.

A flip is a probe whose 0/1 score on a gated column changed between a baseline and a run. The
gate (:mod:`memlab.analysis.gate`) lists them in its pull-request comment; the viewer
(``memlab view``) opens them side by side. Both take them from here, so the two never disagree on
what flipped. Kept apart from the gate, which imports the run configuration (and with it the
model layer), so the viewer stays on the analysis side of the import firewall.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memlab.analysis.baseline import ProbeOutcome
from memlab.scoring.metric_registry import COST_COLUMNS, METRICS, directed_columns


@dataclass(frozen=True)
class Flip:
    """A probe whose binary score on some gated column changed between baseline and run."""

    old: ProbeOutcome
    new: ProbeOutcome
    worse: list[str]
    """Columns that went from good to bad."""
    better: list[str]


def gated_column_names(gate_metrics: Mapping[str, Any] | None, headline: Iterable[str]) -> list[str]:
    """The columns a gate compares: its config's ``gate.metrics`` when given, else every directed
    column of the headline metrics."""
    if gate_metrics is not None:
        return list(gate_metrics)
    return [col for name in headline for col, hib in METRICS.get(name).columns() if hib is not None]


def flipped(pairs: Iterable[tuple[ProbeOutcome, ProbeOutcome]], columns: list[str]) -> list[Flip]:
    """Probes whose 0/1 score on a gated metric column changed (cost columns are not scores)."""
    directions = directed_columns()
    out = []
    for old, new in pairs:
        worse, better = [], []
        for col in columns:
            a, b = old.scores.get(col), new.scores.get(col)
            if col in COST_COLUMNS or a is None or b is None or a == b or {a, b} - {0.0, 1.0}:
                continue
            good_now = (b > a) == directions[col]
            (better if good_now else worse).append(col)
        if worse or better:
            out.append(Flip(old, new, worse, better))
    return out
