"""Issue 12 speed-ups that memoise: a memoised value must equal a fresh computation, whatever
was computed before it (cache hits, evictions, strategies sharing one workbench)."""

from __future__ import annotations

import json
from pathlib import Path

from memlab.harness.config import RunConfig
from memlab.datasets.io import load_dataset
from memlab.harness.runner import Runner
from memlab.analysis.ceiling import Ceilings
from memlab.analysis.results import load_run
from memlab.tokens import SHORT_TEXT, count_tokens, encoding


def _fresh_count(text: str) -> int:
    return len(encoding().encode(text, disallowed_special=()))


def test_memoised_token_counts_equal_a_full_recount_after_many_texts():
    history = ""
    for i in range(120):  # a growing history: long texts evict each other from the small cache
        history += f"[2024-01-{1 + i % 28:02d}] User: turn {i} says the kettle is {'blue' * (i % 7)} and <|endoftext|> too.\n"
        for text in (history, history[-200:], f"turn {i}", "system prompt that repeats on every call"):
            assert count_tokens(text) == _fresh_count(text)
    assert len(history) > SHORT_TEXT, "the long-text path was exercised"
    assert count_tokens(history) == _fresh_count(history)  # a second ask, possibly from the cache


def test_memoised_sentences_equal_fresh_segmentation_and_are_not_shared():
    import pysbd

    from memlab.offline.text import sentences

    text = "Dr. Smith moved to Oslo in 2020. He likes it! Does he?\nNew line here.  And more text."
    fresh = [s.strip() for line in text.splitlines() if line.strip()
             for s in pysbd.Segmenter(language="en", clean=False).segment(line.strip()) if s.strip()]
    first = sentences(text)
    assert first == fresh
    first.append("mutated by a caller")
    assert sentences(text) == fresh, "a caller's list is its own"


def _dataset(tmp_path: Path) -> Path:
    turns = [{"id": f"t{i}", "role": "user" if i % 2 else "assistant",
              "text": f"My {['cat', 'dog', 'car'][i % 3]} is called Rex{i}." if i % 2 else "Noted."} for i in range(1, 13)]
    # (asked after turn, gold number, evidence turn): Rex99 is never written
    probes = [{"id": f"q{n}", "after_turn": f"t{i}", "question": f"What is called Rex{j}?", "category": "single_hop",
               "gold": f"Rex{j}", "evidence": [f"t{e}"]} for n, (i, j, e) in enumerate(((2, 1, 1), (4, 3, 3), (12, 11, 11),
                                                                                        (6, 99, 5)))]
    path = tmp_path / "ds.json"
    path.write_text(json.dumps({"name": "rex", "conversations": [
        {"id": "c1", "sessions": [{"id": "s1", "timestamp": "2024-03-01T10:00:00", "turns": turns}], "probes": probes}]}))
    return path


def test_ceilings_are_computed_once_per_probe_at_read_back_and_equal_a_fresh_scan(tmp_path):
    """Read-back computes ``gold_written`` once per (dataset, conversation, probe), however many
    strategies answered it, from one text per user; each equals a scan by a fresh :class:`Ceilings`."""
    ds_path = _dataset(tmp_path)
    cfg = RunConfig.model_validate({
        "name": "gw", "datasets": [str(ds_path)], "output_dir": str(tmp_path / "runs"),
        "embedding_cache": str(tmp_path / "emb.npz"), "model": {"provider": "offline"},
        "strategies": [{"name": "no_memory"}, {"name": "recent_window"}], "executor": {"type": "serial"}})
    res = load_run(Runner(cfg, progress=False).run())
    rows = res.probes.to_dict("records")
    assert len(rows) == 8
    ds = load_dataset(ds_path)
    assert len(res._ceilings._memo) == 4 and len(res._ceilings._users) == 1  # 4 probes × 2 strategies, one user
    seen = set()
    for row in rows:
        fresh = Ceilings({ds.name: ds}).gold_written({k: row[k] for k in (
            "dataset", "conversation_id", "probe_id", "after_turn", "gold", "gold_match", "asked_at")})
        assert row["gold_written"] == fresh
        seen.add(row["gold_written"])
    assert seen == {True, False}, "probes whose gold is and is not written yet"
