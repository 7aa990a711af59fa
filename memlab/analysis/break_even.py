"""Break-even history length: from how long a conversation does a memory strategy cost less than a reference?

Full context is the recall upper bound, and its cost grows with every turn it re-sends; a memory
strategy pays per turn too (extraction, consolidation) but injects little. Which is cheaper
depends on the history length, so a length sweep (``evals/length_sweep.py``, notebook 06) runs
both at several lengths and this module finds where their cost curves cross. It reads the table
:func:`memlab.analysis.report.length_table` makes and computes nothing from records itself.

Between two measured lengths the crossing is interpolated linearly in log(length) on
log(cost ratio) — costs in a sweep grow roughly as powers of the length, so that is the straight
line; outside the measured range nothing is extrapolated.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

BREAK_EVEN_COLUMNS = ["strategy", "reference", "cost", "break_even_tokens", "status", "lengths",
                      "cost_ratio_at_longest", "recall_diff_at_longest"]


def break_even(table: pd.DataFrame, reference: str = "full_context", cost: str = "model_tokens_per_conv") -> pd.DataFrame:
    """One row per strategy other than ``reference``: the history length at which its ``cost``
    equals the reference's, and where it stands at the longest measured length.

    ``table`` is a :func:`memlab.analysis.report.length_table` (one row per dataset × strategy, with
    ``history_tokens_per_conv``, ``evidence_recall`` and the cost columns). ``status`` says how to
    read ``break_even_tokens``: ``cheaper beyond`` / ``dearer beyond`` (the curves cross there),
    ``cheaper at every length`` / ``dearer at every length`` (no crossing in the measured range;
    ``break_even_tokens`` is NaN), ``too few lengths`` (fewer than two with both costs positive).
    ``cost_ratio_at_longest`` is strategy cost / reference cost and ``recall_diff_at_longest`` is
    strategy recall − reference recall, both at the longest length: cheaper is only half the
    answer when recall drops."""
    needed = {"dataset", "strategy", "history_tokens_per_conv", "evidence_recall", cost}
    missing = sorted(needed - set(table.columns))
    if missing:
        raise ValueError(f"break_even: the length table lacks column(s) {', '.join(missing)} "
                         "(make it with memlab.analysis.report.length_table)")
    strategies = list(dict.fromkeys(table["strategy"]))
    if reference not in strategies:
        raise ValueError(f"break_even: reference strategy {reference!r} is not in the table; strategies: {', '.join(strategies)}")
    ref = table[table["strategy"] == reference].set_index("dataset")
    rows = []
    for strategy in strategies:
        if strategy == reference:
            continue
        s = table[table["strategy"] == strategy].set_index("dataset")
        joined = s.merge(ref, left_index=True, right_index=True, suffixes=("", "_ref")).sort_values("history_tokens_per_conv")
        joined = joined[(joined[cost] > 0) & (joined[f"{cost}_ref"] > 0) & (joined["history_tokens_per_conv"] > 0)]
        row = {"strategy": strategy, "reference": reference, "cost": cost, "break_even_tokens": math.nan,
               "lengths": len(joined), "cost_ratio_at_longest": math.nan, "recall_diff_at_longest": math.nan}
        if len(joined) < 2:
            rows.append({**row, "status": "too few lengths"})
            continue
        lengths = np.log(joined["history_tokens_per_conv"].to_numpy(dtype=float))
        log_ratio = np.log(joined[cost].to_numpy(dtype=float) / joined[f"{cost}_ref"].to_numpy(dtype=float))
        last = joined.iloc[-1]
        row["cost_ratio_at_longest"] = float(last[cost] / last[f"{cost}_ref"])
        row["recall_diff_at_longest"] = float(last["evidence_recall"] - last["evidence_recall_ref"])
        cheaper = log_ratio <= 0
        flips = np.flatnonzero(cheaper[1:] != cheaper[:-1])
        if flips.size == 0:
            rows.append({**row, "status": "cheaper at every length" if cheaper[0] else "dearer at every length"})
            continue
        i = int(flips[0])
        x0, x1, y0, y1 = lengths[i], lengths[i + 1], log_ratio[i], log_ratio[i + 1]
        crossing = x0 + (0.0 - y0) * (x1 - x0) / (y1 - y0)
        rows.append({**row, "break_even_tokens": float(math.exp(crossing)),
                     "status": "cheaper beyond" if cheaper[i + 1] else "dearer beyond"})
    return pd.DataFrame(rows, columns=BREAK_EVEN_COLUMNS)
