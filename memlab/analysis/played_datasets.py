"""The datasets a run played, read back from the paths its manifest names — only where the file still
has the hash the run recorded.

A run folder records ids, not the dataset's text (turns, dates, speakers): read-back that needs the
text — the viewer's turn text (:mod:`memlab.view.index`), the ceilings (:mod:`memlab.analysis.ceiling`)
— loads each dataset as the run played it (threads split, users limited: one definition with the
runner, :func:`memlab.datasets.threads.load_for_run`) and checks its hash, so a dataset edited since
the run is never mistaken for the one played. A missing, moved, unreadable or changed dataset is
named in a note, and its text is simply unknown.
"""

from __future__ import annotations

from typing import Any

from memlab.datasets.models import Dataset


def played_datasets(manifest: dict[str, Any]) -> tuple[dict[str, Dataset], list[str]]:
    """(dataset name → the dataset as the run played it, notes on the ones that could not be read back)."""
    from memlab.datasets.io import dataset_hash
    from memlab.datasets.threads import load_for_run

    cfg = manifest.get("config") or {}
    out: dict[str, Dataset] = {}
    notes: list[str] = []
    for d in manifest.get("datasets") or []:
        path = d.get("path")
        try:
            (_, ds), = load_for_run([str(path)], cfg.get("threads") or "as_is", cfg.get("limit_conversations"))
        except Exception as exc:  # a missing, moved or unreadable dataset: its text is unknown
            notes.append(f"{d.get('name')}: {type(exc).__name__}: {str(exc)[:160]}")
            continue
        if dataset_hash(ds) != d.get("hash"):
            notes.append(f"{d.get('name')}: {path} changed since the run (another hash)")
            continue
        out[ds.name] = ds
    return out, notes
