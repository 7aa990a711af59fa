"""Importing a development script of ``scripts/`` (not a package: the scripts are tools beside the
library, run by path) as a module, for the tests that exercise it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as the module ``memlab_scripts.<name>`` (imported once)."""
    key = f"memlab_scripts.{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, SCRIPTS / f"{name}.py")
        assert spec is not None and spec.loader is not None, f"no script {name!r} in {SCRIPTS}"
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module  # before executing it: its dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules[key]
