"""The package helpers the notebooks use: a strategy slice of a config, cached scaled copies, the break-even length."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from memlab.analysis.break_even import break_even
from memlab.harness.config import ConfigError, load_config, notebook_config

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------ RunConfig.with_strategies

def test_with_strategies_keeps_the_configs_definitions_in_the_asked_order():
    config = load_config(ROOT / "evals" / "axes.yaml")
    sliced = config.with_strategies(["every4+post_pass", "full_context"])
    assert [s.name for s in sliced.strategies] == ["every4+post_pass", "full_context"]
    original = next(s for s in config.strategies if s.name == "every4+post_pass")
    assert sliced.strategies[0] == original  # the config's own definition, not a bare preset
    assert sliced.datasets == config.datasets and len(config.strategies) == 14  # the source is untouched



def test_notebook_config_reads_a_parameters_cell_as_every_notebook_does(tmp_path):
    small = notebook_config(ROOT / "evals" / "axes.yaml", ["full_context"], limit=1,
                            datasets=["datasets/starter.yaml"], workers=2)
    assert [s.name for s in small.strategies] == ["full_context"]
    assert (small.limit_conversations, small.datasets) == (1, ["datasets/starter.yaml"])
    assert small.executor.workers == 2
    assert Path(small.output_dir).is_dir() and Path(small.output_dir).name.startswith("memlab-nb-")
    full = notebook_config(ROOT / "evals" / "axes.yaml", ["full_context"], limit=0, datasets=[],
                           output_dir=str(tmp_path), name="big")
    config = load_config(ROOT / "evals" / "axes.yaml")
    assert full.limit_conversations is None and full.datasets == config.datasets  # 0 and [] mean "the config's"
    assert (full.output_dir, full.name) == (str(tmp_path), "big")
    assert full.executor == config.executor

def test_with_strategies_adds_a_registered_preset_by_name():
    sliced = load_config(ROOT / "evals" / "default.yaml").with_strategies(["full_context", "agent_chat"])
    resolved = sliced.resolved_strategies()
    assert [r["name"] for r in resolved] == ["full_context", "agent_chat"]
    assert resolved[1]["preset"] == "agent_chat"


def test_with_strategies_names_every_unknown_strategy_with_a_hint():
    config = load_config(ROOT / "evals" / "default.yaml")
    with pytest.raises(ConfigError) as exc:
        config.with_strategies(["fact_rg", "no_such_thing", "full_context"])
    msg = str(exc.value)
    assert "'fact_rg' (did you mean 'fact_rag'?)" in msg and "'no_such_thing'" in msg
    assert "config 'default'" in msg
    with pytest.raises(ConfigError, match="at least one"):
        config.with_strategies([])
    with pytest.raises(ConfigError, match="unique"):
        config.with_strategies(["full_context", "full_context"])


# ------------------------------------------------------------------------------ scaled_copies

def test_scaled_copies_are_written_once_and_renamed_when_the_source_changes(tmp_path):
    from memlab.datasets.io import load_dataset
    from memlab.datasets.scale import scaled_copies

    src = tmp_path / "src.yaml"
    src.write_text((ROOT / "tests" / "fixtures" / "native_small.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    first = scaled_copies(src, [3_000, 6_000], tmp_path / "out")
    assert [p.exists() for p in first] == [True, True] and first[0] != first[1]
    assert len(load_dataset(first[1]).conversations[0].sessions) > len(load_dataset(src).conversations[0].sessions)
    stamp = first[0].stat().st_mtime_ns
    assert scaled_copies(src, [3_000], tmp_path / "out") == first[:1]
    assert first[0].stat().st_mtime_ns == stamp  # reused, not rewritten
    src.write_text(src.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert scaled_copies(src, [3_000], tmp_path / "out")[0] != first[0]
    assert not list((tmp_path / "out").glob("*.tmp.yaml"))


# ------------------------------------------------------------------------------ break_even

def _table(costs: dict[str, list[float]], recall: dict[str, list[float]] | None = None,
           lengths: tuple[float, ...] = (1_000, 10_000, 100_000)) -> pd.DataFrame:
    rows = []
    for strategy, values in costs.items():
        for i, (length, c) in enumerate(zip(lengths, values)):
            rows.append({"dataset": f"d{i}", "strategy": strategy, "history_tokens_per_conv": length,
                         "evidence_recall": (recall or {}).get(strategy, [1.0] * len(values))[i],
                         "model_tokens_per_conv": c, "context_tokens_per_probe": c / 10})
    return pd.DataFrame(rows)


def test_break_even_interpolates_the_crossing_in_log_space():
    # full_context grows 10x per decade, the memory strategy 2x: ratios 10, 2, 0.4 → crossing between 10k and 100k
    table = _table({"full_context": [100, 1_000, 10_000], "fact_rag": [1_000, 2_000, 4_000]},
                   recall={"full_context": [1, 1, 1], "fact_rag": [0.9, 0.8, 0.7]})
    row = break_even(table).set_index("strategy").loc["fact_rag"]
    assert row["status"] == "cheaper beyond"
    expected = 10 ** (4 + math.log(2) / (math.log(2) - math.log(0.4)))
    assert row["break_even_tokens"] == pytest.approx(expected)
    assert row["cost_ratio_at_longest"] == pytest.approx(0.4)
    assert row["recall_diff_at_longest"] == pytest.approx(-0.3)


def test_break_even_reports_no_crossing_and_other_cost_columns():
    table = _table({"full_context": [100, 1_000, 10_000], "cheap": [10, 20, 40], "dear": [1_000, 20_000, 300_000]})
    out = break_even(table).set_index("strategy")
    assert out.loc["cheap", "status"] == "cheaper at every length" and math.isnan(out.loc["cheap", "break_even_tokens"])
    assert out.loc["dear", "status"] == "dearer at every length"
    by_context = break_even(table, cost="context_tokens_per_probe")
    assert set(by_context["cost"]) == {"context_tokens_per_probe"}
    one_length = _table({"full_context": [100], "x": [50]}, lengths=(1_000,))
    assert break_even(one_length)["status"].tolist() == ["too few lengths"]


def test_break_even_rejects_a_table_without_the_reference_or_the_cost():
    table = _table({"full_context": [1, 2, 3], "x": [1, 2, 3]})
    with pytest.raises(ValueError, match="reference strategy 'oracle' is not in the table"):
        break_even(table, reference="oracle")
    with pytest.raises(ValueError, match="lacks column.*tokens_per_turn"):
        break_even(table, cost="tokens_per_turn")
