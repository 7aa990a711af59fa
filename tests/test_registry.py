from __future__ import annotations

import pytest

from memlab.memory.stores.base import STORES, make_store
from memlab.registry import Registry, RegistryError
from memlab.strategies import PRESETS, REGISTRIES, resolve_spec


def test_register_decorator_and_lazy_entries():
    reg: Registry[object] = Registry("widget")

    @reg.register("alpha")
    class Alpha:
        pass

    reg.register("ordered", "collections:OrderedDict")
    assert reg.get("alpha") is Alpha
    from collections import OrderedDict

    assert reg.get("ordered") is OrderedDict
    assert reg.names() == ["alpha", "ordered"] and "alpha" in reg


def test_unknown_name_suggests_close_matches():
    reg: Registry[int] = Registry("metric")
    reg.register("evidence_recall", 1)
    reg.register("answer_f1", 2)
    with pytest.raises(RegistryError) as err:
        reg.get("evidence_recal")
    assert "Did you mean 'evidence_recall'" in str(err.value)
    assert "Known: answer_f1, evidence_recall" in str(err.value)


def test_duplicate_registration_is_refused_unless_replace():
    reg: Registry[int] = Registry("x")
    reg.register("a", 1)
    with pytest.raises(RegistryError):
        reg.register("a", 2)
    reg.register("a", 2, replace=True)
    assert reg.get("a") == 2


def test_lazy_entry_with_missing_module_names_the_extra():
    reg: Registry[object] = Registry("store")
    reg.register("ghost", "memlab_not_installed_backend:Store")
    with pytest.raises(RegistryError, match="failed to import"):
        reg.get("ghost")


def test_builtin_registries_resolve():
    assert {"in_memory", "chroma", "postgres"} <= set(STORES.names())
    assert make_store("in_memory").name == "in_memory"
    assert {"no_memory", "full_context", "recent_window", "fact_rag"} <= set(PRESETS.names())
    assert set(REGISTRIES["retriever"].names()) >= {"vector", "keyword", "recency", "hybrid"}


def test_strategy_spec_resolution_fills_defaults_and_rejects_typos():
    r = resolve_spec({"name": "mine", "preset": "fact_rag", "retriever": {"type": "hybrid", "k": 4}})
    assert r["retriever"]["k"] == 4 and r["retriever"]["w_similarity"] == 1.0
    assert r["extractor"] == {"type": "post_turn", "roles": ["user"]}
    with pytest.raises(RegistryError, match="Did you mean 'vector'"):
        resolve_spec({"name": "x", "preset": "fact_rag", "retriever": {"type": "vectr"}})
    with pytest.raises(Exception, match="k"):
        resolve_spec({"name": "x", "preset": "fact_rag", "retriever": {"type": "vector", "kk": 3}})
    with pytest.raises(ValueError, match="extractor and a retriever"):
        resolve_spec({"name": "x", "store": {"type": "in_memory"}, "extractor": {"type": "post_turn"}})


@pytest.mark.parametrize("strategy, expected", [
    ("{name: fact_rg}", ["strategies[0] (fact_rg)", "Did you mean 'fact_rag'"]),
    ("{name: fact_rag, retriever: {type: vectr}}", ["strategies[0] (fact_rag)", "Did you mean 'vector'"]),
    ("{name: fact_rag, retriever: {type: vector, kk: 3}}", ["retriever 'vector': kk: Extra inputs", "its params: k"]),
])
def test_config_typos_fail_before_any_work_naming_file_and_strategy(tmp_path, capsys, strategy, expected):
    from memlab.cli import main

    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(f"name: x\ndatasets: [datasets/starter.yaml]\noutput_dir: {tmp_path / 'out'}\nstrategies: [{strategy}]\n")
    assert main(["run", str(cfg), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert str(cfg) in err and all(e in err for e in expected), err
    assert not (tmp_path / "out").exists()  # nothing was started


def test_builtins_are_imported_on_the_first_lookup_and_entries_are_checked_and_named(tmp_path, monkeypatch):
    (tmp_path / "gadget_builtins.py").write_text(
        "from tests.test_registry import GADGETS\n\n@GADGETS.register('lamp')\nclass Lamp:\n    watts = 40\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "gadget_builtins" not in __import__("sys").modules
    assert GADGETS.get("lamp").type_name == "lamp"  # imported now, and told its name
    with pytest.raises(RegistryError, match="gadget 'fan': needs watts"):
        GADGETS.register("fan", type("Fan", (), {}))
    assert "fan" not in GADGETS


def _needs_watts(name, obj):
    if not hasattr(obj, "watts"):
        raise RegistryError(f"gadget {name!r}: needs watts")


GADGETS: Registry[type] = Registry("gadget", builtins="gadget_builtins", stamp="type_name", check=_needs_watts)


def test_a_class_registered_again_from_its_module_imported_anew_replaces_itself():
    reg: Registry[type] = Registry("widget")
    first = type("Widget", (), {"__module__": "plugin_mod"})
    again = type("Widget", (), {"__module__": "plugin_mod"})
    reg.register("w", first)
    reg.register("w", again)  # the same module and name: a plugin reloaded
    assert reg.get("w") is again
    with pytest.raises(RegistryError, match="already registered"):
        reg.register("w", type("Other", (), {"__module__": "plugin_mod"}))


def test_a_tagged_field_is_the_union_of_the_registry_members_at_validation_time():
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, ValidationError

    shapes: Registry[type] = Registry("shape")

    class ShapeSpec(BaseModel):
        model_config = ConfigDict(extra="forbid")
        type: str

    class Holder(BaseModel):
        shape: shapes.tagged(ShapeSpec, none="dot")

    class DotSpec(ShapeSpec):
        type: Literal["dot"] = "dot"

    class SquareSpec(ShapeSpec):
        type: Literal["square"] = "square"
        side: int = 1

    shapes.register("dot", type("Dot", (), {"Params": DotSpec}))
    shapes.register("square", type("Square", (), {"Params": SquareSpec}))  # after Holder was declared
    h = Holder(shape={"type": "square", "side": 3})
    assert isinstance(h.shape, SquareSpec) and h.model_dump() == {"shape": {"type": "square", "side": 3}}
    assert isinstance(Holder(shape="square").shape, SquareSpec) and Holder(shape=None).shape.type == "dot"
    with pytest.raises(ValidationError) as err:
        Holder(shape={"type": "square", "sid": 3})
    assert err.value.errors()[0]["loc"] == ("shape", "sid")
    with pytest.raises(RegistryError, match="Did you mean 'square'"):
        Holder(shape={"type": "squar"})


def test_every_extension_point_is_a_registry_that_names_its_kind():
    from memlab.extensions import extension_points

    points = extension_points()
    assert {"strategy type", "compression trigger", "store", "metric", "model provider", "dataset format",
            "strategy preset", "component:extractor", "component:retriever"} <= set(points)
    for name, reg in points.items():
        assert isinstance(reg, Registry) and reg.names(), name
        with pytest.raises(RegistryError, match=f"Unknown {reg.kind} 'no-such-thing'"):
            reg.get("no-such-thing")
