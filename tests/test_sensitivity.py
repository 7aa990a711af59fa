"""`memlab sensitivity` (issue 26): a comparison played once per behaviour profile, units a varied
knob cannot change reused (and provably the same as if played), contrasts classified robust /
conditional (with an interpolated boundary) / never shown, a plot per contrast and the design
report's section "What these conclusions depend on".

The end-to-end sweeps play a small generated dataset (tests/support/profile_data.py, not
evaluation data) with the offline model and the real MiniLM embedder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from memlab.analysis.sensitivity import contrast_table, load_sweep, verdicts, write_sweep_report
from memlab.cli import main as cli_main
from memlab.harness.config import ConfigError, load_config, validate_config
from memlab.harness.runner import Runner
from memlab.harness.sensitivity import Grid, parse_vary, run_sensitivity, with_profile
from tests.support.canonical_records import canonical_lines
from tests.support.profile_data import write_profile_dataset

STRATEGIES = [
    {"name": "no_memory"},
    {"name": "extract", "preset": "fact_rag", "extractor": {"type": "post_turn", "roles": ["user", "tool"]}},
    {"name": "agent", "preset": "react_mem", "extractor": {"type": "agent_tool"},
     "agent": {"type": "react", "working_memory": {"trigger": "never"}}},
]


def _config(tmp_path: Path, **extra) -> Path:
    data = write_profile_dataset(tmp_path / "small.json", users=3, invocations=2, seed=5)
    config = {"name": "sweep", "datasets": [str(data)], "output_dir": str(tmp_path / "results"),
              "embedding_cache": None, "strategies": STRATEGIES,
              "sensitivity": {"vary": {"agent.store_tool_observations": [0, 1]}, "contrasts": [["extract", "agent"]]},
              **extra}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


# ---- the grid and its validation -------------------------------------------------------------

def test_vary_names_unknown_knobs_and_bad_values():
    assert parse_vary(["agent.store_tool_observations=0,0.5,1", "summariser.keep_values=null,1"]) == {
        "agent.store_tool_observations": [0.0, 0.5, 1.0], "summariser.keep_values": [None, 1.0]}
    with pytest.raises(ValueError, match="Did you mean 'agent.store_tool_observations'"):
        parse_vary(["agent.store_tool_obs=0,1"])
    with pytest.raises(ValueError, match="not a number"):
        parse_vary(["reconcile.update=0,high"])
    with pytest.raises(ValueError, match="less than or equal to 1"):
        parse_vary(["reconcile.update=0,2"])
    with pytest.raises(ValueError, match="KNOB=v1"):
        parse_vary(["reconcile.update"])
    grid = Grid.from_vary({"a.x": [0, 1], "b.y": [0.1, 0.2, 0.3]})
    assert len(grid.points()) == 6 and grid.points()[1] == {"a.x": 0, "b.y": 0.2}


def test_a_config_sensitivity_block_is_validated(tmp_path: Path):
    base = {"datasets": ["datasets/dev/dev.yaml"], "strategies": [{"name": "no_memory"}]}
    with pytest.raises(ConfigError, match="Did you mean 'reconcile.update'"):
        validate_config({**base, "sensitivity": {"vary": {"reconcile.updat": [0, 1]}}})
    with pytest.raises(ConfigError, match="listed twice"):
        validate_config({**base, "sensitivity": {"vary": {"reconcile.update": [0, 0]}}})


def test_with_profile_sets_the_point_on_every_offline_model_but_the_judge():
    config = validate_config({"datasets": ["datasets/dev/dev.yaml"], "strategies": [{"name": "no_memory"}],
                              "model": {"provider": "offline", "options": {"tool_reliability": 0.5}},
                              "models": {"answer": {"provider": "offline"}}, "judge": {"provider": "offline"}})
    moved = with_profile(config, {"answerer.abstain_below": 0.3})
    assert moved.model.profile == {"agent.store_user_facts": 0.5, "answerer.abstain_below": 0.3}
    assert "tool_reliability" not in moved.model.options
    assert moved.models["answer"].profile == {"answerer.abstain_below": 0.3}
    assert moved.judge.profile is None


# ---- classification ------------------------------------------------------------------------

def _table(rows: list[tuple[float, float, float, float]], knob: str = "k.x") -> pd.DataFrame:
    """(knob value, diff, ci_low, ci_high) per point of one contrast."""
    out = pd.DataFrame([{"a": "A", "b": "B", "group": "all", "point": i, knob: x, "n": 50, "users": 8, "mean_a": 0,
                         "mean_b": 0, "diff": d, "ci_low": lo, "ci_high": hi,
                         "sign": 1 if lo > 0 else -1 if hi < 0 else 0} for i, (x, d, lo, hi) in enumerate(rows)])
    out.attrs.update(column="evidence_recall", higher_is_better=True)
    return out


def test_robust_conditional_with_an_interpolated_boundary_and_never_shown():
    robust = verdicts(_table([(0, 0.2, 0.1, 0.3), (0.5, 0.15, 0.05, 0.25), (1, 0.1, 0.02, 0.18)]), ["k.x"])[0]
    assert robust.status == "robust" and robust.sign == 1 and "every one of the 3 profiles" in robust.statement(True, "recall")
    # shown while the knob is low: the interval's low end crosses 0 between 0.5 (+0.04) and 1 (−0.06) → 0.70
    cond = verdicts(_table([(0, 0.2, 0.1, 0.3), (0.5, 0.12, 0.04, 0.2), (1, -0.02, -0.06, 0.02)]), ["k.x"])[0]
    assert cond.status == "conditional" and cond.shown_at == 2
    [boundary] = cond.boundaries
    assert boundary.knob == "k.x" and boundary.shown_side == "below" and boundary.at == pytest.approx(0.70)
    [flip] = cond.flips  # the point estimate crosses 0 between 0.5 (+0.12) and 1 (−0.02) → 0.929
    assert flip.at == pytest.approx(0.5 + 0.5 * 0.12 / 0.14)
    assert "while k.x below 0.70" in cond.statement(True, "recall")
    never = verdicts(_table([(0, 0.01, -0.05, 0.07), (1, -0.01, -0.06, 0.04)]), ["k.x"])[0]
    assert never.status == "never shown" and not never.boundaries


def test_a_contrast_conditional_on_one_of_two_knobs_has_a_boundary_per_line_of_the_other():
    rows = []
    for i, (x, y, d) in enumerate([(0, 0, 0.2), (1, 0, -0.1), (0, 1, 0.2), (1, 1, 0.15)]):
        rows.append({"a": "A", "b": "B", "group": "all", "point": i, "k.x": x, "k.y": y, "n": 9, "users": 4, "mean_a": 0,
                     "mean_b": 0, "diff": d, "ci_low": d - 0.05, "ci_high": d + 0.05,
                     "sign": 1 if d - 0.05 > 0 else -1 if d + 0.05 < 0 else 0})
    table = pd.DataFrame(rows)
    [v] = verdicts(table, ["k.x", "k.y"])
    assert v.status == "conditional"
    # along k.x it stops holding only where k.y = 0; along k.y it starts holding at k.x = 1 (at k.x = 0 it always does)
    assert [(b.knob, b.held, b.shown_side) for b in v.boundaries] == [("k.x", {"k.y": 0}, "below"),
                                                                      ("k.y", {"k.x": 1}, "above")]


# ---- a sweep end to end ----------------------------------------------------------------------

@pytest.mark.slow
def test_a_sweep_replays_only_what_a_varied_knob_can_change_and_reuse_is_exact(tmp_path: Path):
    config = load_config(_config(tmp_path))
    out = run_sensitivity(config, config.sensitivity.vary, out_dir=tmp_path / "sweep", progress=False,
                          say=lambda _: None)
    state = json.loads((out / "sensitivity.json").read_text())
    first, second = state["points"]
    assert first["played"] == 9 and first["reused"] == 0  # 3 strategies × 3 users
    # only the agent's units offer store_fact on conversations with tool turns: the others are reused
    assert second["played"] == 3 and second["reused"] == 6
    assert {s for s, _, _, j in second["sources"] if j == 1} == {"agent"}
    assert "agent.store_tool_observations" in next(v for k, v in second["depends_on"].items() if k.startswith("agent|"))
    p1 = json.loads((out / second["run"] / "manifest.json").read_text())
    assert "+profile-" in p1["models"]["default"]["model"] and p1["unit_selection"] == {"played": 3, "of": 9}
    # the knob acted: the agent stored tool observations at the second point only
    steps = [json.loads(line) for line in (out / second["run"] / "agent_steps.jsonl").read_text().splitlines()]
    assert any(s["tool"] == "store_fact" and "reported" in s["args"].get("text", "") for s in steps)
    # reuse is exact: the extract strategy played directly at the second point writes the same records
    direct = Runner(with_profile(config.with_strategies(["extract"]), second["knobs"]),
                    run_dir=tmp_path / "direct", progress=False).run()
    reused = [ln for ln in canonical_lines(out / first["run"]) if '"strategy": "extract"' in ln]
    assert canonical_lines(direct) == reused
    # the report: contrasts per point, verdicts, a plot per contrast, the design report's section
    files = write_sweep_report(out)
    table = pd.read_csv(files["contrasts"])
    assert len(table[table["group"] == "all"]) == 2 and set(table["agent.store_tool_observations"]) == {0.0, 1.0}
    assert files["plot:extract-agent-all"].read_bytes()[:4] == b"\x89PNG"
    html = files["html"].read_text(encoding="utf-8")
    assert "What these conclusions depend on" in html and "extract − agent" in html
    assert "What these conclusions depend on" in files["md"].read_text(encoding="utf-8")
    assert not (set(pd.read_csv(files["verdicts"])["status"]) - {"robust", "conditional", "never shown"})


@pytest.mark.slow
def test_an_interrupted_sweep_resumes_without_replaying_finished_points(tmp_path: Path, monkeypatch):
    import memlab.harness.runner as runner_module

    config = load_config(_config(tmp_path))
    calls = {"n": 0}
    real_run = runner_module.Runner.run

    def interrupted(self):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real_run(self)

    monkeypatch.setattr(runner_module.Runner, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_sensitivity(config, config.sensitivity.vary, out_dir=tmp_path / "sweep", progress=False, say=lambda _: None)
    monkeypatch.setattr(runner_module.Runner, "run", real_run)
    first_units = (tmp_path / "sweep" / "profiles" / "p00" / "units.jsonl").read_text()
    out = run_sensitivity(config, config.sensitivity.vary, out_dir=tmp_path / "sweep", resume=True, progress=False,
                          say=lambda _: None)
    assert (out / "profiles" / "p00" / "units.jsonl").read_text() == first_units  # nothing played twice
    assert load_sweep(out).state["status"] == "completed"
    with pytest.raises(ValueError, match="another config or grid"):
        run_sensitivity(config, {"agent.store_tool_observations": [0, 0.5]}, out_dir=out, resume=True, progress=False)


@pytest.mark.slow
def test_the_command_line(tmp_path: Path, capsys):
    path = _config(tmp_path)
    assert cli_main(["sensitivity", str(path), "--vary", "agent.store_tool_obs=0,1"]) == 2
    assert "Did you mean 'agent.store_tool_observations'" in capsys.readouterr().err
    assert cli_main(["sensitivity", str(path), "--contrast", "extract", "agnt"]) == 2
    assert "Did you mean 'agent'" in capsys.readouterr().err
    assert cli_main(["sensitivity", str(path), "--out", str(tmp_path / "cli"), "--no-progress", "--by", "category"]) == 0
    printed = capsys.readouterr().out
    assert "extract" in printed and ("[robust]" in printed or "[conditional]" in printed or "[never shown]" in printed)
    table = contrast_table(load_sweep(tmp_path / "cli"))
    assert {"all", "single_hop"} <= set(table["group"])
