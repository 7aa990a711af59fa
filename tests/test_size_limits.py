"""Issue 29, items 10 and 11: suite-check on a dataset without probes says so (and leaves no
temporary runs behind); a huge turn is warned about or refused by ``validate``, and the offline
model keeps every reply within the call's ``max_tokens``."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from memlab.cli import main as cli_main
from memlab.datasets.limits import TURN_MAX_BYTES, TURN_WARN_BYTES
from memlab.runfolder.recorder import read_jsonl
from memlab.harness.runner import Runner
from tests.test_reliability import _config, _dataset


# -- item 10: suite-check --------------------------------------------------------------------------------------------

@pytest.fixture()
def private_tmpdir(tmp_path, monkeypatch) -> Path:
    """$TMPDIR of the command under test, to see what it leaves there."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_suite_check_of_a_dataset_without_probes_says_so_and_leaves_nothing(tmp_path, private_tmpdir, capsys):
    ds = _dataset(tmp_path, probes=False)
    assert cli_main(["suite-check", str(ds), "--contrast", "short_term", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"{ds} has no probes" in err and "KeyError" not in err and "Traceback" not in err
    assert list(private_tmpdir.iterdir()) == []


def test_suite_check_removes_its_temporary_runs(tmp_path, private_tmpdir, capsys):
    ds = _dataset(tmp_path, n=3)
    out = tmp_path / "expect.json"
    assert cli_main(["suite-check", str(ds), "--contrast", "short_term", "--no-progress", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["datasets"]["tiny"]["short_term"]["probes"] == 3
    assert list(private_tmpdir.iterdir()) == [], "the runs played in $TMPDIR are gone"
    kept = tmp_path / "runs"  # asked for: kept
    assert cli_main(["suite-check", str(ds), "--contrast", "short_term", "--no-progress", "--output-dir", str(kept)]) == 0
    assert [p.name for p in kept.iterdir()][0].endswith("suite-check")
    capsys.readouterr()


# -- item 11: sizes ---------------------------------------------------------------------------------------------------

def _with_turn(tmp_path: Path, text: str, name: str = "big.json") -> Path:
    src = _dataset(tmp_path)
    data = json.loads(src.read_text(encoding="utf-8"))
    data["conversations"][0]["sessions"][0]["turns"][0]["text"] = text
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_validate_warns_about_a_long_turn_and_refuses_a_huge_one(tmp_path, capsys):
    long_turn = _with_turn(tmp_path, "My locker code is 4000. " + "Still talking. " * (TURN_WARN_BYTES // 15 + 10), "long.json")
    assert cli_main(["validate", str(long_turn)]) == 0
    out = capsys.readouterr().out
    assert "✓" in out and "warning:" in out and "turn 't1' of conversation 'p0'" in out and "above 100 KiB" in out

    huge = _with_turn(tmp_path, "My locker code is 4000. " + "x" * TURN_MAX_BYTES, "huge.json")
    assert cli_main(["validate", str(huge)]) == 1
    out = capsys.readouterr().out
    assert "conversations[0].sessions[0].turns[0].text" in out and "above the limit of 1.0 MiB per turn" in out
    with pytest.raises(ValueError, match="above the limit of 1.0 MiB per turn"):  # and no run loads it
        Runner(_config(tmp_path, huge), progress=False)


@pytest.mark.slow
def test_the_offline_model_keeps_every_reply_within_max_tokens(tmp_path):
    """One 700 KB clause holds the answer: the extractive answerer quoted it whole (for a 42 MB turn,
    9.6M completion tokens for one probe); now the reply stops at the call's max_tokens."""
    sentence = "My locker code is 4000 " + " ".join(f"near shelf number {i} with a box" for i in range(24_000)) + "."
    assert TURN_WARN_BYTES < len(sentence) < TURN_MAX_BYTES
    ds = _with_turn(tmp_path, sentence)
    cfg = _config(tmp_path, ds, strategies=[{"name": "full_context"}], model={"provider": "offline", "max_tokens": 64})
    run = Runner(cfg, progress=False).run()
    answers = [c for c in read_jsonl(run / "calls.jsonl") if c["purpose"] == "answer"]
    assert answers and max(c["completion_tokens"] for c in answers) <= 64
    probe = next(p for p in read_jsonl(run / "probes.jsonl") if p["probe_id"] == "p0-q")
    assert "4000" in probe["answer"] and len(probe["answer"]) < 2000, "the answer keeps its start, within budget"
