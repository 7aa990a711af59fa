"""Resolve once: a knob in a run config is validated once, into a typed object that reaches the
component (and a trigger the trigger, a store option the store, an external type's parameter the
adapter) as it is — however many units and conversations play it, and whichever path starts the
run: the Python API, a notebook's sliced config, or the command line with flags that change it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

import memlab
from memlab.external.base import ExternalParams
from memlab.strategies.types import ResolvedExternal
from memlab.harness.config import load_config, notebook_config
from memlab.memory.stores.base import StoreOptions
from memlab.strategies.composed import ComposedStrategy, ResolvedStrategy, StrategySpec
from memlab.strategies.slots import Params
from memlab.strategies.triggers import EveryNStepsSpec, TriggerParams

THREADS = Path(__file__).resolve().parent / "fixtures" / "threads_small.yaml"

ECHO_PLUGIN = '''
"""A strategy type of its own (memlab.external), counted like memlab's components."""
from memlab.external import ExternalParams, ExternalStrategy, Hit
from memlab.strategies.types import strategy_type
from memlab.memory.item import Op

BUILT_WITH = []


class EchoParams(ExternalParams):
    pass


@strategy_type("echo_once")
class Echo(ExternalStrategy):
    """Remembers every message; returns the last k."""

    Params = EchoParams

    def __init__(self, params, env):
        super().__init__(params, env)
        BUILT_WITH.append(params)

    def reset(self, namespace):
        self.items = []

    def write(self, messages):
        ops = []
        for m in messages:
            self.items.append((f"e{len(self.items)}", m.content))
            ops.append(self.op(Op.ADD, self.items[-1][0], m.content, [m.turn_id]))
        return ops

    def search(self, query, now):
        return [Hit(text, item_id) for item_id, text in self.items[-self.params.k:]]
'''

COUNTERS = (StrategySpec.validations, Params.validations, TriggerParams.validations, ExternalParams.validations,
            StoreOptions.validations)


@pytest.fixture
def echo_plugin(tmp_path):
    (tmp_path / "echo_once_plugin.py").write_text(ECHO_PLUGIN)
    sys.path.insert(0, str(tmp_path))
    yield "echo_once_plugin"
    sys.path.remove(str(tmp_path))
    sys.modules.pop("echo_once_plugin", None)
    from memlab.strategies.types import STRATEGY_TYPES

    STRATEGY_TYPES.unregister("echo_once")


def _run_config(tmp_path: Path, plugin: str) -> Path:
    """A composed strategy with a trigger, a retriever knob and a store with its own option, and a
    strategy of another type: every kind of thing a config validates."""
    path = tmp_path / "paths.yaml"
    path.write_text(yaml.safe_dump({
        "name": "paths", "datasets": [str(THREADS)], "embedding_cache": None, "output_dir": str(tmp_path / "results"),
        "executor": {"type": "serial"}, "plugins": [plugin],
        "strategies": [
            {"name": "every4", "preset": "react_mem", "retriever": {"type": "vector", "k": 6},
             "store": {"type": "chroma", "ef_search": 50},
             "agent": {"type": "react", "working_memory": {"trigger": {"type": "every_n_steps", "n": 4}}}},
            {"name": "echo", "type": "echo_once", "k": 3}]}))
    return path


def _api(path: Path, out: Path) -> Path:
    return memlab.run(load_config(path, {"limit_conversations": 1, "output_dir": str(out)}), progress=False)


def _notebook(path: Path, out: Path) -> Path:  # as notebooks/0*.py call it: a committed config sliced
    return memlab.run(notebook_config(path, ["echo", "every4"], limit=1, output_dir=str(out)), progress=False)


def _cli(path: Path, out: Path) -> Path:  # every flag that changes a block of the config
    from memlab.cli import main

    assert main(["run", str(path), "--limit", "1", "--executor", "serial", "--workers", "1", "--threads", "as_is",
                 "--budget", "max_calls=100000", "--cache-mode", "off", "--output-dir", str(out), "--no-progress"]) == 0
    return next(out.iterdir())


@pytest.mark.parametrize("play", [_api, _notebook, _cli], ids=["api", "notebook", "cli-with-flags"])
def test_every_path_validates_each_strategy_once_per_run(tmp_path, echo_plugin, play):
    path = _run_config(tmp_path, echo_plugin)
    for counter in COUNTERS:
        counter.clear()
    run = memlab.load_run(play(path, tmp_path / "out"))
    assert run.manifest["status"] == "completed" and set(run.probes["strategy"]) == {"every4", "echo"}
    assert dict(StrategySpec.validations) == {"every4": 1, "echo": 1}
    assert TriggerParams.validations["EveryNStepsSpec"] == 1, TriggerParams.validations
    assert Params.validations["_ReactParams"] == 1 and Params.validations["Retriever.Params"] == 1, Params.validations
    assert dict(ExternalParams.validations) == {"EchoParams": 1}  # resolved, checked for the offline model, built
    assert StoreOptions.validations["ChromaStore.Options"] == 1, StoreOptions.validations
    built = sys.modules[echo_plugin].BUILT_WITH
    assert built and all(p.k == 3 and p is built[0] for p in built)  # the adapter gets the validated object
    store = run.manifest["strategies"][[s["name"] for s in run.manifest["strategies"]].index("every4")]["store"]
    assert store == {"type": "chroma", "ef_search": 50}  # the manifest records what the strategy wrote


def test_store_options_are_typed_once_and_handed_to_every_strategy_that_adds_nothing(tmp_path):
    config = memlab.RunConfig(datasets=[str(THREADS)], store_options={"chroma": {"ef_search": 40}}, strategies=[
        {"name": "a", "preset": "message_rag", "store": {"type": "chroma"}},
        {"name": "b", "preset": "message_rag", "store": {"type": "chroma", "max_neighbors": 8}}])
    StoreOptions.validations.clear()
    a, b = config.typed_strategies()
    block = config.typed_store_options()["chroma"]
    assert a.store.options is block and a.store.json() == {"type": "chroma"}
    assert (b.store.options.ef_search, b.store.options.max_neighbors) == (40, 8) and b.store.json() == {"type": "chroma", "max_neighbors": 8}
    assert StoreOptions.validations["ChromaStore.Options"] == 2  # the block once, b's own options over it once
    built = b.store.build(tmp_path / "stores" / "b")  # an embedded store without a path: the run's folder
    try:
        assert Path(built.path) == (tmp_path / "stores" / "b" / "chroma").resolve() and built._hnsw["ef_search"] == 40
    finally:
        built.close()


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
    Params.validations.clear()
    sliced = config.with_strategies(["full_context"])  # a copy of a slice hands on what was resolved
    assert [t.name for t in sliced.typed_strategies()] == ["full_context"] and not Params.validations
    assert sliced.typed_strategies()[0] is next(t for t in first if t.name == "full_context")
