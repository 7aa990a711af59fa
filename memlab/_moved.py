"""Old module paths of the flat layout, kept importable (with a DeprecationWarning) for one release.

The run pipeline moved to :mod:`memlab.harness` and the analysis pipeline to :mod:`memlab.analysis`
(docs/architecture.md). The public API (``memlab.run``, ``memlab.load_run``, ``memlab.check``, ...)
did not change; a user's ``from memlab.results import load_run`` keeps working and says where the
module lives now. Strategy internals that were split by slot family have no alias.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

MOVED = {
    **{f"memlab.{m}": f"memlab.analysis.{m}" for m in (
        "baseline", "break_even", "ceiling", "gate", "html_report", "interval_coverage", "lifecycle", "markup",
        "metrics", "plots", "ragas_metrics", "report", "results", "stats", "suite_check")},
    **{f"memlab.{m}": f"memlab.harness.{m}" for m in (
        "config", "executors", "gc_policy", "provenance", "recorder", "records", "runner", "units")},
    "memlab.embeddings_onnx": "memlab.embeddings.onnx",
}


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers an import of an old path with the module at its new one (the same module object)."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new} (docs/architecture.md); import it from there",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new path is already loaded."""


def install() -> None:
    """Add the finder once, after the normal ones (a real module always wins)."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
