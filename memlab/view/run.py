"""The runs a viewer shows: each run's index as frames, its records read by offset, refreshed when
the run folder grows.

A :class:`ViewedRun` holds the light frames of one run (probes with their scores, calls, where each
unit's turns and memory operations lie) and a :class:`~memlab.analysis.results.RunResults` given
them, so comparisons and flips are computed by the same code as ``memlab report`` and ``memlab
check``. :class:`Runs` keeps every run of a viewer and re-reads one whose files changed (a run
still being written shows what is recorded so far; a page reload shows more).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.analysis.results import RunResults
from memlab.runfolder.records import read_manifest
from memlab.view.index import ViewIndexError, current_marks, ensure_index, read_line, unpack

RECHECK_S = 2.0
"""A run's files are looked at (sizes only) at most this often."""


class ViewedRun:
    """One run folder as the pages read it."""

    def __init__(self, path: Path, index: dict[str, Any], label: str) -> None:
        self.path = path
        self.label = label
        self.manifest = read_manifest(path / "manifest.json")
        self.key, self.marks = index["key"], index["marks"]
        self.problems: list[str] = list(index.get("problems") or [])
        self.tables: dict[str, Any] = index.get("tables") or {}
        # each table leaves the index as it becomes a frame: the server's peak memory is one copy
        self.res = RunResults(path, self.manifest).preload(probes=pd.DataFrame(unpack(index.pop("probes"))))
        self.probes = self.res.probes
        final = self.res.final_attempts
        self.calls_at = _offsets(unpack(index.pop("calls")), final, key="probe_id")
        self.turns_at = _offsets(unpack(index.pop("turns")), final)
        self.ops_at = _offsets(unpack(index.pop("memory_ops")), final)
        texts = index.pop("texts", None) or {}
        self.text_notes: list[str] = list(texts.get("notes") or [])
        self.texts = pd.DataFrame((texts.get("turns") or {}))
        self._by_probe: dict[tuple[str, str, str], np.ndarray] | None = None
        self._search: pd.Series | None = None

    def warm(self) -> None:
        """Compute in the background what the first comparison would wait for (every probe's
        indicators: ``RunResults.ceilings`` computes them)."""
        try:
            self.res.ceilings()
        except Exception:  # a page that needs them computes them again and says what failed
            pass

    @property
    def strategies(self) -> list[str]:
        seen = list(self.res.strategies)
        return seen + sorted(set(self.probes["strategy"]) - set(seen)) if not self.probes.empty else seen

    def rows_of(self, dataset: str, conversation_id: str, probe_id: str) -> pd.DataFrame:
        """The probe's rows, one per strategy (in the run's strategy order)."""
        if self._by_probe is None:
            keys = self.probes[["dataset", "conversation_id", "probe_id"]].astype(str)
            self._by_probe = {k: np.asarray(v) for k, v in keys.groupby(list(keys.columns)).indices.items()}
        idx = self._by_probe.get((str(dataset), str(conversation_id), str(probe_id)))
        if idx is None:
            return self.probes.iloc[0:0]
        rows = self.probes.iloc[idx]
        order = {s: i for i, s in enumerate(self.strategies)}
        return rows.iloc[np.argsort([order.get(s, len(order)) for s in rows["strategy"]], kind="stable")]

    def search_text(self) -> pd.Series:
        """Per probe row, the lower-cased text a search looks in: question, answer, gold forms, ids."""
        if self._search is None:
            p = self.probes

            def gold(v: Any) -> str:
                return " ".join(str(f) for forms in v for f in forms) if isinstance(v, list) else ""

            parts = [p[c].map(lambda v: "" if v is None or (isinstance(v, float) and v != v) else str(v))
                     for c in ("question", "answer", "probe_id", "conversation_id") if c in p]
            if "gold" in p:
                parts.append(p["gold"].map(gold))
            text = parts[0] if parts else pd.Series("", index=p.index)
            for part in parts[1:]:
                text = text + "\n" + part
            self._search = text.str.lower()
        return self._search

    def record(self, row: pd.Series | dict[str, Any]) -> dict[str, Any]:
        """A probe's whole record (context included), read from ``probes.jsonl`` at its offset."""
        rec = read_line(self.path / "probes.jsonl", int(row["_off"]), int(row["_len"]))
        if rec.get("probe_id") != row["probe_id"] or rec.get("attempt") != row["attempt"]:
            raise ViewIndexError(f"{self.path / 'probes.jsonl'}: the record at byte {int(row['_off'])} is not probe "
                              f"{row['probe_id']} (the file changed since it was indexed; reload the page)")
        return rec

    def records(self, stream: str, offsets: np.ndarray) -> list[dict[str, Any]]:
        """The records of a stream at these (offset, length) pairs, in order, from one open file."""
        out: list[dict[str, Any]] = []
        if len(offsets) == 0:
            return out
        path = self.path / f"{stream}.jsonl"
        with open(path, "rb") as fh:
            import orjson

            for off, n in offsets:
                fh.seek(int(off))
                try:
                    rec = orjson.loads(fh.read(int(n)))
                except orjson.JSONDecodeError:
                    raise ViewIndexError(f"{path}: no record at byte {int(off)} (the file changed since it was indexed; "
                                      "reload the page)") from None
                out.append(rec)
        return out

    def unit_attempt(self, strategy: str, dataset: str, namespace: str) -> str | None:
        """The final attempt of a unit (strategy × dataset × user), if it finished ok."""
        rec = self.res.unit_ends.get((strategy, dataset, namespace))
        return rec["attempt"] if rec and rec.get("status", "ok") == "ok" else None

    def threads_of(self, strategy: str, dataset: str, namespace: str) -> list[str]:
        """A user's conversations (threads) in the order they were played."""
        rec = self.res.unit_ends.get((strategy, dataset, namespace)) or {}
        return [str(c) for c in rec.get("conversation_ids") or [rec.get("conversation_id")] if c is not None]

    def text_of(self, dataset: str, namespace: str) -> pd.DataFrame:
        """The dataset turns of one user (empty when the dataset's text is not available)."""
        t = self.texts
        if t.empty:
            return t
        return t[(t["dataset"] == dataset) & (t["namespace"] == namespace)]


def _offsets(cols: dict[str, Any], final: set[str], key: str | None = None) -> dict[Any, np.ndarray]:
    """Per final attempt (or per (attempt, ``key``) for records that have one), the (offset,
    length) of its records, in file order."""
    attempts = np.asarray(cols.get("attempt", []), dtype=object)
    if not len(attempts):
        return {}
    keep = np.isin(attempts, list(final))
    keys = np.asarray(cols[key], dtype=object) if key else None
    if keys is not None:
        keep &= keys != None  # noqa: E711  (elementwise: records without the key)
    pairs = np.stack([np.asarray(cols["_off"], dtype=np.int64), np.asarray(cols["_len"], dtype=np.int64)], axis=1)[keep]
    groups = list(zip(attempts[keep], keys[keep])) if keys is not None else attempts[keep].tolist()
    out: dict[Any, list[int]] = {}
    for i, g in enumerate(groups):
        out.setdefault(g, []).append(i)
    return {g: pairs[idx] for g, idx in out.items()}


class Runs:
    """The viewer's runs, in the order given, each re-read when its folder changed."""

    def __init__(self, paths: list[str | Path], echo: Callable[[str], None] | None = None) -> None:
        self.paths = [Path(p) for p in paths]
        for p in self.paths:
            if not (p / "manifest.json").is_file():
                raise FileNotFoundError(f"{p} is not a memlab run folder (no manifest.json)")
        seen: set[Path] = set()
        for p in self.paths:
            if p.resolve() in seen:
                raise ValueError(f"{p}: run folder given twice")
            seen.add(p.resolve())
        self.echo = echo
        self._runs: list[ViewedRun | None] = [None] * len(self.paths)
        self._checked = [0.0] * len(self.paths)
        self._locks = [threading.Lock() for _ in self.paths]
        names = [read_manifest(p / "manifest.json").get("name") or p.name for p in self.paths]
        unique = len(set(names)) == len(names)
        self.labels = [str(n) if unique else p.name for n, p in zip(names, self.paths)]

    def __len__(self) -> int:
        return len(self.paths)

    def load_all(self) -> None:
        for i in range(len(self.paths)):
            self.get(i)

    def get(self, i: int) -> ViewedRun:
        """Run ``i``, its index brought up to date first when its files changed."""
        if not 0 <= i < len(self.paths):
            raise KeyError(f"no run {i} (this viewer shows {len(self.paths)})")
        with self._locks[i]:
            run, now = self._runs[i], time.monotonic()
            if run is not None and now - self._checked[i] < RECHECK_S:
                return run
            self._checked[i] = now
            if run is not None and _same(run.marks, current_marks(self.paths[i])):
                return run
            label = self.labels[i]
            if self.echo:
                self.echo(f"{label}: reading {self.paths[i]}")
            index = ensure_index(self.paths[i], echo=self.echo)
            run = self._runs[i] = ViewedRun(self.paths[i], index, label)
            del index
            threading.Thread(target=run.warm, daemon=True).start()
            return run


def _same(marks: dict[str, Any], now: dict[str, Any]) -> bool:
    return all((marks.get(s) or {}).get("size") == (now.get(s) or {}).get("size") for s in now if s != "manifest") \
        and marks.get("manifest") == now.get("manifest")
