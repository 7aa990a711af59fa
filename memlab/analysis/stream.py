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
