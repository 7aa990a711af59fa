"""``memlab estimate`` against an actual run through the local fake OpenAI-compatible server.

The fake server answers every request the way the offline stand-in would (memlab's roles and the
judge by the offline model, ragas's prompts by the ragas stand-in), so its replies have the
stand-in's lengths, and reports usage counted with o200k — the tokenizer of gpt-4o-mini, not the
cl100k the dry run counts with. The estimate is made from a dry run of half the users, scaled to
all of them; the actual run plays every user through the real ``openai`` client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlab.analysis.results import load_run
from memlab.harness.estimate import Estimate, estimate, project
from memlab.cost.ragas_standin import RagasStandIn
from memlab.harness.config import RunConfig
from memlab.harness.runner import Runner
from memlab.llm.types import ChatRequest, ToolSpec
from memlab.tokens import count_message_tokens, count_tokens, count_tool_tokens
from tests.support.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parent.parent
DEV = str(ROOT / "datasets" / "dev" / "dev.yaml")  # the dev split: 10 users


def standin_responder() -> Any:
    """Replies as the stand-ins would, with usage counted in o200k (what a gpt-4o-mini endpoint reports)."""
    from memlab.embeddings import shared_embedder
    from memlab.llm.offline_model import OfflineChatModel

    offline, ragas = OfflineChatModel(embedder=shared_embedder()), RagasStandIn()

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        tools = [ToolSpec(name=t["function"]["name"], description=t["function"].get("description") or "",
                          parameters=t["function"].get("parameters") or {"type": "object", "properties": {}})
                 for t in body.get("tools") or []]
        choice = body.get("tool_choice")
        request = ChatRequest(messages=body["messages"], purpose="x", max_tokens=body.get("max_tokens"), tools=tools,
                              tool_choice=(choice.get("function") or {}).get("name") if isinstance(choice, dict) else choice)
        model = ragas if (body.get("response_format") or {}).get("type") == "json_object" else offline
        reply = model.complete(request)
        usage = {"prompt_tokens": count_message_tokens(body["messages"], "o200k_base")
                 + count_tool_tokens(tools, "o200k_base"),
                 "completion_tokens": count_tokens(reply.text, "o200k_base")
                 + sum(count_tokens(c.name, "o200k_base") + count_tokens(c.raw_arguments, "o200k_base") + 3
                       for c in reply.tool_calls)}
        out: dict[str, Any] = {"content": reply.text, "usage": usage}
        if reply.tool_calls:
            out["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.raw_arguments} for c in reply.tool_calls]
        return out

    return respond


def _config(tmp_path: Path, server: FakeOpenAIServer) -> RunConfig:
    endpoint = {"provider": "openai", "model": "gpt-4o-mini", "base_url": server.base_url, "max_attempts": 2}
    return RunConfig.model_validate({
        "name": "actual", "datasets": [DEV], "output_dir": str(tmp_path / "results"),
        "embedding_cache": None, "model": endpoint, "judge": endpoint,
        "metrics": ["evidence_recall", "answer_correct", "ragas_faithfulness"],
        "strategies": [{"name": "full_context"}, {"name": "fact_rag", "store": {"type": "in_memory"}}]})


@pytest.mark.slow
def test_an_estimate_is_within_20_percent_of_the_actual_tokens(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.responder = standin_responder()
    config = _config(tmp_path, server)
    actual = load_run(Runner(config, progress=False).run())
    assert actual.manifest["status"] == "completed", actual.manifest.get("units")

    est = estimate(config, ["gpt-4o-mini"], limit=5, output_dir=tmp_path / "dry", progress=False)
    assert any("scaled" in n for n in est.notes)  # half the users played, scaled to all of them
    calls = actual.calls
    assert set(calls["token_source"]) == {"api"}  # the actual tokens are the endpoint's (o200k) counts
    rows = est.rows
    assert set(rows["purpose"]) >= {"answer", "extract", "judge", "ragas"}  # every kind of call is counted
    assert set(rows["purpose"]) == set(calls["purpose"])
    report = {p: (round(rows[rows["purpose"] == p]["input_tokens"].sum()), int(g["prompt_tokens"].sum()))
              for p, g in calls.groupby("purpose")}
    print("input tokens by purpose (estimate, actual):", report)
    assert rows["calls"].sum() == pytest.approx(len(calls), rel=0.2)
    for what, column in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
        projected, real = rows[what].sum(), calls[column].sum()
        assert projected == pytest.approx(real, rel=0.2), (what, projected, real, report)
    # the range holds the actual cost: typical near it, output at max_tokens above it
    spent = actual.cost()["usd_per_conv"].mul(actual.conversations_per_strategy()).sum()
    total = est.totals().iloc[0]
    assert total["usd"] == pytest.approx(spent, rel=0.2) and total["usd_max"] > spent
    assert total["wall_s"] > 0 and total["wall_bound"]


@pytest.mark.slow
def test_an_estimate_from_a_recorded_run_prices_each_model_and_writes_a_csv(tmp_path: Path) -> None:
    """From a recorded (offline) run: one cost column per model, the dearer model costs more, the
    output range is bounded by max_tokens, rate limits bound the wall time, and the CSV is complete."""
    cfg = RunConfig.model_validate({
        "name": "small", "datasets": [str(ROOT / "tests" / "fixtures" / "native_small.yaml")],
        "output_dir": str(tmp_path / "results"), "embedding_cache": None,
        "model": {"provider": "offline", "max_tokens": 100, "rate_limit": {"requests_per_minute": 6}},
        "strategies": [{"name": "full_context"}, {"name": "fact_rag", "store": {"type": "in_memory"}}]})
    run_dir = Runner(cfg, progress=False).run()
    est = project(cfg, run_dir, ["gpt-4o-mini", "gpt-4o"])
    assert isinstance(est, Estimate)
    by = est.by_strategy().set_index(["model", "strategy"])
    for strategy in ("full_context", "fact_rag"):
        cheap, dear = by.loc[("gpt-4o-mini", strategy)], by.loc[("gpt-4o", strategy)]
        assert 0 < cheap["usd"] < dear["usd"] and cheap["usd"] <= cheap["usd_max"]
        assert cheap["output_tokens"] <= cheap["output_tokens_max"] == pytest.approx(cheap["calls"] * 100)
    calls = load_run(run_dir).calls
    assert est.rows[est.rows["model"] == "gpt-4o-mini"]["calls"].sum() == len(calls)  # nothing to scale
    wall = est.wall.set_index("model").loc["gpt-4o"]
    assert wall["wall_bound"].startswith("requests_per_minute") and wall["wall_s"] == pytest.approx(len(calls) * 10)
    out = est.to_csv(tmp_path / "estimate.csv")
    import pandas as pd

    table = pd.read_csv(out)
    assert {"model", "strategy", "purpose", "calls", "input_tokens", "output_tokens", "output_tokens_max", "usd",
            "usd_max", "wall_s", "price_source"} <= set(table.columns)
    assert len(table) == len(est.rows)


def test_the_cli_prints_the_table_and_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from memlab.cli import main

    cfg = tmp_path / "c.yaml"
    cfg.write_text(json.dumps({"name": "c", "datasets": [str(ROOT / "tests" / "fixtures" / "native_small.yaml")],
                               "embedding_cache": None, "strategies": [{"name": "full_context"}]}))
    code = main(["estimate", str(cfg), "--model", "gpt-4o-mini", "--model", "gpt-4o", "--no-progress",
                 "--dry-run-dir", str(tmp_path / "dry"), "--csv", str(tmp_path / "e.csv")])
    out = capsys.readouterr().out
    assert code == 0 and "gpt-4o-mini $" in out and "gpt-4o $" in out and "wall time with gpt-4o" in out
    assert (tmp_path / "e.csv").is_file()
    code = main(["estimate", str(cfg), "--model", "no-such-model-xyz", "--no-progress", "--dry-run-dir", str(tmp_path / "d2")])
    assert code == 0 and "no price for 'no-such-model-xyz'" in capsys.readouterr().out
