"""Issue 18: resume repairs what it promises, runs refuse what they cannot do before creating a folder,
exit codes match statuses, and a run folder's manifest is read or refused in one line.

Runs use the tiny hand-written dataset of tests/test_reliability.py (not evaluation data) and
cheap strategies; endpoint models are the local fake OpenAI server (tests/support)."""

from __future__ import annotations

import pytest
import yaml

from memlab.config import ConfigError, load_config


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
