"""Dataset statistics: conversations, sessions, turns, probes by category, token lengths.

Works on any file :func:`memlab.datasets.load_dataset` reads (native YAML/JSON, LoCoMo,
LongMemEval). ``memlab datasets stats PATH...`` prints one rich table for all given files and
folders (a folder is read recursively, see :mod:`memlab.datasets.discover`).
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from memlab.datasets.models import Category, Conversation, Dataset


def conversation_tokens(conv: Conversation) -> int:
    """cl100k tokens of all turn texts in a conversation."""
    from memlab.tokens import encoding

    enc = encoding("cl100k_base").encode_ordinary  # same counts as memlab.tokens.count_tokens
    return sum(len(enc(t.text)) for _, t in conv.turns())


def dataset_tokens(ds: Dataset) -> int:
    return sum(conversation_tokens(c) for c in ds.conversations)


def dataset_stats(ds: Dataset) -> dict[str, Any]:
    """Counts and token lengths of one dataset (a plain dict, JSON-serialisable)."""
    per_conv = [conversation_tokens(c) for c in ds.conversations]
    per_user: dict[str, int] = {}  # a user's history is every thread of its namespace
    for conv, n in zip(ds.conversations, per_conv):
        per_user[conv.ns] = per_user.get(conv.ns, 0) + n
    users = list(per_user.values())
    by_cat = Counter(p.category.value for _, p in ds.probes())
    return {
        "name": ds.name,
        "conversations": len(ds.conversations),
        "namespaces": len({c.ns for c in ds.conversations}),
        "sessions": sum(len(c.sessions) for c in ds.conversations),
        "turns": sum(len(s.turns) for c in ds.conversations for s in c.sessions),
        "probes": sum(len(c.probes) for c in ds.conversations),
        "probes_by_category": dict(sorted(by_cat.items())),
        "abstain": sum(1 for _, p in ds.probes() if p.abstain),
        "tokens": sum(per_conv),
        "tokens_per_conversation": {
            "min": min(per_conv) if per_conv else 0,
            "median": int(statistics.median(per_conv)) if per_conv else 0,
            "max": max(per_conv) if per_conv else 0,
        },
        "tokens_per_user": {
            "min": min(users) if users else 0,
            "median": int(statistics.median(users)) if users else 0,
            "max": max(users) if users else 0,
        },
    }


def load_any(path: str | Path) -> Dataset:
    """Load a native or public-benchmark file (registers the LoCoMo/LongMemEval loaders first)."""
    from memlab.datasets.io import load_dataset

    return load_dataset(path)


def collect_stats(paths: list[str | Path]) -> tuple[list[dict[str, Any]], list[str]]:
    """Stats of every dataset in the given files and folders, and notes on what was skipped.

    Every file is read even when an earlier one fails; the problems of all failing files are raised
    together at the end (:class:`DatasetError`). Files found in a folder that are in no known format
    are skipped with a note; a file named directly must be a dataset.
    """
    from memlab.datasets.discover import expand_paths
    from memlab.datasets.problems import DatasetError, FormatNotRecognised

    candidates, notes = expand_paths(paths)
    rows: list[dict[str, Any]] = []
    problems = []
    for cand in candidates:
        try:
            ds = load_any(cand.path)
        except FormatNotRecognised as exc:
            if not cand.from_folder:
                problems += exc.problems
            else:
                notes.append(f"{cand.path}: skipped, not a dataset (format not recognised)")
            continue
        except DatasetError as exc:
            problems += exc.problems
            continue
        st = dataset_stats(ds)
        st["path"] = str(cand.path)
        rows.append(st)
    if problems:
        raise DatasetError(problems)
    if not rows:
        raise ValueError(f"no datasets found in {', '.join(map(str, paths))}")
    return rows, notes


def stats_table(rows: list[dict[str, Any]], title: str = "Datasets"):
    """A rich Table with one row per dataset stats dict."""
    from rich.table import Table

    cats = [c.value for c in Category if any(c.value in r["probes_by_category"] for r in rows)]
    short = {"single_hop": "single", "multi_session": "multi", "temporal": "temp", "knowledge_update": "update",
             "abstention": "abst", "preference": "pref", "agentic": "agent", "injection": "inject", "open_domain": "open"}
    table = Table(title=title, show_lines=False)
    for col in ["dataset", "users", "convs", "sessions", "turns", "probes", *[short[c] for c in cats], "tokens",
                "tok/conv min/med/max", "tok/user min/med/max"]:
        table.add_column(col, justify="left" if col == "dataset" else "right")
    for r in rows:
        tk, tu = r["tokens_per_conversation"], r["tokens_per_user"]
        table.add_row(r["name"], str(r["namespaces"]), str(r["conversations"]), str(r["sessions"]), str(r["turns"]), str(r["probes"]),
                      *[str(r["probes_by_category"].get(c, 0)) for c in cats], f"{r['tokens']:,}",
                      f"{tk['min']:,} / {tk['median']:,} / {tk['max']:,}", f"{tu['min']:,} / {tu['median']:,} / {tu['max']:,}")
    if len(rows) > 1:
        tot = lambda k: sum(r[k] for r in rows)  # noqa: E731
        table.add_row("[b]total[/b]", str(tot("namespaces")), str(tot("conversations")), str(tot("sessions")), str(tot("turns")), str(tot("probes")),
                      *[str(sum(r["probes_by_category"].get(c, 0) for r in rows)) for c in cats], f"{tot('tokens'):,}", "", "")
    return table


def print_stats(paths: list[str | Path], console=None, as_json: bool = False) -> list[dict[str, Any]]:
    """Load each file (folders: their datasets), print one table (or JSON) and the skip notes on stderr."""
    import json

    from rich.console import Console

    console = console or Console(width=None if Console().is_terminal else 200)
    rows, notes = collect_stats(paths)
    if as_json:
        console.print_json(json.dumps(rows))
    else:
        console.print(stats_table(rows))
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return rows
