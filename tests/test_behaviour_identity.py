"""The offline model's default behaviour profile reproduces the records written before the
profile existed (issue 26), byte for byte once ids, clocks and the source-hash label are set
aside (tests/support/canonical_records.py).

The expected records were written by ``tests/fixtures/default_profile/record.py`` at the commit in
``records/RECORDED_AT``, before any knob was added; the cases cover every role a knob acts in.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from memlab.harness.config import validate_config
from memlab.harness.runner import Runner
from memlab.offline.behaviour import DEFAULT
from tests.support.canonical_records import canonical_lines, profiles_named, recorded_fields

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "default_profile"
sys.path.insert(0, str(FIXTURES))
from cases import CASES, config  # noqa: E402


READ_BACK = {"probes": ("gold_written",)}
"""Fields the records had then and no longer carry: computed at read-back since issue 30 (the ceiling is a
property of the dataset, not of the model's behaviour; docs/metrics.md)."""


def _expected(case: str) -> list[str]:
    with gzip.open(FIXTURES / "records" / f"{case}.jsonl.gz", "rt", encoding="utf-8") as fh:
        lines = [line for line in fh.read().splitlines() if line]
    out = []
    for line in lines:
        stream, text = line.split("\t", 1)
        if stream in READ_BACK:
            rec = json.loads(text)
            for key in READ_BACK[stream]:
                rec.pop(key, None)
            line = f"{stream}\t{json.dumps(rec, sort_keys=True, ensure_ascii=False)}"
        out.append(line)
    return sorted(out)


def _first_difference(got: list[str], want: list[str]) -> str:
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"record {i}:\n  now:      {g[:400]}\n  recorded: {w[:400]}"
    return f"{len(got)} records now, {len(want)} recorded"


@pytest.mark.parametrize("case", list(CASES))
def test_default_profile_reproduces_the_recorded_runs(case: str, tmp_path: Path):
    run_dir = Runner(validate_config(config(case, str(tmp_path))), progress=False).run()
    want = _expected(case)
    got = canonical_lines(run_dir, recorded_fields(want))
    assert got == want, _first_difference(got, want)
    # the model's label names a profile exactly when it is not the default: `tool_reliability: 0.7`
    # is the knob agent.store_user_facts, so that run's model is another model (same records as before)
    reliability = (CASES[case].get("model") or {}).get("options", {}).get("tool_reliability")
    expected = "" if reliability is None else f"+profile-{DEFAULT.with_knobs({'agent.store_user_facts': reliability}).digest()}"
    assert profiles_named(run_dir) == {expected}
