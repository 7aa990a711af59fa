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
