"""Roles as DSPy modules: per-role models from the config, and a DSPy optimizer pointed at a role."""

from __future__ import annotations

import dspy

from memlab.harness.config import RunConfig
from memlab.roles.program import MemoryRoles
from memlab.harness.units import Workbench
from tests.test_agent import ScriptedModel


class AnswerModel(ScriptedModel):
    """Answers every question with the first capitalised word after 'in' in the context (a toy)."""

    def complete(self, request):
        self.requests.append(request)
        ctx = request.messages[-1]["content"]
        import re

        m = re.search(r"\bin ([A-Z]\w+)", ctx.split("[[ ## question ## ]]")[0])
        from memlab.llm.types import ChatResponse, Usage

        return ChatResponse(text=f"[[ ## answer ## ]]\n{m.group(1) if m else 'I do not know'}\n\n[[ ## completed ## ]]",
                            usage=Usage(prompt_tokens=1, completion_tokens=1), model=self.model_id)


def test_a_dspy_optimizer_compiles_a_role_and_its_demos_reach_the_model():
    model = AnswerModel()
    roles = MemoryRoles(model)
    trainset = [dspy.Example(context=f"Ana lives in {city}.", question="Where does Ana live?", date="2024-01-01",
                             answer=city).with_inputs("context", "question", "date")
                for city in ("Lisbon", "Osaka", "Leeds")]
    optimizer = dspy.BootstrapFewShot(metric=lambda ex, pred, trace=None: ex.answer == pred["answer"],
                                      max_bootstrapped_demos=2, max_labeled_demos=0)
    compiled = optimizer.compile(roles.answer, trainset=trainset)
    assert len(compiled.predict.demos) == 2
    model.requests.clear()
    out = compiled(context="Ben lives in Turin.", question="Where does Ben live?", date="2024-02-01")
    assert out["answer"] == "Turin"
    sent = "\n".join(m["content"] for m in model.requests[-1].messages if isinstance(m.get("content"), str))
    assert "Lisbon" in sent or "Osaka" in sent, "the bootstrapped demos are part of the prompt"


def test_per_role_models_route_each_purpose(tmp_path):
    cfg = RunConfig.model_validate({
        "datasets": ["datasets/starter.yaml"], "strategies": [{"name": "no_memory"}], "embedding_cache": None,
        "model": {"provider": "offline"},
        "models": {"answer": {"provider": "openai", "model": "answerer-x", "base_url": "http://127.0.0.1:9/v1"}}})
    bench = Workbench(cfg, {}, {}, run_dir=tmp_path, run_uid="u")
    described = bench.models_manifest()
    assert described["roles"]["answer"]["model"] == "answerer-x"
    assert described["roles"]["extract"]["heuristic"] is True
    assert bench.roles.answer.model.model_id != bench.roles.extract.model.model_id
