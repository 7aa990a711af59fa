"""Issue 9: the agent loop, compression triggers and the two extraction modes.

The models here are scripted test doubles (``ScriptedModel``): they answer each role with what
the test says, so every assertion is about memlab's loop, not about a model's judgement. The
OpenAI-compatible path goes through the real ``openai`` client against the local fake server.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Callable

import pytest

from memlab.datasets.models import Dataset
from memlab.embeddings import shared_embedder
from memlab.llm import calls
from memlab.llm.types import ChatRequest, ChatResponse, ToolCall, Usage
from memlab.roles.program import MemoryRoles
from memlab.strategies.composed import ComposedStrategy, resolve_spec
from memlab.strategies.slots import BuildEnv
from memlab.strategies.triggers import Compressor, Entry, make_trigger
from memlab.harness.units import turn_events

# -- triggers ---------------------------------------------------------------------------------------


def _summarize_first_words(previous_summary: str, messages: str) -> dict[str, str]:
    return {"summary": " ".join((previous_summary + " " + messages).split()[:6])}


def test_every_n_steps_fires_at_3_6_9():
    c = Compressor(make_trigger({"type": "every_n_steps", "n": 3}), keep_recent=1, summarize=_summarize_first_words,
                   component="working_memory")
    fired = []
    for step in range(1, 11):
        c.add(Entry(f"step {step} text"))
        if c.maybe_compress() is not None:
            fired.append(step)
    assert fired == [3, 6, 9]


def test_token_threshold_fires_on_the_crossing_step_and_never_leaves_memory_above_it():
    cap = 60
    c = Compressor(make_trigger({"type": "token_threshold", "max_tokens": cap}), keep_recent=3,
                   summarize=lambda previous_summary, messages: {"summary": previous_summary + " " + messages},  # no shrink
                   component="working_memory")
    fired = []
    for step in range(1, 30):
        before = c.tokens
        c.add(Entry(" ".join(["word"] * 12)))
        crossed = before <= cap < c.tokens
        comp = c.maybe_compress()
        if comp is not None:
            fired.append(step)
            assert crossed or before > cap
        assert c.tokens <= cap, f"step {step}: {c.tokens} tokens after compressing"
    assert fired


def test_agent_driven_fires_only_when_requested():
    c = Compressor(make_trigger("agent_driven"), keep_recent=0, summarize=_summarize_first_words, component="wm")
    for _ in range(20):
        c.add(Entry(" ".join(["word"] * 50)))
        assert c.maybe_compress() is None
    assert c.maybe_compress(requested=True) is not None


# -- scripted roles -------------------------------------------------------------------------------

class ScriptedModel:
    """Answers each role from a policy function of (signature fields, request); records requests."""

    model_id = "scripted-test-model"

    def __init__(self, agent: Callable[[ChatRequest], list[dict[str, Any]]] | None = None) -> None:
        self.agent = agent or (lambda req: [])
        self.requests: list[ChatRequest] = []

    def describe(self) -> dict[str, Any]:
        return {"model": self.model_id}

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        fields = request.output_fields
        calls_: list[ToolCall] = []
        if "next_thought" in fields:
            out = {"next_thought": "ok"}
            calls_ = [ToolCall(id=f"c{i}", name=c["name"], arguments=c.get("args", {}),
                               raw_arguments=json.dumps(c.get("args", {}))) for i, c in enumerate(self.agent(request))]
        elif "facts" in fields and "transcript" in _user(request):
            lines = re.findall(r"\[(\S+)\] user: (.*)", _user(request))
            out = {"facts": [{"text": t, "turn_ids": [i]} for i, t in lines]}
        elif "goal" in fields:
            out = {"goal": "g", "key_steps": ["s"], "outcome": "o", "lessons": ""}
        elif "summary" in fields:
            out = {"summary": "summary: " + _section(request, "messages")[:40]}
        elif "answer" in fields:
            out = {"answer": "I don't know"}
        elif "operation" in fields:
            out = {"operation": "ADD", "target": -1, "merged_text": ""}
        else:
            out = {f: "" for f in fields}
        text = "".join(f"[[ ## {k} ## ]]\n{json.dumps(v) if not isinstance(v, str) else v}\n\n" for k, v in out.items())
        return ChatResponse(text=text + "[[ ## completed ## ]]", usage=Usage(prompt_tokens=10, completion_tokens=5),
                            model=self.model_id, tool_calls=calls_)


def _user(request: ChatRequest) -> str:
    return next(m["content"] for m in reversed(request.messages) if m["role"] == "user")


def _section(request: ChatRequest, name: str) -> str:
    m = re.search(rf"\[\[ ## {name} ## \]\]\n(.*?)(?:\n\n\[\[ ## |\Z)", _user(request), re.S)
    return m.group(1) if m else ""


def _newest_step(request: ChatRequest) -> str:
    return _section(request, "working_memory").strip().splitlines()[-1]


CONV = {
    "name": "agentic-test",
    "conversations": [{
        "id": "c1",
        "sessions": [{"id": "s1", "timestamp": "2024-03-01T09:00:00", "turns": [
            {"id": "u1", "role": "user", "text": "I live in Porto. Please check the weather for my trip."},
            {"id": "a1", "role": "assistant", "text": "Checking the forecast."},
            {"id": "t1", "role": "tool", "tool_name": "weather", "text": "forecast: rain, 14C"},
            {"id": "a2", "role": "assistant", "text": "Rain and 14C expected."},
            {"id": "u2", "role": "user", "text": "Thanks. My passport number is X123."},
            {"id": "a3", "role": "assistant", "text": "Noted."},
        ]}],
        "probes": [],
    }],
}


def _strategy(spec: dict[str, Any], model: ScriptedModel) -> ComposedStrategy:
    env = BuildEnv(roles=MemoryRoles(model), embedder=shared_embedder(None), strategy_name=spec["name"],
                   make_store=lambda s: s.build())
    return ComposedStrategy(resolve_spec(spec), env)


def _play(strategy: ComposedStrategy) -> tuple[list, list, list]:
    ds = Dataset.model_validate(CONV)
    conv = ds.conversations[0]
    strategy.begin_unit("test/c1")
    outs = [strategy.begin_conversation(conv.id)]
    for ev in turn_events(conv):
        outs.append(strategy.observe(ev))
    outs.append(strategy.end_conversation())
    ops = [o for out in outs for o in out.ops]
    steps = [s for out in outs for s in out.agent_steps]
    comps = [c for out in outs for c in out.compressions]
    return ops, steps, comps


def _record_calls():
    out: list = []
    return out, calls.call_sink(out.append)


@pytest.mark.slow
def test_agent_tool_writes_nothing_when_the_agent_calls_no_tool():
    model = ScriptedModel(agent=lambda req: [])
    ops, steps, _ = _play(_strategy({"name": "a", "preset": "react_mem", "extractor": {"type": "agent_tool"}}, model))
    assert [o for o in ops if o.op.value in ("ADD", "UPDATE") and o.kind == "fact"] == []
    assert steps == []
    assert any("next_thought" in r.output_fields for r in model.requests), "the agent was asked at every step"


def test_agent_tool_stores_what_the_agent_stores_citing_the_current_turn():
    def policy(req: ChatRequest) -> list[dict]:
        newest = _newest_step(req)
        if "user:" in newest and "Porto" in newest:
            return [{"name": "store_fact", "args": {"text": "The user lives in Porto."}}]
        return []

    model = ScriptedModel(agent=policy)
    ops, steps, _ = _play(_strategy({"name": "a", "preset": "react_mem", "extractor": {"type": "agent_tool"}}, model))
    facts = [o for o in ops if o.op.value == "ADD" and o.kind == "fact"]
    assert [f.text for f in facts] == ["The user lives in Porto."]
    assert facts[0].source_turn_ids == ["u1"]
    assert [(s.tool, s.ok) for s in steps] == [("store_fact", True)]
    offered = next(r for r in model.requests if r.tools)
    assert {"store_fact", "update_fact", "delete_fact", "retrieve_facts"} <= {t.name for t in offered.tools}


def test_post_pass_makes_one_extraction_call_per_invocation():
    model = ScriptedModel()
    recorded, sink = _record_calls()
    strategy = _strategy({"name": "p", "preset": "react_mem"}, model)
    assert strategy.resolved["extractor"]["type"] == "post_pass"  # react_mem's extraction, the component under test
    with sink:
        ops, _, _ = _play(strategy)
    extract_calls = [r for r in recorded if r.signature == "ExtractFromTranscript"]
    assert len(extract_calls) == 2, "two invocations (u1.., u2..), one transcript call each"
    facts = {o.text: o.source_turn_ids for o in ops if o.op.value == "ADD" and o.kind != "summary"}
    assert facts["Thanks. My passport number is X123."] == ["u2"]


def test_agent_driven_compresses_only_on_compress_memory():
    def policy(req: ChatRequest) -> list[dict]:
        newest = _newest_step(req)
        return [{"name": "compress_memory"}] if "tool:" in newest else []

    spec = {"name": "d", "preset": "react", "agent": {"type": "react", "working_memory": {
        "trigger": "agent_driven", "keep_recent": 1}}}
    model = ScriptedModel(agent=policy)
    _, steps, comps = _play(_strategy(spec, model))
    assert [c.trigger for c in comps] == ["agent_driven"]
    assert comps[0].folded_turn_ids == ["u1", "a1"], "compressed at once, at the step that asked (keep_recent=1 keeps t1)"
    assert "compress_memory" in {s.tool for s in steps}
    status = _section(next(r for r in model.requests if r.tools), "memory_status")
    assert re.match(r"working memory: \d+ / \d+ tokens \(\d+%\)", status)


def test_every_n_steps_on_working_memory_compresses_within_the_invocation():
    spec = {"name": "e", "preset": "react", "agent": {"type": "react", "working_memory": {
        "trigger": {"type": "every_n_steps", "n": 2}, "keep_recent": 1}}}
    _, _, comps = _play(_strategy(spec, ScriptedModel()))
    assert [c.step for c in comps] == [2, 4, 2], "steps count within an invocation (4 steps, then 2)"


def test_an_unknown_tool_and_the_step_limit_are_recorded():
    model = ScriptedModel(agent=lambda req: [{"name": "launch_rockets", "args": {}}])
    spec = {"name": "l", "preset": "react_mem", "agent": {"type": "react", "max_rounds": 2}}
    _, steps, _ = _play(_strategy(spec, model))
    assert {s.tool for s in steps} == {"launch_rockets", "(step limit)"}
    assert all(not s.ok for s in steps)
    tally = Counter(s.tool for s in steps)
    assert tally == {"launch_rockets": 2 * 6, "(step limit)": 6}, "max_rounds rounds at each of the 6 steps, then the limit"


# -- the OpenAI-compatible path through the real client ---------------------------------------------

@pytest.mark.slow
def test_agent_loop_over_the_openai_client_with_scripted_tool_calls():
    from memlab.llm.openai_model import OpenAIChatModel
    from memlab.llm.retry import RetryPolicy
    from tests.support.fake_openai_server import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        def responder(body: dict) -> dict | None:
            if not body.get("tools"):
                return None  # other roles: the server's default ChatAdapter answer
            last = body["messages"][-1]
            wm = re.search(r"\[\[ ## working_memory ## \]\]\n(.*?)\n\n\[\[", last.get("content") or "", re.S)
            newest = wm.group(1).splitlines()[-1] if wm else ""
            if last["role"] == "tool":
                return {"fields": {"next_thought": "done"}}
            if "user:" in newest and "Porto" in newest and "store_fact" in json.dumps(body["tools"]):
                return {"fields": {"next_thought": "store it"},
                        "tool_calls": [{"name": "store_fact", "arguments": {"text": "The user lives in Porto."}},
                                       {"name": "store_fact", "arguments": "{not json"}]}
            return {"fields": {"next_thought": "nothing"}}

        server.responder = responder
        model = OpenAIChatModel("fake", base_url=server.base_url, retry=RetryPolicy(max_attempts=2, base_delay_s=0))
        recorded, sink = _record_calls()
        with sink:
            ops, steps, _ = _play(_strategy({"name": "o", "preset": "react_mem", "extractor": {"type": "agent_tool"}}, model))
        tool_bodies = [r["body"] for r in server.requests if r["body"].get("tools")]
    assert tool_bodies and all(t["type"] == "function" for t in tool_bodies[0]["tools"])
    assert [o.text for o in ops if o.op.value == "ADD" and o.kind == "fact"] == ["The user lives in Porto."]
    bad = [s for s in steps if not s.ok]
    assert len(bad) == 1 and "not valid JSON" in bad[0].error
    agent_calls = [r for r in recorded if r.purpose == "agent"]
    assert agent_calls and all(r.ok for r in agent_calls) and sum(r.prompt_tokens for r in agent_calls) > 0


# -- evidence survival ------------------------------------------------------------------------------

@pytest.mark.parametrize("summary, survived", [
    ("The user lives in Porto and is planning a trip.", True),   # the value survived compression
    ("The user talked about where they live and a trip.", False),  # folded, but the value was lost
])
def test_evidence_survival_says_whether_the_gold_value_survived_compression(summary, survived):
    from memlab.datasets.models import Probe
    from memlab.strategies.base import CompressionEvent
    from memlab.harness.units import SurvivalTracker

    tracker = SurvivalTracker()
    tracker.add(CompressionEvent("history", "every_n_steps(n=2)", 2, 50, 20, ["u1", "a1"], summary, ["u1", "a1"]), 0)
    probe = Probe.model_validate({"id": "q", "after_turn": "a3", "question": "Where does the user live?",
                                  "category": "single_hop", "gold": "Porto", "evidence": ["u1"]})
    (surv,) = tracker.survival(probe, 1, {"u1", "a1"}, [["Porto"]])
    assert (surv.component, surv.folded_evidence, surv.survived, surv.in_context) == ("history", ["u1"], survived, True)


# -- episodes -------------------------------------------------------------------------------------

def test_post_pass_records_an_episode_for_a_task_like_invocation_only():
    model = ScriptedModel()
    ops, _, _ = _play(_strategy({"name": "ep", "preset": "react_mem"}, model))
    episodes = [o for o in ops if o.kind == "episode"]
    assert len(episodes) == 1, "the first invocation used a tool; the second (2 steps, no tool) is not task-like"
    assert episodes[0].source_turn_ids == ["u1", "a1", "t1", "a2"] and episodes[0].namespace.endswith("#episodes")


def test_agent_tool_episodes_are_written_only_by_the_agent():
    def policy(req: ChatRequest) -> list[dict]:
        if "tool:" in _newest_step(req):
            return [{"name": "record_episode", "args": {"goal": "weather for trip", "outcome": "rain, 14C",
                                                         "key_steps": ["called weather"]}}]
        return []

    spec = {"name": "ep2", "preset": "react_mem", "episodes": {"type": "episodic", "capture": "agent_tool"}}
    ops, steps, _ = _play(_strategy(spec, ScriptedModel(agent=policy)))
    episodes = [o for o in ops if o.kind == "episode"]
    assert [e.text for e in episodes] == ["Goal: weather for trip | Steps: called weather | Outcome: rain, 14C"]
    assert ("record_episode", True) in {(s.tool, s.ok) for s in steps}
    ops_none, _, _ = _play(_strategy(spec, ScriptedModel()))
    assert not [o for o in ops_none if o.kind == "episode"]
