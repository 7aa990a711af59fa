"""Which format a parsed dataset file is in, decided by the shape of its data; the converter registry.

Formats are recognised by the structure of the parsed data, never by where a key happens to sit
in the file: the published ``locomo10.json`` puts each sample's ``sample_id`` after ``qa``,
``conversation``, ``event_summary``, ``observation`` and ``session_summary`` (the first one is
~229 KB in), so sniffing a file's head misses it. The file is parsed once anyway, so deciding
on the data costs nothing extra.

* **native**: a mapping with ``conversations``, or whose keys are mostly native top-level fields
  (so a native file with a typo still gets native schema errors, not "not recognised").
* the public-benchmark formats named in :data:`FORMATS` (lazy entries: LoCoMo,
  LongMemEval), each deciding on the first record of a list (or a single record).

Anything else is reported as ONE problem saying the format is not recognised, what the file looks
like and which formats are, instead of a pile of native-schema errors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from memlab.datasets.models import Dataset
from memlab.registry import Registry
from memlab.datasets.problems import FormatNotRecognised, Problem, format_path
from memlab.datasets.source import Source

NATIVE = "native"
NATIVE_DESCRIPTION = "native memlab dataset (YAML or JSON mapping with name and conversations)"
_NATIVE_FIELDS = frozenset(Dataset.model_fields)

T = TypeVar("T")


@dataclass(frozen=True)
class Format:
    """A public-benchmark format: how to recognise its parsed data and how to convert it."""

    name: str
    label: str  # "LoCoMo"
    shape: str  # what its data looks like, shown when a file is not recognised
    matches: Callable[[Any], bool]
    convert: Callable[[Any, str], tuple[Dataset, list[str]]]  # (data, file name) -> (dataset, repairs)

    @property
    def description(self) -> str:
        return f"{self.label} ({self.shape})"


FORMATS: Registry[Format] = Registry("dataset format")
"""Name → Format, as lazy ``module:attr`` entries: a format module is imported when a file is first
recognised, and this module imports none of them (each imports this one for :class:`Format`)."""
FORMATS.register("locomo", "memlab.datasets.locomo:FORMAT")
FORMATS.register("longmemeval", "memlab.datasets.longmemeval:FORMAT")


def formats() -> list[Format]:
    """Every registered format, resolved (in name order)."""
    return [FORMATS.get(name) for name in FORMATS.names()]


class ConversionError(ValueError):
    """Records of a benchmark file that could not be converted: (data path, what is wrong) each."""

    def __init__(self, errors: list[tuple[tuple[Any, ...], str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(msg for _, msg in errors[:5]))

    def problems(self, source: Source) -> list[Problem]:
        """The errors as problems naming the file, the record's path and its line."""
        return [Problem(source.file, format_path(loc), source.line_for(loc), msg) for loc, msg in self.errors]


def detect(data: Any) -> str | None:
    """``"native"``, the name of a registered benchmark format, or None when the data fits none."""
    if is_native(data):
        return NATIVE
    return next((fmt.name for fmt in formats() if fmt.matches(data)), None)


def is_native(data: Any) -> bool:
    if not isinstance(data, dict) or not data:
        return False
    return "conversations" in data or 2 * len(_NATIVE_FIELDS.intersection(map(str, data))) >= len(data)


def first_record(data: Any) -> dict | None:
    """The record a benchmark format is recognised by: the first object of a list, or a single object."""
    if isinstance(data, dict):
        return data
    if isinstance(data, list) and data and isinstance(data[0], dict):
        return data[0]
    return None


def records(data: Any) -> list:
    """A benchmark file's records: the list itself, or a single record as a one-item list."""
    return [data] if isinstance(data, dict) else list(data)


def convert_records(items: list, convert_one: Callable[[dict, int], T], what: str) -> list[T]:
    """Convert every record, collecting each one that fails (with its index) instead of stopping at the first."""
    out: list[T] = []
    errors: list[tuple[tuple[Any, ...], str]] = []
    for i, item in enumerate(items):
        try:
            if not isinstance(item, dict):
                raise ValueError(f"expected an object, got {type(item).__name__}")
            out.append(convert_one(item, i))
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # malformed record data
            errors.append(((i,), f"cannot convert {what} #{i}: {exc}"))
    if errors:
        raise ConversionError(errors)
    return out


def log_repairs(log: logging.Logger, file: str, label: str, repairs: list[str]) -> None:
    """A warning with the count (details at debug level): lenient conversion must not be silent."""
    if repairs:
        log.warning("%s: %d repair(s) while converting %s (see dataset.meta / load_with_report)", file, len(repairs), label)
        for r in repairs:
            log.debug("%s: %s", file, r)


def not_recognised(file: str, data: Any) -> FormatNotRecognised:
    """The single error for readable data in no known format: what it looks like, and what would be read."""
    known = "; ".join([NATIVE_DESCRIPTION, *(fmt.description for fmt in formats())])
    return FormatNotRecognised([Problem(file, "", None, f"format not recognised: the file holds {describe_shape(data)}. "
                                                        f"memlab reads: {known}")])


def describe_shape(data: Any) -> str:
    """A one-line sketch of parsed data: its type and, for objects, their first keys."""
    def keys(d: dict) -> str:
        names = [str(k) for k in list(d)[:6]]
        return ", ".join(names) + (f", ... ({len(d)} keys)" if len(d) > 6 else "")

    if isinstance(data, dict):
        return f"a mapping with keys {keys(data)}" if data else "an empty mapping"
    if isinstance(data, list):
        if not data:
            return "an empty list"
        head = data[0]
        first = f"whose first has keys {keys(head)}" if isinstance(head, dict) and head else f"starting with a {type(head).__name__}"
        return f"a list of {len(data)} item(s) {first}"
    return f"a single {type(data).__name__} value"
