"""Lifecycle metrics (memlab.analysis.lifecycle) on a small run whose behaviour is known by construction."""

from __future__ import annotations

import json
import math

from memlab.harness.config import RunConfig
from memlab.analysis.lifecycle import lifecycle_table
from memlab.analysis.results import load_run
from memlab.harness.runner import Runner


def _run(tmp_path):
    turns = [
        {"id": "t1", "role": "user", "text": "My locker code is 4417."},
        {"id": "t2", "role": "assistant", "text": "Noted."},
        {"id": "t3", "role": "user", "text": "My locker code is 4417."},  # said twice: a verbatim store duplicates it
        {"id": "t4", "role": "assistant", "text": "Got it."},
    ]
    ds = {"name": "life", "conversations": [{"id": "c", "sessions": [{"id": "s", "timestamp": "2024-01-01T10:00:00", "turns": turns}],
          "probes": [{"id": "q", "after_turn": "t4", "question": "What is my locker code?", "category": "single_hop",
                      "gold": "4417", "evidence": ["t1"]}]}]}
    path = tmp_path / "life.json"
    path.write_text(json.dumps(ds))
    cfg = RunConfig.model_validate({
        "name": "life", "datasets": [str(path)], "output_dir": str(tmp_path / "r"), "embedding_cache": None,
        "strategies": [{"name": "no_memory"}, {"name": "message_rag"},
                       {"name": "every2", "short_term": {"type": "summarizing", "trigger": {"type": "every_n_steps", "n": 2},
                                                         "keep_recent": 0}}]})
    return load_run(Runner(cfg, progress=False).run())


def test_lifecycle_table_counts_what_happened(tmp_path):
    table = lifecycle_table(_run(tmp_path))
    assert table.loc["every2", "compressions_per_conv"] == 2  # 4 messages, every 2 steps
    assert table.loc["message_rag", "duplicate_writes"] == 1
    assert table.loc["message_rag", "facts_per_invocation"] == 1  # 2 stored user turns over 2 invocations
    assert table.loc["message_rag", "stated_never_stored"] == 0
    assert math.isnan(table.loc["no_memory", "stated_never_stored"]), "undefined for a strategy that stores nothing"
    assert 0 <= table.loc["every2", "evidence_survival"] <= 1  # t1 was folded into the summary before the probe
    assert table.loc["every2", "tokens_summarize"] > 0 and "tokens_answer" in table.columns
