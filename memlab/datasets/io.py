"""Reading native datasets (YAML or JSON) with errors that name file, line and field.

Problems are collected, not raised one at a time: ``validate_file`` returns every schema and
consistency problem it finds, each with the JSON path and the line in the source file, so
a dataset author fixes them in one pass. ``load_dataset`` raises :class:`DatasetError`
holding that list.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from memlab.datasets.models import Category, Dataset


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a dataset file."""

    file: str
    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.path or '<root>'}: {self.message}"


class DatasetError(ValueError):
    """A dataset failed to load; ``problems`` lists every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        head = "\n".join(f"  {p}" for p in problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"{len(problems)} problem(s) in dataset:\n{head}{more}")


class _StringTimestampLoader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as strings so pydantic reports bad ones by field."""


_StringTimestampLoader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}


def _line_map(node: yaml.Node, path: tuple[Any, ...] = (), out: dict | None = None) -> dict[tuple, int]:
    out = {} if out is None else out
    out[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            _line_map(value_node, path + (key_node.value,), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _line_map(item, path + (i,), out)
    return out


def _fmt_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _line_for(lines: dict[tuple, int], loc: tuple[Any, ...]) -> int | None:
    loc = tuple(loc)
    while loc:
        if loc in lines:
            return lines[loc]
        loc = loc[:-1]
    return lines.get(())


def read_raw(path: str | Path) -> tuple[Any, dict[tuple, int]]:
    """Parse a YAML/JSON file into Python data plus a path → line map."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        node = yaml.compose(text, Loader=_StringTimestampLoader)
        data = yaml.load(text, Loader=_StringTimestampLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        raise DatasetError([Problem(str(path), "", line, f"not valid YAML/JSON: {getattr(exc, 'problem', exc)}")]) from exc
    return data, (_line_map(node) if node is not None else {})


def check_consistency(ds: Dataset, file: str, lines: dict[tuple, int]) -> list[Problem]:
    """Cross-field checks pydantic cannot express: ids, ordering, evidence."""
    problems: list[Problem] = []

    def add(loc: tuple[Any, ...], msg: str) -> None:
        problems.append(Problem(file, _fmt_path(loc), _line_for(lines, loc), msg))

    conv_ids: dict[str, int] = {}
    for ci, conv in enumerate(ds.conversations):
        cloc = ("conversations", ci)
        if conv.id in conv_ids:
            add(cloc + ("id",), f"duplicate conversation id {conv.id!r} (also conversations[{conv_ids[conv.id]}])")
        conv_ids.setdefault(conv.id, ci)
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
                else:
                    order[turn.id] = n
                n += 1
                if turn.timestamp is not None and _naive(turn.timestamp) < _naive(session.timestamp):
                    add(tloc + ("timestamp",), "turn timestamp is before its session's timestamp")
        probe_ids: set[str] = set()
        for pi, probe in enumerate(conv.probes):
            ploc = cloc + ("probes", pi)
            if probe.id in probe_ids:
                add(ploc + ("id",), f"duplicate probe id {probe.id!r}")
            probe_ids.add(probe.id)
            at = order.get(probe.after_turn)
            if at is None:
                add(ploc + ("after_turn",), f"unknown turn id {probe.after_turn!r}")
            for ei, ev in enumerate(probe.evidence):
                if ev not in order:
                    add(ploc + ("evidence", ei), f"unknown evidence turn id {ev!r}")
                elif at is not None and order[ev] > at:
                    add(ploc + ("evidence", ei), f"probe is asked after turn {probe.after_turn!r}, before its evidence {ev!r}")
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
    return problems


def _naive(ts):  # compare aware and naive timestamps without raising
    return ts.replace(tzinfo=None)


def validate_file(path: str | Path) -> tuple[Dataset | None, list[Problem]]:
    """Parse and check a native dataset file; return the dataset (if it parsed) and all problems."""
    file = str(path)
    try:
        data, lines = read_raw(path)
    except DatasetError as exc:
        return None, exc.problems
    except OSError as exc:
        return None, [Problem(file, "", None, f"cannot read file: {exc}")]
    if not isinstance(data, dict):
        return None, [Problem(file, "", 1, "top level must be a mapping with name and conversations")]
    try:
        ds = Dataset.model_validate(data)
    except ValidationError as exc:
        problems = [
            Problem(file, _fmt_path(err["loc"]), _line_for(lines, err["loc"]), _pydantic_msg(err))
            for err in exc.errors()
        ]
        return None, problems
    return ds, check_consistency(ds, file, lines)


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
    """Load a dataset file of any supported format; raise :class:`DatasetError` listing problems.

    Native YAML/JSON is checked strictly. Public benchmark files (LoCoMo, LongMemEval) are
    recognised by shape and converted by :mod:`memlab.datasets.loaders`.
    """
    from memlab.datasets import loaders  # local: loaders import this module

    converted = loaders.try_convert(path)
    if converted is not None:
        return converted
    ds, problems = validate_file(path)
    if problems or ds is None:
        raise DatasetError(problems)
    return ds


def dataset_hash(ds: Dataset) -> str:
    """Content hash of the dataset (formatting-independent): sha256 of canonical JSON."""
    canon = json.dumps(ds.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canon.encode("utf-8")).hexdigest()


def write_dataset(ds: Dataset, path: str | Path) -> None:
    """Write a dataset as YAML (block style, stable key order, defaults omitted)."""
    data = ds.model_dump(mode="json", exclude_defaults=True)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        yaml.safe_dump(data, fh, sort_keys=False, allow_unicode=True, width=110)


def json_schema() -> dict[str, Any]:
    return Dataset.model_json_schema()
