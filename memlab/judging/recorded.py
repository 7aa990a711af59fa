"""What every pass over a run's recorded answers shares: which attempts count, how its streams are
rewritten and how the pass's own model calls become call rows (the judge, ragas's LLM metrics)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlab.runfolder.records import CallRow
from memlab.llm.types import CallRecord
from memlab.redact import redact_text


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    """Rows as the recorder writes them (:func:`memlab.runfolder.recorder.dumps_line`: U+2028, U+2029 and
    U+0085 escaped, so no line-oriented reader splits a record), replacing the file atomically."""
    from memlab.runfolder.recorder import dumps_line

    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("wb") as fh:
        for row in rows:
            fh.write(dumps_line(row))
    tmp.replace(path)


def final_attempts(run_dir: Path) -> set[str]:
    """Per unit, its last attempt if that one finished ok: the records a loader counts."""
    from memlab.runfolder.folders import finished_units

    return {r["attempt"] for r in finished_units(run_dir).values() if r.get("status") == "ok"}


def probe_scope(probe: dict[str, Any]) -> dict[str, Any]:
    """The scope a pass's call about ``probe`` is recorded with (phase ``judge``)."""
    return ({k: probe.get(k) for k in ("run_id", "attempt", "strategy", "dataset", "conversation_id")}
            | {"probe_id": probe["probe_id"], "phase": "judge"})


def call_rows(made: list[CallRecord]) -> list[dict[str, Any]]:
    """The pass's call records as ``calls.jsonl`` rows (scope flattened, error texts redacted)."""
    rows = []
    for record in made:
        data = record.model_dump(mode="json")
        scope = data.pop("scope", {}) or {}
        if data.get("error"):
            data["error"] = redact_text(data["error"])
        rows.append(CallRow.model_validate({**data, **scope}).model_dump(mode="json"))
    return rows


def write_pass(src: Path, dest: Path, probes: list[dict[str, Any]], field: str, results: list[tuple[int, Any]],
               made: list[CallRecord], *, purpose: str, final: set[str], keep_other_calls: bool = True) -> None:
    """Write a pass's results into ``dest``: each ``(index, value)`` of ``results`` as ``probes[index][field]``,
    and ``src``'s calls with the pass's new ones (``made``) — the final attempts' earlier calls of
    ``purpose`` are dropped for the probes it redid, and for every probe unless ``keep_other_calls``
    (a re-judge of all: another judge's calls must not be counted as this one's)."""
    from memlab.runfolder.recorder import read_jsonl

    for i, value in results:
        probes[i][field] = value
    write_jsonl(dest / "probes.jsonl", probes)
    redone = {(probes[i].get("attempt"), probes[i]["probe_id"]) for i, _ in results}
    kept = [c for c in read_jsonl(src / "calls.jsonl")
            if c.get("purpose") != purpose or c.get("attempt") not in final
            or (keep_other_calls and (c.get("attempt"), c.get("probe_id")) not in redone)]
    write_jsonl(dest / "calls.jsonl", kept + call_rows(made))
