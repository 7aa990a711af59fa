"""Tool calling through the model layer, end to end with the real `openai` client and the fake server."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from memlab.llm import calls
from memlab.llm.openai_model import OpenAIChatModel
from memlab.llm.replay import RecordReplayModel
from memlab.llm.retry import RetryPolicy
from memlab.llm.types import ChatRequest, ToolCall, ToolSpec
from memlab.tokens import count_message_tokens, count_tool_tokens
from tests.support.fake_openai_server import FakeOpenAIServer

FAST = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05)

WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather in a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
                                                  "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                "required": ["city"]},
)
REMEMBER = ToolSpec(
    name="remember",
    description="Store a fact about the user.",
    parameters={"type": "object", "properties": {"fact": {"type": "string"}}, "required": ["fact"]},
)




def _model(server) -> OpenAIChatModel:
    return OpenAIChatModel("tool-model", base_url=server.base_url, retry=FAST)


def _ask(messages, **kw) -> ChatRequest:
    return ChatRequest(messages=messages, purpose="agent", tools=[WEATHER, REMEMBER], **kw)


def test_tool_call_round_trip_through_the_real_client(server, records):
    server.script.append({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Lisbon"}}]})
    server.responder = lambda body: (
        {"content": "It is 21 degrees in Lisbon."} if body["messages"][-1]["role"] == "tool" else None
    )
    model = _model(server)
    messages = [{"role": "user", "content": "What's the weather in Lisbon?"}]
    first = calls.complete_recorded(model, _ask(messages, tool_choice="auto"))
    sent = server.requests[0]["body"]
    assert sent["tools"] == [WEATHER.to_openai(), REMEMBER.to_openai()] and sent["tool_choice"] == "auto"
    assert first.finish_reason == "tool_calls" and first.text == ""
    (call,) = first.tool_calls
    assert (call.name, call.arguments, call.error) == ("get_weather", {"city": "Lisbon"}, None)

    messages += [
        {"role": "assistant", "content": None, "tool_calls": [c.to_openai() for c in first.tool_calls]},
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"temp_c": 21})},
    ]
    final = calls.complete_recorded(model, _ask(messages))
    assert final.text == "It is 21 degrees in Lisbon." and final.tool_calls == [] and final.finish_reason == "stop"
    echoed = server.requests[1]["body"]["messages"]
    assert echoed[1]["tool_calls"][0]["id"] == call.id and echoed[1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert echoed[2] == {"role": "tool", "tool_call_id": call.id, "content": '{"temp_c": 21}'}
    assert [(r.tools_offered, r.tool_calls, r.ok) for r in records] == [
        (["get_weather", "remember"], ["get_weather"], True),
        (["get_weather", "remember"], [], True),
    ]


def test_parallel_tool_calls_in_one_reply(server, records):
    server.script.append({"tool_calls": [
        {"name": "get_weather", "arguments": {"city": "Lisbon"}},
        {"name": "get_weather", "arguments": {"city": "Porto", "unit": "celsius"}},
        {"name": "remember", "arguments": {"fact": "likes rain"}},
    ]})
    resp = calls.complete_recorded(_model(server), _ask([{"role": "user", "content": "weather in Lisbon and Porto"}], tool_choice="required"))
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [
        ("get_weather", {"city": "Lisbon"}), ("get_weather", {"city": "Porto", "unit": "celsius"}), ("remember", {"fact": "likes rain"}),
    ]
    assert len({c.id for c in resp.tool_calls}) == 3
    assert records[-1].tool_calls == ["get_weather", "get_weather", "remember"]
    assert server.requests[-1]["body"]["tool_choice"] == "required"


def test_malformed_tool_call_is_data_not_an_exception(server):
    server.script.append({"tool_calls": [
        {"name": "get_weather", "arguments": "{city: Lisbon"},
        {"name": "remember", "arguments": '["not", "an", "object"]'},
        {"name": "get_weather", "arguments": ""},
    ]})
    resp = _model(server).complete(_ask([{"role": "user", "content": "hi"}]))
    bad_json, not_object, empty = resp.tool_calls
    assert bad_json.raw_arguments == "{city: Lisbon" and bad_json.arguments == {} and "not valid JSON" in bad_json.error
    assert "must be a JSON object" in not_object.error and not_object.raw_arguments == '["not", "an", "object"]'
    assert empty.error is None and empty.arguments == {}
    assert server.received == 1  # a malformed call is the model's answer, not a transport fault to retry


def test_named_tool_choice_is_sent_in_openai_format(server):
    _model(server).complete(_ask([{"role": "user", "content": "remember I like tea"}], tool_choice="remember"))
    assert server.requests[-1]["body"]["tool_choice"] == {"type": "function", "function": {"name": "remember"}}


def test_request_validation_names_the_problem():
    with pytest.raises(ValidationError, match="not one of the offered tools"):
        _ask([{"role": "user", "content": "x"}], tool_choice="forget")
    with pytest.raises(ValidationError, match="needs tools"):
        ChatRequest(messages=[], purpose="agent", tool_choice="required")
    with pytest.raises(ValidationError, match="tool name"):
        ToolSpec(name="get weather")
    with pytest.raises(ValidationError, match="type 'object'"):
        ToolSpec(name="f", parameters={"type": "string"})


def test_replay_of_a_recorded_tool_call_without_the_server(tmp_path, records):
    cache = tmp_path / "tools.jsonl"
    request = _ask([{"role": "user", "content": "weather in Lisbon?"}], tool_choice="auto")
    with FakeOpenAIServer() as server:
        server.script.append({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Lisbon"}}], "usage": False})
        live = calls.complete_recorded(RecordReplayModel(_model(server), cache, "record"), request)
        url = server.base_url
    strict = RecordReplayModel(OpenAIChatModel("tool-model", base_url=url, retry=FAST), cache, "replay-strict")
    again = calls.complete_recorded(strict, request)
    assert again.cached and again.tool_calls == live.tool_calls and again.finish_reason == "tool_calls"
    assert (records[1].prompt_tokens, records[1].tool_calls) == (records[0].prompt_tokens, ["get_weather"])
    # tools are part of the key: the same messages offering other tools are a different request
    with pytest.raises(Exception, match="replay-strict"):
        strict.complete(request.model_copy(update={"tools": [REMEMBER], "tool_choice": None}))


def test_tool_schemas_are_billed_when_the_api_reports_no_usage(server, records):
    messages = [{"role": "user", "content": "What's the weather in Lisbon?"}]
    server.script.extend([{"usage": False, "content": "plain"}, {"usage": False, "content": "plain"}])
    model = _model(server)
    calls.complete_recorded(model, ChatRequest(messages=messages, purpose="agent"))
    calls.complete_recorded(model, _ask(messages))
    without_tools, with_tools = records
    assert without_tools.prompt_tokens == count_message_tokens(messages)
    assert with_tools.prompt_tokens == count_message_tokens(messages) + count_tool_tokens([WEATHER, REMEMBER])
    assert with_tools.prompt_tokens - without_tools.prompt_tokens > 40


def test_tool_call_messages_are_counted():
    plain = [{"role": "user", "content": "hi"}]
    call = ToolCall.from_raw("call_1", "get_weather", '{"city": "Lisbon"}')
    with_call = [*plain, {"role": "assistant", "content": None, "tool_calls": [call.to_openai()]},
                 {"role": "tool", "tool_call_id": "call_1", "content": "21C"}]
    assert count_message_tokens(with_call) > count_message_tokens(plain) + 10
    assert count_tool_tokens([WEATHER]) > count_tool_tokens([REMEMBER]) > 0
    assert count_tool_tokens([WEATHER]) == count_tool_tokens([WEATHER.to_openai()])
