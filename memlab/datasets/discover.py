"""Which files to read when a command is given a folder instead of dataset files.

A folder is searched **recursively** (dataset collections keep sets in subfolders, like
``datasets/suites/``), in sorted path order, skipping hidden files and folders. Only ``.yaml``,
``.yml`` and ``.json`` files are candidates; everything else (``README.md``, ``generate_suites.py``,
suite cards) is skipped with a note. A candidate that parses but is in no known format (such as
``datasets/schema.json``) is skipped with a note by the command reading it, while a candidate that
is a dataset with problems is an error, as it would be if named directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DATASET_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Candidate:
    """A file to read; ``from_folder`` says it was found in a folder rather than named by the user."""

    path: Path
    from_folder: bool


def expand_paths(paths: list[str | Path]) -> tuple[list[Candidate], list[str]]:
    """Files named directly (kept as given) plus the dataset candidates of each folder; and notes on what was skipped."""
    found: list[Candidate] = []
    notes: list[str] = []
    for given in map(Path, paths):
        if not given.is_dir():
            found.append(Candidate(given, False))
            continue
        skipped: list[str] = []
        for path in sorted(given.rglob("*")):
            rel = path.relative_to(given)
            if any(part.startswith(".") for part in rel.parts) or not path.is_file():
                continue
            if path.suffix.lower() in DATASET_SUFFIXES:
                found.append(Candidate(path, True))
            else:
                skipped.append(str(rel))
        if skipped:
            notes.append(f"{given}: skipped {len(skipped)} file(s) that are not .yaml/.yml/.json: {', '.join(skipped)}")
    return found, notes
