"""Strategy types other than the composed one (memlab/external): a user's class from a plugin
module, config validation (unknown types and parameters, a missing extra, offline refusal),
memlab's local endpoint (the ledger), and real mem0 (infer: false) end to end, offline."""

from __future__ import annotations

import importlib.metadata
import json
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from memlab.harness.config import ConfigError, validate_config
from memlab.runfolder.recorder import read_jsonl
from memlab.analysis.results import load_run
from memlab.harness.runner import Runner

DATASET = str(Path(__file__).parent / "fixtures" / "external_small.yaml")

TINY_PLUGIN = '''
"""A user's own memory system, written against memlab's adapter base (docs/external.md)."""
from pathlib import Path

from memlab.external import ExternalParams, ExternalStrategy, Hit
from memlab.strategies.types import strategy_type
from memlab.memory.item import Op


class TinyParams(ExternalParams):
    fail_marker: str | None = None
    """While this file exists, writing a message that mentions tea raises (a store that went away)."""


@strategy_type("tiny_keyword")
class TinyKeyword(ExternalStrategy):
    """Stores every message; returns those sharing a word with the question."""

    Params = TinyParams
    memory_kind = "message"

    def reset(self, namespace):
        self.items = []

    def write(self, messages):
        ops = []
        for m in messages:
            marker = self.params.fail_marker
            if marker and Path(marker).exists() and "tea" in m.content:
                raise ConnectionError("tiny store went away")
            item_id = f"m{len(self.items)}"
            self.items.append((item_id, m.content))
            ops.append(self.op(Op.ADD, item_id, m.content, [m.turn_id]))
        return ops

    def search(self, query, now):
        words = {w.strip("?.,!").lower() for w in query.split()}
        hits = [Hit(text, item_id) for item_id, text in self.items
                if words & {w.strip("?.,!").lower() for w in text.split()}]
        return hits[: self.params.k]
'''


@pytest.fixture
def plugin(tmp_path):
    (tmp_path / "tiny_memory_plugin.py").write_text(TINY_PLUGIN)
    sys.path.insert(0, str(tmp_path))
    yield "tiny_memory_plugin"
    sys.path.remove(str(tmp_path))
    sys.modules.pop("tiny_memory_plugin", None)


def _config(tmp_path: Path, strategies: list[dict], **extra) -> dict:
    return {"name": "ext", "datasets": [DATASET], "strategies": strategies, "embedding_cache": None,
            "output_dir": str(tmp_path / "results"), **extra}


def test_a_plugin_strategy_type_plays_like_any_strategy(tmp_path, plugin):
    cfg = validate_config(_config(tmp_path, [{"name": "tiny", "type": "tiny_keyword", "window": 2}], plugins=[plugin]))
    run = Runner(cfg, progress=False).run()
    res = load_run(run)
    assert res.manifest["status"] == "completed"
    spec = res.manifest["strategies"][0]
    assert spec["type"] == "tiny_keyword" and spec["params"]["window"] == 2 and spec["library"]["module"] == plugin
    assert res.components()["tiny"].startswith("tiny_keyword(") and f"[{plugin}]" in res.components()["tiny"]
    ops = res.memory_ops[res.memory_ops["strategy"] == "tiny"]
    # every message of the allowed roles stored once, citing its own turn, in the namespace
    assert len(ops) == 10 and set(ops["op"]) == {"ADD"}
    from memlab.analysis.report import writes_per_conversation

    assert writes_per_conversation(res)["tiny"] == pytest.approx(10 / 3), "the printed table's write volume"
    assert all(len(s) == 1 for s in ops["source_turn_ids"]) and set(ops["namespace"]) == {"external-small/ana", "external-small/ben"}
    p = res.probes.set_index("probe_id")
    # the probe of ana's second conversation finds ana's first conversation (long-term memory of the
    # namespace), while the recent-messages window starts empty with the new conversation
    ctx2 = p.loc["ana-p2"]
    assert "Lisbon" in ctx2["context"] and "a1-01" in ctx2["context_source_turn_ids"]
    window = [i for i in ctx2["context_items"] if i["section"] == "Recent messages"]
    assert {i["source_turn_ids"][0] for i in window} == {"a2-01", "a2-02"}
    assert p.loc["ana-p1", "evidence_recall"] == 1.0


def test_an_external_system_that_raises_fails_its_unit_not_the_run(tmp_path, plugin):
    marker = tmp_path / "down"
    marker.touch()
    cfg = validate_config(_config(tmp_path, [{"name": "tiny", "type": "tiny_keyword", "fail_marker": str(marker)}],
                                  plugins=[plugin]))
    run = Runner(cfg, progress=False).run()
    first = load_run(run)
    assert first.manifest["status"] == "completed_with_failures"
    failed = first.manifest["units"]["failed"]
    assert len(failed) == 1 and "tiny/external-small/ben" in failed[0]
    assert "tiny_keyword: write raised ConnectionError: tiny store went away" in failed[0] or \
        "ConnectionError: tiny store went away" in failed[0]
    assert set(first.probes["probe_id"]) == {"ana-p1", "ana-p2"}, "the other namespace's unit finished"
    marker.unlink()
    Runner(cfg, run_dir=run, resume=True, progress=False).run()
    res = load_run(run)
    assert res.manifest["status"] == "completed" and set(res.probes["probe_id"]) == {"ana-p1", "ana-p2", "ben-p1"}
    assert not res.memory_ops.duplicated(["strategy", "namespace", "item_id"]).any(), "the failed attempt is not counted"


def test_validation_names_unknown_types_and_parameters(tmp_path, plugin):
    with pytest.raises(ConfigError, match=r"Unknown strategy type 'mem1'\. Did you mean 'mem0'"):
        validate_config(_config(tmp_path, [{"name": "m", "type": "mem1"}]))
    with pytest.raises(ConfigError, match=r"type 'mem0' has no parameter 'infre'\. Did you mean 'infer'"):
        validate_config(_config(tmp_path, [{"name": "m", "type": "mem0", "infre": True}]))
    with pytest.raises(ConfigError, match=r"strategies\[0\] \(m\).*k: Input should be greater than or equal to 1"):
        validate_config(_config(tmp_path, [{"name": "m", "type": "mem0", "k": 0}]))
    with pytest.raises(ConfigError, match=r"not a preset but a strategy type: write `type: mem0`"):
        validate_config(_config(tmp_path, [{"name": "mem0"}]))
    with pytest.raises(ConfigError, match=r"type 'tiny_keyword' takes its own parameters"):
        validate_config(_config(tmp_path, [{"name": "t", "type": "tiny_keyword", "preset": "fact_rag"}], plugins=[plugin]))


def test_a_missing_extra_is_one_line_naming_the_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mem0", None)  # as if mem0ai were not installed
    with pytest.raises(ConfigError) as err:
        validate_config(_config(tmp_path, [{"name": "m", "type": "mem0"}]), "evals/x.yaml")
    message = str(err.value)
    assert message == ("evals/x.yaml: strategies[0] (m): type 'mem0' needs the mem0ai package, which is not installed: "
                       "pip install 'memlab[mem0]'")


def test_a_library_that_calls_a_model_refuses_the_offline_stand_in(tmp_path):
    for strategy in ({"name": "m", "type": "mem0", "infer": True}, {"name": "l", "type": "langmem"}):
        with pytest.raises(ConfigError, match=r"sends its own prompts to a chat model.*offline stand-in.*"
                                              r"models: \{extract: \{provider: openai"):
            validate_config(_config(tmp_path, [strategy]))
    # with an endpoint for extraction (the answerer may stay offline) it validates
    validate_config(_config(tmp_path, [{"name": "m", "type": "mem0", "infer": True}],
                            models={"extract": {"provider": "openai", "model": "gpt-4o-mini"}}))


# -- memlab's endpoint --------------------------------------------------------------------------------------
class _Embedder:
    def embed(self, texts):
        return np.array([[float(len(t)), 1.0, 0.5, 0.25] for t in texts], dtype=np.float32)


def _post(url: str, body: dict, token: str | None) -> tuple[int, dict, dict]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read()), dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), dict(exc.headers)


def test_the_ledger_answers_embeddings_and_records_them_in_the_callers_scope():
    import base64

    from memlab.external.ledger import Ledger
    from memlab.llm import calls

    ledger = Ledger(caller="lib", chat_model=None, embedder=_Embedder(), embedding_model_id="mini", embedding_dims=4).start()
    records = []
    try:
        url = ledger.base_url + "/embeddings"
        assert ledger.base_url.startswith("http://127.0.0.1:")
        assert _post(url, {"input": "x"}, None)[0] == 401, "another local process cannot use it"
        with calls.call_sink(records.append), calls.call_scope(turn_id="t7"), ledger.bound("extract"):
            status, body, _ = _post(url, {"input": ["hello", "hi"], "model": "m"}, ledger.token)
            assert status == 200 and [d["embedding"][0] for d in body["data"]] == [5.0, 2.0]
            status, body, _ = _post(url, {"input": "abc", "encoding_format": "base64"}, ledger.token)
            vec = np.frombuffer(base64.b64decode(body["data"][0]["embedding"]), dtype="<f4")
            assert status == 200 and vec.tolist() == [3.0, 1.0, 0.5, 0.25]
            status, body, headers = _post(url, {"input": "abc", "dimensions": 1536}, ledger.token)
            assert status == 400 and "4 dimensions" in body["error"]["message"] and headers.get("x-should-retry") == "false"
            status, body, _ = _post(ledger.base_url + "/chat/completions",
                                    {"messages": [{"role": "user", "content": "hi"}], "stream": True}, ledger.token)
            assert status == 400 and "streaming" in body["error"]["message"]
    finally:
        ledger.close()
    assert [(r.purpose, r.caller, r.model, r.scope.get("turn_id")) for r in records] == [("embed", "lib", "mini", "t7")] * 2
    assert records[0].prompt_tokens == 2  # "hello", "hi": one cl100k token each


# -- real mem0, offline ---------------------------------------------------------------------------------------
@pytest.fixture
def no_outside_connections(monkeypatch):
    """Fail any connection to a host other than 127.0.0.1 (and record the attempt)."""
    attempts = []
    real = socket.socket.connect

    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in ("127.0.0.1", "::1", "localhost"):
            attempts.append(address)
            raise ConnectionRefusedError(f"test: no connection may leave the machine ({address})")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return attempts


@pytest.mark.slow
def test_mem0_raw_mode_runs_offline_with_provenance_and_one_embedder(tmp_path, no_outside_connections):
    cfg = validate_config(_config(tmp_path, [{"name": "mem0", "type": "mem0", "infer": False, "window": 2, "k": 4}]))
    run = Runner(cfg, progress=False).run()
    res = load_run(run)
    assert res.manifest["status"] == "completed", res.manifest["units"]
    assert no_outside_connections == []
    lib = res.manifest["strategies"][0]["library"]
    assert lib["package"] == "mem0ai" and lib["version"] == importlib.metadata.version("mem0ai")
    built = res.manifest["strategies_resolved"]["mem0"]
    assert built["settings"]["telemetry"] is False and built["endpoint"]["chat_model"] is None
    ops = res.memory_ops
    assert set(ops["op"]) == {"ADD"} and set(ops["kind"]) == {"message"} and len(ops) == 10
    assert all(len(s) == 1 for s in ops["source_turn_ids"]), "raw mode: each memory cites its own message"
    texts = dict(zip(ops["item_id"], ops["text"]))
    all_calls = list(read_jsonl(run / "calls.jsonl"))
    calls = [c for c in all_calls if c["caller"] is not None]
    assert {c["purpose"] for c in all_calls if c["caller"] is None} == {"answer"}, "memlab's own answerer"
    assert calls and {(c["purpose"], c["caller"]) for c in calls} == {("embed", "mem0")}
    assert all(c["prompt_tokens"] > 0 and c["ok"] for c in calls)
    assert {c["phase"] for c in calls} == {"turn", "probe"}, "writes and searches are recorded in their scope"
    p = res.probes.set_index("probe_id")
    ctx = p.loc["ana-p2"]
    # mem0's search over the namespace's memories reaches ana's first conversation
    memories = [i for i in ctx["context_items"] if i["section"] == "Long-term memory (mem0)"]
    assert any("Lisbon" in i["text"] and i["source_turn_ids"] == ["a1-01"] for i in memories)
    assert all(i["text"] in texts.values() for i in memories) and len(memories) <= 4
    assert p.loc["ana-p1", "evidence_recall"] == 1.0
    # embeddings are memlab's MiniLM: mem0's top hit for a question is the stored message closest by MiniLM
    from memlab.embeddings import cosine, shared_embedder

    emb = shared_embedder(None)
    ana = [t for t in ops[ops["namespace"] == "external-small/ana"]["text"]]
    q = emb.embed(["What is the name of Ana's cat?"])[0]
    best = ana[int(np.argmax(cosine(q, emb.embed(ana))[0]))]
    first = [i for i in p.loc["ana-p1", "context_items"] if i["section"] == "Long-term memory (mem0)"][0]
    assert first["text"] == best


def test_the_committed_configs_validate_and_components_lists_the_types(plugin, capsys):
    from memlab.cli import main
    from memlab.harness.config import load_config

    offline = load_config("evals/external.yaml")
    assert {s.name: s.type for s in offline.strategies if s.type} == {"mem0": "mem0", "mem0_window": "mem0"}
    endpoint = load_config("evals/external_endpoint.yaml")
    assert {s.type for s in endpoint.strategies if s.type} == {"mem0", "langmem"}
    with pytest.raises(ConfigError, match="offline stand-in"):  # the endpoint form needs its endpoint
        load_config("evals/external_endpoint.yaml", {"model": {"provider": "offline"}})
    import importlib

    importlib.import_module(plugin)
    assert main(["components"]) == 0
    out = capsys.readouterr().out
    version = importlib.metadata.version("mem0ai")
    assert f"[mem0ai {version}]" in out and "[langmem " in out and "tiny_keyword" in out and f"[{plugin}]" in out
