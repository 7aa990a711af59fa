"""Plugins of every kind, through the one registry type (memlab/registry.py): a component in a slot, a
compression trigger, a metric, a strategy type and a store backend, all from one plugin module that a
YAML config lists under ``plugins:``, resolved by ``load_config`` and used by a small real run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

import memlab
from memlab.extensions import extension_points
from memlab.harness.config import ConfigError, load_config

THREADS = Path(__file__).resolve().parent / "fixtures" / "threads_small.yaml"

PLUGIN = '''
"""One of everything a user can add to memlab."""
from typing import Literal

from pydantic import Field

from memlab.scoring.metric_registry import metric
from memlab.external import ExternalParams, ExternalStrategy, Hit
from memlab.strategies.types import strategy_type
from memlab.memory.item import Op
from memlab.memory.stores.base import STORES, StoreOptions
from memlab.memory.stores.in_memory import InMemoryStore
from memlab.strategies.retriever.base import Retriever
from memlab.strategies.slots import Params, component
from memlab.strategies.triggers import Trigger, TriggerParams, trigger

WRITES = []
SEARCHES = []
OPTIONS = []


@STORES.register("counting_store")
class CountingStore(InMemoryStore):
    """The in-memory store, counting what it is asked to do."""

    name = "counting_store"

    class Options(StoreOptions):
        label: str = "writes"
        limit: int = Field(default=1000, ge=1)

    def __init__(self, options=None):
        super().__init__()
        OPTIONS.append(options)

    def add(self, items, embeddings=None):
        WRITES.extend(item.id for item in items)
        return super().add(items, embeddings)


@component("retriever", "newest_first")
class NewestFirst(Retriever):
    """The ``k`` newest memories under their own title."""

    section_title = "Newest memories"

    class Params(Params):
        k: int = Field(default=3, ge=1)

    def retrieve(self, store, namespace, query):
        SEARCHES.append(query.question)
        return store.search(namespace, k=self.params.k)


class EveryOtherSpec(TriggerParams):
    type: Literal["every_other"] = "every_other"
    offset: int = Field(default=0, ge=0)


@trigger("every_other")
class EveryOther(Trigger):
    """Compress on every second step (after ``offset`` steps)."""

    Params = EveryOtherSpec

    def fires(self, *, steps, tokens, requested):
        return steps > self.params.offset and (steps - self.params.offset) % 2 == 0


@metric("context_words", "words in the injected context", higher_is_better=None)
def context_words(p):
    """A bare value (no explanation): a plugin's simplest metric."""
    return float(len(p.context.split()))


@strategy_type("parrot")
class Parrot(ExternalStrategy):
    """Remembers every message; returns the last ``k`` (a memory system of its own)."""

    Params = ExternalParams
    memory_kind = "message"

    def reset(self, namespace):
        self.items = []

    def write(self, messages):
        ops = []
        for m in messages:
            self.items.append((f"p{len(self.items)}", m.content))
            ops.append(self.op(Op.ADD, self.items[-1][0], m.content, [m.turn_id]))
        return ops

    def search(self, query, now):
        return [Hit(text, item_id) for item_id, text in self.items[-self.params.k:]]
'''

ADDED = {"store": "counting_store", "component:retriever": "newest_first", "compression trigger": "every_other",
         "metric": "context_words", "strategy type": "parrot"}


@pytest.fixture
def plugin(tmp_path):
    (tmp_path / "every_kind_plugin.py").write_text(PLUGIN)
    sys.path.insert(0, str(tmp_path))
    yield "every_kind_plugin"
    sys.path.remove(str(tmp_path))
    sys.modules.pop("every_kind_plugin", None)
    points = extension_points()
    for point, name in ADDED.items():  # the plugin's entries go with it: later tests see memlab's own
        points[point].unregister(name)


def _config(tmp_path: Path, plugins: list[str]) -> Path:
    path = tmp_path / "plugged.yaml"
    path.write_text(yaml.safe_dump({
        "name": "plugged", "datasets": [str(THREADS)], "output_dir": str(tmp_path / "results"),
        "embedding_cache": None, "executor": {"type": "serial"}, "plugins": plugins,
        "metrics": ["evidence_recall", "context_words"],
        "strategies": [
            {"name": "mine", "store": {"type": "counting_store", "label": "mine"}, "extractor": {"type": "verbatim"},
             "retriever": {"type": "newest_first", "k": 2},
             "short_term": {"type": "summarizing", "keep_recent": 1, "trigger": {"type": "every_other", "offset": 1}}},
            {"name": "parrot", "type": "parrot", "k": 2},
        ]}, sort_keys=False))
    return path


def test_a_plugin_of_every_kind_resolves_from_yaml_and_runs(tmp_path, plugin):
    config = load_config(_config(tmp_path, [plugin]))
    mine, parrot = config.typed_strategies()
    assert (mine.store.type, mine.store.options.label, mine.store.options.limit) == ("counting_store", "mine", 1000)
    assert mine.spec()["store"] == {"type": "counting_store", "label": "mine"}  # the manifest's form: what was written
    assert mine.components["retriever"].type == "newest_first"
    trig = mine.components["short_term"].params.trigger
    assert (trig.type, trig.offset) == ("every_other", 1)  # the plugin's typed spec, validated once
    assert parrot.type == "parrot" and parrot.params.k == 2  # the type's typed Params, validated once

    run = memlab.load_run(memlab.run(config, progress=False))
    assert run.manifest["status"] == "completed"
    module = sys.modules[plugin]
    assert module.WRITES and module.SEARCHES  # the plugin store took the memories, its retriever was asked
    assert module.OPTIONS and all(o is mine.store.options for o in module.OPTIONS)  # typed, handed on as validated
    probes = run.probes[run.probes["strategy"] == "mine"]
    assert probes["context"].str.contains("Newest memories").all()
    comp = run.compressions
    assert set(comp["trigger"]) == {"every_other(offset=1)"} and comp["ok"].all()
    assert (comp["step"] % 2 == 1).all()  # fired at steps 3, 5, … (offset 1, then every second step)
    table = run.metrics_table(by_category=False).set_index(["strategy", "metric"])
    words = probes["context"].fillna("").str.split().str.len().mean()
    assert table.loc[("mine", "context_words"), "mean"] == pytest.approx(words) and words > 0
    assert set(run.probes["strategy"]) == {"mine", "parrot"}


def test_without_the_plugin_each_name_fails_with_the_registry_message(tmp_path):
    with pytest.raises(ConfigError) as err:
        load_config(_config(tmp_path, []))
    assert "Unknown metric 'context_words'" in str(err.value)
    path = tmp_path / "no_trigger.yaml"
    path.write_text(yaml.safe_dump({"datasets": [str(THREADS)], "strategies": [
        {"name": "s", "short_term": {"type": "summarizing", "trigger": {"type": "every_other"}}}]}))
    with pytest.raises(ConfigError, match="Unknown compression trigger 'every_other'.*Known: agent_driven"):
        load_config(path)


def test_a_plugin_store_declares_typed_options_checked_when_the_config_loads(tmp_path, plugin):
    from memlab.memory.stores.base import STORES

    with pytest.raises(ValueError, match="store 'untyped' .* has no `Options` model"):
        @STORES.register("untyped")
        class Untyped:
            name = "untyped"
    path = _config(tmp_path, [plugin])
    data = yaml.safe_load(path.read_text())
    for store, problem in [({"type": "counting_store", "lable": "x"}, "store 'counting_store' has no option 'lable'. Did you mean 'label'"),
                           ({"type": "counting_store", "limit": "10"}, "store 'counting_store': limit: Input should be a valid integer"),
                           ({"type": "counting_store", "limit": 0}, "store 'counting_store': limit: Input should be greater than or equal to 1")]:
        data["strategies"][0]["store"] = store
        path.write_text(yaml.safe_dump(data))
        with pytest.raises(ConfigError, match=rf"{path}: strategies\[0\] \(mine\): strategy 'mine': {problem}"):
            load_config(path)


def test_a_plugin_trigger_must_name_itself_in_its_spec():
    from memlab.registry import RegistryError
    from memlab.strategies.triggers import Trigger, TriggerParams, trigger

    with pytest.raises(RegistryError, match="type: Literal\\['misnamed'\\]"):
        @trigger("misnamed")
        class Misnamed(Trigger):
            Params = TriggerParams


@pytest.mark.parametrize("strategy, problem", [
    ({"profile": {"type": "synced_profile"}}, "profile 'synced_profile' is synced from the memories an extractor writes"),
    ({"timekeeper": {"type": "time_log"}}, "timekeeper 'time_log' offers tools an agent calls; add an agent slot"),
    ({"extractor": {"type": "agent_tool"}, "retriever": {"type": "vector"}}, "extractor 'agent_tool' writes through"),
    ({"short_term": {"type": "recent_window"}, "answer": {"type": "tools"}}, "answer 'tools' searches long-term memory"),
    ({"store": {"type": "in_memory"}}, "a long-term store needs both an extractor and a retriever"),
])
def test_composition_rules_declared_by_slots_and_components_refuse_naming_why(strategy, problem):
    from memlab.strategies.composed import resolve_spec

    with pytest.raises(ValueError, match=problem):
        resolve_spec({"name": "s", **strategy})


def test_composition_defaults_declared_by_the_slots_are_filled_in():
    from memlab.strategies.composed import resolve_spec

    facts = resolve_spec({"name": "s", "extractor": {"type": "verbatim"}, "retriever": {"type": "vector"}})
    assert facts["store"] == {"type": "in_memory"} and facts["consolidator"]["type"] == "append"
    episodic = resolve_spec({"name": "e", "episodes": {"type": "episodic"}})
    assert episodic["store"] == {"type": "in_memory"} and episodic["extractor"] is None  # episodes use the store alone


def test_a_plugin_component_declares_what_it_needs():
    from memlab.strategies.composed import resolve_spec
    from memlab.strategies.slots import SLOTS, Component, Needs, component

    @component("lifecycle", "needs_an_agent")
    class NeedsAnAgent(Component):
        """Expires what the agent marks."""

        needs = (Needs("agent", why="lifecycle {type!r} reads the agent's marks; add an agent slot"),)

    try:
        with pytest.raises(ValueError, match="lifecycle 'needs_an_agent' reads the agent's marks"):
            resolve_spec({"name": "s", "short_term": {"type": "recent_window"}, "lifecycle": {"type": "needs_an_agent"}})
        ok = resolve_spec({"name": "s", "agent": {"type": "react"}, "lifecycle": {"type": "needs_an_agent"}})
        assert ok["lifecycle"] == {"type": "needs_an_agent"}
    finally:
        SLOTS["lifecycle"].registry.unregister("needs_an_agent")
