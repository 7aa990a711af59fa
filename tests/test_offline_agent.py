"""The offline model's memory-tool policy (AgentStep) through DSPy with native tools, as an agent
loop calls it: store on a user statement, update on a slot change, compress at high usage, no
call after a tool result, and a deterministic tool_reliability."""

from __future__ import annotations

from typing import Any

import dspy

from memlab.llm.offline_model import OfflineChatModel, OfflineOptions
from memlab.roles import signatures as sig
from memlab.roles.program import Role


def _tool(name: str, **params: str) -> dspy.Tool:
    def fn(**kwargs: Any) -> str:
        return "ok"
    return dspy.Tool(fn, name=name, desc=f"the {name} memory tool",
                     args={p: {"type": t} for p, t in params.items()})


TOOLS = [_tool("store_fact", text="string"), _tool("update_fact", id="string", text="string"),
         _tool("delete_fact", id="string"), _tool("compress_memory")]


def step(working_memory: str, *, context: str = "", status: str = "working memory: 200 / 2000 tokens (10%)",
         tools: list[dspy.Tool] = TOOLS, reliability: float = 1.0, seed: int = 0) -> list[tuple[str, dict[str, Any]]]:
    model = OfflineChatModel(embedder=None, options=OfflineOptions(tool_reliability=reliability, seed=seed))
    out = Role(sig.AgentStep, model, "agent")(context=context, working_memory=working_memory, memory_status=status,
                                              tools=tools)
    calls = out["tool_calls"].tool_calls if out["tool_calls"] else []
    return [(c.name, dict(c.args)) for c in calls]


def test_a_user_statement_is_stored_attributed() -> None:
    assert step("user: Ida: I work as a pharmacist.") == [("store_fact", {"text": "Ida works as a pharmacist."})]


def test_small_talk_and_one_off_requests_store_nothing() -> None:
    assert step("user: Ida: haha thanks, that's great!") == []
    assert step("user: Ida: Can you find me a cheap flight?") == []


def test_a_slot_change_updates_the_known_fact_by_id() -> None:
    calls = step("user: Ida: I work as a nurse now.", context="[mem-42] Ida works as a pharmacist.")
    assert calls == [("update_fact", {"id": "mem-42", "text": "Ida works as a nurse now."})]


def test_a_retraction_deletes_the_known_fact() -> None:
    assert step("user: Ida: I don't play chess anymore.", context="[m7] Ida plays chess.") == [("delete_fact", {"id": "m7"})]


def test_compresses_at_high_usage_only_when_offered() -> None:
    busy = "working memory: 1830 / 2000 tokens (91%)"
    assert ("compress_memory", {}) in step("user: Ida: ok", status=busy)
    assert step("user: Ida: ok", status=busy, tools=TOOLS[:1]) == []


def test_tool_observations_are_not_stored_and_a_tool_result_ends_the_loop() -> None:
    assert step("user: Ida: Check my order.\ntool: orders: order: 5531\nstatus: shipped") == []
    assert step("user: Ida: I live in Graz.\nstore_fact: queued for storage: Ida lives in Graz.") == []


def test_only_offered_tools_are_called() -> None:
    assert step("user: Ida: I work as a pharmacist.", tools=[TOOLS[3]]) == []


def test_reliability_zero_never_writes_and_draws_are_deterministic() -> None:
    statements = [f"user: Ida: I keep {n} beehives in Styria." for n in range(2, 30)]
    assert all(step(s, reliability=0.0) == [] for s in statements)
    half = [bool(step(s, reliability=0.5, seed=1)) for s in statements]
    assert half == [bool(step(s, reliability=0.5, seed=1)) for s in statements]
    assert 0 < sum(half) < len(half)  # some writes made, some dropped
    assert half != [bool(step(s, reliability=0.5, seed=2)) for s in statements]
