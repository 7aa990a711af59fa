"""Budgets and cached input tokens, through the real ``openai`` client against the local fake server.

A budgeted run stops before the call that would cross its limit, leaves no counted partial unit,
says ``stopped_at_budget`` with the spend, and ``--resume`` with a larger budget ends with the
same records as a run that never had a budget. Cached prompt tokens the endpoint reports are
recorded and priced at the cached rate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlab.analysis.results import load_run
from memlab.cli import main
from memlab.cost.budget import BudgetExhausted, BudgetLedger, BudgetSpec, Spend, parse_budget_flags
from memlab.cost.prices import PriceBook, load_price_table
from memlab.harness.config import RunConfig
from memlab.runfolder.recorder import read_jsonl
from memlab.harness.runner import EXIT_CODES, Runner
from memlab.llm.openai_model import OpenAIChatModel
from memlab.llm.types import ChatRequest
from tests.support.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parent.parent
SMALL = str(ROOT / "tests" / "fixtures" / "native_small.yaml")
MINI = PriceBook().get("gpt-4o-mini")


def _config(tmp_path: Path, server: FakeOpenAIServer, **kw: Any) -> RunConfig:
    data: dict[str, Any] = {
        "name": "budget", "datasets": [SMALL], "output_dir": str(tmp_path / "results"),
        "embedding_cache": None, "metrics": ["evidence_recall"],
        "model": {"provider": "openai", "model": "gpt-4o-mini", "base_url": server.base_url, "max_attempts": 1,
                  "max_tokens": 64},
        "strategies": [{"name": "full_context"}, {"name": "fact_rag", "store": {"type": "in_memory"}}]}
    data.update(kw)
    return RunConfig.model_validate(data)


VOLATILE = {"run_id", "attempt", "call_id", "latency_s", "at", "wall_s", "retrieval_latency_s", "retrieval_total_s",
            "answer_latency_s"}


def _final(run_dir: Path, stream: str) -> list[str]:
    """A stream's records of the final attempts, volatile fields dropped, in a canonical order."""
    res = load_run(run_dir)
    rows = [r for r in read_jsonl(run_dir / f"{stream}.jsonl") if r.get("attempt") in res.final_attempts]
    def steady(value: Any) -> Any:
        if isinstance(value, dict):  # a store namespace starts with the run's uid: the rest must agree
            return {k: (v.split("/", 1)[1] if k == "namespace" and isinstance(v, str) and "/" in v else steady(v))
                    for k, v in value.items() if k not in VOLATILE}
        return [steady(v) for v in value] if isinstance(value, list) else value

    return sorted(json.dumps(steady(r), sort_keys=True, default=str) for r in rows)


def test_a_price_table_and_budget_flags_are_read_and_bad_entries_are_named(tmp_path: Path) -> None:
    table = tmp_path / "prices.yaml"
    table.write_text("gpt-4o-mini: {input: 1.0, output: 2.0, cached_input: 0.5}\nmy-model: {input: 0, output: 0}\n")
    book = PriceBook(table)
    assert book.get("openai:gpt-4o-mini@http://127.0.0.1:1/v1").input == pytest.approx(1e-6)  # the table wins
    assert book.get("gpt-4o") == PriceBook().get("gpt-4o") and book.get("gpt-4o").output > 0  # the map otherwise
    assert book.get("no-such-model") is None and book.get("offline-1+abc").cost(10, 10) == 0
    csv = tmp_path / "prices.csv"
    csv.write_text("model,input,output\nm1,1,2\nm2,x,2\n")
    with pytest.raises(ValueError, match=r"prices.csv:3 \(m2\): `input` must be a number"):
        load_price_table(csv)
    assert parse_budget_flags(["usd=2", "max_calls=10"]).model_dump() == {"max_usd": 2.0, "max_tokens": None, "max_calls": 10}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_budget_flags(["dollars=3"])


def test_the_ledger_refuses_the_call_that_could_cross_and_stays_stopped(tmp_path: Path) -> None:
    ledger = BudgetLedger(tmp_path / ".budget.json", BudgetSpec(max_tokens=1000), PriceBook())
    ledger.start(Spend(0.0, 600, 3))
    held = ledger.reserve("openai:gpt-4o-mini", 100, 200, "answer")  # 600 + 300 <= 1000
    with pytest.raises(BudgetExhausted, match="max_tokens 1,000"):
        ledger.reserve("openai:gpt-4o-mini", 50, 60, "extract")  # 600 + 300 reserved + 110 > 1000
    ledger.settle(held, None, "openai:gpt-4o-mini")
    with pytest.raises(BudgetExhausted):  # stopped: no later call starts, even a small one
        ledger.reserve("openai:gpt-4o-mini", 1, 1, "gate")
    assert ledger.state()["spent"]["calls"] == 4


@pytest.mark.slow
def test_cached_input_tokens_are_recorded_priced_at_the_cached_rate_and_replayed_free(
        tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.responder = lambda body: {"usage": {"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020,
                                               "prompt_tokens_details": {"cached_tokens": 768}}}
    model = OpenAIChatModel("gpt-4o-mini", base_url=server.base_url)
    resp = model.complete(ChatRequest(messages=[{"role": "user", "content": "hi"}], purpose="answer"))
    assert (resp.usage.prompt_tokens, resp.usage.cached_tokens, resp.usage.source) == (1000, 768, "api")

    cache = tmp_path / "cache.jsonl"
    cfg = _config(tmp_path, server, strategies=[{"name": "full_context"}],
                  model={"provider": "openai", "model": "gpt-4o-mini", "base_url": server.base_url, "max_attempts": 1,
                         "cache": {"mode": "record", "path": str(cache)}})
    res = load_run(Runner(cfg, progress=False).run())
    calls = res.calls
    assert len(calls) > 0 and (calls["cached_tokens"] == 768).all()
    per_call = MINI.cost(1000, 20, 768)
    assert per_call == pytest.approx((1000 - 768) * MINI.input + 768 * MINI.cached_input + 20 * MINI.output)
    assert per_call < MINI.cost(1000, 20, 0)  # the cached rate is what makes it cheaper
    cost = res.cost().loc["full_context"]
    n_conv = res.conversations_per_strategy()["full_context"]
    assert cost["cached_tokens_per_conv"] * n_conv == 768 * len(calls)
    assert cost["usd_per_conv"] * n_conv == pytest.approx(per_call * len(calls))

    received = server.received
    replay = _config(tmp_path, server, strategies=[{"name": "full_context"}],
                     model={"provider": "openai", "model": "gpt-4o-mini", "base_url": server.base_url,
                            "cache": {"mode": "replay-strict", "path": str(cache)}})
    again = load_run(Runner(replay, progress=False).run())
    assert server.received == received  # nothing asked of the endpoint
    assert (again.calls["cached_tokens"] == 768).all() and again.calls["cached"].all()
    assert again.cost().loc["full_context", "usd_per_conv"] == 0.0  # a replayed call costs nothing


@pytest.mark.slow
def test_a_budget_stops_cleanly_and_a_resume_with_a_larger_one_gives_the_uncapped_records(
        tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.default_fields = {"answer": "Lisbon", "facts": '["Ana moved to Lisbon."]'}
    uncapped = Runner(_config(tmp_path, server, name="uncapped"), progress=False).run()
    total_calls = len(read_jsonl(uncapped / "calls.jsonl"))
    assert total_calls > 6 and read_jsonl(uncapped / "memory_ops.jsonl")  # memories written: their records compared too

    received = server.received
    cap = total_calls // 2
    config = tmp_path / "capped.yaml"
    import yaml

    data = _config(tmp_path, server, name="capped").model_dump(mode="json", exclude_defaults=True)
    config.write_text(yaml.safe_dump(data))
    run_dir = tmp_path / "capped-run"
    code = main(["run", str(config), "--run-dir", str(run_dir), "--budget", f"max_calls={cap}", "--no-progress"])
    assert code == EXIT_CODES["stopped_at_budget"] == 4
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "stopped_at_budget"
    assert manifest["budget"]["spent"]["calls"] == cap and manifest["budget"]["limits"]["max_calls"] == cap
    assert "max_calls" in manifest["budget"]["stopped"]
    assert server.received - received == cap  # the call that would have crossed was never sent
    # no torn unit: the unit in flight has a start and no end, and none of its records count
    units = read_jsonl(run_dir / "units.jsonl")
    started = {u["attempt"] for u in units if u["event"] == "start"}
    ended = {u["attempt"] for u in units if u["event"] == "end"}
    assert len(started - ended) == 1
    partial = load_run(run_dir)
    assert not (set(partial.probes.get("attempt", [])) & (started - ended))
    refused = [c for c in read_jsonl(run_dir / "calls.jsonl") if c["attempts"] == 0]
    assert len(refused) == 1 and not refused[0]["ok"]  # recorded, and not billed

    code = main(["run", str(config), "--resume", str(run_dir), "--budget", f"max_calls={10 * total_calls}", "--no-progress"])
    assert code == 0
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "completed" and manifest["budget"]["stopped"] is None
    # the spend counts the first session too: the uncapped run's calls + the redone unit's
    assert manifest["budget"]["spent"]["calls"] >= total_calls
    for stream in ("probes", "memory_ops", "turns", "calls"):
        assert _final(run_dir, stream) == _final(uncapped, stream), stream


def test_a_usd_budget_below_one_call_sends_nothing(tmp_path: Path, server: FakeOpenAIServer) -> None:
    runner = Runner(_config(tmp_path, server, strategies=[{"name": "full_context"}], budget={"max_usd": 1e-7}),
                    progress=False)
    runner.run()
    assert runner.status == "stopped_at_budget" and server.received == 0
    assert "max_usd" in runner.budget_stop


def test_a_usd_budget_needs_every_endpoint_models_price(tmp_path: Path, server: FakeOpenAIServer) -> None:
    from memlab.harness.config import ConfigError, validate_config

    data = _config(tmp_path, server).model_dump(mode="json")
    data["model"]["model"] = "my-private-model"
    data["budget"] = {"max_usd": 1.0}
    with pytest.raises(ConfigError, match="no price known for model 'my-private-model'.*prices:"):
        validate_config(data)
    table = tmp_path / "p.yaml"
    table.write_text("my-private-model: {input: 0.5, output: 1.5}\n")
    validate_config({**data, "prices": str(table)})  # a user's table makes it known


def test_worker_threads_share_one_budget(tmp_path: Path, server: FakeOpenAIServer) -> None:
    """Two units in flight at once book against the same ledger: together they never send more than the cap."""
    server.latency_s = 0.05  # calls overlap
    cfg = _config(tmp_path, server, executor={"type": "threads", "workers": 2}, budget={"max_calls": 3})
    runner = Runner(cfg, progress=False)
    runner.run()
    assert runner.status == "stopped_at_budget"
    assert server.received <= 3
    manifest = json.loads((runner.run_dir / "manifest.json").read_text())
    assert manifest["budget"]["spent"]["calls"] == server.received
