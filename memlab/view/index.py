"""The viewer's index of a run folder: where every record lies, the fields pages filter on, every
probe's scores and the overview tables — built once, cached beside the run, extended as it grows.

A LoCoMo-sized run (12 strategies × 2,000 probes) writes a ``probes.jsonl`` of about a gigabyte: a
full history's probe carries ~600 context items. Read into a DataFrame it takes several times that
in memory, and a page shows one probe. So the index reads each stream once, line by line, and keeps
per record its byte offset and length and the light fields (ids, category, user, thread, question,
answer, gold, scores; never the context); a page then seeks to the few records it shows, and the
server's memory is bounded by the page, not by the run. Probes are scored in batches through
:meth:`memlab.analysis.results.RunResults.score` (the metrics every table uses), and the overview
tables come from a :class:`~memlab.analysis.results.RunResults` given the light frames
(:meth:`~memlab.analysis.results.RunResults.preload`): the numbers are those of ``memlab report``.

The index is written to ``RUN/.view/index.json`` (or, for a folder this user cannot write, under
``$XDG_CACHE_HOME/memlab/view/``) with each stream's size and a hash of its head: a second
``memlab view`` opens at once, and a stream that grew since (a run still being written) is read
from where the index stopped. A new index format, another scoring code or a stream that is not the
one indexed (shorter, another head) starts the index again. It is built in a child process
(``python -m memlab.view.index RUN_DIR``) so the server's memory never holds a batch of contexts.
"""

from __future__ import annotations

import base64
import binascii
import fcntl
import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd

from memlab.analysis.stream import StreamError, light_rows, loads, read_line, scan, split  # noqa: F401 (read_line re-exported)

INDEX_VERSION = 2
"""Bump when the index's layout or the meaning of a field changes: older indexes are rebuilt."""
INDEXED = ("probes", "calls", "turns", "memory_ops")
"""The streams the index reads record by record (``units.jsonl`` is small: read whole)."""
WATCHED = (*INDEXED, "units")
HEAVY = ("context", "context_items", "context_source_turn_ids", "evidence_texts", "survival", "judge", "ragas_llm",
         "run_id")
"""Probe fields left out of the index (read from the stream when a page shows the probe; the
judge's and ragas's verdicts are in the scores)."""
CALL_FIELDS = ("attempt", "strategy", "dataset", "conversation_id", "call_id", "purpose", "model", "ok", "prompt_tokens",
               "completion_tokens", "latency_s", "turn_id", "probe_id", "phase")
PARALLEL_BYTES = 64 << 20
"""A probes stream this large (still to read) is scored on ``MEMLAB_VIEW_WORKERS`` processes (default 2)."""
HEAD_BYTES = 1 << 16


class ViewIndexError(StreamError):
    """The index cannot be built or read (a message naming the file and the problem)."""


# ---- where the index lives --------------------------------------------------------------------

def index_dir(run_dir: str | Path) -> Path:
    """``RUN/.view`` when this user can write the run folder, else a folder in the user's cache."""
    run_dir = Path(run_dir)
    here = run_dir / ".view"
    if (here.is_dir() and os.access(here, os.W_OK)) or (not here.exists() and os.access(run_dir, os.W_OK)):
        return here
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memlab" / "view"
    return base / hashlib.sha256(str(run_dir.resolve()).encode()).hexdigest()[:20]


def _key() -> dict[str, Any]:
    """What an index depends on besides the run's files: its own format and the scoring code."""
    from memlab.analysis.baseline import scoring_hash

    return {"version": INDEX_VERSION, "scoring": scoring_hash()}


def _head(path: Path, n: int) -> str:
    """Hash of the first ``n`` bytes of a file."""
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read(n)).hexdigest()[:16]


def _mark(path: Path) -> dict[str, Any]:
    """A stream's size and the hash of its first bytes, so a file replaced by another (not grown)
    is read again from the start."""
    if not path.exists():
        return {"size": 0, "head": "", "head_len": 0}
    size = path.stat().st_size
    n = min(size, HEAD_BYTES)
    return {"size": size, "head": _head(path, n), "head_len": n}


def current_marks(run_dir: Path) -> dict[str, Any]:
    """The run's files as they are now: what an index was built from, if it is fresh."""
    marks = {s: _mark(run_dir / f"{s}.jsonl") for s in WATCHED}
    manifest = run_dir / "manifest.json"
    st = manifest.stat() if manifest.exists() else None
    marks["manifest"] = {"size": st.st_size if st else 0, "mtime_ns": st.st_mtime_ns if st else 0}
    return marks


# ---- reading streams line by line -----------------------------------------------------------

# scan, split, read_line and loads live in memlab.analysis.stream (load_run's lean read-back uses them too)


# ---- building --------------------------------------------------------------------------------

class _Columns:
    """Rows appended field by field (the index stores each table as columns)."""

    def __init__(self, data: dict[str, list[Any]] | None = None) -> None:
        self.data: dict[str, list[Any]] = {k: list(v) for k, v in (data or {}).items()}
        self.n = len(next(iter(self.data.values()))) if self.data else 0

    def extend(self, rows: list[dict[str, Any]]) -> None:
        keys = list(self.data) + [k for k in dict.fromkeys(k for r in rows for k in r) if k not in self.data]
        for k in keys:
            col = self.data.setdefault(k, [None] * self.n)
            col.extend(r.get(k) for r in rows)
        self.n += len(rows)

    def add(self, row: dict[str, Any]) -> None:
        for k in row.keys() - self.data.keys():
            self.data[k] = [None] * self.n
        for k, col in self.data.items():
            col.append(row.get(k))
        self.n += 1


def _b64(arr: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode("ascii")


def _pack_column(values: list[Any]) -> dict[str, Any]:
    """One column for the file: whole numbers and numbers as binary arrays, text as codes into its
    distinct values; anything else (lists, mappings, booleans) as it is. Loading it back then
    creates a handful of objects instead of one per cell (the server's memory while it reads)."""
    kinds = {type(v) for v in values}
    try:
        if values and kinds == {int}:
            return {"i8": _b64(np.asarray(values, dtype=np.int64))}
        if values and kinds <= {int, float, type(None)} and kinds & {float, type(None)} and kinds != {type(None)}:
            return {"f8": _b64(np.asarray([np.nan if v is None else v for v in values], dtype=np.float64))}
    except OverflowError:  # a whole number beyond 64 bits stays as it is
        return {"list": values}
    if kinds <= {str, type(None)} and str in kinds:
        distinct = list(dict.fromkeys(v for v in values if v is not None))
        code = {v: i for i, v in enumerate(distinct)}
        return {"text": distinct, "codes": _b64(np.asarray([-1 if v is None else code[v] for v in values], dtype=np.int32))}
    return {"list": values}


def pack(cols: dict[str, list[Any]]) -> dict[str, Any]:
    n = len(next(iter(cols.values()))) if cols else 0
    return {"n": n, "columns": {k: _pack_column(v) for k, v in cols.items()}}


def _unpack_column(col: dict[str, Any], n: int) -> np.ndarray | list[Any]:
    if "i8" in col:
        arr: np.ndarray = np.frombuffer(base64.b64decode(col["i8"]), dtype=np.int64)
    elif "f8" in col:
        arr = np.frombuffer(base64.b64decode(col["f8"]), dtype=np.float64)
    elif "codes" in col:
        codes = np.frombuffer(base64.b64decode(col["codes"]), dtype=np.int32)
        arr = np.asarray([*col["text"], None], dtype=object)[codes]
    else:
        values = col["list"]
        if not isinstance(values, list) or len(values) != n:
            raise ValueError("a column of the wrong length")
        return values
    if len(arr) != n:
        raise ValueError("a column of the wrong length")
    return arr


def unpack(table: dict[str, Any]) -> dict[str, np.ndarray | list[Any]]:
    """A packed table's columns (arrays, or lists for the columns kept as they are)."""
    n = int(table["n"])
    return {k: _unpack_column(c, n) for k, c in table["columns"].items()}


def unpack_lists(table: dict[str, Any]) -> dict[str, list[Any]]:
    """A packed table's columns as lists (a missing number is NaN)."""
    return {k: (v.tolist() if isinstance(v, np.ndarray) else list(v)) for k, v in unpack(table).items()}


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and np.isnan(value):
        return None
    if isinstance(value, (np.floating, np.integer)):
        return None if isinstance(value, np.floating) and np.isnan(value) else value.item()
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def frame_json(df: pd.DataFrame, index: str | None = None) -> dict[str, Any]:
    """A table for the index and the pages: column names, rows of JSON values (NaN as null)."""
    if index is not None:
        df = df.rename_axis(index).reset_index()
    return {"columns": [str(c) for c in df.columns],
            "rows": [[_jsonable(v) for v in row] for row in df.itertuples(index=False, name=None)],
            "caption": str(df.attrs.get("caption", ""))}


class Builder:
    """Reads a run folder's streams into its index, from scratch or from where a previous index
    stopped; ``progress`` gets one line per step (the CLI prints them)."""

    def __init__(self, run_dir: str | Path, progress: Callable[[str], None] | None = None) -> None:
        from memlab.analysis.results import load_run

        self.run_dir = Path(run_dir)
        self.res = load_run(self.run_dir)  # refuses a folder without a readable manifest or of a newer format
        self.progress = progress or (lambda _msg: None)
        self.problems: list[tuple[str, int, str]] = []
        self.kept: list[str] = []  # problems found by the build this one extends

    def build(self, old: dict[str, Any] | None) -> dict[str, Any]:
        marks = current_marks(self.run_dir)
        key = _key()
        same = bool(old) and old.get("key") == key and old.get("run_id") == self.res.manifest.get("run_id")
        out: dict[str, Any] = {"format": "memlab-view-index", "key": key, "run_id": self.res.manifest.get("run_id"),
                               "marks": {}, "problems": []}
        t0, c0 = time.perf_counter(), time.process_time()

        def took() -> str:
            return f"{time.perf_counter() - t0:.1f} s, {time.process_time() - c0:.1f} CPU s here"

        for stream in INDEXED:
            prev = (old or {}).get("marks", {}).get(stream) if same else None
            mark = marks[stream]
            start = 0
            cols = _Columns()
            path = self.run_dir / f"{stream}.jsonl"
            if prev and 0 < prev.get("consumed", 0) <= mark["size"] and _head(path, prev.get("head_len", 0)) == prev.get("head"):
                start = prev["consumed"]
                cols = _Columns(unpack_lists(old[stream]))
                self.kept += [p for p in old.get("problems", []) if p.startswith(f"{stream}.jsonl")]
            consumed, lines = getattr(self, f"_read_{stream}")(cols, start, (prev or {}).get("lines", 0) if start else 0)
            out[stream] = pack(cols.data)
            n = min(consumed, HEAD_BYTES)  # the head of what was read: a torn tail cut by a resume changes nothing read
            out["marks"][stream] = {**mark, "consumed": consumed, "lines": lines, "from": start, "head_len": n,
                                    "head": _head(path, n) if path.exists() else ""}
            self.progress(f"{stream}: {cols.n:,} records ({took()})")
        out["marks"]["units"] = marks["units"]
        out["marks"]["manifest"] = marks["manifest"]
        reuse_text = same and old.get("marks", {}).get("manifest") == marks["manifest"] and "texts" in old
        out["texts"] = old["texts"] if reuse_text else self._texts()
        self.progress(f"turn text read ({took()})")
        out["tables"] = self._tables(out)
        self.progress(f"tables ({took()})")
        out["problems"] = self.kept + [f"{st}.jsonl:{n}: {msg}" for st, n, msg in self.problems]
        out["built_s"] = round(time.perf_counter() - t0, 3)
        return out

    # -- streams --
    def _lines(self, stream: str, start: int, line_no: int, end: int | None = None) -> Iterator[tuple[int, int, int, dict[str, Any]]]:
        """(offset, length, line number, record) of the stream's complete records from ``start``;
        a corrupt line is skipped and named in the index's problems."""
        from memlab.runfolder.records import upgrade_v1

        path = self.run_dir / f"{stream}.jsonl"
        v1 = self.res.format_version == 1
        self.pos, self.line_no = start, line_no
        for off, line in scan(path, start, end=end):
            line_no += 1
            self.pos, self.line_no = off + len(line) + 1, line_no
            if not line.strip():
                continue
            try:
                rec = loads(line)
            except (ValueError, UnicodeDecodeError) as exc:
                self.problems.append((stream, line_no, f"corrupt record skipped ({str(exc)[:80]})"))
                continue
            if not isinstance(rec, dict):
                self.problems.append((stream, line_no, f"not a record (a JSON {type(rec).__name__}) skipped"))
                continue
            yield off, len(line), line_no, (upgrade_v1(stream, rec) if v1 else rec)

    def probe_rows(self, start: int, end: int | None, share: str = "") -> tuple[list[dict[str, Any]], int, int]:
        """The light rows of the probe records in ``start`` … ``end``, scored in batches of about
        :data:`memlab.analysis.stream.BATCH_BYTES`; returns them, where reading stopped and how many lines it read."""
        path = self.run_dir / "probes.jsonl"
        stop = end if end is not None else (path.stat().st_size if path.exists() else 0)

        def records() -> Iterator[tuple[int, int, dict[str, Any]]]:
            for off, n, no, rec in self._lines("probes", start, 0, end):
                if not _has(rec, "strategy", "dataset", "conversation_id", "probe_id", "attempt"):
                    self.problems.append(("probes", no, "a probe record without strategy, dataset, conversation_id, "
                                                        "probe_id or attempt, skipped"))
                    continue
                yield off, n, rec

        def progress(scored: int, reached: int) -> None:
            self.progress(f"probes: {scored:,} scored{share} ({100 * (reached - start) / max(stop - start, 1):.0f}%)")

        rows = light_rows(self.res, records(), progress, heavy=HEAVY)
        return rows, self.pos, self.line_no

    def _read_probes(self, cols: _Columns, start: int, line_no: int) -> tuple[int, int]:
        """Every probe record from ``start``, scored; a large stream on several processes."""
        path = self.run_dir / "probes.jsonl"
        if not path.exists():
            return start, line_no
        workers = max(1, int(os.environ.get("MEMLAB_VIEW_WORKERS") or min(2, os.cpu_count() or 1)))
        big = path.stat().st_size - start >= int(os.environ.get("MEMLAB_VIEW_PARALLEL_BYTES") or PARALLEL_BYTES)
        ranges = split(path, start, workers) if workers > 1 and big else [(start, None)]
        mine, self.problems = self.problems, []
        if len(ranges) == 1:
            results = [self.probe_rows(start, None)]
            problems = [self.problems]
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(len(ranges) - 1, mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = [pool.submit(_probe_range, str(self.run_dir), a, b) for a, b in ranges[1:]]
                results = [self.probe_rows(*ranges[0], share=f" here, {len(ranges) - 1} more process(es) on the rest")]
                problems = [self.problems]
                for f in futures:
                    rows, pos, lines, theirs = f.result()
                    results.append((rows, pos, lines))
                    problems.append(theirs)
        self.problems = mine
        lines_before = line_no
        for (rows, pos, lines), found in zip(results, problems):
            cols.extend(rows)
            self.problems += [(st, lines_before + n, msg) for st, n, msg in found if st == "probes"]
            lines_before += lines
            end = pos
        return end, lines_before

    def _read_calls(self, cols: _Columns, start: int, line_no: int) -> tuple[int, int]:
        rows = []
        for off, n, _no, rec in self._lines("calls", start, line_no):
            row = {k: rec.get(k) for k in CALL_FIELDS}
            scope = rec.get("scope")
            for k, v in scope.items() if isinstance(scope, dict) else ():
                if row.get(k) is None and k in CALL_FIELDS:
                    row[k] = v
            row["_off"], row["_len"] = off, n
            rows.append(row)
        cols.extend(rows)
        return self.pos, self.line_no

    def _read_offsets(self, stream: str, cols: _Columns, start: int, line_no: int, fields: tuple[str, ...]) -> tuple[int, int]:
        cols.extend([{**{k: rec.get(k) for k in fields}, "_off": off, "_len": n}
                     for off, n, _no, rec in self._lines(stream, start, line_no)])
        return self.pos, self.line_no

    def _read_turns(self, cols: _Columns, start: int, line_no: int) -> tuple[int, int]:
        return self._read_offsets("turns", cols, start, line_no, ("attempt", "conversation_id", "turn_id"))

    def _read_memory_ops(self, cols: _Columns, start: int, line_no: int) -> tuple[int, int]:
        return self._read_offsets("memory_ops", cols, start, line_no, ("attempt", "op"))

    # -- the datasets' text (the run records ids; the dataset files hold what was said, and when) --
    def _texts(self) -> dict[str, Any]:
        """Every turn of the run's datasets as the run played them (threads, limit), when the
        dataset file still has the hash the run recorded; else why its text cannot be shown."""
        from memlab.analysis.played_datasets import played_datasets

        cols = _Columns()
        datasets, problems = played_datasets(self.res.manifest)
        notes = [f"turn text not shown: {n}" for n in problems]
        for ds in datasets.values():
            threads: dict[str, int] = {}
            for conv in ds.conversations:
                threads[conv.ns] = threads.get(conv.ns, 0) + 1
                for n, (session, turn) in enumerate(conv.turns()):
                    when = turn.timestamp or session.timestamp
                    cols.add({"dataset": ds.name, "conversation_id": conv.id, "namespace": conv.ns,
                              "thread": threads[conv.ns], "session_id": session.id, "turn_id": turn.id,
                              "role": str(turn.role), "speaker": turn.speaker, "at": when.isoformat() if when else None,
                              "n": n, "text": turn.text})
        self.progress(f"turn text: {cols.n:,} turns" + (f"; {'; '.join(notes)}" if notes else ""))
        return {"turns": cols.data, "notes": notes}

    # -- the overview --
    def _tables(self, index: dict[str, Any]) -> dict[str, Any]:
        res = self.res
        probes = pd.DataFrame(unpack(index["probes"]))
        calls = pd.DataFrame(unpack(index["calls"]))
        res.preload(probes=probes, calls=calls)
        final = res.probes
        out: dict[str, Any] = {"units": _units(res), "model": res.model_label, "answer_warning": res.answer_warning,
                               "provenance": {k: _jsonable(v) for k, v in res.provenance().items()},
                               "components": res.components(), "headline": res.headline_metrics(),
                               "intervals": res.intervals.caption()}
        if final.empty:
            return out
        summary = res.summary()
        out["summary"] = frame_json(summary, "strategy")
        out["summary_answer_columns"] = list(summary.attrs.get("answer_columns", []))
        out["metrics"] = frame_json(res.metrics_table())
        scope = final.assign(evidence_scope=final["evidence_scope"].fillna("none") if "evidence_scope" in final else "none")
        means = [c for c in res.headline_metrics() if c in scope and pd.api.types.is_numeric_dtype(scope[c])]
        if means:
            grouped = scope.groupby(["strategy", "evidence_scope"])[means]
            table = grouped.mean().join(grouped.count().add_suffix(":n")).reset_index()
            out["scope"] = frame_json(table)
        return out


def _probe_range(run_dir: str, start: int, end: int | None) -> tuple[list[dict[str, Any]], int, int, list[tuple[str, int, str]]]:
    """A worker process's share of the probes (:meth:`Builder.probe_rows`), with its problems."""
    b = Builder(run_dir)
    rows, pos, lines = b.probe_rows(start, end)
    return rows, pos, lines, b.problems


def _has(rec: dict[str, Any], *fields: str) -> bool:
    return all(isinstance(rec.get(f), str) and rec.get(f) for f in fields)


def _units(res: Any) -> dict[str, Any]:
    """How far the run got: units ended ok / failed / planned, and its status."""
    ends = list(res.unit_ends.values())
    total = (res.manifest.get("units") or {}).get("total")
    return {"status": res.manifest.get("status"), "ok": sum(r.get("status", "ok") == "ok" for r in ends),
            "failed": sum(r.get("status") == "failed" for r in ends), "total": total}


# ---- the cached file ---------------------------------------------------------------------------

def _path(run_dir: Path) -> Path:
    return index_dir(run_dir) / "index.json"


def read_cached(run_dir: str | Path) -> dict[str, Any] | None:
    """The cached index, if there is one of this format (anything else: None, so it is rebuilt)."""
    path = _path(Path(run_dir))
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("format") != "memlab-view-index" or not _well_formed(data):
        return None
    return data


def _well_formed(data: dict[str, Any]) -> bool:
    """The index's tables are columns of equal length with integer offsets (a hand-edited or
    truncated file is rebuilt, never trusted)."""
    try:
        for stream in INDEXED:
            cols = unpack(data[stream])
            off = cols.get("_off")
            if off is not None and (not isinstance(off, np.ndarray) or (len(off) and off.min() < 0)):
                return False
        return isinstance(data.get("marks"), dict) and isinstance(data.get("tables"), dict)
    except (KeyError, TypeError, AttributeError, ValueError, binascii.Error):
        return False


def is_fresh(index: dict[str, Any] | None, run_dir: str | Path) -> bool:
    """The index describes the run's files as they are now, with this memlab's scoring."""
    if not index or index.get("key") != _key():
        return False
    marks, now = index.get("marks") or {}, current_marks(Path(run_dir))
    return all((marks.get(s) or {}).get("size") == now[s]["size"] for s in WATCHED) and marks.get("manifest") == now["manifest"]


def build_index(run_dir: str | Path, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Build or extend the run's index now, in this process, and write it; returns it."""
    run_dir = Path(run_dir)
    where = index_dir(run_dir)
    where.mkdir(parents=True, exist_ok=True)
    with open(where / "lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder per run folder; a second waits and finds it fresh
        old = read_cached(run_dir)
        if is_fresh(old, run_dir):
            return old  # type: ignore[return-value]
        index = Builder(run_dir, progress).build(old)
        tmp = where / f"index.{os.getpid()}.tmp"
        tmp.write_bytes(orjson.dumps(index, option=orjson.OPT_SERIALIZE_NUMPY))
        os.replace(tmp, where / "index.json")
        return index


def ensure_index(run_dir: str | Path, *, echo: Callable[[str], None] | None = None, timeout: float | None = None) -> dict[str, Any]:
    """The run's index, fresh: read from the cache, else built (or extended) in a child process so
    this process never holds a batch of contexts; the child's progress lines go to ``echo``."""
    run_dir = Path(run_dir)
    cached = read_cached(run_dir)
    if is_fresh(cached, run_dir):
        return cached  # type: ignore[return-value]
    env = dict(os.environ)
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").exists():  # a source checkout: the child imports this memlab, as the parent did
        env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.Popen([sys.executable, "-m", "memlab.view.index", str(run_dir)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, text=True, errors="replace")
    tail: list[str] = []
    assert proc.stderr is not None
    for line in proc.stderr:
        line = line.rstrip("\n")
        tail = (tail + [line])[-20:]
        if echo and line.startswith("index: "):
            echo(line)
    if proc.wait(timeout=timeout) != 0:
        detail = "; ".join(x for x in tail if x.strip() and not x.startswith("index: "))[-600:]
        raise ViewIndexError(f"{run_dir}: could not index the run ({detail or f'exit {proc.returncode}'})")
    index = read_cached(run_dir)
    if index is None:
        raise ViewIndexError(f"{run_dir}: the index was not written to {_path(run_dir)}")
    return index


def main(argv: list[str] | None = None) -> int:
    """``python -m memlab.view.index RUN_DIR``: build or extend the index; progress on stderr."""
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 1:
        print("usage: python -m memlab.view.index RUN_DIR", file=sys.stderr)
        return 2
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    try:
        index = build_index(args[0], progress=lambda msg: print(f"index: {msg}", file=sys.stderr, flush=True))
    except (OSError, ValueError) as exc:
        from memlab.redact import redact_text

        print(f"{redact_text(str(exc))}", file=sys.stderr)
        return 1
    print(f"index: ready ({index['probes']['n']:,} probe records, {index.get('built_s', 0):.1f} s)",
          file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
