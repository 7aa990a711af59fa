"""The ``memlab view`` command line that opens what a report or a gate comment summarises.

Kept free of any other memlab import: the design report and the gate print it without loading the
viewer (or its web framework)."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path


def view_command(run_dirs: Iterable[str | Path], *, baseline: str | Path | None = None) -> str:
    """``memlab view RUN_DIR [RUN_DIR …] [--baseline FILE]``, each path quoted for a POSIX shell."""
    parts = ["memlab", "view", *(shlex.quote(str(p)) for p in run_dirs)]
    if baseline is not None:
        parts += ["--baseline", shlex.quote(str(baseline))]
    return " ".join(parts)
