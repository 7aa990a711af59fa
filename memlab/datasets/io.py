"""Loading and checking a dataset file of any supported format, with every problem reported at once.

``check_file`` is the one path every loader takes: read and parse the file once
(:mod:`memlab.datasets.source`), decide its format by the shape of the data
(:mod:`memlab.datasets.loaders`), reject strings no backend can store
(:mod:`memlab.datasets.storable`), then validate a native dataset strictly (schema, then
cross-field consistency) or convert a public benchmark leniently. Problems are collected, not
raised one at a time, each with the file, the line and the JSON path, so a dataset author fixes
them in one pass. ``validate_file`` returns them; ``load_dataset`` raises :class:`DatasetError`
holding them.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

import memlab.datasets.loaders as loaders
from memlab.datasets.models import Category, Dataset
from memlab.datasets.problems import DatasetError, FormatNotRecognised, Problem, format_path
from memlab.datasets.source import Source, read_source
from memlab.datasets.storable import unstorable_strings

__all__ = ["DatasetError", "FormatNotRecognised", "Problem", "check_consistency", "check_file", "dataset_hash",
           "load_dataset", "validate_file", "write_dataset", "write_dataset_file"]

LineFor = Callable[[tuple[Any, ...]], "int | None"]


def check_consistency(ds: Dataset, file: str, line_for: LineFor | None = None) -> list[Problem]:
    """Cross-field checks pydantic cannot express: ids, ordering, evidence (``line_for`` maps a path to its line).

    Conversations that share a namespace are the **threads** of one user, played in dataset order:
    a later thread starts with empty short-term memory and only long-term memory carries over. So
    turn ids are unique per user (not only per thread), a probe's evidence may name turns of an
    earlier thread of the same user (never of a later thread, nor of another user), and a user's
    threads do not go back in time."""
    problems: list[Problem] = []

    def add(loc: tuple[Any, ...], msg: str) -> None:
        problems.append(Problem(file, format_path(loc), line_for(loc) if line_for else None, msg))

    split = ds.meta.get("split")
    if split is not None and split not in ("dev", "eval"):
        add(("meta", "split"), f"split {split!r} must be 'dev' (for developing the offline model and rules) or "
                               "'eval' (for reporting results)")
    conv_ids: dict[str, int] = {}
    # per user (namespace): turn id -> (conversation index, conversation id); the last timestamp so far
    user_turns: dict[str, dict[str, tuple[int, str]]] = {}
    user_last_ts: dict[str, tuple[Any, str]] = {}
    # every turn id of every user, to name the owner of evidence cited from another user
    owners: dict[str, set[str]] = {}
    for conv in ds.conversations:
        for _, turn in conv.turns():
            owners.setdefault(turn.id, set()).add(conv.ns)
    for ci, conv in enumerate(ds.conversations):
        cloc = ("conversations", ci)
        if conv.id in conv_ids:
            add(cloc + ("id",), f"duplicate conversation id {conv.id!r} (also conversations[{conv_ids[conv.id]}])")
        conv_ids.setdefault(conv.id, ci)
        earlier = user_turns.setdefault(conv.ns, {})
        if conv.ns in user_last_ts and _naive(conv.sessions[0].timestamp) < _naive(user_last_ts[conv.ns][0]):
            add(cloc + ("sessions", 0, "timestamp"),
                f"thread {conv.id!r} of user {conv.ns!r} starts ({conv.sessions[0].timestamp.isoformat()}) before the "
                f"user's previous thread {user_last_ts[conv.ns][1]!r} ended; a user's threads are played in dataset order")
        order: dict[str, int] = {}
        session_ids: set[str] = set()
        prev_ts = None
        n = 0
        for si, session in enumerate(conv.sessions):
            sloc = cloc + ("sessions", si)
            if session.id in session_ids:
                add(sloc + ("id",), f"duplicate session id {session.id!r}")
            session_ids.add(session.id)
            if prev_ts is not None and _naive(session.timestamp) < _naive(prev_ts):
                add(sloc + ("timestamp",), f"session timestamp {session.timestamp.isoformat()} is earlier than the previous session's")
            prev_ts = session.timestamp
            for ti, turn in enumerate(session.turns):
                tloc = sloc + ("turns", ti)
                if turn.id in order:
                    add(tloc + ("id",), f"duplicate turn id {turn.id!r} in conversation {conv.id!r}")
                elif turn.id in earlier:
                    add(tloc + ("id",), f"turn id {turn.id!r} is used twice by user {conv.ns!r} (also in thread "
                                        f"{earlier[turn.id][1]!r}); turn ids are unique per user, so that evidence "
                                        "can name a turn of an earlier thread")
                    order[turn.id] = n
                else:
                    order[turn.id] = n
                n += 1
                if turn.timestamp is not None and _naive(turn.timestamp) < _naive(session.timestamp):
                    add(tloc + ("timestamp",), "turn timestamp is before its session's timestamp")
        last = conv.sessions[-1]
        user_last_ts[conv.ns] = (max([last.timestamp, *(t.timestamp for t in last.turns if t.timestamp)], key=_naive), conv.id)
        probe_ids: set[str] = set()
        for pi, probe in enumerate(conv.probes):
            ploc = cloc + ("probes", pi)
            if probe.id in probe_ids:
                add(ploc + ("id",), f"duplicate probe id {probe.id!r}")
            probe_ids.add(probe.id)
            at = order.get(probe.after_turn)
            if at is None:
                add(ploc + ("after_turn",), f"unknown turn id {probe.after_turn!r}" + (
                    f" in this thread (it is a turn of thread {earlier[probe.after_turn][1]!r}; a probe is asked in "
                    "its own thread)" if probe.after_turn in earlier else ""))
            for ei, ev in enumerate(probe.evidence):
                if ev in order:
                    if at is not None and order[ev] > at:
                        add(ploc + ("evidence", ei), f"probe is asked after turn {probe.after_turn!r}, before its evidence {ev!r}")
                elif ev in earlier:
                    pass  # a turn of an earlier thread of the same user: long-term memory may carry it
                elif conv.ns in owners.get(ev, ()):
                    later = next(c.id for c in ds.conversations[ci + 1:] if c.ns == conv.ns and ev in _turn_ids(c))
                    add(ploc + ("evidence", ei), f"evidence {ev!r} is a turn of a later thread ({later!r}) of user "
                                                 f"{conv.ns!r}; a probe can only cite turns said before it")
                elif ev in owners:
                    add(ploc + ("evidence", ei), f"evidence {ev!r} is a turn of another user "
                                                 f"({', '.join(sorted(owners[ev]))}), not of {conv.ns!r}; memory never "
                                                 "crosses users")
                else:
                    add(ploc + ("evidence", ei), f"unknown evidence turn id {ev!r}")
            if probe.abstain:
                if probe.gold:
                    add(ploc + ("gold",), "an abstention probe (abstain: true) must not have gold answers")
            else:
                if not probe.gold:
                    add(ploc + ("gold",), "probe needs at least one gold answer (or abstain: true)")
                if probe.category == Category.abstention:
                    add(ploc + ("abstain",), "category abstention requires abstain: true")
            # converted benchmarks (original_category set) often do not name the old value
            if (probe.category == Category.knowledge_update and not probe.superseded and not probe.abstain
                    and probe.original_category is None):
                add(ploc + ("superseded",), "knowledge_update probe should list the superseded value(s)")
            gold_forms = {f.lower() for g in probe.gold for f in g.forms()}
            for si_, stale in enumerate(probe.superseded):
                if stale.lower() in gold_forms:
                    add(ploc + ("superseded", si_), f"superseded value {stale!r} is also a gold answer")
        for tid in order:
            earlier.setdefault(tid, (ci, conv.id))
    return problems


def _turn_ids(conv: Any) -> set[str]:
    return {t.id for s in conv.sessions for t in s.turns}


def _naive(ts):  # compare aware and naive timestamps without raising
    return ts.replace(tzinfo=None)


def check_file(path: str | Path, warnings: list[Problem] | None = None) -> tuple[Dataset | None, list[Problem]]:
    """Read, recognise and check a dataset file; return the dataset (if it could be built) and every problem.

    Raises :class:`FormatNotRecognised` when the file parses but is in no known format (folder scans
    skip those), and :class:`DatasetError` when it cannot be read or parsed at all. A turn above
    :data:`~memlab.datasets.limits.TURN_MAX_BYTES` is a problem; ``warnings``, when given, gets
    what is legal but suspicious (a turn above :data:`~memlab.datasets.limits.TURN_WARN_BYTES`).
    """
    from memlab.datasets.limits import TURN_MAX_BYTES, TURN_WARN_BYTES, oversized_turns

    source = read_source(path)
    fmt = loaders.detect(source.data)
    if fmt is None:
        raise loaders.not_recognised(source.file, source.data)
    problems = [Problem(source.file, format_path(loc), source.line_for(loc), msg)
                for loc, msg in unstorable_strings(source.data)]
    ds, more = _check_native(source) if fmt == loaders.NATIVE else _convert(source, fmt)
    if ds is not None:
        line_for = source.line_for if fmt == loaders.NATIVE else None
        more += oversized_turns(ds, source.file, line_for, TURN_MAX_BYTES)
        if warnings is not None:
            too_long = {p.path for p in more}
            warnings += [w for w in oversized_turns(ds, source.file, line_for, TURN_WARN_BYTES) if w.path not in too_long]
    return ds, problems + more


def validate_file(path: str | Path) -> tuple[Dataset | None, list[Problem]]:
    """Like :func:`check_file`, but every failure is returned as problems (never raised)."""
    try:
        return check_file(path)
    except DatasetError as exc:
        return None, exc.problems


def _check_native(source: Source) -> tuple[Dataset | None, list[Problem]]:
    try:
        ds = Dataset.model_validate(source.data)
    except ValidationError as exc:
        return None, [Problem(source.file, format_path(err["loc"]), source.line_for(err["loc"]), _pydantic_msg(err))
                      for err in exc.errors()]
    return ds, check_consistency(ds, source.file, source.line_for)


def _convert(source: Source, fmt: str) -> tuple[Dataset | None, list[Problem]]:
    """Convert a public-benchmark file leniently; repairs are logged, unconvertible records are problems."""
    try:
        ds, repairs = loaders.FORMATS.get(fmt).convert(source.data, Path(source.file).name)
    except loaders.ConversionError as exc:
        return None, exc.problems(source)
    loaders.log_repairs(logging.getLogger(f"memlab.datasets.{fmt}"), source.file, loaders.FORMATS.get(fmt).label, repairs)
    return ds, []


def _pydantic_msg(err: dict[str, Any]) -> str:
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        return "unknown field"
    if err["type"] == "enum":
        return f"{msg} (got {err.get('input')!r})"
    if "datetime" in err["type"]:
        return f"bad timestamp {err.get('input')!r}: {msg}"
    return msg


def load_dataset(path: str | Path) -> Dataset:
    """Load a dataset file of any supported format; raise :class:`DatasetError` listing every problem.

    Native YAML/JSON is checked strictly. Public benchmark files (LoCoMo, LongMemEval) are
    recognised by the shape of their data and converted (:mod:`memlab.datasets.loaders`).
    """
    ds, problems = check_file(path)
    if problems or ds is None:
        raise DatasetError(problems)
    return ds


def dataset_hash(ds: Dataset) -> str:
    """Content hash of the dataset (formatting-independent): sha256 of canonical JSON of what the
    file says — fields left at their defaults are omitted, so adding an optional field to the schema
    does not move the hash of data that does not use it."""
    canon = json.dumps(ds.model_dump(mode="json", exclude_defaults=True), sort_keys=True, separators=(",", ":"),
                       ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canon.encode("utf-8")).hexdigest()


DATASET_SUFFIXES = (".yaml", ".yml", ".json")
"""What a dataset file is written as: YAML, or JSON for ``.json``; any other name is refused, so
that a ``--out x.txt`` does not write YAML into a ``.txt`` that no folder scan reads."""


def check_dataset_path(path: str | Path) -> Path:
    """``path`` if it names a file memlab writes datasets as (:data:`DATASET_SUFFIXES`), else ValueError."""
    path = Path(path)
    if path.suffix.lower() not in DATASET_SUFFIXES:
        raise ValueError(f"{path}: a dataset is written as YAML (.yaml, .yml) or JSON (.json), chosen by the name; "
                         f"{'no extension' if not path.suffix else repr(path.suffix)} names neither")
    return path


def write_dataset(ds: Dataset, path: str | Path) -> None:
    """Write a dataset as YAML (block style, stable key order, defaults omitted), atomically."""
    from memlab.atomic import atomic_write

    data = ds.model_dump(mode="json", exclude_defaults=True)
    with atomic_write(check_dataset_path(path)) as fh:
        yaml.safe_dump(data, fh, sort_keys=False, allow_unicode=True, width=110)


def write_dataset_file(ds: Dataset, path: str | Path) -> None:
    """Write a (possibly large) dataset quickly: JSON for ``.json``, else YAML with libyaml's dumper
    when available (defaults omitted, key order kept).

    Atomically (:mod:`memlab.atomic`): a kill or a full disk leaves the old file, never a truncated
    one that still validates with fewer threads and probes; ``path`` may be the file the dataset
    was read from."""
    from memlab.atomic import atomic_write

    path = check_dataset_path(path)
    data = ds.model_dump(mode="json", exclude_defaults=True)
    with atomic_write(path) as fh:
        if path.suffix.lower() == ".json":
            fh.write(json.dumps(data, ensure_ascii=False, indent=1))
        else:
            yaml.dump(data, fh, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False,
                      allow_unicode=True, width=110)

