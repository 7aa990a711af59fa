"""Issue 18: resume repairs what it promises, runs refuse what they cannot do before creating a folder,
exit codes match statuses, and a run folder's manifest is read or refused in one line.

Runs use the tiny hand-written dataset of tests/test_reliability.py (not evaluation data) and
cheap strategies; endpoint models are the local fake OpenAI server (tests/support)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from memlab.cli import main as cli_main
from memlab.config import ConfigError, load_config
from memlab.runner import EXIT_CODES
from tests.test_reliability import _dataset


# -- item 20: `cache: {mode: off}` unquoted ---------------------------------------------------------

def test_an_unquoted_cache_mode_off_is_read_as_off_and_on_says_quote_it(tmp_path):
    ds = tmp_path / "d.yaml"
    ds.write_text("name: d\nconversations: []\n")
    path = tmp_path / "c.yaml"
    path.write_text(f"datasets: [{ds}]\nstrategies: [{{name: no_memory}}]\nmodel: {{provider: offline, cache: {{mode: off}}}}\n")
    assert load_config(path).model.cache.mode == "off"
    path.write_text(f"datasets: [{ds}]\nstrategies: [{{name: no_memory}}]\nmodel: {{provider: offline, cache: {{mode: on}}}}\n")
    with pytest.raises(ConfigError, match="quote it"):
        load_config(path)


# -- shared helpers ------------------------------------------------------------------------------------

def _endpoint_config(tmp_path: Path, server, **kw) -> dict:
    """A run config whose every model call goes to the fake server, failing fast (one attempt)."""
    cfg = {"name": "ep", "datasets": [str(_dataset(tmp_path))], "output_dir": str(tmp_path / "results"), "bootstrap": 0,
           "embedding_cache": str(tmp_path / "emb.npz"), "strategies": [{"name": "recent_window"}],
           "model": {"provider": "openai", "model": "m", "base_url": server.base_url, "api_key_env": "MEMLAB_TEST_NO_KEY",
                     "max_attempts": 1, "retry_base_delay_s": 0}}
    cfg.update(kw)
    return cfg


def _write(tmp_path: Path, cfg: dict, name: str = "cfg.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg))
    return path


def _only_run(tmp_path: Path) -> Path:
    runs = [p for p in (tmp_path / "results").iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


class _NoLongSleep:
    """Stands in for the limiter's ``time`` module: a sleep of more than 5 minutes fails the test
    instead of stalling it (what a Retry-After of an hour did)."""

    monotonic = staticmethod(time.monotonic)

    @staticmethod
    def sleep(seconds: float) -> None:
        if seconds > 300:
            raise AssertionError(f"the limiter was asked to sleep {seconds:.0f}s")
        time.sleep(seconds)


# -- item 3: one long Retry-After stops the run with a message ------------------------------------------

def test_a_long_retry_after_stops_the_run_with_a_message(tmp_path, server, monkeypatch, capsys):
    monkeypatch.setattr("memlab.llm.limiter.time", _NoLongSleep)
    server.default_fields = {"answer": "4000"}
    server.script.append({"status": 429, "retry_after": "3600"})
    code = cli_main(["run", str(_write(tmp_path, _endpoint_config(tmp_path, server)))])
    out = capsys.readouterr()
    assert code == EXIT_CODES["failed"] == 1
    assert "retry after 3600s" in out.out + out.err and "Traceback" not in out.out + out.err
    m = json.loads((_only_run(tmp_path) / "manifest.json").read_text())
    assert m["status"] == "failed" and "3600s" in m["error"] and server.received == 1
