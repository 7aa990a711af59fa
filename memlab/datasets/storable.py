"""Strings that some part of memlab cannot store: found at validation, not mid-run.

A NUL character (U+0000) is valid in YAML (``"\\0"``) and JSON (``"\\u0000"``) but PostgreSQL text
columns reject it, so such a dataset used to pass validation and then fail one conversation on
the Postgres backend only. An unpaired surrogate (``"\\ud800"`` in JSON) is not Unicode at all:
it cannot be encoded as UTF-8, so no backend, record file or report can hold it. Other control
characters are stored fine everywhere and are allowed.
"""

from __future__ import annotations

import re
from typing import Any

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_strings(data: Any) -> list[tuple[tuple[Any, ...], str]]:
    """(data path, what is wrong) for every string value or key holding a character no backend can store."""
    if not _contains_unstorable(data):  # the common case: one pass without building any path
        return []
    found: list[tuple[tuple[Any, ...], str]] = []
    _collect(data, (), found)
    return found


def _contains_unstorable(value: Any) -> bool:
    if isinstance(value, str):
        return _UNSTORABLE.search(value) is not None
    if isinstance(value, dict):
        return any(_contains_unstorable(k) or _contains_unstorable(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains_unstorable(v) for v in value)
    return False


def _collect(value: Any, loc: tuple[Any, ...], found: list[tuple[tuple[Any, ...], str]]) -> None:
    if isinstance(value, str):
        m = _UNSTORABLE.search(value)
        if m:
            found.append((loc, _describe(value, m.start())))
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and (m := _UNSTORABLE.search(k)):
                found.append((loc + (k,), f"key {_describe(k, m.start())}"))
            _collect(v, loc + (k,), found)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _collect(v, loc + (i,), found)


def _describe(text: str, at: int) -> str:
    char = text[at]
    if char == "\x00":
        return f"contains a NUL character (U+0000) at character {at}, which PostgreSQL cannot store; remove it"
    return (f"contains an unpaired surrogate U+{ord(char):04X} at character {at}, which is not valid Unicode "
            "and cannot be stored or written as UTF-8; fix the escape sequence")
