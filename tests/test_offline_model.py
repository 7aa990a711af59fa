"""The offline ChatModel: it reads the prompt a real model gets (role from the ChatAdapter field
list, inputs from the sections), replies in ChatAdapter format, counts tokens on the exact
messages, and is versioned by its source."""

from __future__ import annotations

import shutil
from pathlib import Path

import dspy
import pytest

from memlab.llm.base import ModelSpec, make_model
from memlab.llm.offline_model import OfflineChatModel
from memlab.llm.types import ChatRequest, ModelError
from memlab.offline import version
from memlab.offline.prompt import read_prompt
from memlab.offline.roles import identify
from memlab.roles import signatures as sig
from memlab.roles.program import Role
from memlab.tokens import count_message_tokens

EXAMPLES = {
    sig.ExtractFacts: dict(message="I moved to Graz.", speaker="user: Ida", context="", date="2024-05-08"),
    sig.ExtractFromTranscript: dict(transcript="[t1] user: Ida: I moved to Graz.", date="2024-05-08"),
    sig.ShouldRemember: dict(message="I moved to Graz.", speaker="user: Ida"),
    sig.ReconcileMemory: dict(new_fact="Ida lives in Graz.", existing=["Ida lives in Linz."]),
    sig.Summarize: dict(previous_summary="", messages="[2024-05-08] Ida: I moved to Graz."),
    sig.AnswerFromMemory: dict(context="[2024-05-08] Ida lives in Graz.", question="Where does Ida live?", date="2024-05-09"),
    sig.JudgeAnswerLenient: dict(question="Where?", gold="Graz", response="Graz"),
    sig.JudgeAnswerStrict: dict(question="Where?", gold="Graz", superseded="Linz", response="Graz"),
    sig.AgentStep: dict(context="", working_memory="user: Ida: I moved to Graz.", memory_status="10 / 100 tokens (10%)"),
}


@pytest.mark.parametrize("signature", list(EXAMPLES), ids=lambda s: s.__name__)
def test_role_is_identified_from_the_chat_adapter_field_list(signature: type[dspy.Signature]) -> None:
    messages = dspy.ChatAdapter().format(signature, demos=[], inputs=EXAMPLES[signature])
    name, _ = identify(read_prompt(messages))
    assert name == signature.__name__


def test_role_is_identified_when_the_instruction_is_rewritten() -> None:
    optimised = sig.ReconcileMemory.with_instructions("Decide what to do with memory. Be careful.")
    prompt = read_prompt(dspy.ChatAdapter().format(optimised, demos=[], inputs=EXAMPLES[sig.ReconcileMemory]))
    assert identify(prompt)[0] == "ReconcileMemory"
    assert prompt.values["existing"] == ["Ida lives in Linz."]  # lists arrive as JSON


def test_inputs_come_from_the_last_user_message_not_the_demos() -> None:
    demo = dspy.Example(message="I am a baker.", speaker="user: Bo", context="", date="2020-01-01",
                        facts=["Bo is a baker."]).with_inputs("message", "speaker", "context", "date")
    messages = dspy.ChatAdapter().format(sig.ExtractFacts, demos=[demo], inputs=EXAMPLES[sig.ExtractFacts])
    assert read_prompt(messages).values["speaker"] == "user: Ida"


def _model() -> OfflineChatModel:
    return OfflineChatModel(embedder=None)


def test_roles_run_end_to_end_through_dspy() -> None:
    model = _model()
    assert Role(sig.ExtractFacts, model, "extract")(**EXAMPLES[sig.ExtractFacts])["facts"] == ["Ida moved to Graz."]
    out = Role(sig.ReconcileMemory, model, "consolidate")(**EXAMPLES[sig.ReconcileMemory])
    assert (out["action"], out["target"]) == ("UPDATE", 0)
    assert Role(sig.AnswerFromMemory, model, "answer")(**EXAMPLES[sig.AnswerFromMemory])["answer"] == "Graz"
    facts = Role(sig.ExtractFromTranscript, model, "extract")(**EXAMPLES[sig.ExtractFromTranscript])["facts"]
    assert [(f.text, f.turn_ids) for f in facts] == [("Ida moved to Graz.", ["t1"])]


def test_reply_is_chat_adapter_text_and_usage_counts_the_exact_messages() -> None:
    messages = dspy.ChatAdapter().format(sig.ShouldRemember, demos=[], inputs=EXAMPLES[sig.ShouldRemember])
    resp = _model().complete(ChatRequest(messages=messages, purpose="gate"))
    assert resp.text.startswith("[[ ## remember ## ]]\ntrue") and resp.text.endswith("[[ ## completed ## ]]")
    assert resp.usage.prompt_tokens == count_message_tokens(messages) and resp.usage.completion_tokens > 0


def test_a_request_that_is_not_a_chat_adapter_prompt_is_a_model_error() -> None:
    with pytest.raises(ModelError, match="not a DSPy ChatAdapter prompt"):
        _model().complete(ChatRequest(messages=[{"role": "user", "content": "hello"}], purpose="answer"))
    odd = [{"role": "system", "content": "Your input fields are:\n1. `x` (str)\nYour output fields are:\n1. `y` (str)\n"},
           {"role": "user", "content": "[[ ## x ## ]]\nhi"}]
    with pytest.raises(ModelError, match="no role with inputs"):
        _model().complete(ChatRequest(messages=odd, purpose="answer"))


def test_registered_as_provider_offline_with_checked_options() -> None:
    model = make_model({"provider": "offline", "options": {"tool_reliability": 0.5, "seed": 3}})
    assert isinstance(model, OfflineChatModel) and model.options.seed == 3
    assert model.describe()["model"] == model.model_id
    with pytest.raises(ValueError, match="tool_reliability"):
        make_model({"provider": "offline", "options": {"tool_reliability": 2}})
    with pytest.raises(ValueError, match="colour"):
        make_model({"provider": "offline", "options": {"colour": "red"}})
    assert ModelSpec().options == {}


def test_model_id_is_versioned_by_its_whole_import_closure(tmp_path: Path) -> None:
    """A change to any module the stand-in imports (not only memlab/offline/) changes its version; a
    change elsewhere (the report) does not. The closure is computed from the import statements."""
    assert _model().model_id == f"offline-{version.MAJOR}+{version.source_hash()}"
    files = {p.relative_to(version.CHECKOUT).as_posix() for p in version.closure()}
    assert {"memlab/offline/gate.py", "memlab/llm/offline_model.py", "memlab/tokens.py",
            "memlab/scoring/offline_judge.py"} <= files
    assert "memlab/analysis/report.py" not in files and "memlab/harness/runner.py" not in files
    copy = tmp_path / "checkout"
    shutil.copytree(version.CHECKOUT / "memlab", copy / "memlab", ignore=shutil.ignore_patterns("__pycache__", "static"))
    assert version.model_id(copy) == _model().model_id
    (copy / "memlab/analysis/report.py").write_text((copy / "memlab/analysis/report.py").read_text() + "\n# a report change\n")
    version.source_hash.cache_clear()
    assert version.model_id(copy) == _model().model_id
    for changed in ("memlab/offline/gate.py", "memlab/tokens.py", "memlab/scoring/matching.py"):
        before = version.model_id(copy)
        (copy / changed).write_text((copy / changed).read_text() + "\n# a changed rule\n")
        version.source_hash.cache_clear()
        assert version.model_id(copy) != before, changed
