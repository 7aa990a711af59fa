"""The yardstick depends on nothing it measures: no model, role, offline stand-in or strategy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("memlab.roles", "memlab.offline", "memlab.llm", "memlab.strategies")


def test_scoring_metrics_and_stats_import_no_system_under_test() -> None:
    code = ("import json, sys\nimport memlab.scoring, memlab.analysis.metrics, memlab.analysis.stats\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('memlab'))))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert "memlab.scoring.values" in loaded  # the check itself sees submodules
    bad = [m for m in loaded if m.startswith(FORBIDDEN)]
    assert not bad, f"the scoring modules pulled in {bad}"


def test_the_offline_judge_is_built_from_the_scoring_package_alone() -> None:
    """The judge must not grade the offline model by the model's own rules (its answerer's
    abstention phrases, its lexicon): importing it loads memlab.scoring and nothing under test."""
    code = ("import json, sys\nimport memlab.scoring.offline_judge\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('memlab'))))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert "memlab.scoring.abstention" in loaded
    bad = [m for m in loaded if m.startswith(FORBIDDEN)]
    assert not bad, f"the offline judge pulled in {bad}"
