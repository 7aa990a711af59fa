"""No credential (API key, password or key in the base URL) reaches any output, log or error message."""

from __future__ import annotations

import json
import traceback
from pathlib import Path

import pytest

from memlab.llm import calls
from memlab.llm.base import ModelSpec, make_model
from memlab.redact import redact_url
from memlab.llm.types import ChatRequest, ModelError
from memlab.roles import signatures as sig
from memlab.roles.program import Role, RoleFailure
from tests.support.fake_openai_server import FakeOpenAIServer

KEY = "sk-live-KEY0123456789abcdef"
PASSWORD = "hunter2-PASSWORD-77"
QUERY_KEY = "QUERYKEY-55aa"
SECRETS = (KEY, PASSWORD, QUERY_KEY)


def _url(server: FakeOpenAIServer, password: str = PASSWORD) -> str:
    return f"http://alice:{password}@127.0.0.1:{server.port}/v1?api_key={QUERY_KEY}&deployment=eu"


def _assert_clean(text: str, where: str) -> None:
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, f"{where} leaks {leaked}"


def _spec(server, cache: Path | None = None, **kw) -> ModelSpec:
    extra = {"cache": {"mode": "record", "path": str(cache)}} if cache else {}
    return ModelSpec(provider="openai", model="secret-model", base_url=_url(server), api_key_env="MEMLAB_SECRET_TEST_KEY",
                     max_attempts=2, retry_base_delay_s=0.01, **extra, **kw)


@pytest.mark.parametrize(("url", "expected"), [
    ("http://user:pass@host:8000/v1", "http://user:***@host:8000/v1"),
    ("https://token@host/v1", "https://***@host/v1"),
    ("https://host/v1?api_key=abc&x=1", "https://host/v1?api_key=***&x=1"),
    ("https://host/v1?KEY=abc", "https://host/v1?KEY=***"),
    ("http://localhost:11434/v1", "http://localhost:11434/v1"),
    (None, None),
])
def test_redact_url(url, expected):
    assert redact_url(url) == expected


def test_secrets_stay_out_of_labels_manifest_cache_records_and_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLAB_SECRET_TEST_KEY", KEY)
    cache = tmp_path / "calls.jsonl"
    out: list = []
    with FakeOpenAIServer() as server, calls.call_sink(out.append):
        spec = _spec(server, cache)
        model = make_model(spec)
        assert model.model_id == f"openai:secret-model@http://alice:***@127.0.0.1:{server.port}/v1?api_key=***&deployment=eu"
        server.default_fields = {"answer": "Lisbon"}
        assert Role(sig.AnswerFromMemory, model, "answer")(context="c", question="q", date="2024-01-01") == {"answer": "Lisbon"}
        sent = server.requests[-1]
        # the credentials still reach the endpoint: query as query (not glued into the path), password as basic auth
        assert sent["path"] == f"/v1/chat/completions?api_key={QUERY_KEY}&deployment=eu"
        assert sent["auth"].startswith("Basic ")
        # an endpoint that echoes credentials in its errors (as real ones do for a bad key)
        server.mode = {"status": 500, "message": f"invalid key {KEY} for {_url(server)}"}
        with pytest.raises(RoleFailure) as failure:
            Role(sig.AnswerFromMemory, model, "answer")(context="other", question="q", date="2024-01-01")
        server.mode = {"body": f"<html>proxy error for key={KEY} password={PASSWORD}</html>"}
        with pytest.raises(ModelError) as garbage:
            model.complete(ChatRequest(messages=[{"role": "user", "content": "x"}], purpose="answer"))
    with pytest.raises(ModelError) as unreachable:  # server gone: connection errors too
        model.complete(ChatRequest(messages=[{"role": "user", "content": "y"}], purpose="answer"))

    assert "invalid key ***" in str(failure.value) and "HTTP 500" in str(failure.value)
    _assert_clean(json.dumps(model.describe()), "describe()")
    _assert_clean(spec.model_dump_json(), "the spec as the manifest writes it")
    _assert_clean(cache.read_text(), "the cache file")
    _assert_clean(json.dumps([r.model_dump(mode="json") for r in out]), "call records")
    for err in (failure.value, garbage.value, unreachable.value):
        _assert_clean("".join(traceback.format_exception(err)), f"{type(err).__name__} traceback")


def test_cache_key_does_not_depend_on_the_credential(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLAB_SECRET_TEST_KEY", KEY)
    cache = tmp_path / "calls.jsonl"
    request = ChatRequest(messages=[{"role": "user", "content": "hi"}], purpose="answer")
    with FakeOpenAIServer() as server:
        server.mode = {"content": "recorded"}
        make_model(_spec(server, cache)).complete(request)
        rotated = ModelSpec.model_validate({**_spec(server).model_dump(), "base_url": _url(server, "rotated-PASSWORD"),
                                            "cache": {"mode": "replay-strict", "path": str(cache)}})
        monkeypatch.setenv("MEMLAB_SECRET_TEST_KEY", "sk-rotated-key-000")
        replayed = make_model(rotated).complete(request)
    assert replayed.cached and replayed.text == "recorded" and server.received == 1


def test_a_run_folder_never_contains_the_secrets(tmp_path, monkeypatch):
    from memlab.harness.config import RunConfig
    from memlab.harness.runner import Runner

    monkeypatch.setenv("MEMLAB_SECRET_TEST_KEY", KEY)
    starter = Path(__file__).resolve().parent.parent / "datasets" / "starter.yaml"
    with FakeOpenAIServer() as server:
        server.default_fields = {"answer": "I don't know", "facts": "[]"}
        server.fail_when = "?"  # every question fails, with an error that echoes the credentials
        server.fail_with = {"status": 401, "message": f"Incorrect API key provided: {KEY} (url {_url(server)})"}
        cache = tmp_path / "cache.jsonl"
        cfg = RunConfig.model_validate({
            "name": "secrets", "datasets": [str(starter)], "output_dir": str(tmp_path / "results"),
            "embedding_cache": str(tmp_path / "emb.npz"), "limit_conversations": 1,
            "strategies": [{"name": "recent_window"}],
            "model": _spec(server, cache).model_dump(),
        })
        run_dir = Runner(cfg, progress=False).run()
    files = [p for p in [*run_dir.rglob("*"), cache] if p.is_file()]
    assert any("401" in p.read_text(errors="replace") for p in files if p.suffix == ".jsonl")  # the failures were recorded
    for path in files:
        _assert_clean(path.read_bytes().decode("utf-8", "replace"), str(path))


@pytest.mark.parametrize("param", ["auth_token", "client_secret", "x-api-key", "access-token", "api_key"])
def test_every_credential_looking_query_value_is_masked(tmp_path, param):
    """Issue 18, item 18: any query parameter whose name says credential, not only a fixed list."""
    secret = f"QUERYSECRET-{param}-9f8e7d"
    cache = tmp_path / "cache.jsonl"
    out: list = []
    with FakeOpenAIServer() as server, calls.call_sink(out.append):
        server.default_fields = {"answer": "Lisbon"}
        url = f"http://127.0.0.1:{server.port}/v1?{param}={secret}&deployment=eu"
        model = make_model(ModelSpec(provider="openai", model="m", base_url=url, api_key_env="MEMLAB_SECRET_TEST_KEY",
                                     max_attempts=1, cache={"mode": "record", "path": str(cache)}))
        Role(sig.AnswerFromMemory, model, "answer")(context="c", question="q", date="2024-01-01")
        assert server.requests[-1]["path"].endswith(f"{param}={secret}&deployment=eu"), "the endpoint still gets it"
        server.mode = {"status": 500, "message": f"bad credential {secret}"}
        with pytest.raises(RoleFailure) as failure:
            Role(sig.AnswerFromMemory, model, "answer")(context="other", question="q", date="2024-01-01")
    assert "deployment=eu" in model.model_id
    for where, text in [("model id", model.model_id), ("describe()", json.dumps(model.describe())),
                        ("cache", cache.read_text()), ("call records", json.dumps([r.model_dump(mode="json") for r in out])),
                        ("error", "".join(traceback.format_exception(failure.value)))]:
        assert secret not in text, f"{where} leaks the {param} value"
