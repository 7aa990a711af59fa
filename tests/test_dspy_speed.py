"""memlab.roles.dspy_speed: DSPy's per-call costs removed without changing a request or a parse.

Each role is called twice on the same inputs through the offline model — once with memlab's
memoising ``ChatAdapter`` and cached ``TypeAdapter``s, once with DSPy's own ``ChatAdapter`` and
``TypeAdapter`` — and the requests the model received (messages, tools) and the parsed outputs
must be identical. A tool-calling role must also stop building a signature class per call.
"""

from __future__ import annotations

from typing import Any

import dspy
import pytest
from dspy.adapters import utils as dspy_utils

from memlab.llm.offline_model import OfflineChatModel
from memlab.roles import dspy_speed
from memlab.roles.program import MemoryRoles


class Recording:
    """Wraps the offline model and keeps every request it gets."""

    def __init__(self) -> None:
        self.inner = OfflineChatModel()
        self.model_id = self.inner.model_id
        self.requests: list[Any] = []

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def complete(self, request: Any) -> Any:
        self.requests.append(request)
        return self.inner.complete(request)


def _tool(name: str, desc: str, **args: str) -> dspy.Tool:
    return dspy.Tool(lambda **kw: None, name=name, desc=desc, args={k: {"type": "string", "description": v} for k, v in args.items()},
                     arg_types={k: Any for k in args}, arg_desc=dict(args))


CALLS = [
    ("extract", {"conversation": "user: I moved to Oslo last week and my cat is called Bo.", "date": "2024-03-01"}),
    ("answer", {"context": "## Memories\nThe user lives in Oslo.\nThe user's cat is Bo.", "question": "Where do I live?",
                "date": "2024-03-02"}),
    ("summarize", {"previous_summary": "The user likes tea.", "messages": "user: I also started rowing on Sundays."}),
    ("agent_step", {"context": "(nothing yet)", "working_memory": "user: remember that my sister is a nurse in Perth",
                    "memory_status": "12/800 tokens",
                    "tools": [_tool("store_fact", "Store a durable fact.", text="the fact"),
                              _tool("retrieve_facts", "Look facts up.", query="what to look for")]}),
]


def _play(fast: bool) -> tuple[list[Any], list[Any]]:
    model = Recording()
    roles = MemoryRoles(model)
    if fast:
        dspy_speed.cache_type_adapters()
    else:
        dspy_speed.uncache_type_adapters()
        for role in (roles.extract, roles.answer, roles.summarize, roles.agent_step):
            role.adapter = dspy.ChatAdapter(use_json_adapter_fallback=False,
                                            use_native_function_calling=role.adapter.use_native_function_calling)
    outputs = []
    for _ in range(2):  # the second round is served from the memo
        for name, inputs in CALLS:
            role = getattr(roles, name)
            role_inputs = {k: v for k, v in inputs.items() if k in role.signature.input_fields}
            outputs.append(dict(role(**role_inputs)))
    requests = [(r.messages, r.tools, r.output_fields) for r in model.requests]
    return requests, outputs


@pytest.fixture
def restore_type_adapters():
    yield
    dspy_speed.cache_type_adapters()  # memlab.roles.program installs it at import; leave it so


def test_requests_and_outputs_are_identical_with_and_without_the_speed_ups(restore_type_adapters):
    slow = _play(fast=False)
    assert not isinstance(dspy_utils.TypeAdapter, dspy_speed._CachedTypeAdapters)
    fast = _play(fast=True)
    assert isinstance(dspy_utils.TypeAdapter, dspy_speed._CachedTypeAdapters)
    assert fast[0] == slow[0], "the model received other requests"
    assert fast[1] == slow[1], "the roles parsed other outputs"
    assert any(tools for _, tools, _ in fast[0]), "the agent step sent native tools"


def test_a_tool_calling_role_builds_its_tool_free_signature_once(monkeypatch):
    built: list[str] = []
    real = dspy.Signature.delete.__func__

    def counting(cls, name):
        built.append(name)
        return real(cls, name)

    monkeypatch.setattr(dspy.Signature, "delete", classmethod(counting))
    dspy_speed._deleted.clear()
    roles = MemoryRoles(Recording())
    tools = CALLS[3][1]
    for _ in range(5):
        roles.agent_step(**tools)
    assert sorted(built) == ["tool_calls", "tools"], f"deleted {built} over 5 calls"


def test_type_adapters_are_built_once_per_type():
    cached = dspy_speed._CachedTypeAdapters(dspy_utils.TypeAdapter.factory if isinstance(
        dspy_utils.TypeAdapter, dspy_speed._CachedTypeAdapters) else dspy_utils.TypeAdapter)
    assert cached(str) is cached(str)
    assert cached(list[str]) is cached(list[str])
    assert cached(str) is not cached(int)
    assert cached(list[str]).dump_python(["a"], mode="json") == ["a"]


def test_the_system_message_is_built_once_per_signature_and_follows_new_instructions(monkeypatch):
    built: list[str] = []
    real = dspy.ChatAdapter.format_system_message

    def counting(self, signature):
        built.append(signature.__name__)
        return real(self, signature)

    monkeypatch.setattr(dspy.ChatAdapter, "format_system_message", counting)
    dspy_speed._system.clear()
    adapter = dspy_speed.ChatAdapter(use_json_adapter_fallback=False)
    sig = dspy.Signature("question -> answer", "Answer the question.")
    first = [adapter.format_system_message(sig) for _ in range(5)]
    assert len(built) == 1 and len(set(first)) == 1
    assert first[0] == real(dspy.ChatAdapter(), sig)
    changed = sig.with_instructions("Answer in one word.")
    assert "one word" in adapter.format_system_message(changed) and len(built) == 2
