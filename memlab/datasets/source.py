"""Reading a dataset file into Python data: one fast, strict parse, line numbers only on demand.

Dataset files range from hand-written YAML to benchmark JSON of hundreds of megabytes, so:

* the bytes are decoded as UTF-8 once (a BOM is accepted); a bad byte is reported with its line
  and column instead of a bare ``UnicodeDecodeError``.
* JSON (a ``.json`` file, or content that starts with ``{`` / ``[`` and parses as JSON) is read
  with :mod:`json`, not as YAML: YAML rejects tab indentation and surrogate-pair escapes that are
  valid JSON, and the YAML parser is far slower.
* YAML is parsed once, by libyaml (``yaml.CSafeLoader``, the pure-Python loader only where libyaml
  is missing), with timestamps kept as strings so that pydantic reports a bad one by field.
* Both reject **duplicate keys** (YAML and ``json`` would silently keep the last one).
* YAML **aliases** (``*ref``) may add at most :data:`MAX_ALIAS_EXPANSION` nodes to the data in
  total, and may not refer to their own ancestors. A few kilobytes of nested aliases (a "billion
  laughs" file) otherwise expand to gigabytes in anything that walks the data (validation, line
  maps). Aliases are not banned outright because PyYAML's dumper writes them for repeated lists,
  as in ``datasets/suites/preference.yaml``; datasets have no use for more than that.
* Line numbers of data paths are computed only when a problem has to be reported
  (:meth:`Source.line_for`): the YAML is composed again, or the JSON text is re-scanned along that
  one path, so loading a valid file pays nothing for them.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from json.decoder import scanstring
from pathlib import Path
from typing import Any

import yaml

from memlab.datasets.problems import DatasetError, Problem

_YamlBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"

# Nodes that aliases may add to a dataset in total (each use of an alias adds the size of what it
# refers to, nested aliases expanded). Repeated alias lists in a real dataset add a few dozen;
# a 2.6 KB alias bomb adds about a billion.
MAX_ALIAS_EXPANSION = 100_000


class _AliasBomb(Exception):
    """Raised inside the YAML constructor when aliases expand too far, or refer to their own ancestor."""


class _DatasetYamlLoader(_YamlBase):  # type: ignore[misc, valid-type]
    """libyaml SafeLoader that keeps timestamps as strings, bounds alias expansion and records duplicate keys.

    A node reached a second time during construction can only come from an alias, so aliases cost
    nothing to detect on the happy path; only then is the size of the aliased subtree counted
    (memoised over the node graph, which libyaml keeps shared, so even a bomb is counted in linear
    time). Duplicate keys are collected rather than raised, so every one of them is reported.
    """

    yaml_implicit_resolvers = {
        key: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP_TAG]
        for key, resolvers in _YamlBase.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicate_keys: list[tuple[Any, yaml.Mark, yaml.Mark]] = []  # (key, where, first seen)
        self._alias_added = 0
        self._sizes: dict[yaml.Node, int] = {}

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node in self.recursive_objects:
            raise _AliasBomb()
        if node in self.constructed_objects:  # an alias
            self._alias_added += self._expanded_size(node, set()) - 1
            if self._alias_added > MAX_ALIAS_EXPANSION:
                raise _AliasBomb()
        return super().construct_object(node, deep=deep)

    def _expanded_size(self, node: yaml.Node, open_nodes: set[yaml.Node]) -> int:
        """Nodes in the tree under ``node`` with every alias written out (memoised; a cycle raises)."""
        if node in self._sizes:
            return self._sizes[node]
        if node in open_nodes:
            raise _AliasBomb()
        size = 1
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            open_nodes.add(node)
            children = node.value if isinstance(node, yaml.SequenceNode) else [n for pair in node.value for n in pair]
            for child in children:
                size += self._expanded_size(child, open_nodes)
                if size > MAX_ALIAS_EXPANSION:  # no need to count a bomb to the end
                    break
            open_nodes.discard(node)
        self._sizes[node] = size
        return size

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        mapping = super().construct_mapping(node, deep=deep)
        if len(mapping) < len(node.value):  # some key occurred twice
            first: dict[Any, yaml.Mark] = {}
            for key_node, _ in node.value:
                key = self.constructed_objects[key_node]
                if key in first:
                    self.duplicate_keys.append((key, key_node.start_mark, first[key]))
                else:
                    first[key] = key_node.start_mark
        return mapping


@dataclass
class Source:
    """A parsed dataset file: its text, its data, and the way back from a data path to a line.

    The structures behind :meth:`line_for` (YAML node tree, JSON child offsets, line starts) are
    built on the first call and kept, so reporting many problems costs one extra pass, not one each.
    """

    file: str
    text: str
    data: Any
    syntax: str  # "json" or "yaml"
    _yaml_root: yaml.Node | None = field(default=None, repr=False)
    _json_children: dict[int, dict[str | int, int]] = field(default_factory=dict, repr=False)
    _line_starts: list[int] | None = field(default=None, repr=False)

    def line_for(self, loc: tuple[Any, ...]) -> int | None:
        """1-based line of the value at ``loc`` (keys and list indexes), or of its deepest existing parent."""
        if self.syntax == "json":
            return self._line_at(self._json_position(loc))
        if self._yaml_root is None:
            self._yaml_root = yaml.compose(self.text, Loader=_YamlBase)
        node = self._yaml_root
        for part in loc:
            child = None
            if isinstance(node, yaml.MappingNode):
                child = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(part)), None)
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
                child = node.value[part]
            if child is None:
                break
            node = child
        return node.start_mark.line + 1

    def _json_position(self, loc: tuple[Any, ...]) -> int:
        pos = _WS.match(self.text).end()
        for part in loc:
            children = self._json_children.get(pos)
            if children is None:
                children = self._json_children[pos] = {key: value for key, _, value in _json_members(self.text, pos)}
            if part not in children or isinstance(part, int) != (self.text[pos] == "["):
                break
            pos = children[part]
        return pos

    def _line_at(self, pos: int) -> int:
        if self._line_starts is None:
            self._line_starts = [m.end() for m in re.finditer("\n", self.text)]
        return bisect.bisect_right(self._line_starts, pos) + 1


def read_source(path: str | Path) -> Source:
    """Read and parse a dataset file; raise :class:`DatasetError` naming the file and line of any read problem."""
    file = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise DatasetError([Problem(file, "", None, f"cannot read file: {exc.strerror or exc}")]) from None
    text = _decode(raw, file)
    del raw
    looks_like_json = text.lstrip()[:1] in ("{", "[")
    if Path(path).suffix.lower() == ".json" or looks_like_json:
        try:
            return Source(file, text, _parse_json(text, file), "json")
        except DatasetError:
            if Path(path).suffix.lower() == ".json":
                raise
            # flow-style YAML also starts with { or [: read it as YAML below
    data = _parse_yaml(text, file)
    if data is None:
        raise DatasetError([Problem(file, "", None, "file is empty (no dataset in it)")])
    return Source(file, text, data, "yaml")


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = raw[exc.start:exc.end].hex(" ")
        raise DatasetError([Problem(file, "", line, f"not UTF-8: byte(s) {bad} at byte offset {exc.start} "
                                                    "(save the file as UTF-8)", column)]) from None


# ------------------------------------------------------------------------------------------- JSON

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _parse_json(text: str, file: str) -> Any:
    duplicates = False

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal duplicates
        obj = dict(pairs)
        if len(obj) < len(pairs):
            duplicates = True
        return obj

    try:
        data = json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as exc:
        raise DatasetError([Problem(file, "", exc.lineno, f"not valid JSON: {exc.msg}", exc.colno)]) from None
    except RecursionError:
        raise DatasetError([Problem(file, "", None, "not valid JSON: nested too deeply")]) from None
    if duplicates:
        found: list[tuple[str, int, int]] = []
        _json_duplicates(text, _WS.match(text).end(), found)
        raise DatasetError([
            Problem(file, "", _line_of_offset(text, pos), f"duplicate key {key!r} (first at line {_line_of_offset(text, first)})")
            for key, pos, first in found])
    return data


def _line_of_offset(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _json_members(text: str, pos: int) -> Iterator[tuple[str | int, int, int]]:
    """(key or index, position of the key or item, position of its value) for the container at ``pos``.

    Runs only on text that already parsed as JSON; values are skipped with the C decoder."""
    opener = text[pos]
    if opener not in "{[":
        return
    closer = "}" if opener == "{" else "]"
    pos = _WS.match(text, pos + 1).end()
    if text[pos] == closer:
        return
    index = 0
    while True:
        start = pos
        key: str | int = index
        if opener == "{":
            key, pos = scanstring(text, pos + 1)
            pos = _WS.match(text, _WS.match(text, pos).end() + 1).end()  # past the colon
        yield key, start, pos
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _WS.match(text, pos).end()
        if text[pos] != ",":
            return
        pos = _WS.match(text, pos + 1).end()
        index += 1


def _json_duplicates(text: str, pos: int, out: list[tuple[str, int, int]]) -> None:
    """Append (key, position, position of the first occurrence) for every repeated key in the tree at pos."""
    seen: dict[str | int, int] = {}
    for key, key_pos, value_pos in _json_members(text, pos):
        if text[pos] == "{":
            if key in seen:
                out.append((str(key), key_pos, seen[key]))
            else:
                seen[key] = key_pos
        if text[value_pos] in "{[":
            _json_duplicates(text, value_pos, out)


# ------------------------------------------------------------------------------------------- YAML


def parse_yaml(text: str, file: str) -> Any:
    """YAML text → data, as every memlab file is read (datasets and run configs alike): aliases
    bounded (:data:`MAX_ALIAS_EXPANSION`), duplicate keys refused, timestamps kept as strings; a
    problem raises :class:`DatasetError` naming the file, line and column."""
    return _parse_yaml(text, file)


def _parse_yaml(text: str, file: str) -> Any:
    loader = _DatasetYamlLoader(text)
    try:
        data = loader.get_single_data()
    except _AliasBomb:
        raise DatasetError([_alias_problem(text, file)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = "; ".join(str(s) for s in (exc.context, exc.problem) if s)
        raise DatasetError([Problem(file, "", mark.line + 1 if mark else None, f"not valid YAML: {what}",
                                    mark.column + 1 if mark else None)]) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (e.g. a raw control character)
        offset = len(text.encode("utf-8")[:exc.position].decode("utf-8", "ignore"))  # libyaml counts UTF-8 bytes
        what = f"not valid YAML: character {_char_name(exc.character)} is not allowed ({exc.reason})"
        raise DatasetError([Problem(file, "", _line_of_offset(text, offset), what)]) from None
    except yaml.YAMLError as exc:
        raise DatasetError([Problem(file, "", None, f"not valid YAML: {exc}")]) from None
    except RecursionError:
        raise DatasetError([Problem(file, "", None, "not valid YAML: nested too deeply")]) from None
    finally:
        loader.dispose()
    if loader.duplicate_keys:
        raise DatasetError([Problem(file, "", where.line + 1, f"duplicate key {key!r} (first at line {first.line + 1})",
                                    where.column + 1) for key, where, first in loader.duplicate_keys])
    return data


def _char_name(char: int | str) -> str:
    code = char if isinstance(char, int) else ord(char[:1] or "\0")
    return f"U+{code:04X}"


def _alias_problem(text: str, file: str) -> Problem:
    """Where aliases pass the limit, found by replaying the parse events (which expands nothing)."""
    sizes: dict[str, int] = {}  # anchor -> expanded size of its node
    frames: list[list] = []  # [anchor, expanded size so far] of each open collection
    added = 0
    for event in yaml.parse(text, Loader=_YamlBase):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            frames.append([event.anchor, 1])
            continue
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            anchor, size = frames.pop()
            if anchor:
                sizes[anchor] = size
        elif isinstance(event, yaml.ScalarEvent):
            size = 1
            if event.anchor:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            mark = event.start_mark
            if event.anchor not in sizes:  # the anchored collection is still open: it contains itself
                return Problem(file, "", mark.line + 1, f"YAML alias *{event.anchor} refers to a node that contains it "
                                                        "(recursive data is not allowed in datasets)", mark.column + 1)
            size = sizes[event.anchor]
            added += size - 1
            if added > MAX_ALIAS_EXPANSION:
                return Problem(file, "", mark.line + 1, f"YAML alias *{event.anchor}: aliases expand to more than "
                                                        f"{MAX_ALIAS_EXPANSION:,} extra nodes (an alias bomb?); "
                                                        "write the values out instead", mark.column + 1)
        else:
            continue
        if frames:
            frames[-1][1] += size
    return Problem(file, "", None, f"YAML aliases expand to more than {MAX_ALIAS_EXPANSION:,} extra nodes")
