"""The run-log rows are their scope plus the event they carry, and stay in step with it.

``MemoryOpRow``, ``CompressionRow`` and ``AgentStepRow`` are built from the event types of
:mod:`memlab.runfolder.events` (scope + position + the event's own fields), and ``CallRow``
carries :class:`memlab.llm.types.CallRecord`. A field added to an event or the call record without
the row would make every emission fail (``extra="forbid"``) or, worse, be dropped; these tests name
the field that went missing."""

from __future__ import annotations

import dataclasses

import pytest

from memlab.llm.types import CallRecord
from memlab.memory.item import MemoryEvent, Op
from memlab.runfolder.events import AgentStep, CompressionEvent
from memlab.runfolder.records import AgentStepRow, CallRow, CompressionRow, MemoryOpRow, Record, _row

SCOPE = {"run_id": "r", "attempt": "a", "strategy": "s", "dataset": "d", "conversation_id": "c"}

EVENTS = [
    (MemoryOpRow, MemoryEvent(op=Op.UPDATE, item_id="m1", namespace="ns", kind="preference", text="likes tea",
                              previous_text="likes coffee", source_turn_ids=["t1", "t4"], reason="same slot", store="chroma"),
     {"seq": 3, "turn_id": "t4"}),
    (CompressionRow, CompressionEvent("working_memory", "every_n_steps(4)", 8, 900, 300, ["t1", "t2"], "Ana lives in Oslo.",
                                      ["t1", "t2"], ok=False, reason="over budget"), {"turn_id": "t2", "invocation": 1}),
    (AgentStepRow, AgentStep(2, "store_fact", {"text": "Ana lives in Oslo"}, ok=False, result_chars=12, error="boom",
                             phase="probe"), {"probe_id": "p1"}),
]


def _event_fields(event) -> list[str]:
    return list(type(event).model_fields) if isinstance(event, MemoryEvent) else [f.name for f in dataclasses.fields(event)]


@pytest.mark.parametrize(("row_model", "event", "position"), EVENTS, ids=lambda x: getattr(x, "__name__", None))
def test_a_row_is_its_scope_then_its_position_then_every_field_of_its_event(row_model, event, position):
    fields = list(row_model.model_fields)
    assert fields[:len(Record.model_fields)] == list(Record.model_fields)
    assert fields[-len(_event_fields(event)):] == _event_fields(event)


@pytest.mark.parametrize(("row_model", "event", "position"), EVENTS, ids=lambda x: getattr(x, "__name__", None))
def test_an_event_with_every_field_set_round_trips_through_its_row(row_model, event, position):
    row = row_model(**SCOPE, **position, **event.record())
    dumped = row.model_dump(mode="json")
    assert {k: dumped[k] for k in _event_fields(event)} == event.record()
    assert {k: dumped[k] for k in position} == position


def test_an_event_field_that_shadows_the_scope_is_refused_when_the_row_is_built():
    """The row's value would otherwise depend on which was spread last."""

    @dataclasses.dataclass
    class Shadowing:
        strategy: str

    with pytest.raises(TypeError, match="strategy"):
        _row("ShadowingRow", Shadowing, "a row whose event shadows the scope")


def test_every_call_record_field_reaches_the_call_row():
    """CallRow keeps the fields it declares and accepts the rest of a CallRecord (``extra="allow"``)."""
    rec = CallRecord(call_id="c1", purpose="extract", signature="ExtractFacts", model="m", prompt_tokens=5,
                     completion_tokens=2, attempts=2, ok=False, error="boom", tools_offered=["store_fact"],
                     tool_calls=["store_fact"])
    row = CallRow.model_validate({**SCOPE, **rec.model_dump(mode="json"), "turn_id": "t1", "phase": "turn"})
    dumped = row.model_dump(mode="json")
    for name in CallRecord.model_fields:
        assert dumped.get(name) == rec.model_dump(mode="json")[name], f"CallRow dropped CallRecord.{name}"


def test_scope_fields_are_not_shadowed_by_the_call_record():
    """The call record must not define a scope field (run_id, strategy, …) of its own: the
    row's value would then depend on which was spread last."""
    assert not set(Record.model_fields) & set(CallRecord.model_fields)


def test_every_row_a_run_writes_validates_against_its_record_model(tmp_path):
    """The unit player writes turn and call rows as plain dicts (building pydantic objects only to
    serialise them was a visible share of the harness); each must still be a valid record of its
    stream, with the declared fields first and in the model's order."""
    import json

    from memlab.harness.config import RunConfig
    from memlab.runfolder.recorder import read_jsonl
    from memlab.runfolder.records import AgentStepRow, CompressionRow, ProbeRecord, TurnRecord, UnitEvent
    from memlab.harness.runner import Runner

    convs = [{"id": "c0", "namespace": "c0", "sessions": [{"id": "s1", "timestamp": "2024-01-02T10:00:00", "turns": [
        {"id": "t1", "role": "user", "text": "I live in Oslo and my cat is called Bo."},
        {"id": "t2", "role": "assistant", "text": "Noted."},
        {"id": "t3", "role": "user", "text": "My sister is a nurse in Perth."}]}],
        "probes": [{"id": "q1", "after_turn": "t3", "question": "Where do I live?", "gold": "Oslo", "evidence": ["t1"],
                    "category": "single_hop"}]}]
    ds = tmp_path / "d.json"
    ds.write_text(json.dumps({"name": "d", "conversations": convs}), encoding="utf-8")
    cfg = RunConfig.model_validate({"name": "rows", "datasets": [str(ds)], "output_dir": str(tmp_path / "out"),
                                    "embedding_cache": None,
                                    "strategies": [{"name": "fact_rag"}, {"name": "react_mem"}]})
    run = Runner(cfg, progress=False).run()
    models = {"turns": TurnRecord, "calls": CallRow, "memory_ops": MemoryOpRow, "probes": ProbeRecord,
              "units": UnitEvent, "compressions": CompressionRow, "agent_steps": AgentStepRow}
    seen = set()
    for stream, model in models.items():
        for row in read_jsonl(run / f"{stream}.jsonl"):
            model.model_validate(row)  # raises, naming the field, if a row is not a valid record
            declared = [k for k in model.model_fields if k in row]
            assert list(row)[:len(declared)] == declared, f"{stream}: fields out of order: {list(row)}"
            seen.add(stream)
    assert {"turns", "calls", "probes", "units"} <= seen
