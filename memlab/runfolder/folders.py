"""What a run folder says about its units, read without running anything: which units ended (and
how), which attempts had a model call fail, and claiming a fresh folder. Shared by the runner and
by the passes over a finished run (``memlab rejudge``), so neither imports the other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlab.runfolder.recorder import read_jsonl


def failing_attempts(run_dir: Path) -> set[str]:
    """Attempts with at least one model call that failed after its retries (a byte search first:
    a run without any failed call, the usual case, is not parsed)."""
    path = run_dir / "calls.jsonl"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return set()
    if b'"ok":false' not in raw and b'"ok": false' not in raw:
        return set()
    # a failed judge call is repaired by the judge pass (which re-judges failed verdicts), not by
    # playing the unit again
    return {c.get("attempt") for c in read_jsonl(path) if not c.get("ok", True) and c.get("phase") != "judge"}

def finished_units(run_dir: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Per unit key, its last end record (whatever its status)."""
    last: dict[tuple[str, str, str], dict[str, Any]] = {}
    for rec in read_jsonl(run_dir / "units.jsonl"):
        if rec.get("event") == "end":
            key = (rec["strategy"], rec["dataset"], rec.get("namespace") or rec.get("conversation_id"))
            last[key] = rec
    return last

def _claim_dir(base: Path) -> Path:
    """Create and return ``base`` (or ``base-2``, ``base-3``...): two runs of one config started in
    the same second get separate folders instead of writing into each other's."""
    base.parent.mkdir(parents=True, exist_ok=True)
    for i in range(1, 10_000):
        candidate = base if i == 1 else base.with_name(f"{base.name}-{i}")
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a fresh run folder next to {base}")
