"""The typed probe record (scope + event) stays in step with the run folder's ProbeRecord, and
reads any probe row without validating it."""

from __future__ import annotations

import math
from dataclasses import fields

from pydantic_core import PydanticUndefined

from memlab.runfolder.probe_record import READ_BACK, ROW_ORDER, WRITTEN, ProbeEvent, ProbeRow, ProbeScope
from memlab.runfolder.records import ProbeRecord


def test_scope_and_event_are_the_probe_records_fields_in_its_order():
    assert set(ROW_ORDER) == set(ProbeRecord.model_fields)
    assert ROW_ORDER == tuple(ProbeRecord.model_fields)
    assert not {f.name for f in fields(ProbeScope)} & {f.name for f in fields(ProbeEvent)}


def test_a_field_with_a_default_in_the_record_has_it_in_the_view():
    """context_items alone differs: absent means not recorded (runs from before it), not empty."""
    view = {f.name: f.default for cls in (ProbeScope, ProbeEvent) for f in fields(cls)}
    for name, info in ProbeRecord.model_fields.items():
        default = info.default if info.default_factory is None else info.default_factory()
        if default is PydanticUndefined or name == "context_items":
            continue
        assert (list(view[name]) if isinstance(default, list) else view[name]) == default, name
    assert view["context_items"] is None


def test_the_written_row_is_a_valid_records_dump_and_reads_back_the_same():
    scope = ProbeScope(run_id="r", attempt="a", strategy="s", dataset="d", conversation_id="c", namespace="u", thread=2)
    event = ProbeEvent(probe_id="q1", after_turn="t3", category="single_hop", question="Where?", gold=[["Oslo"]],
                       evidence=["t1"], asked_at="2024-01-02T10:00:00", context="Oslo", answer="Oslo",
                       context_items=[{"text": "Oslo", "source_turn_ids": ["t1"], "kind": "message", "section": "h"}])
    row = ProbeRow(scope, event).row()
    assert ProbeRecord.model_validate(row).model_dump(mode="json") == {**row, "superseded": [], "forbidden": [],
                                                                       "evidence_texts": [], "context_source_turn_ids": [],
                                                                       "survival": [], "gold": [["Oslo"]], "evidence": ["t1"],
                                                                       "gold_written": None}
    assert ProbeRow.from_row(row) == ProbeRow(scope, event)
    assert not READ_BACK & set(row) and tuple(row) == WRITTEN  # the ceiling is filled at read-back, never written


def test_a_partial_or_frame_row_reads_with_defaults():
    """An older folder's row lacks fields; a frame's row holds NaN for a missing cell and extra score
    columns; a null in a field that cannot be null reads as its default."""
    rec = ProbeRow.from_row({"probe_id": "q", "gold": [["x"]], "judge": math.nan, "evidence": None,
                             "evidence_recall": 1.0, "namespace": math.nan})
    assert rec.event.probe_id == "q" and rec.event.judge is None and rec.event.evidence == ()
    assert rec.event.context_items is None and rec.scope.namespace is None and rec.event.answerable
