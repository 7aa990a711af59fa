"""The model layer through the real `openai` client against a local OpenAI-compatible test server."""

from __future__ import annotations

import os

import pytest

from memlab.llm import calls
from memlab.llm.base import ModelSpec, make_model
from memlab.llm.openai_model import OpenAIChatModel, dspy_lm
from memlab.llm.replay import RecordReplayModel
from memlab.llm.retry import RetryPolicy
from memlab.llm.types import ChatRequest, ReplayMiss
from memlab.roles import signatures as sig
from memlab.roles.program import Role, RoleFailure
from tests.support.fake_openai_server import FakeOpenAIServer

FAST = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05)




def _model(server, **kw) -> OpenAIChatModel:
    return OpenAIChatModel("test-model", base_url=server.base_url, api_key_env="MEMLAB_TEST_KEY", retry=FAST, **kw)


def test_role_through_openai_client_parses_typed_outputs_and_records_usage(server, records, monkeypatch):
    monkeypatch.setenv("MEMLAB_TEST_KEY", "sk-local-test")
    server.script.append({"fields": {"facts": '["Maria lives in Lisbon.", "Maria has a dog."]'}})
    role = Role(sig.ExtractFacts, _model(server), "extract")
    with calls.call_scope(strategy="s1", turn_id="t1"):
        out = role(message="I live in Lisbon and have a dog.", speaker="user: Maria", context="", date="2024-05-01")
    assert out == {"facts": ["Maria lives in Lisbon.", "Maria has a dog."]}
    req = server.requests[-1]
    assert req["auth"] == "Bearer sk-local-test"
    assert req["body"]["model"] == "test-model"
    assert "[[ ## message ## ]]" in req["body"]["messages"][-1]["content"]
    (rec,) = records
    assert (rec.purpose, rec.signature, rec.ok, rec.attempts) == ("extract", "ExtractFacts", True, 1)
    assert (rec.prompt_tokens, rec.completion_tokens, rec.token_source) == (11, 7, "api")
    assert rec.scope == {"strategy": "s1", "turn_id": "t1"}
    assert rec.model.startswith("openai:test-model@http://127.0.0.1:")


def test_missing_usage_is_counted_with_tiktoken(server, records):
    server.script.append({"usage": False, "fields": {"answer": "Lisbon"}})
    out = Role(sig.AnswerFromMemory, _model(server), "answer")(context="x", question="Where?", date="2024-01-01")
    assert out["answer"] == "Lisbon"
    rec = records[-1]
    assert rec.token_source == "tiktoken"
    assert rec.prompt_tokens > 100  # the formatted DSPy prompt, counted offline
    assert 0 < rec.completion_tokens < 20


def test_rate_limit_and_server_errors_are_retried_with_backoff(server, records):
    server.script.extend([{"status": 429}, {"status": 503}, {"fields": {"answer": "Porto"}}])
    out = Role(sig.AnswerFromMemory, _model(server), "answer")(context="x", question="q", date="2024-01-01")
    assert out["answer"] == "Porto"
    assert records[-1].attempts == 3 and records[-1].ok


def test_persistent_failure_is_recorded_not_raised_as_crash(server, records):
    server.script.extend([{"status": 500}] * 5)
    role = Role(sig.AnswerFromMemory, _model(server), "answer")
    with pytest.raises(RoleFailure) as err:
        role(context="x", question="q", date="2024-01-01")
    rec = records[-1]
    assert rec.ok is False and rec.attempts == 3 and "500" in rec.error
    assert err.value.record is rec


def test_timeout_is_retried_then_recorded(server, records):
    server.script.extend([{"delay": 1.0}, {"delay": 1.0}, {"delay": 1.0}])
    role = Role(sig.AnswerFromMemory, _model(server, timeout_s=0.2), "answer")
    with pytest.raises(RoleFailure):
        role(context="x", question="q", date="2024-01-01")
    assert records[-1].ok is False and "Timeout" in records[-1].error


def test_non_retryable_client_error_fails_fast(server, records):
    server.script.extend([{"status": 400}, {"fields": {"answer": "never reached"}}])
    with pytest.raises(RoleFailure):
        Role(sig.AnswerFromMemory, _model(server), "answer")(context="x", question="q", date="2024-01-01")
    assert records[-1].attempts == 1 and "400" in records[-1].error


def test_malformed_output_is_retried_with_a_correction_then_fails(server, records):
    server.script.extend([{"content": "sure! the answer is Lisbon"}, {"fields": {"answer": "Lisbon"}}])
    role = Role(sig.AnswerFromMemory, _model(server), "answer")
    assert role(context="x", question="q", date="2024-01-01")["answer"] == "Lisbon"
    retry_msgs = server.requests[-1]["body"]["messages"]
    assert "could not be parsed" in retry_msgs[-1]["content"] and retry_msgs[-2]["role"] == "assistant"
    server.script.extend([{"content": "{not json"}] * 3)
    with pytest.raises(RoleFailure, match="malformed"):
        role(context="y", question="q", date="2024-01-01")
    assert records[-1].ok is False and records[-1].attempts == 3


def test_record_then_replay_strict_without_the_server(tmp_path, records):
    cache = tmp_path / "calls.jsonl"
    with FakeOpenAIServer() as server:
        server.script.append({"fields": {"answer": "Lisbon"}})
        rec_model = RecordReplayModel(_model(server), cache, "record")
        out1 = Role(sig.AnswerFromMemory, rec_model, "answer")(context="c", question="Where?", date="2024-01-01")
        port_dead = server.base_url
    # the server is gone: replay must not need it
    dead = OpenAIChatModel("test-model", base_url=port_dead, retry=FAST, timeout_s=0.5)
    strict = RecordReplayModel(dead, cache, "replay-strict")
    out2 = Role(sig.AnswerFromMemory, strict, "answer")(context="c", question="Where?", date="2024-01-01")
    assert out1 == out2 == {"answer": "Lisbon"}
    first, second = records[-2], records[-1]
    assert second.cached and not first.cached
    assert (second.prompt_tokens, second.completion_tokens) == (first.prompt_tokens, first.completion_tokens) == (11, 7)
    with pytest.raises(RoleFailure) as err:
        Role(sig.AnswerFromMemory, strict, "answer")(context="c CHANGED", question="Where?", date="2024-01-01")
    msg = str(err.value)
    assert "replay-strict" in msg and "AnswerFromMemory" in msg and "CHANGED" in msg


def test_replay_strict_miss_raises_replay_miss_directly(tmp_path):
    cache = tmp_path / "c.jsonl"
    cache.write_text("")
    m = RecordReplayModel(OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1", retry=FAST), cache, "replay-strict")
    with pytest.raises(ReplayMiss):
        m.complete(ChatRequest(messages=[{"role": "user", "content": "hi"}], purpose="answer"))


def test_make_model_from_spec_wraps_cache(tmp_path, server):
    spec = ModelSpec(provider="openai", model="m1", base_url=server.base_url, cache={"mode": "record", "path": str(tmp_path / "x.jsonl")})
    model = make_model(spec)
    assert isinstance(model, RecordReplayModel)
    assert model.describe()["cache"]["mode"] == "record" and model.describe()["model"] == "m1"
    assert "api_key" not in str(model.describe()).replace("api_key_env", "")


def test_dspy_program_on_the_same_endpoint(server, monkeypatch):
    import dspy

    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    server.default_fields = {"answer": "Lisbon"}
    lm = dspy_lm(ModelSpec(provider="openai", model="test-model", base_url=server.base_url))
    with dspy.context(lm=lm):
        pred = dspy.Predict(sig.AnswerFromMemory)(context="Maria moved to Lisbon.", question="Where does Maria live?", date="2024-01-01")
    assert pred.answer == "Lisbon"
    assert any("[[ ## question ## ]]" in m["content"] for r in server.requests for m in r["body"]["messages"])
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
