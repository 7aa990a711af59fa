"""The typed records a run folder holds: the contract between the runner, the results loader and
the metrics.

A run folder has one JSONL stream per record type (``probes``, ``turns``, ``calls``,
``memory_ops``, ``compressions``, ``agent_steps``, ``units``). Every record names its run, unit
(strategy, dataset, namespace) and attempt, so the loader can keep only each unit's final
successful attempt. The manifest's ``format_version`` says which version of this contract the
folder follows; :func:`check_format` refuses newer folders and names the conversion applied to
older ones.
"""

from __future__ import annotations

import json
from dataclasses import MISSING
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any, Literal, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from memlab.runfolder.events import AgentStep, CompressionEvent, MemoryEvent

FORMAT_VERSION = 2
"""Bump when a field's meaning changes or a required field is added; add a conversion below."""

STREAMS = ("probes", "calls", "memory_ops", "turns", "units", "compressions", "agent_steps")


class Record(BaseModel):
    """Fields every record carries."""

    model_config = ConfigDict(extra="forbid")
    run_id: str
    attempt: str
    strategy: str
    dataset: str
    conversation_id: str | None = None


class ComponentFailure(BaseModel):
    """A failure a strategy's component absorbed in a unit (a failed model call it carried on
    without): which component (``slot:type``), what happened, how often, the first error."""

    model_config = ConfigDict(extra="forbid")
    component: str
    what: str
    count: int
    example: str = ""


class UnitEvent(Record):
    """Start or end of a unit: one strategy × the conversations of one namespace of one dataset."""

    event: Literal["start", "end"]
    namespace: str
    conversation_ids: list[str]
    status: Literal["ok", "failed"] | None = None
    error: str | None = None
    wall_s: float | None = None
    at: str
    resolved: dict[str, Any] | None = None  # end only: the strategy as built (components, store), secrets redacted
    component_failures: list[ComponentFailure] | None = None
    """End only: what the strategy's components absorbed (empty: nothing failed; None in older runs and
    for strategy types that do not report)."""


class TurnRecord(Record):
    turn_id: str
    session_id: str
    role: str
    invocation: int
    step: int
    latency_s: float
    ops: dict[str, int] = Field(default_factory=dict)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed_calls: int = 0
    compressions: int = 0
    agent_steps: int = 0
    working_memory_tokens: int | None = None


class ContextItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    source_turn_ids: list[str]
    kind: str
    section: str


class EvidenceSurvival(BaseModel):
    """For a probe whose evidence was folded into a summary by a compression before it was asked."""

    model_config = ConfigDict(extra="forbid")
    component: str
    folded_evidence: list[str]
    survived: bool
    """A gold form is still in the summary that stands for the folded turns."""
    in_context: bool
    """The summary holding the folded evidence was injected into the probe's context."""


class ProbeRecord(Record):
    probe_id: str
    namespace: str | None = None
    """The user whose memory answers the probe (conversations sharing it are the user's threads)."""
    thread: int | None = None
    """The probe's conversation's place among its user's threads (1 = the user's first)."""
    after_turn: str
    category: str
    original_category: str | None = None
    question: str
    gold: list[list[str]]
    gold_match: str = "any"
    superseded: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)
    abstain: bool = False
    evidence: list[str] = Field(default_factory=list)
    evidence_texts: list[str] = Field(default_factory=list)
    """The evidence turns' text, in ``evidence`` order (the reference contexts of the ragas metrics)."""
    evidence_scope: Literal["thread", "earlier_threads", "mixed"] | None = None
    """Where the evidence was said: all in the probe's own thread, all in earlier threads of the user
    (only long-term memory can carry it), or both; None without evidence."""
    evidence_age_tokens: int | None = None
    """How long ago the evidence was said: tokens of the user's history (every thread) from the start of the
    earliest evidence turn to the probe. None without evidence (or an evidence turn not yet played)."""
    evidence_age_threads: int | None = None
    """Threads between the earliest evidence turn's thread and the probe's (0: the same thread)."""
    asked_at: str
    gold_written: bool | None = None
    """The probe's ceiling (some context could hold its gold), recorded by runs before it was computed at
    read-back (:mod:`memlab.analysis.ceiling`); a new run leaves it out, and read-back keeps a recorded value."""
    context: str = ""
    context_tokens: int = 0
    context_lines: int = 0
    context_items: list[ContextItem] = Field(default_factory=list)
    context_source_turn_ids: list[str] = Field(default_factory=list)
    answer: str | None = None
    answered: bool = True
    """False in a retrieval-only run (``answer_probes: false``): the answerer was not asked."""
    error: str | None = None
    judge: dict[str, Any] | None = None
    ragas_llm: dict[str, Any] | None = None
    """The ragas LLM metrics' values (or ``error``) when a judge endpoint is configured."""
    retrieval_latency_s: float = 0.0
    retrieval_total_s: float = 0.0
    answer_latency_s: float = 0.0
    agent_steps: int = 0
    survival: list[EvidenceSurvival] = Field(default_factory=list)


class CallRow(Record):
    """One logical model call (retries and parse corrections included), with its scope."""

    model_config = ConfigDict(extra="allow")  # CallRecord grows with the model layer (tools, ...)
    call_id: str
    purpose: str
    model: str
    ok: bool = True
    prompt_tokens: int = 0
    completion_tokens: int = 0
    turn_id: str | None = None
    probe_id: str | None = None
    phase: str = "turn"


def _row(name: str, event: type, doc: str, **position: Any) -> type[Record]:
    """A stream's row model: the scope every record carries (:class:`Record`), where in the unit the
    event happened (``position``), then the event's own fields, read from the event type
    (:mod:`memlab.runfolder.events`) so that a field added to an event is a field of its row."""
    if issubclass(event, BaseModel):
        fields: dict[str, Any] = {n: (f.annotation, f) for n, f in event.model_fields.items()}
    else:
        hints = get_type_hints(event)
        fields = {f.name: (hints[f.name], f.default if f.default is not MISSING else
                           Field(default_factory=f.default_factory) if f.default_factory is not MISSING else ...)
                  for f in dataclass_fields(event)}
    clash = set(fields) & (set(position) | set(Record.model_fields))
    if clash:
        raise TypeError(f"{name}: {event.__name__} fields {sorted(clash)} clash with the row's scope or position")
    return create_model(name, __base__=Record, __doc__=doc, __module__=__name__, **position, **fields)


MemoryOpRow = _row(
    "MemoryOpRow", MemoryEvent, "A ``memory_ops`` row: scope, the operation's place in the unit, the :class:`MemoryEvent`.",
    seq=(int, ...), phase=(Literal["turn", "conversation_start", "conversation_end"], "turn"), turn_id=(str | None, None))
CompressionRow = _row(
    "CompressionRow", CompressionEvent, "A ``compressions`` row: scope, the turn and invocation, the :class:`CompressionEvent`.",
    turn_id=(str | None, None), invocation=(int | None, None))
AgentStepRow = _row(
    "AgentStepRow", AgentStep, "An ``agent_steps`` row: scope, the turn or probe, the :class:`AgentStep` (its ``phase`` says which).",
    turn_id=(str | None, None), probe_id=(str | None, None))


class FormatError(ValueError):
    """A run folder written by a memlab whose record format this one cannot read."""


def read_manifest(path: Path, hint: str = "") -> dict[str, Any]:
    """A run's ``manifest.json``; a corrupt, foreign or type-confused file is a one-line
    ``ValueError`` naming the file and the field (:func:`check_manifest`)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: corrupt manifest ({exc})") from None
    if not isinstance(data, dict) or "run_id" not in data:
        raise ValueError(f"{path}: not a memlab manifest (no run_id){hint}")
    check_manifest(data, str(path))
    return data


class _Entries:
    """A list whose items are mappings holding the given string fields."""

    def __init__(self, *fields: str) -> None:
        self.fields = fields


_OPTIONAL = type(None)
_MANIFEST_FIELDS: dict[str, tuple[Any, str]] = {
    "run_id": ((str,), "a string"),
    "format_version": ((int, _OPTIONAL), "a whole number"),
    "run_uid": ((str, _OPTIONAL), "a string"),
    "name": ((str, _OPTIONAL), "a string"),
    "status": ((str, _OPTIONAL), "a string"),
    "fingerprint": ((str, _OPTIONAL), "a string"),
    "code_version": ((str, _OPTIONAL), "a string"),
    "seed": ((int, _OPTIONAL), "a whole number"),
    "failed_calls": ((int, _OPTIONAL), "a whole number"),
    "config": ((dict, _OPTIONAL), "a mapping"),
    "models": ((dict, _OPTIONAL), "a mapping"),
    "judge": ((dict, _OPTIONAL), "a mapping"),
    "embedder": ((dict, _OPTIONAL), "a mapping"),
    "git": ((dict, _OPTIONAL), "a mapping"),
    "packages": ((dict, _OPTIONAL), "a mapping"),
    "environment": ((dict, _OPTIONAL), "a mapping"),
    "executor": ((dict, _OPTIONAL), "a mapping"),
    "units": ((dict, _OPTIONAL), "a mapping"),
    "strategies_resolved": ((dict, _OPTIONAL), "a mapping"),
    "rejudged_from": ((dict, _OPTIONAL), "a mapping"),
    "strategies": (_Entries("name"), "a list of strategies, each a mapping with a string `name`"),
    "datasets": (_Entries("name", "hash"), "a list of datasets, each a mapping with string `name` and `hash`"),
}
"""The manifest fields readers use, and what each must be. Other fields are left alone."""


def check_manifest(data: dict[str, Any], where: str) -> None:
    """Raise a one-line ``ValueError`` naming ``where`` and the field when a field readers rely on
    has the wrong type (``"strategies": 5``, ``config: []``, ``format_version: "two"``): reports
    and resumes then stop with that line instead of a traceback."""
    def bad(field: str, value: Any, expected: str) -> ValueError:
        shown = json.dumps(value, default=str)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return ValueError(f"{where}: field `{field}` is {shown}, expected {expected} (is this manifest from memlab?)")

    for field, (kind, expected) in _MANIFEST_FIELDS.items():
        if field not in data:
            continue
        value = data[field]
        if isinstance(kind, _Entries):
            if not isinstance(value, list):
                raise bad(field, value, expected)
            for i, entry in enumerate(value):
                if not isinstance(entry, dict) or any(not isinstance(entry.get(f), str) for f in kind.fields):
                    raise bad(f"{field}[{i}]", entry, expected)
        elif isinstance(value, bool) and bool not in kind or not isinstance(value, kind):
            raise bad(field, value, expected)
    units = data.get("units") or {}
    for key in ("total", "ok", "not_run"):
        if key in units and (not isinstance(units[key], int) or isinstance(units[key], bool)):
            raise bad(f"units.{key}", units[key], "a whole number")
    if "failed" in units and not (isinstance(units["failed"], list) and all(isinstance(f, str) for f in units["failed"])):
        raise bad("units.failed", units["failed"], "a list of strings")
    for key in ("default", "roles", "judge"):
        if (data.get("models") or {}).get(key) is not None and not isinstance(data["models"][key], dict):
            raise bad(f"models.{key}", data["models"][key], "a mapping")


def check_format(manifest: dict[str, Any], where: str) -> int:
    """The folder's format version; raises for a newer one. Version 1 (no ``format_version``) is
    converted on load by :func:`upgrade_v1`."""
    version = int(manifest.get("format_version") or 1)
    if version > FORMAT_VERSION:
        raise FormatError(f"{where}: run format {version} is newer than this memlab reads ({FORMAT_VERSION}); upgrade memlab")
    return version


def upgrade_v1(stream: str, rec: dict[str, Any]) -> dict[str, Any]:
    """Format 1 → 2: units were single conversations keyed by conversation id, and call records
    carried their attempt only inside ``scope``."""
    rec = dict(rec)
    if stream == "units":
        rec.setdefault("namespace", rec.get("conversation_id"))
        rec.setdefault("conversation_ids", [rec.get("conversation_id")])
    if stream == "calls":
        for key in ("attempt", "strategy", "dataset", "conversation_id", "turn_id", "probe_id"):
            if key not in rec and key in (rec.get("scope") or {}):
                rec[key] = rec["scope"][key]
    return rec
