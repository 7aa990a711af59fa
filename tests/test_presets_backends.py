"""The storage axis holds for the presets: each one, run on in-memory, Chroma and Postgres, makes
the same memory operations (same order, ids, texts, reasons) and injects the same context."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlab.strategies.state import Query
from tests.presets_support import at, build, conversation, play

TEXTS = ["My name is Maria and I prefer window seats.", "My sister Anna lives in Lisbon.", "What can you do?",
         "I work at Siemens in Munich.", "Anna moved to Porto.", "I prefer aisle seats now.",
         "I want to run a marathon.", "Book me a table for tonight.", "I like jazz.", "Tom visited Anna in Porto.",
         "I am a nurse.", "My favorite city is Porto.", "Anna is my colleague.", "Anna is not my colleague."]
DATA = conversation([(f"2024-01-{d:02d}T09:00:00", [m for t in TEXTS[i:i + 3] for m in (("user", t), ("assistant", "OK."))])
                     for d, i in ((1, 0), (3, 3), (6, 6), (9, 9), (12, 12))])


def _play_on(preset: str, store: dict) -> tuple[list, list]:
    """The preset's memory operations over DATA and the context it gives one question, on ``store``."""
    extra = {"extractor": {"type": "pattern", "every": 4}} if preset == "agent_memory_pg" else {}
    s = build({"name": f"{preset}-{store['type']}", "preset": preset, "store": store, **extra})
    try:
        ops = play(s, DATA, namespace=f"presets-test/{preset}")
        ctx = s.context(Query("Where does Anna live and which seats do I prefer?", at("2024-01-10T09:00:00"), s.env.embedder))
        return ([(o.op, o.item_id, o.kind, o.text, o.reason) for o in ops],
                [(ln.text, tuple(ln.source_turn_ids)) for ln in ctx.lines])
    finally:
        s.store.reset(s.state.namespace)
        s.close()


@pytest.mark.parametrize("backend", ["chroma", pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.parametrize("preset", ["supervisor", "agent_chat", "agent_memory_pg", "son_of_andrew"])
def test_preset_makes_the_same_memory_operations_on_every_backend(preset: str, backend: str, tmp_path: Path, request):
    if backend == "postgres":
        request.getfixturevalue("postgres")
    stores = {"chroma": {"type": "chroma", "path": str(tmp_path / "chroma")},
              "postgres": {"type": "postgres", "table": "presets_backend_test"}}
    ref_ops, ref_ctx = _play_on(preset, {"type": "in_memory"})
    assert len([o for o in ref_ops if o[0].value != "NOOP"]) >= 3, "the conversation exercises the write path"
    ops, ctx = _play_on(preset, stores[backend])
    assert ops == ref_ops, f"{backend} diverged from the in-memory reference"
    assert ctx == ref_ctx
