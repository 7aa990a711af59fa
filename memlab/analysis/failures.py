"""The failures table: what went wrong in a run, per strategy, from its unit records.

Two kinds of failure reach it. A **failed unit** (an exception the strategy did not handle: the
unit's records are not scored, ``--resume`` plays it again) and a **component failure**: something a
component absorbed and carried on without — an extraction call that failed after its retries (the
message is not extracted), a compression that could not run (the steps are kept), a reconcile
decision naming no memory it was shown (the candidate is added). A component failure leaves the unit
ok and its numbers scored, but they measure a degraded design; the table says how often and where,
so a weak number can be told from a broken run. Component failures are counted in the units whose
records count (the final attempts); runs written before they were recorded have none to show.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

COLUMNS = ["strategy", "component", "what", "count", "units", "example"]


def failures_table(res: Any) -> pd.DataFrame:
    """One row per strategy × component × kind of failure: ``count`` (occurrences), ``units`` (units
    where it happened) and the first ``example`` error. Failed units are the rows whose component
    is ``(unit)``."""
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}

    def add(strategy: str, component: str, what: str, count: int, example: str) -> None:
        row = rows.setdefault((strategy, component, what), {"count": 0, "units": 0, "example": example})
        row["count"] += count
        row["units"] += 1

    for (strategy, _, _), end in sorted(res.unit_ends.items(), key=lambda kv: tuple(map(str, kv[0]))):
        if end.get("status", "ok") != "ok":
            add(strategy, "(unit)", "unit failed; not scored (--resume plays it again)", 1, str(end.get("error") or ""))
            continue
        for f in end.get("component_failures") or []:
            add(strategy, f["component"], f["what"], int(f["count"]), str(f.get("example") or ""))
    out = pd.DataFrame([{"strategy": s, "component": c, "what": w, **v} for (s, c, w), v in rows.items()],
                       columns=COLUMNS)
    return out.sort_values(["strategy", "component", "what"], kind="stable").reset_index(drop=True)


def print_failures(res: Any, console: Any, *, units: bool = True) -> pd.DataFrame:
    """Print the failures table (nothing when nothing failed); returns it. ``units=False``: only what
    components absorbed (a caller that lists the failed units one by one)."""
    from rich.table import Table

    table_ = failures_table(res)
    if not units:
        table_ = table_[table_["component"] != "(unit)"].reset_index(drop=True)
    if table_.empty:
        return table_
    table = Table(title="failures (a failed unit is not scored; a component failure was absorbed: its unit is "
                        "scored, as a degraded design)", title_style="bold red")
    for col in COLUMNS:
        table.add_column(col, justify="right" if col in ("count", "units") else "left", overflow="fold")
    for row in table_.itertuples(index=False):
        table.add_row(row.strategy, row.component, row.what, str(row.count), str(row.units), row.example[:120])
    console.print(table)
    return table_
