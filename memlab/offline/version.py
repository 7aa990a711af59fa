"""The offline model's version: a hash of its own source.

Any edit to a rule can change behaviour, so the label recorded with every call must change with
the source; a hand-bumped number is forgotten. ``MAJOR`` is bumped by hand for a redesign.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

MAJOR = 1


def source_hash(root: Path = Path(__file__).parent) -> str:
    """8 hex digits of the sha256 over every ``.py`` file under ``root`` (path and bytes, sorted)."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:8]


def model_id(root: Path = Path(__file__).parent) -> str:
    return f"offline-{MAJOR}+{source_hash(root)}"
