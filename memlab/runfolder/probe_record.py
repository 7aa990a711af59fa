"""The probe record as code holds it: its **scope** (where the probe was asked) plus the **event** it
carries (what was asked, what the context held, what was answered), typed and read-only.

The run folder's contract for a probe line is :class:`memlab.runfolder.records.ProbeRecord` (pydantic,
validated by the tests against every row a run writes); this module is how the harness writes that line
and how the analysis side reads it back:

* the unit player builds a :class:`ProbeRow` from a :class:`ProbeScope` and a :class:`ProbeEvent` and
  writes :meth:`ProbeRow.row` — one flat mapping in ``ProbeRecord``'s field order, so the JSONL on disk
  is what it was (no field-by-field copying of the probe into a row dict);
* the metrics read a :class:`ProbeEvent` (``p.gold``, ``p.context_items``), never ``p.get("gold")``;
  :meth:`ProbeRow.from_row` builds one from a row without validating it. Validating through pydantic
  would check each of the ~1,900 context items of a full-history context on every read of every probe
  — at 12 strategies × 2,000 probes the largest cost of reading a run back — and a row was validated
  when its run was tested. A field a row lacks (a folder from before the field existed, a hand-built
  row in a test) reads as its default; a NaN (a frame's missing cell) reads as missing.

``tests/test_probe_record.py`` keeps scope + event in step with ``ProbeRecord`` (same fields, same
defaults) and the written row identical to a validated record's dump.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypedDict


class ContextItemRow(TypedDict):
    """One injected context line as a probe row holds it (:class:`memlab.runfolder.records.ContextItem`)."""

    text: str
    source_turn_ids: list[str]
    kind: str
    section: str


@dataclass(frozen=True, slots=True)
class ProbeScope:
    """Where a probe was asked: the run and attempt, the unit (strategy, dataset, user) and the thread."""

    run_id: str = ""
    attempt: str = ""
    strategy: str = ""
    dataset: str = ""
    conversation_id: str | None = None
    namespace: str | None = None
    """The user whose memory answers the probe (conversations sharing it are the user's threads)."""
    thread: int | None = None
    """The probe's conversation's place among its user's threads (1 = the user's first)."""


@dataclass(frozen=True, slots=True)
class ProbeEvent:
    """What a probe asked, what the strategy's context held and what it answered: everything a metric
    reads. Field meanings are :class:`memlab.runfolder.records.ProbeRecord`'s."""

    probe_id: str = ""
    after_turn: str = ""
    category: str = ""
    original_category: str | None = None
    question: str = ""
    gold: Sequence[Sequence[str]] = ()
    """Per part of the answer, its accepted forms (aliases)."""
    gold_match: str = "any"
    superseded: Sequence[str] = ()
    forbidden: Sequence[str] = ()
    abstain: bool = False
    evidence: Sequence[str] = ()
    evidence_texts: Sequence[str] = ()
    evidence_scope: str | None = None
    evidence_age_tokens: int | None = None
    evidence_age_threads: int | None = None
    asked_at: str = ""
    gold_written: bool | None = None
    """The probe's ceiling, filled at read-back (:data:`READ_BACK`); a run does not write it."""
    context: str = ""
    context_tokens: int = 0
    context_lines: int = 0
    context_items: Sequence[ContextItemRow] | None = None
    """None: not recorded (runs from before context items); the writer always records them."""
    context_source_turn_ids: Sequence[str] = ()
    answer: str | None = None
    answered: bool = True
    """False in a retrieval-only run (``answer_probes: false``): no answer was asked for, so every
    metric that scores the answer is not applicable (:meth:`memlab.scoring.metric_registry.Metric.score`)."""
    error: str | None = None
    judge: Mapping[str, Any] | None = None
    ragas_llm: Mapping[str, Any] | None = None
    retrieval_latency_s: float = 0.0
    retrieval_total_s: float = 0.0
    answer_latency_s: float = 0.0
    agent_steps: int = 0
    survival: Sequence[Mapping[str, Any]] = ()

    @property
    def answerable(self) -> bool:
        """The probe has a gold answer and does not ask the agent to abstain."""
        return not self.abstain and bool(self.gold)

    @property
    def match(self) -> str:
        """How the gold's parts combine (``any`` when the row left it empty)."""
        return self.gold_match or "any"


SCOPE_FIELDS = tuple(f.name for f in fields(ProbeScope))
EVENT_FIELDS = tuple(f.name for f in fields(ProbeEvent))


@dataclass(frozen=True, slots=True)
class ProbeRow:
    """A probe record: its scope plus the event it carries."""

    scope: ProbeScope
    event: ProbeEvent

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ProbeRow:
        """The typed record of a probe row (a ``probes.jsonl`` line, a frame's row): fields it lacks, or
        holds as NaN, read as their defaults; other keys (a frame's score columns) are ignored."""
        return cls(ProbeScope(**_present(row, SCOPE_FIELDS)), ProbeEvent(**_present(row, EVENT_FIELDS)))

    def row(self) -> dict[str, Any]:
        """The flat mapping a run writes for this record, in ``ProbeRecord``'s field order, without the
        fields filled at read-back (:data:`READ_BACK`)."""
        scope, event = self.scope, self.event
        return {name: getattr(scope if name in _SCOPE else event, name) for name in WRITTEN}


def _present(row: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The fields of ``names`` the row holds, leaving out a NaN and a null where the field's default
    is not None (so ``p.evidence`` is always a sequence)."""
    out = {}
    for name in names:
        value = row.get(name)
        if value is None:
            if name in _NULLABLE and name in row:
                out[name] = None
        elif not (type(value) is float and value != value):
            out[name] = value
    return out


_NULLABLE = frozenset(f.name for cls in (ProbeScope, ProbeEvent) for f in fields(cls) if f.default is None)
_SCOPE = frozenset(SCOPE_FIELDS)
ROW_ORDER = ("run_id", "attempt", "strategy", "dataset", "conversation_id", "probe_id", "namespace", "thread",
             *(n for n in EVENT_FIELDS if n != "probe_id"))
"""A probe line's keys in ``ProbeRecord``'s order (the scope's ``namespace`` and ``thread`` follow
``probe_id`` there); ``tests/test_probe_record.py`` checks it."""
READ_BACK = frozenset({"gold_written"})
"""Fields the analysis side fills when it reads a run back, which a run does not write: the probe's
ceiling (``gold_written``, :mod:`memlab.analysis.ceiling`) is computed from the played datasets at read-back,
so the run pipeline imports nothing from ``analysis``. A folder from before that carries it, and keeps it."""
WRITTEN = tuple(n for n in ROW_ORDER if n not in READ_BACK)
"""A probe line's keys as a run writes them."""
