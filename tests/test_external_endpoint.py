"""Real mem0 (infer: true) and LangMem end to end against the project's fake OpenAI server: their
own model calls go through memlab's endpoint into calls.jsonl (tokens, purpose, caller), a
replay-strict rerun makes no network call and gives the same records, a 500 or a timeout from
the endpoint is a recorded failure and a non-zero exit, and the API key reaches no output."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
import yaml

from memlab.cli import main
from memlab.runfolder.recorder import read_jsonl
from memlab.analysis.results import load_run
from tests.support.fake_openai_server import FakeOpenAIServer

DATASET = str(Path(__file__).parent / "fixtures" / "external_small.yaml")
SECRET = "sk-test-EXTERNAL-S3CRET-0123456789"
KEY_ENV = "MEMLAB_EXTERNAL_TEST_KEY"


def mem0_responder(body: dict) -> dict | None:
    """A stand-in extraction model (test double): in JSON mode, one memory per user line of the
    request's new messages."""
    if (body.get("response_format") or {}).get("type") != "json_object":
        return None
    prompt = body["messages"][-1]["content"]
    new = prompt.split("## New Messages", 1)[1].split("\n## ", 1)[0]
    facts = [line[len("user: "):].strip() for line in new.splitlines() if line.startswith("user: ")]
    return {"json": {"memory": [{"text": f"User said: {f}"} for f in facts]}}


def langmem_responder(body: dict) -> dict | None:
    """A stand-in tool-calling model (test double): patches an existing memory that shares a word
    (of 4+ letters) with the session's human messages when it may, else inserts one memory quoting them."""
    tools = [t["function"]["name"] for t in body.get("tools") or []]
    if not tools:
        return None
    text = "\n".join(m.get("content") or "" for m in body["messages"])
    human = re.findall(r"Human Message =+\n\n(.*?)\n", text)
    content = "User said: " + " / ".join(human)
    words = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", " ".join(human))}
    for doc_id, existing in re.findall(r"<instance id=(\w+)[^>]*>\n(.*?)\n</instance>", text, re.S):
        if "PatchDoc" in tools and words & {w.lower() for w in re.findall(r"[A-Za-z]{4,}", existing)} - {"user", "said"}:
            return {"tool_calls": [{"name": "PatchDoc", "arguments": {
                "json_doc_id": doc_id, "planned_edits": "replace the content",
                "patches": [{"op": "replace", "path": "/content", "value": content}]}}]}
    return {"tool_calls": [{"name": "Memory", "arguments": {"content": content}}]}


def _write_config(tmp_path: Path, server: FakeOpenAIServer, strategy: dict, mode: str, name: str, **model) -> Path:
    extract = {"provider": "openai", "model": "fake-model", "base_url": server.base_url, "api_key_env": KEY_ENV,
               "max_attempts": 2, "retry_base_delay_s": 0, "timeout_s": 5,
               "cache": {"mode": mode, "path": str(tmp_path / "cache.jsonl")}, **model}
    cfg = {"name": name, "datasets": [DATASET], "strategies": [strategy], "models": {"extract": extract},
           "embedding_cache": None, "output_dir": str(tmp_path / "results")}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _run(config: Path) -> tuple[int, Path]:
    before = set((config.parent / "results").glob("*")) if (config.parent / "results").exists() else set()
    code = main(["run", str(config), "--no-progress"])
    (run,) = set((config.parent / "results").glob("*")) - before
    return code, run


def _records(run: Path) -> dict[str, list]:
    """The run's records without what legitimately differs between two plays (ids of runs and
    attempts, call ids, timings, whether a reply came from the cache)."""
    out = {}
    for stream, keep in (("memory_ops", ("strategy", "namespace", "turn_id", "seq", "op", "item_id", "kind", "text",
                                         "previous_text", "source_turn_ids")),
                         ("probes", ("probe_id", "context", "context_source_turn_ids", "answer", "error")),
                         ("calls", ("purpose", "caller", "model", "ok", "prompt_tokens", "completion_tokens", "turn_id",
                                    "probe_id", "tools_offered", "tool_calls"))):
        rows = [json.dumps({k: r.get(k) for k in keep}, sort_keys=True) for r in read_jsonl(run / f"{stream}.jsonl")]
        out[stream] = sorted(rows)
    return out


def _no_secret(*paths: Path) -> None:
    for root in paths:
        for f in [root] if root.is_file() else root.rglob("*"):
            if f.is_file():
                assert SECRET.encode() not in f.read_bytes(), f"the API key reached {f}"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["mem0", "langmem"])
def test_library_calls_are_recorded_and_replay_strict_repeats_them(tmp_path, monkeypatch, kind, capsys):
    monkeypatch.setenv(KEY_ENV, SECRET)
    strategy = ({"name": "mem0_infer", "type": "mem0", "infer": True, "k": 4} if kind == "mem0"
                else {"name": "langmem", "type": "langmem", "k": 4})
    with FakeOpenAIServer() as server:
        server.responder = mem0_responder if kind == "mem0" else langmem_responder
        code, run = _run(_write_config(tmp_path, server, strategy, "record", "rec"))
        received = server.received
        assert code == 0, capsys.readouterr().err
        assert all(r["auth"] == f"Bearer {SECRET}" for r in server.requests), "the key is used upstream"
        sent = [json.dumps(r["body"]["messages"]) for r in server.requests]
        if kind == "mem0":  # mem0 dates its prompt with "today": the library sees the conversation's clock
            assert any("2024-02-01" in m for m in sent) and not any(date.today().isoformat() in m for m in sent)
        replay_cfg = _write_config(tmp_path, server, strategy, "replay-strict", "replay")
    code2, replay = _run(replay_cfg)  # the server is gone: any network call would fail
    assert code2 == 0 and server.received == received

    res = load_run(run)
    calls = res.calls
    chat = calls[(calls["caller"] == kind) & (calls["purpose"] == "extract")]
    embed = calls[(calls["caller"] == kind) & (calls["purpose"] == "embed")]
    assert len(chat) == received > 0, "every request the library made is one recorded call"
    assert (chat["prompt_tokens"] == 11).all() and (chat["completion_tokens"] == 7).all(), "tokens as the endpoint reported them"
    assert chat["model"].str.startswith("openai:fake-model@").all() and chat["turn_id"].notna().all()
    assert len(embed) > 0 and (embed["prompt_tokens"] > 0).all()
    assert set(calls[calls["caller"].isna()]["purpose"]) == {"answer"}, "memlab's own answerer, offline"
    cost = res.cost().loc[strategy["name"]]
    answers = calls[calls["caller"].isna()]
    assert cost["prompt_tokens_per_conv"] == pytest.approx((11 * len(chat) + answers["prompt_tokens"].sum()) / 3), \
        "model tokens count chat calls only"
    assert cost["tokens_embed_per_conv"] == pytest.approx(embed["prompt_tokens"].sum() / 3)

    ops = res.memory_ops
    assert len(ops) and (ops["source_turn_ids"].map(len) > 0).all()
    adds = ops[ops["op"] == "ADD"]
    assert any(t.startswith("User said: I moved to Lisbon") for t in adds["text"])
    lisbon = adds[adds["text"].str.contains("Lisbon")].iloc[0]
    assert "a1-01" in lisbon["source_turn_ids"], "a memory cites the turns it came from"
    if kind == "langmem":  # LangMem patched an existing memory: an UPDATE keeping the earlier turns
        updates = ops[ops["op"] == "UPDATE"]
        assert len(updates) and all(u["previous_text"] for _, u in updates.iterrows())
        ben = updates[updates["namespace"] == "external-small/ben"].iloc[-1]
        assert {"b1-01", "b1-03"} <= set(ben["source_turn_ids"])
    p = res.probes.set_index("probe_id")
    assert "Lisbon" in p.loc["ana-p2", "context"], "long-term memory carries over to the namespace's next conversation"

    assert _records(run) == _records(replay)
    rc = load_run(replay).calls
    assert rc[rc["purpose"] == "extract"]["cached"].all()
    _no_secret(run, replay, tmp_path / "cache.jsonl")


@pytest.mark.parametrize("fault", ["http500", "timeout"])
def test_an_endpoint_failure_is_a_recorded_failure_and_a_non_zero_exit(tmp_path, monkeypatch, fault, capsys):
    monkeypatch.setenv(KEY_ENV, SECRET)
    # an outage another run of this process met (here: an endpoint that is gone) is not this run's: it
    # fails its units, it does not stop as if its own endpoint were down
    from memlab.llm.endpoints import endpoint

    endpoint("http://127.0.0.1:9/v1", "gone", "openai:gone@http://127.0.0.1:9/v1").breaker.trip("gone (an earlier run)")
    strategy = {"name": "mem0_infer", "type": "mem0", "infer": True}
    with FakeOpenAIServer() as server:
        if fault == "http500":
            server.mode = {"status": 500, "message": f"upstream exploded (key {SECRET})"}
            cfg = _write_config(tmp_path, server, strategy, "off", "fail")
        else:
            server.mode = {"hang": True}
            cfg = _write_config(tmp_path, server, strategy, "off", "fail", timeout_s=0.3, max_attempts=1)
        code, run = _run(cfg)
    assert code == 3, capsys.readouterr().err
    res = load_run(run)
    assert res.manifest["status"] == "completed_with_failures"
    failed = [c for c in read_jsonl(run / "calls.jsonl") if not c["ok"]]
    assert failed and all(c["caller"] == "mem0" and c["purpose"] == "extract" for c in failed)
    expected = "HTTP 500" if fault == "http500" else "no reply within 0.3s"
    assert all(expected in c["error"] for c in failed)
    units = res.manifest["units"]["failed"]
    assert units and all("mem0: Memory.add raised" in u and "memlab's endpoint answered it with" in u for u in units)
    _no_secret(run)


def test_an_endpoint_that_is_down_stops_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with FakeOpenAIServer() as server:
        cfg = _write_config(tmp_path, server, {"name": "mem0_infer", "type": "mem0", "infer": True}, "off", "down",
                            max_attempts=1, breaker_failures=1)
    code, run = _run(cfg)  # nothing listens on the server's port any more
    assert code == 1, capsys.readouterr().err
    manifest = load_run(run).manifest
    assert manifest["status"] == "failed" and "is down" in manifest["error"]
    assert manifest["units"]["ok"] == 0
