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


def try_convert(path: str | Path) -> Dataset | None:
    import memlab.datasets.formats  # noqa: F401  (registers LoCoMo / LongMemEval; lazy to avoid an import cycle)

    path = Path(path)
    for sniff, convert in FORMATS.values():
        if sniff(path):
            return convert(path)
    return None
