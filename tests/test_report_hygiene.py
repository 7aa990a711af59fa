"""Issue 18, item 19: the design report renders any recorded text safely — a carriage return does
not break a markdown line, a NUL never reaches the HTML, and a context is split into lines where
it was joined (``\\n``), not at U+2028.

The run is tiny (the dataset of tests/test_reliability.py); its recorded answers and a context are
then edited to hold the characters a model or an older memlab could have written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlab.analysis.html_report import ProbeCase, build_report, render_html, render_markdown
from memlab.harness.runner import Runner
from tests.test_reliability import _config, _dataset


def _hostile_copy(tmp_path: Path) -> Path:
    run = Runner(_config(tmp_path, _dataset(tmp_path), strategies=[{"name": "recent_window"}]), progress=False).run()
    rows = [json.loads(line) for line in (run / "probes.jsonl").read_text().splitlines()]
    for row in rows:
        row["answer"] = "wrong\r| injected | row |\x00 and a NUL"  # a wrong answer: the probe is shown as failed
        row["question"] = "What is my locker code?\rNext line?"
    rows[0].pop("context_items")  # an older run's probe: the drill-down splits the context text itself
    rows[0]["context"] = "first line\u2028still the first line\nsecond line"
    (run / "probes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


@pytest.mark.slow
def test_the_design_report_renders_breaks_nul_and_separators_safely(tmp_path):
    report = build_report([_hostile_copy(tmp_path)])
    cases = [b for s in report.sections for b in s.blocks if isinstance(b, ProbeCase)]
    assert len(cases) == 2
    plain = next(c for c in cases if not any(line.sources for line in c.lines))
    assert [line.text for line in plain.lines] == ["first line\u2028still the first line", "second line"]
    html = render_html(report)
    assert "\x00" not in html and "a NUL" in html
    md, _ = render_markdown(report, "r")
    assert "\x00" not in md and "\r" not in md
    assert all(line.count("|") - line.count("\\|") == 0 for line in md.splitlines() if line.startswith("- **answer**")), \
        "the answer's | are escaped, its CR folded"
