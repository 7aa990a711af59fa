"""Issue 18, item 2: a store password is masked in every output whatever characters it holds.

libpq reads ``postgresql://u:Hash#Secret9@host/db`` as password ``Hash#Secret9``, where a standard
URL parser sees a fragment; a space ends a URL in free text. Each such password must stay out of
every file a run, its reports and its baseline write, and out of store errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlab.analysis.baseline import dumps, snapshot
from memlab.analysis.html_report import report_html, report_markdown
from memlab.memory.stores.postgres import describe_dsn
from memlab.runfolder.recorder import read_jsonl
from memlab.redact import redact, redact_text
from memlab.analysis.report import write_report
from memlab.analysis.results import load_run
from memlab.harness.runner import Runner
from tests.test_reliability import _config, _dataset

PASSWORDS = ["Hash#Secret9", "Qm?Secret9", "Sl/Secret9", "Sp ace Secret9"]
"""Each ends in the marker ``Secret9``, so a leak of any piece after the special character shows too."""


def _dsn(password: str) -> str:
    return f"postgresql://memlab:{password}@127.0.0.1:1/db"  # port 1: nothing listens, the units fail fast


@pytest.mark.slow
def test_dsn_passwords_holding_url_delimiters_or_spaces_reach_no_output(tmp_path: Path):
    ds = _dataset(tmp_path)
    strategies = [{"name": "message_rag"}] + [
        {"name": f"pg{i}", "preset": "fact_rag", "store": {"type": "postgres", "dsn": _dsn(pw)}}
        for i, pw in enumerate(PASSWORDS)]
    cfg = _config(tmp_path, ds, store_options={"postgres": {"dsn": _dsn("Opt#Secret9")}}, strategies=strategies)
    run = Runner(cfg, progress=False).run()
    write_report(run)
    report_html([run], run / "report.html")
    report_markdown([run], run / "report.md")
    (run / "baseline.json").write_text(dumps(snapshot(load_run(run))), encoding="utf-8")

    errors = [u["error"] for u in read_jsonl(run / "units.jsonl") if u.get("error")]
    assert len(errors) == 2 * len(PASSWORDS), "every postgres unit failed on the dead port"
    assert all("127.0.0.1:1/db (user memlab)" in e for e in errors), errors[0]  # the address, not user:password
    files = [f for f in run.rglob("*") if f.is_file() and f.suffix in {".json", ".jsonl", ".csv", ".md", ".html"}]
    assert {f.name for f in files} >= {"manifest.json", "metrics.csv", "summary.csv", "category_recall.csv",
                                       "units.jsonl", "baseline.json", "report.html", "report.md"}
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        assert "Secret9" not in text, f"a password leaked into {f.name}"


def test_a_masked_dsn_keeps_user_and_address_and_a_seen_password_is_masked_in_free_text():
    for pw in PASSWORDS:
        assert redact({"dsn": _dsn(pw)}) == {"dsn": "postgresql://memlab:***@127.0.0.1:1/db"}
        assert describe_dsn(_dsn(pw)) == {"host": "127.0.0.1", "port": "1", "dbname": "db", "user": "memlab"}
    # a driver error quoting the password on its own, or a DSN split at its space
    assert "Secret9" not in redact_text('FATAL: password "Sp ace Secret9" rejected for postgresql://memlab:Sp ace Secret9@h/db')
    assert redact({"dsn": "host=h user=u password='Quo ted Secret9'"}) == {"dsn": "host=h user=u password=***"}
