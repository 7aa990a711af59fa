"""memlab: a research and evaluation harness for agent memory strategies.

The public API is small: load datasets, configure and run comparisons, read results.
Heavy optional backends (chromadb, psycopg) are imported only when used.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "Dataset": "memlab.datasets.models",
    "load_dataset": "memlab.datasets.io",
    "validate_file": "memlab.datasets.io",
    "dataset_hash": "memlab.datasets.io",
    "RunConfig": "memlab.config",
    "load_config": "memlab.config",
    "notebook_config": "memlab.config",
    "run": "memlab.runner",
    "Runner": "memlab.runner",
    "load_run": "memlab.results",
    "evals_df": "memlab.results",
    "samples_df": "memlab.results",
    "write_report": "memlab.report",
    "check": "memlab.gate",
    "write_baseline": "memlab.baseline",
    "load_baseline": "memlab.baseline",
    "report_html": "memlab.html_report",
    "report_markdown": "memlab.html_report",
    "ModelSpec": "memlab.llm.base",
    "make_model": "memlab.llm.base",
    "StrategySpec": "memlab.strategies.composed",
    "resolve_spec": "memlab.strategies.composed",
    "PRESETS": "memlab.strategies.composed",
    "make_store": "memlab.memory.stores.base",
    "MemoryItem": "memlab.memory.item",
    "Registry": "memlab.registry",
    "rejudge": "memlab.judging.rejudge",
    "judge_audit": "memlab.judging.audit",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    # Lazy re-exports keep `import memlab` fast and free of optional dependencies.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'memlab' has no attribute {name!r}")
