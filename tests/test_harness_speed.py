"""Issue 12, harness overhead: the faster paths of the unit player and the recorder must give
exactly what the plain ones gave (same loaded values, same field order, same hooks called)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pytest

from memlab.llm import calls
from memlab.memory.item import MemoryEvent, Op
from memlab.runfolder.recorder import dumps_line, read_jsonl
from memlab.strategies.base import ContextLine, ContextSection, MemoryContext


def _standard_line(record: dict) -> str:
    """What the recorder wrote for a plain row before orjson: the standard encoder, separators escaped."""
    text = json.dumps(record, ensure_ascii=False, default=str)
    for raw, esc in {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}.items():
        text = text.replace(raw, esc)
    return text


@dataclass
class _Point:
    x: int = 1


ROWS = [
    {"turn_id": "t1", "latency_s": 4e-05, "ops": {"ADD": 2}, "calls": 0, "working_memory_tokens": None},
    {"text": "line\nbreak \u2028 sep \u2029 para \u0085 nel — dash … ellipsis “quotes” émoji 🎉", "n": [1, 2.5, None, True]},
    {"numpy": np.float64(0.1), "np_int": np.int64(7), "np_f32": np.float32(0.5), "when": datetime(2024, 1, 2, 3, 4, 5),
     "obj": _Point(), 3: "int key", "nested": {"deep": [{"k": "v"}]}},
    {"big": 2**70, "small": -1},
]


@pytest.mark.parametrize("row", ROWS, ids=["turn", "unicode", "odd-types", "big-int"])
def test_a_plain_row_loads_to_the_values_the_standard_encoder_wrote(row):
    line = dumps_line(row)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    text = line.decode("utf-8")[:-1]
    for sep in ("\u2028", "\u2029", "\u0085"):
        assert sep not in text, "a Unicode line separator reached the file unescaped"
    assert text.split("\n") == [text]
    assert json.loads(text) == json.loads(_standard_line(row))
    assert list(json.loads(text)) == list(json.loads(_standard_line(row))), "field order changed"


def test_rows_round_trip_through_the_reader_including_a_nan_written_by_the_standard_encoder(tmp_path):
    path = tmp_path / "turns.jsonl"
    lines = [dumps_line(r) for r in ROWS] + [(_standard_line({"old": float("nan")}) + "\n").encode()]
    path.write_bytes(b"".join(lines))
    back = read_jsonl(path)
    assert back[:4] == [json.loads(_standard_line(r)) for r in ROWS]
    assert math.isnan(back[4]["old"])  # a NaN a former run wrote still loads (the standard decoder takes it)


def test_a_corrupt_line_is_still_reported_with_file_and_line(tmp_path):
    path = tmp_path / "calls.jsonl"
    path.write_bytes(dumps_line({"a": 1}) + b"{not json\n" + dumps_line({"b": 2}))
    with pytest.raises(ValueError, match=r"calls.jsonl:2: corrupt record"):
        read_jsonl(path)


def test_memory_event_record_equals_pydantic_json_dump():
    for ev in (MemoryEvent(op=Op.UPDATE, item_id="m1", namespace="ns", kind="preference", text="likes tea",
                           previous_text="likes coffee", source_turn_ids=["t1", "t4"], reason="same slot", store="chroma"),
               MemoryEvent(op=Op.NOOP, namespace="ns")):
        rec = ev.record()
        assert rec == ev.model_dump(mode="json") and list(rec) == list(ev.model_dump(mode="json"))
        rec["source_turn_ids"].append("x")
        assert "x" not in ev.source_turn_ids, "the record shares a list with the event"


def test_a_contexts_text_and_sources_are_rendered_once_and_again_when_lines_are_added():
    ctx = MemoryContext([ContextSection("Facts", [ContextLine("a", ["t1"]), ContextLine("b", ["t2", "t1"])])])
    first = ctx.text
    assert first == "## Facts\na\nb" and ctx.text is first
    assert ctx.source_turn_ids() == {"t1", "t2"}
    ctx.source_turn_ids().add("zzz")  # a caller's set is its own
    assert ctx.source_turn_ids() == {"t1", "t2"}
    ctx.sections.append(ContextSection("History", [ContextLine("c", ["t3"])]))
    assert ctx.text == "## Facts\na\nb\n\n## History\nc"
    assert ctx.source_turn_ids() == {"t1", "t2", "t3"}


def test_call_scopes_nest_and_restore_even_when_the_block_raises():
    assert calls.current_scope() == {}
    with calls.call_scope(strategy="s", turn_id="t1"):
        with pytest.raises(RuntimeError):
            with calls.call_scope(turn_id="t2", phase="probe"):
                assert calls.current_scope() == {"strategy": "s", "turn_id": "t2", "phase": "probe"}
                raise RuntimeError("boom")
        assert calls.current_scope() == {"strategy": "s", "turn_id": "t1"}
    assert calls.current_scope() == {}


def test_a_scope_made_before_it_is_entered_layers_on_the_scope_in_force_at_entry():
    later = calls.call_scope(probe_id="q1")
    with calls.call_scope(strategy="s"):
        with later:
            assert calls.current_scope() == {"strategy": "s", "probe_id": "q1"}


def test_memoised_entity_nodes_equal_fresh_validation():
    from memlab.roles.signatures import EntityNode
    from memlab.strategies.extractor.summary_entities import _node

    raw = {"id": "ana", "type": "person", "name": "Ana", "description": "a nurse", "properties": {"age": 31},
           "relationships": [{"targetId": "lisbon", "relationship": "lives in", "strength": 0.5}]}
    assert _node(raw) == EntityNode.model_validate(raw)
    assert _node(dict(raw)) is _node(raw)  # the same node again: validated once
    odd = {**raw, "type": "spaceship"}
    assert _node(odd).type == "other" and _node(raw).type == "person"
    changed = {**raw, "description": "a doctor"}
    assert _node(changed).description == "a doctor"


def test_failed_calls_are_counted_for_final_attempts_whatever_the_encoder_wrote(tmp_path):
    from memlab.harness.runner import _failed_calls

    path = tmp_path / "calls.jsonl"
    assert _failed_calls(path, {"a1"}) == 0  # no call log at all
    ok = [{"attempt": "a1", "ok": True, "text": "says ok: false in prose"}, {"attempt": "a2", "ok": True}]
    path.write_bytes(b"".join(dumps_line(r) for r in ok))
    assert _failed_calls(path, {"a1", "a2"}) == 0
    rows = ok + [{"attempt": "a1", "ok": False}, {"attempt": "old", "ok": False}]
    path.write_bytes(b"".join(dumps_line(r) for r in rows))  # orjson's compact form
    assert _failed_calls(path, {"a1", "a2"}) == 1
    path.write_text("".join(_standard_line(r) + "\n" for r in rows))  # the standard encoder's form
    assert _failed_calls(path, {"a1", "a2"}) == 1 and _failed_calls(path, {"a1", "old"}) == 2
