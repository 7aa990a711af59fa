"""Record/replay cache: bad replies are not replayed forever, and any reply text survives the JSONL file."""

from __future__ import annotations

import json

import pytest

from memlab.llm.openai_model import OpenAIChatModel
from memlab.llm.replay import RecordReplayModel
from memlab.llm.retry import RetryPolicy
from memlab.llm.types import ChatRequest, ModelError, ReplayMiss
from memlab.roles import signatures as sig
from memlab.roles.program import Role, RoleFailure
from tests.support.fake_openai_server import FakeOpenAIServer

FAST = RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.05)
INPUTS = {"message": "I live in Lisbon.", "speaker": "user: Maria", "context": "", "date": "2024-05-01"}
NOT_A_LIST = "[[ ## facts ## ]]\nMaria lives in Lisbon\n\n[[ ## completed ## ]]"  # markers present, type wrong



def _model(url: str) -> OpenAIChatModel:
    return OpenAIChatModel("replay-model", base_url=url, retry=FAST, connect_timeout_s=0.5)


def _extract(model) -> dict:
    return Role(sig.ExtractFacts, model, "extract")(**INPUTS)


def _extract_request() -> ChatRequest:
    """The exact first request ``_extract`` sends."""
    seen: list[ChatRequest] = []

    class Capture:
        model_id = "capture"

        def complete(self, request: ChatRequest):
            seen.append(request)
            raise ModelError("captured")

    with pytest.raises(RoleFailure):
        _extract(Capture())
    return seen[0]


def test_unparseable_reply_is_rejected_and_asked_again_from_the_healthy_endpoint(tmp_path, records):
    cache = tmp_path / "calls.jsonl"
    with FakeOpenAIServer() as server:
        server.mode = {"content": NOT_A_LIST}  # the endpoint misbehaves during the recording run
        with pytest.raises(RoleFailure, match="malformed"):
            _extract(RecordReplayModel(_model(server.base_url), cache, "record"))
        asked_while_broken = server.received
        server.mode = {"fields": {"facts": '["Maria lives in Lisbon."]'}}  # healthy again
        out = _extract(RecordReplayModel(_model(server.base_url), cache, "record"))
        assert out == {"facts": ["Maria lives in Lisbon."]}
        assert server.received == asked_while_broken + 1  # re-asked once, not replayed from the cache
        assert not records[-1].cached
    # the good reply replaced the rejected one: it replays with the server gone
    strict = RecordReplayModel(_model(server.base_url), cache, "replay-strict")
    assert _extract(strict) == {"facts": ["Maria lives in Lisbon."]} and records[-1].cached


def test_a_cache_poisoned_before_rejection_existed_is_treated_as_a_miss(tmp_path, records):
    cache = tmp_path / "calls.jsonl"
    request = _extract_request()
    with FakeOpenAIServer() as server:
        server.mode = {"garbage": True}
        RecordReplayModel(_model(server.base_url), cache, "record").complete(request)  # no role: nothing rejects it
        server.mode = {"fields": {"facts": '["Maria lives in Lisbon."]'}}
        out = _extract(RecordReplayModel(_model(server.base_url), cache, "record"))
        assert out == {"facts": ["Maria lives in Lisbon."]} and server.received == 2
    # replay-strict on the poisoned file (its first line) says why instead of serving the bad reply
    poisoned = tmp_path / "poisoned.jsonl"
    poisoned.write_text(cache.read_text().split("\n")[0] + "\n")
    with pytest.raises(ReplayMiss, match="unusable"):
        RecordReplayModel(_model(server.base_url), poisoned, "replay-strict").complete(request)


def test_reject_in_replay_mode_forgets_in_memory_only(tmp_path):
    cache = tmp_path / "calls.jsonl"
    request = ChatRequest(messages=[{"role": "user", "content": "hi"}], purpose="answer")
    with FakeOpenAIServer() as server:
        server.mode = {"content": "first"}
        RecordReplayModel(_model(server.base_url), cache, "record").complete(request)
        before = cache.read_text()
        replay = RecordReplayModel(_model(server.base_url), cache, "replay")
        assert replay.complete(request).cached
        replay.reject(request)
        server.mode = {"content": "second"}
        assert replay.complete(request).text == "second" and server.received == 2
    assert cache.read_text() == before


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\u0085"])
def test_unicode_line_separators_in_a_reply_keep_the_cache_loadable(tmp_path, char):
    cache = tmp_path / "calls.jsonl"
    text = f"[[ ## facts ## ]]\n[\"Maria lives in Lis{char}bon.\"]\n\n[[ ## completed ## ]]"
    with FakeOpenAIServer() as server:
        server.mode = {"content": text}
        first = _extract(RecordReplayModel(_model(server.base_url), cache, "record"))
    raw = cache.read_text(encoding="utf-8")
    assert char not in raw and len(raw.splitlines()) == raw.count("\n") == 1  # no reader can split the entry
    strict = RecordReplayModel(_model(server.base_url), cache, "replay-strict")  # server gone
    assert strict.complete(_extract_request()).text == text
    assert _extract(strict) == first


def test_corrupt_cache_line_is_reported_with_file_and_line(tmp_path):
    cache = tmp_path / "calls.jsonl"
    cache.write_text('{"key": "a", "response": "x"}\n{not json\n')
    with pytest.raises(ValueError, match=r"calls\.jsonl:2: corrupt cache entry"):
        RecordReplayModel(_model("http://127.0.0.1:9/v1"), cache, "record")
    cache.write_text(json.dumps({"response": "no key"}) + "\n")
    with pytest.raises(ValueError, match=r"calls\.jsonl:1: corrupt cache entry \(KeyError"):
        RecordReplayModel(_model("http://127.0.0.1:9/v1"), cache, "record")


def _append_many(path: str, worker: int, n: int) -> None:
    from pathlib import Path

    from memlab.llm.replay import append_line

    for i in range(n):
        # long lines (several times a pipe/buffer size) are the ones a split write would tear
        append_line(Path(path), json.dumps({"key": f"{worker}-{i}", "response": str(worker) * 100_000}) + "\n")


def test_processes_recording_into_one_cache_never_interleave_lines(tmp_path):
    """Parallel workers in record mode append to the same cache file: every line must come out
    whole (one parseable entry per append, none lost)."""
    import multiprocessing as mp

    path = tmp_path / "cache.jsonl"
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_append_many, args=(str(path), w, 8)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        assert p.exitcode == 0
    lines = [ln for ln in path.read_text(encoding="utf-8").split("\n") if ln]
    entries = [json.loads(ln) for ln in lines]
    assert sorted(e["key"] for e in entries) == sorted(f"{w}-{i}" for w in range(4) for i in range(8))
    assert all(set(e["response"]) == {e["key"].split("-")[0]} for e in entries)


@pytest.mark.parametrize("mode", ["record", "replay", "replay-strict"])
def test_a_torn_last_line_leaves_the_cache_usable_and_record_cuts_it(tmp_path, server, mode):
    """Issue 18, item 9: a crash mid-append leaves a torn last line; the cache stays usable in every
    mode, as the run-folder reader does, and ``record`` cuts it before appending."""
    cache = tmp_path / "cache.jsonl"
    server.mode = {"content": "recorded reply"}
    request = ChatRequest(messages=[{"role": "user", "content": "hi"}], purpose="answer")
    RecordReplayModel(_model(server.base_url), cache, "record").complete(request)
    good = cache.read_bytes()
    cache.write_bytes(good + b'{"key": "abc", "response": "tor')  # the crash
    model = RecordReplayModel(_model(server.base_url), cache, mode)
    assert model.complete(request).cached and server.received == 1
    if mode == "record":
        assert cache.read_bytes() == good, "the torn line is cut when the cache is opened for recording"
        model.complete(ChatRequest(messages=[{"role": "user", "content": "another"}], purpose="answer"))
        assert [json.loads(line)["response"] for line in cache.read_text().splitlines()] == ["recorded reply"] * 2
    # a corrupt line that is not the last one is still an error naming the line
    cache.write_bytes(b'{"broken\n' + good)
    with pytest.raises(ValueError, match=r"cache.jsonl:1: corrupt cache entry"):
        RecordReplayModel(_model(server.base_url), cache, mode)
