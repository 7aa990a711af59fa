"""Reading a run's record streams without holding them: line offsets, light probe rows, records on demand.

A run at real length writes a ``probes.jsonl`` of many hundred megabytes — a whole-history context carries
thousands of lines, twice (the text and its items) — and a DataFrame of it takes several times that in
memory, while every table only needs each probe's scores and a few light fields. Here a stream is read line
by line (:func:`scan`), probe records are scored in batches of about :data:`BATCH_BYTES` through the run's
own metrics (:meth:`memlab.analysis.results.RunResults.score`) and kept without their heavy fields
(:data:`HEAVY`), each with its byte offset and length so the few records a page or a drill-down shows are
read back whole (:func:`read_line`). ``memlab report`` reads large runs this way (``load_run(...,
lean=True)``), and ``memlab view``'s index is built on the same functions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

HEAVY = ("context", "context_items", "context_source_turn_ids", "evidence_texts", "ragas_llm", "run_id")
"""Probe fields a light row leaves out (read from the stream when a probe is shown: RunResults.record;
ragas's verdicts are in the scores)."""
BATCH_BYTES = 8 << 20
"""Probe lines scored at once, in bytes: a full history's parsed context is ~10× its line."""
LEAN_BYTES = 128 << 20
"""A ``probes.jsonl`` at least this large is read lean by ``load_run`` unless told otherwise."""


class StreamError(ValueError):
    """A record cannot be read where a light row says it is (the file changed since)."""


def scan(path: Path, start: int = 0, chunk: int = 8 << 20, end: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(byte offset, line without its newline) of every complete line from ``start`` (to ``end``, a
    line start); a last line without its newline (a record being written, or torn by a crash) is
    not yet a record."""
    if not path.exists():
        return
    with open(path, "rb") as fh:
        fh.seek(start)
        pos, rest = start, b""
        while True:
            want = chunk if end is None else min(chunk, end - pos - len(rest))
            data = fh.read(want) if want > 0 else b""
            if not data:
                return
            data = rest + data
            cut = data.rfind(b"\n")
            if cut < 0:
                rest = data
                continue
            at = 0
            for line in data[:cut].split(b"\n"):  # records end at "\n" only: U+2028 & co. are escaped
                yield pos + at, line
                at += len(line) + 1
            pos += cut + 1
            rest = data[cut + 1:]


def split(path: Path, start: int, parts: int) -> list[tuple[int, int | None]]:
    """``parts`` byte ranges of a stream from ``start``, each beginning at a line start (the last
    open-ended: it takes whatever is complete when it is read)."""
    size = path.stat().st_size
    bounds = [start]
    with open(path, "rb") as fh:
        for k in range(1, parts):
            fh.seek(start + (size - start) * k // parts)
            fh.readline()  # to the next line start
            at = fh.tell()
            if bounds[-1] < at < size:
                bounds.append(at)
    return [(a, b) for a, b in zip(bounds, bounds[1:])] + [(bounds[-1], None)]


def read_line(path: Path, offset: int, length: int) -> dict[str, Any]:
    """The record at ``offset`` (``length`` bytes) of a stream."""
    with open(path, "rb") as fh:
        fh.seek(offset)
        data = fh.read(length)
    try:
        rec = orjson.loads(data)
    except orjson.JSONDecodeError:
        rec = None
    if not isinstance(rec, dict):
        raise StreamError(f"{path}: no record at byte {offset} (the file changed since it was read; read it again)")
    return rec


def loads(line: bytes) -> Any:
    """One JSONL line (orjson; the standard parser for NaN and integers beyond 64 bits)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)  # a corrupt line raises here


def light_rows(res: Any, records: Iterable[tuple[int, int, dict[str, Any]]],
               progress: Callable[[int, int], None] | None = None, heavy: tuple[str, ...] = HEAVY) -> list[dict[str, Any]]:
    """``(offset, length, probe record)`` → the records' light rows: every field but ``heavy``, the
    metrics' values (scored in batches of about :data:`BATCH_BYTES`), ``_off``/``_len`` (where the whole
    record is) and ``_items`` (its context items). ``progress(rows so far, offset reached)`` after each batch."""
    rows: list[dict[str, Any]] = []
    batch: list[tuple[int, int, dict[str, Any]]] = []
    held = 0

    def flush(final: bool) -> None:
        nonlocal held
        if batch or final:
            scores = res.score([r for _, _, r in batch], save_cache=final)
            scores = scores.astype(object).where(scores.notna(), None)
            for (off, n, rec), row in zip(batch, scores.to_dict("records"), strict=True):
                light = {k: v for k, v in rec.items() if k not in heavy}
                light.update(row)
                light["_off"], light["_len"] = off, n
                light["_items"] = len(rec.get("context_items") or []) or None
                rows.append(light)
        batch.clear()
        held = 0

    last = 0
    for off, n, rec in records:
        batch.append((off, n, rec))
        held += n
        last = off + n
        if held >= BATCH_BYTES or len(batch) >= 2000:
            flush(False)
            if progress is not None:
                progress(len(rows), last)
    flush(True)
    return rows


_MISSING = float("nan")
"""What a record without a field holds in that field's column (as ``pd.DataFrame(records)`` fills it)."""
INTERN_CHARS = 160
"""String values up to this length are shared between rows (ids, strategy, namespace, op, reason repeat
on every row of a stream); longer ones (texts) are kept as read."""


def read_frame(path: Path, *, flatten: str | None = None) -> Any:
    """A record stream as a DataFrame, built column by column while its lines are read.

    The same frame as ``pd.DataFrame(read_jsonl(path))`` (tests/test_lean_readback.py), without its
    peak: that holds the file's bytes, its decoded text, its lines and a dict per record at once —
    ~8× the file for ``memory_ops`` of a long run, which is what kept reading the M suite's run back
    over 2 GB — where this holds a list per column, with each repeated short string once
    (:data:`INTERN_CHARS`). ``flatten``: a field holding a dict (the calls' ``scope``) whose keys become
    columns where no top-level field has that name, and the field itself dropped (as
    ``pd.json_normalize`` of it, concatenated, gives). A blank line is skipped; a last line without its
    newline that does not parse is a torn write and skipped; a corrupt line elsewhere is an error naming
    the file and line."""
    import pandas as pd

    cols: dict[str, list[Any]] = {}
    inner: dict[str, list[Any]] = {}
    shared: dict[str, str] = {}
    rows = 0

    def put(into: dict[str, list[Any]], key: str, value: Any) -> None:
        col = into.get(key)
        if col is None:
            col = into[key] = [_MISSING] * rows
        elif len(col) < rows:
            col.extend([_MISSING] * (rows - len(col)))
        if value.__class__ is str and len(value) <= INTERN_CHARS:
            value = shared.setdefault(value, value)
        col.append(value)

    def add(line: bytes, number: int, last: bool) -> None:
        nonlocal rows
        if not line.strip():
            return
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError:
            try:
                rec = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                if last:
                    return  # torn last write from an interrupted run (it may end inside a character)
                if isinstance(exc, UnicodeDecodeError):
                    raise ValueError(f"{path}:{number}: not UTF-8 at byte {exc.start} of the line") from None
                raise ValueError(f"{path}:{number}: corrupt record ({exc.msg})") from None
        if not isinstance(rec, dict):
            raise ValueError(f"{path}:{number}: corrupt record (a {type(rec).__name__}, not an object)")
        for key, value in rec.items():
            if key == flatten:
                if value is not None and not isinstance(value, dict):
                    raise ValueError(f"{path}:{number}: '{flatten}' is a {type(value).__name__}, not an object")
                for k, v in (value or {}).items():
                    put(inner, k, v)
            else:
                put(cols, key, value)
        rows += 1

    if path.exists():
        number = 0
        with open(path, "rb") as fh:
            rest = b""
            while data := fh.read(8 << 20):
                lines = (rest + data).split(b"\n")
                rest = lines.pop()
                for line in lines:
                    number += 1
                    add(line, number, False)
            if rest:
                add(rest, number + 1, True)
    for into in (cols, inner):
        for col in into.values():
            col.extend([_MISSING] * (rows - len(col)))
    cols.update({k: v for k, v in inner.items() if k not in cols})
    return pd.DataFrame(cols) if cols else pd.DataFrame()
