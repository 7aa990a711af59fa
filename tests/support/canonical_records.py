"""A run folder's records with what differs between any two runs of one config set aside.

Two plays of the same config with the same code write the same records except for ids drawn at
random (run id and uid, unit attempts, call ids), clocks (timestamps, latencies, wall times) and
the offline model's label, which is a hash of its source and so changes with any edit to it.
What is left must be equal byte for byte: that is how the behaviour profile's default is shown
to reproduce the records written before it existed (tests/test_behaviour_identity.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

STREAMS = ("probes", "calls", "memory_ops", "turns", "units", "compressions", "agent_steps")
VOLATILE_KEYS = frozenset({"run_id", "attempt", "call_id", "at", "wall_s", "latency_s", "retrieval_latency_s",
                           "retrieval_total_s", "answer_latency_s"})
"""Fields drawn at random or read from a clock."""
_OFFLINE_LABEL = re.compile(r"offline-\d+\+[0-9a-f]{8}(?P<profile>\+profile-[0-9a-f]{8})?")


def _clean(value: Any, ids: re.Pattern[str] | None) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v, ids) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_clean(v, ids) for v in value]
    if isinstance(value, str):
        value = _OFFLINE_LABEL.sub("offline-MAJOR+SOURCE", value)  # a behaviour profile's suffix too: see profiles_named
        return ids.sub("RUN", value) if ids is not None else value
    return value


def recorded_fields(lines: list[str]) -> dict[str, set[str]]:
    """The top-level fields each stream's records had when ``lines`` were recorded."""
    fields: dict[str, set[str]] = {}
    for line in lines:
        stream, text = line.split("\t", 1)
        fields.setdefault(stream, set()).update(json.loads(text))
    return fields


def canonical_lines(run_dir: Path, fields: dict[str, set[str]] | None = None) -> list[str]:
    """Every record of the run, one ``stream<TAB>json`` line each, volatile fields dropped, sorted.

    ``fields``: only these top-level fields per stream (those recorded then): a field the records
    gained later (a new measurement) is not a change of behaviour; every field they had must match."""
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    # the run's uid and id wherever they appear as a whole word (a run id such as "p00" must not match
    # inside "u1-p001")
    volatile = [re.escape(x) for x in (manifest.get("run_uid"), manifest.get("run_id")) if x]
    ids = re.compile(r"(?<![\w-])(?:" + "|".join(volatile) + r")(?![\w-])") if volatile else None
    out = []
    for stream in STREAMS:
        path = run_dir / f"{stream}.jsonl"
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = _clean(json.loads(line), ids)
                if fields is not None:
                    rec = {k: v for k, v in rec.items() if k in fields.get(stream, ())}
                out.append(f"{stream}\t{json.dumps(rec, sort_keys=True, ensure_ascii=False)}")
    return sorted(out)


def profiles_named(run_dir: Path) -> set[str]:
    """The behaviour-profile suffixes (``+profile-<hash>``) the run's offline model labels carry
    (canonical_lines sets them aside with the source hash; a test checks them here)."""
    found: set[str] = set()
    for stream in STREAMS:
        path = run_dir / f"{stream}.jsonl"
        if path.exists():
            found |= {m.group("profile") or "" for m in _OFFLINE_LABEL.finditer(path.read_text(encoding="utf-8"))}
    return found
