"""Telling a damaged run folder from a clean one before any number is read from it.

A run folder whose ``probes.jsonl`` or ``units.jsonl`` went missing (a partial copy, a cleanup
that removed the wrong files) reads as a clean, empty run — ``memlab report`` and ``explain``
printed nothing and exited 0 — and a probe record whose fields have the wrong type either gave a
traceback or, worse, was scored (``context: 5`` scored as an empty context). Both are damage,
reported as :class:`DamagedRun` (exit 2) naming the file and what is wrong:

* the manifest counts finished units that ``units.jsonl`` does not hold;
* units finished ok on datasets that have probes, and ``probes.jsonl`` holds none of their
  answers — or, for a completed run, fewer than every strategy × every probe;
* a probe record's field holds a value of another type than the record format says
  (:class:`memlab.runfolder.records.ProbeRecord`), named by line and field.

A run that failed before answering anything, or a dataset without probes, is not damage: those
folders say so in their manifest.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd


class DamagedRun(ValueError):
    """A run folder whose records contradict its manifest or the record format."""


def check_intact(path: Path, manifest: dict[str, Any], unit_ends: dict[tuple, dict[str, Any]],
                 probes: pd.DataFrame) -> None:
    """Raise :class:`DamagedRun` when the folder's records cannot be the run its manifest describes."""
    units = manifest.get("units") if isinstance(manifest.get("units"), dict) else None
    ok_ends = [r for r in unit_ends.values() if r.get("status", "ok") == "ok"]
    if units is not None and isinstance(units.get("ok"), int) and units["ok"] > len(ok_ends):
        what = "is missing" if not (path / "units.jsonl").exists() else f"holds {len(ok_ends)} finished unit(s)"
        raise DamagedRun(f"{path}: damaged run folder: the manifest counts {units['ok']} finished unit(s), but "
                         f"units.jsonl {what}; its numbers cannot be read (restore the folder from a copy)")
    declared = sum(int(d.get("probes") or 0) for d in manifest.get("datasets") or [] if isinstance(d, dict))
    if ok_ends and declared and probes.empty:
        what = "is missing" if not (path / "probes.jsonl").exists() else "holds no answer of a finished unit"
        raise DamagedRun(f"{path}: damaged run folder: {len(ok_ends)} unit(s) finished ok on datasets with "
                         f"{declared} probe(s), but probes.jsonl {what} (restore the folder from a copy)")
    strategies = len(manifest.get("strategies") or [])
    complete = units is not None and manifest.get("status") == "completed" and units.get("ok") == units.get("total")
    if complete and declared and strategies and len(probes) < strategies * declared:
        raise DamagedRun(f"{path}: damaged run folder: probes.jsonl holds {len(probes)} answer(s) of the "
                         f"{strategies * declared} a completed run of {strategies} strateg(ies) × {declared} probe(s) "
                         "has (restore the folder from a copy)")


def check_probe_types(path: Path, frame: pd.DataFrame, records: Callable[[], list[dict[str, Any]]]) -> None:
    """Raise :class:`DamagedRun` naming the first probe record (line, probe, field) whose value has
    another type than :class:`~memlab.runfolder.records.ProbeRecord` declares. One vectorised pass
    over the columns; the lines are found only when something is wrong."""
    if frame.empty:
        return
    spec = _field_types()
    for column in frame.columns:
        allowed = spec.get(column)
        if allowed is None:
            continue
        bad = ~frame[column].map(lambda v, a=allowed: isinstance(v, a) or _missing(v) or _widened(v, a))
        if bool(bad.any()):
            row = frame[bad].iloc[0]
            line = next((i + 1 for i, r in enumerate(records())
                         if r.get("attempt") == row.get("attempt") and r.get("probe_id") == row.get("probe_id")
                         and r.get("strategy") == row.get("strategy")), None)
            where = f"{path / 'probes.jsonl'}" + (f":{line}" if line else "")
            expected = " or ".join(sorted(t.__name__ for t in allowed if t is not type(None)))
            raise DamagedRun(f"{where}: damaged record (probe {row.get('probe_id')!r}, strategy {row.get('strategy')!r}): "
                             f"field `{column}` should be {expected}, got {type(row[column]).__name__} "
                             f"{str(row[column])[:40]!r}")


def check_record_types(path: Path, line: int, rec: dict[str, Any], fields: tuple[str, ...]) -> None:
    """Raise :class:`DamagedRun` when one of ``fields`` of the probe record on ``line`` of
    ``probes.jsonl`` has another type than the record declares: the fields a lean read-back leaves
    out of its frame are checked record by record as they are read (the frame's columns by
    :func:`check_probe_types`)."""
    spec = _field_types()
    for column in fields:
        allowed, value = spec.get(column), rec.get(column)
        if allowed is None or isinstance(value, allowed) or _missing(value) or _widened(value, allowed):
            continue
        expected = " or ".join(sorted(t.__name__ for t in allowed if t is not type(None)))
        raise DamagedRun(f"{path / 'probes.jsonl'}:{line}: damaged record (probe {rec.get('probe_id')!r}, strategy "
                         f"{rec.get('strategy')!r}): field `{column}` should be {expected}, got {type(value).__name__} "
                         f"{str(value)[:40]!r}")


def _widened(value: Any, allowed: tuple[type, ...]) -> bool:
    """An integer field of a column pandas made float because some records lack it (``36`` read as ``36.0``)."""
    return int in allowed and isinstance(value, float) and value.is_integer()


def _missing(value: Any) -> bool:
    """A field absent from some records: pandas fills it with NaN (or None)."""
    return value is None or (isinstance(value, float) and value != value)


@cache
def _field_types() -> dict[str, tuple[type, ...]]:
    """Probe record field → the Python types a JSON value of it may have."""
    from memlab.runfolder.records import ProbeRecord

    return {name: tuple(_python_types(field.annotation)) for name, field in ProbeRecord.model_fields.items()}


def _python_types(ann: Any) -> set[type]:
    origin = typing.get_origin(ann)
    if ann is Any:
        return {object}
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_python_types(a) for a in typing.get_args(ann)))
    if origin is typing.Literal:
        return {type(v) for v in typing.get_args(ann)}
    if ann is type(None):
        return {type(None)}
    if ann is float:
        return {float, int}
    if ann is int:
        return {int}
    if origin in (list, tuple) or ann in (list, tuple):
        return {list}
    if origin is dict or ann is dict:
        return {dict}
    if isinstance(ann, type):
        from pydantic import BaseModel

        return {dict} if issubclass(ann, BaseModel) else {ann}
    return {object}
