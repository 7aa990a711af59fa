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
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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
    asked_at: str
    gold_written: bool | None = None
    """A gold form is written in some turn of the conversation up to the probe (string-recallable at all)."""
    context: str = ""
    context_tokens: int = 0
    context_lines: int = 0
    context_items: list[ContextItem] = Field(default_factory=list)
    context_source_turn_ids: list[str] = Field(default_factory=list)
    answer: str | None = None
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


class MemoryOpRow(Record):
    seq: int
    phase: Literal["turn", "conversation_start", "conversation_end"] = "turn"
    turn_id: str | None = None
    op: str
    item_id: str | None = None
    namespace: str
    kind: str = "fact"
    text: str = ""
    previous_text: str | None = None
    source_turn_ids: list[str] = Field(default_factory=list)
    reason: str = ""
    store: str = ""


class CompressionRow(Record):
    turn_id: str | None = None
    invocation: int | None = None
    component: str
    trigger: str
    step: int
    tokens_before: int
    tokens_after: int
    folded_turn_ids: list[str]
    summary: str
    summary_source_turn_ids: list[str]
    ok: bool = True
    reason: str = ""


class AgentStepRow(Record):
    turn_id: str | None = None
    probe_id: str | None = None
    phase: str
    step: int
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    ok: bool = True
    result_chars: int = 0
    error: str | None = None


class FormatError(ValueError):
    """A run folder written by a memlab whose record format this one cannot read."""


def read_manifest(path: Path, hint: str = "") -> dict[str, Any]:
    """A run's ``manifest.json``; a corrupt or foreign file is a one-line ``ValueError`` naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: corrupt manifest ({exc})") from None
    if not isinstance(data, dict) or "run_id" not in data:
        raise ValueError(f"{path}: not a memlab manifest (no run_id){hint}")
    return data


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
