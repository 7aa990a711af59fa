"""What is wrong with a dataset file, said so that the author can fix it without guessing.

Every reader and checker reports :class:`Problem` objects (file, JSON path, line, column,
message) instead of raising on the first one, so a dataset author fixes a file in one pass.
Loading raises :class:`DatasetError` holding the whole list; :class:`FormatNotRecognised` is the
one case where the file is readable but is no dataset memlab knows, which folder scans skip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a dataset file; ``path`` is a JSON path, empty for file-level problems."""

    file: str
    path: str
    line: int | None
    message: str
    column: int | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}" + (f":{self.column}" if self.column else "")
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class DatasetError(ValueError):
    """A dataset failed to load; ``problems`` lists every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        head = "\n".join(f"  {p}" for p in problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"{len(problems)} problem(s) in dataset:\n{head}{more}")


class FormatNotRecognised(DatasetError):
    """The file parsed, but its data has the shape of none of the supported formats."""


def format_path(loc: tuple[Any, ...]) -> str:
    """``("conversations", 0, "id")`` → ``conversations[0].id`` (``(0, "qa")`` → ``[0].qa``)."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
