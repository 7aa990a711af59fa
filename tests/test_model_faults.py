"""Fault handling of the OpenAI path, and the fault-injection modes of the fake server itself."""

from __future__ import annotations

import threading

import pytest

from memlab.llm.openai_model import OpenAIChatModel
from memlab.llm.retry import RetryPolicy
from memlab.llm.types import ChatRequest, ModelError, RetryableModelError
from memlab.roles import signatures as sig
from memlab.roles.program import Role, RoleFailure
from tests.support.fake_openai_server import GARBAGE, FakeOpenAIServer

FAST = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05)




def _model(server, **kw) -> OpenAIChatModel:
    return OpenAIChatModel("fault-model", base_url=server.base_url, **{"retry": FAST, **kw})


def _answer(model) -> dict:
    return Role(sig.AnswerFromMemory, model, "answer")(context="Maria lives in Lisbon.", question="Where?", date="2024-01-01")


def _ask(model, text: str = "hi"):
    return model.complete(ChatRequest(messages=[{"role": "user", "content": text}], purpose="answer"))


@pytest.mark.parametrize("reply", [{"body": "<html>502 Bad Gateway</html>"}, {"empty": True}, {"no_choices": True},
                                   {"body": '{"choices": []}'}, {"body": '{"choices": [{"message": null}]}'}])
def test_http_200_that_is_not_a_completion_is_retried_then_a_failed_call(server, records, reply):
    server.script.extend([reply] * 3)
    with pytest.raises(RoleFailure) as err:
        _answer(_model(server))
    rec = records[-1]
    assert rec.ok is False and rec.attempts == 3 and err.value.record is rec
    assert server.received == 3 and server.served == 3  # the server did answer 200 each time


def test_http_200_garbage_body_then_a_good_reply_succeeds(server, records):
    server.script.extend([{"body": "not json at all"}, {"empty": True}, {"fields": {"answer": "Lisbon"}}])
    assert _answer(_model(server)) == {"answer": "Lisbon"}
    assert records[-1].ok and records[-1].attempts == 3


def test_garbage_content_gets_a_correction_retry(server, records):
    server.script.extend([{"garbage": True}, {"fields": {"answer": "Lisbon"}}])
    assert _answer(_model(server)) == {"answer": "Lisbon"}
    assert server.requests[-1]["body"]["messages"][-2] == {"role": "assistant", "content": GARBAGE}


def test_connection_reset_and_hang_are_retried(server):
    server.script.extend([{"reset": True}, {"hang": True}, {"content": "ok"}])
    resp = _ask(_model(server, timeout_s=0.3))
    assert resp.text == "ok" and resp.attempts == 3
    assert [r["status"] for r in server.requests] == [None, None, 200]


def test_client_errors_are_not_retried_and_messages_name_the_status(server):
    server.script.append({"status": 404})
    with pytest.raises(ModelError, match="HTTP 404") as err:
        _ask(_model(server))
    assert not err.value.retryable and server.received == 1


def test_flaky_first_n_and_every_kth(server):
    server.fail_first = 2
    assert _ask(_model(server)).attempts == 3
    server.fail_first, server.fail_every = 0, 2
    replies = [_ask(_model(server), f"q{i}") for i in range(4)]
    # requests 4, 6, 8 and 10 fail, so each of the four calls takes exactly one retry
    assert [r.attempts for r in replies] == [2, 2, 2, 2]
    assert server.received == 11 and server.statuses[500] == 6 and server.served == 5


def test_whole_server_mode_and_fail_with(server):
    server.mode = {"status": 503, "retry_after": "0"}
    with pytest.raises(RetryableModelError, match="HTTP 503"):
        _ask(_model(server))
    assert server.received == 3 and server.requests[-1]["status"] == 503


def test_server_side_rate_limit_answers_429_with_retry_after():
    import httpx

    with FakeOpenAIServer(rate_limit_rps=2) as server:
        codes, headers = [], []
        for _ in range(3):
            r = httpx.post(server.base_url + "/chat/completions", json={"model": "m", "messages": []})
            codes.append(r.status_code)
            headers.append(r.headers)
        assert codes == [200, 200, 429] and server.rate_limited == 1
        assert int(headers[2]["retry-after"]) >= 1 and 0 < int(headers[2]["retry-after-ms"]) <= 1000


def test_concurrent_calls_are_each_answered_exactly_once_despite_faults(server):
    server.fail_every, server.latency_s = 4, 0.1
    server.responder = lambda body: {"content": "answer to " + body["messages"][0]["content"]}
    # every 4th request *globally* fails, so under concurrency one request can draw the failing
    # slot on several retries in a row (p ≈ 1/4 each): enough attempts that all 24 get through
    model = _model(server, retry=RetryPolicy(max_attempts=8, base_delay_s=0.01, max_delay_s=0.05))
    results: dict[int, str] = {}

    def call(i: int) -> None:
        results[i] = _ask(model, f"q{i}").text

    threads = [threading.Thread(target=call, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: f"answer to q{i}" for i in range(24)}
    ok = [r["body"]["messages"][0]["content"] for r in server.requests if r["status"] == 200]
    assert sorted(ok) == sorted(f"q{i}" for i in range(24))  # nothing lost, nothing served twice
    assert server.served == 24 and server.received == 24 + server.statuses[500] and server.in_flight == 0
    assert server.max_in_flight >= 2


def test_stop_and_restart_on_the_same_port(server):
    model = _model(server, connect_timeout_s=0.5)
    assert _ask(model).text
    port = server.port
    server.stop()
    with pytest.raises(ModelError, match="cannot connect"):
        _ask(model)
    server.restart()
    assert server.port == port and _ask(model).text


def test_an_endpoint_that_drips_bytes_is_cut_at_the_attempt_deadline(server, records):
    """Issue 18, item 12: the read timeout restarts with every byte; the attempt's total deadline does not."""
    server.script.append({"drip": 0.05})  # ~300 bytes: 15 s to send, a byte every 50 ms (read timeout 1 s)
    model = _model(server, timeout_s=1.0, deadline_s=0.5)
    assert model.has_deadline and model.describe()["deadline_s"] == 0.5
    resp = _ask(model)
    assert resp.text and resp.attempts == 2, "the dripping attempt was cut, the retry answered"
    server.wait_until(lambda s: s.requests[0]["status"] is None)  # the client hung up mid-drip
    server.script.append({"drip": 0.05})
    with pytest.raises(RetryableModelError, match=r"0\.5s deadline"):
        _ask(_model(server, timeout_s=1.0, deadline_s=0.5, retry=RetryPolicy(max_attempts=1)), "again")


def test_a_retry_after_beyond_the_limit_stops_the_endpoint_instead_of_stalling(server):
    """Issue 18, item 3: a 429 asking for an hour must neither pause the endpoint for that hour
    (every later call would sleep it in silence) nor be retried; the endpoint is stopped with a message."""
    import time

    from memlab.llm.types import EndpointDown

    server.script.append({"status": 429, "retry_after": "3600"})
    model = _model(server)
    with pytest.raises(EndpointDown, match=r"retry after 3600s .*more than the 120s"):
        _ask(model)
    assert model.endpoint.limiter._not_before - time.monotonic() <= FAST.max_retry_after_s
    with pytest.raises(EndpointDown, match="3600s"):  # later calls fail at once, nothing is sent
        _ask(model, "next")
    assert server.received == 1
