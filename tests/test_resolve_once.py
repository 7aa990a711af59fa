"""Resolve once: a knob in a run config is validated once, into a typed object that reaches the
component (and a trigger the trigger) as it is — however many units and conversations play it."""

from __future__ import annotations

from pathlib import Path

import yaml

import memlab
from memlab.harness.config import load_config
from memlab.strategies.composed import ComposedStrategy, ResolvedStrategy
from memlab.strategies.slots import Params
from memlab.strategies.triggers import EveryNStepsSpec, TriggerParams

THREADS = Path(__file__).resolve().parent / "fixtures" / "threads_small.yaml"


def test_a_trigger_and_a_retriever_knob_are_validated_once_for_a_whole_run(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({
        "name": "once", "datasets": [str(THREADS)], "embedding_cache": None, "output_dir": str(tmp_path),
        "executor": {"type": "serial"},
        "strategies": [{"name": "every4", "preset": "react_mem", "retriever": {"type": "vector", "k": 6},
                        "agent": {"type": "react", "working_memory": {"trigger": {"type": "every_n_steps", "n": 4}}}}]}))
    TriggerParams.validations.clear()
    Params.validations.clear()
    config = load_config(path)
    typed = config.typed_strategies()[0]
    assert isinstance(typed, ResolvedStrategy)
    trigger = typed.components["agent"].params.working_memory.trigger
    assert isinstance(trigger, EveryNStepsSpec) and trigger.n == 4 and typed.components["retriever"].params.k == 6
    run_dir = memlab.run(config, progress=False)  # 2 users, 4 threads: one strategy built per unit
    assert memlab.load_run(run_dir).manifest["status"] == "completed"
    assert TriggerParams.validations["EveryNStepsSpec"] == 1, TriggerParams.validations
    assert Params.validations["_ReactParams"] == 1 and Params.validations["Retriever.Params"] == 1, Params.validations


def test_the_component_receives_the_typed_object_itself():
    config = load_config(Path(__file__).resolve().parents[1] / "evals" / "axes.yaml")
    typed = next(t for t in config.typed_strategies() if t.name == "every4+post_pass")
    spec = typed.components["agent"].params.working_memory.trigger
    from memlab.strategies.slots import BuildEnv

    from types import SimpleNamespace

    roles = SimpleNamespace(compress=lambda **kw: {"summary": ""}, summarize=lambda **kw: {"summary": ""})
    strategy = ComposedStrategy(typed, BuildEnv(roles=roles, embedder=None, strategy_name="x", make_store=lambda s: None))
    strategy.agent.begin_conversation(strategy.state)
    assert strategy.agent.trigger.params is spec  # no copy, no dict round trip
    assert strategy.resolved["agent"]["working_memory"]["trigger"] == {"type": "every_n_steps", "n": 4}  # the manifest's form


def test_a_validated_config_handed_on_is_not_resolved_again():
    config = load_config(Path(__file__).resolve().parents[1] / "evals" / "default.yaml")
    first = config.typed_strategies()
    from memlab.harness.config import validate_config

    assert validate_config(config) is config and config.typed_strategies() is first
    sliced = config.with_strategies(["full_context"])  # a copy with other strategies resolves its own
    assert [t.name for t in sliced.typed_strategies()] == ["full_context"]
