"""Converters from public benchmark formats into memlab's native :class:`Dataset`.

``try_convert`` sniffs a file and returns a converted dataset, or ``None`` for native files.
Format-specific readers (LoCoMo, LongMemEval) register themselves in ``FORMATS``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memlab.datasets.models import Dataset

# name → (sniff(path) -> bool, convert(path) -> Dataset); filled by format modules.
FORMATS: dict[str, tuple[Callable[[Path], bool], Callable[[Path], Dataset]]] = {}


def json_list_head(path: Path, size: int = 65536) -> str | None:
    """The first ``size`` characters of a file that looks like a JSON list, else None.

    Format sniffers look for their key names in this head, so sniffing never parses a whole
    (possibly gigabyte-sized) benchmark file."""
    if Path(path).suffix.lower() not in (".json", ""):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            head = fh.read(size)
    except (OSError, UnicodeDecodeError):
        return None
    return head if head.lstrip().startswith("[") else None


def try_convert(path: str | Path) -> Dataset | None:
    import memlab.datasets.formats  # noqa: F401  (registers LoCoMo / LongMemEval; lazy to avoid an import cycle)

    path = Path(path)
    for sniff, convert in FORMATS.values():
        if sniff(path):
            return convert(path)
    return None
