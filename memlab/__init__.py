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
    "RunConfig": "memlab.harness.config",
    "load_config": "memlab.harness.config",
    "notebook_config": "memlab.harness.config",
    "run": "memlab.harness.runner",
    "Runner": "memlab.harness.runner",
    "load_run": "memlab.analysis.results",
    "evals_df": "memlab.analysis.results",
    "samples_df": "memlab.analysis.results",
    "write_report": "memlab.analysis.report",
    "check": "memlab.analysis.gate",
    "write_baseline": "memlab.analysis.baseline",
    "load_baseline": "memlab.analysis.baseline",
    "report_html": "memlab.analysis.html_report",
    "report_markdown": "memlab.analysis.html_report",
    "write_reports": "memlab.analysis.html_report",
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
    "estimate": "memlab.harness.estimate",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    # Lazy re-exports keep `import memlab` fast and free of optional dependencies.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'memlab' has no attribute {name!r}")
