"""Issue 29, items 5 and 6: configs read like datasets (aliases bounded), store options typed,
every numeric knob bounded — each refusal before a run folder exists, naming the field."""

from __future__ import annotations

import typing
from pathlib import Path

import annotated_types
import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from memlab.cli import main as cli_main
from memlab.harness.config import ConfigError, RunConfig, load_config, validate_config
from tests.test_reliability import _dataset

LOWER = (annotated_types.Ge, annotated_types.Gt)


def _constraints(meta: typing.Iterable[typing.Any]) -> list[typing.Any]:
    out = []
    for m in meta:
        out += _constraints(m.metadata) if isinstance(m, FieldInfo) else [m]
    return out


def _numbers(ann: typing.Any, meta: tuple = ()) -> typing.Iterator[tuple[type, list[typing.Any]]]:
    """(int or float, its constraints) for every number a field's type holds (in unions, lists, dict values)."""
    if typing.get_origin(ann) is typing.Annotated:
        base, *extra = typing.get_args(ann)
        yield from _numbers(base, (*meta, *extra))
        return
    if ann in (int, float):
        yield ann, _constraints(meta)
        return
    args = typing.get_args(ann)
    if typing.get_origin(ann) is dict:
        args = args[1:]
    for a in args:
        yield from _numbers(a, meta)


def _submodels(ann: typing.Any) -> typing.Iterator[type[BaseModel]]:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        yield ann
        return
    for a in typing.get_args(ann):
        yield from _submodels(a)


def _knob_models() -> typing.Iterator[tuple[str, type[BaseModel]]]:
    """Every model a config's numbers are read through: the run config (models, executor, gate…),
    each component's, trigger's and library adapter's params, each store's options, the offline model's."""
    from memlab.strategies.types import STRATEGY_TYPES
    from memlab.llm.offline_model import OfflineOptions
    from memlab.memory.stores.base import STORES
    from memlab.strategies.composed import StrategySpec
    from memlab.strategies.slots import STORE_SLOT, registries
    from memlab.strategies.triggers import TRIGGERS

    yield "RunConfig", RunConfig
    yield "StrategySpec", StrategySpec
    yield "model.options (offline)", OfflineOptions
    for slot, reg in registries().items():
        if slot != STORE_SLOT:
            for name in reg.names():
                yield f"{slot}: {{type: {name}}}", reg.get(name).Params
    for name in TRIGGERS.names():
        yield f"trigger {name}", TRIGGERS.get(name).Params
    for name in STRATEGY_TYPES.names():
        yield f"type: {name}", STRATEGY_TYPES.get(name).Params
    for name in STORES.names():
        options = getattr(STORES.get(name), "Options", None)
        assert options is not None, f"store {name!r} has no typed Options"
        yield f"store {name}", options


def test_every_numeric_knob_is_bounded_below_and_finite():
    unbounded = []
    for root, model in _knob_models():
        stack, seen = [(model, root)], set()
        while stack:
            m, where = stack.pop()
            if m in seen:
                continue
            seen.add(m)
            finite = m.model_config.get("allow_inf_nan") is False
            for name, field in m.model_fields.items():
                stack += [(sub, f"{where}.{name}") for sub in _submodels(field.annotation)]
                for kind, found in _numbers(field.annotation, tuple(field.metadata)):
                    if not any(isinstance(c, LOWER) for c in found):
                        unbounded.append(f"{where}.{name}: no lower bound")
                    if kind is float and not finite and not any(getattr(c, "allow_inf_nan", None) is False for c in found):
                        unbounded.append(f"{where}.{name}: accepts inf and nan")
    assert not unbounded, "\n".join(sorted(set(unbounded)))


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "cfg.yaml"
    path.write_text(body, encoding="utf-8")
    return path


BASE = "name: b\ndatasets: [{ds}]\noutput_dir: {out}\nembedding_cache: null\n"


@pytest.mark.parametrize("body, field, problem", [
    ("strategies: [{name: r, preset: fact_rag, retriever: {type: vector, k: 0}}]\n", "k", "greater than or equal to 1"),
    ("strategies: [{name: r, preset: fact_rag, retriever: {type: hybrid, k: -3}}]\n", "k", "greater than or equal to 1"),
    ("strategies: [{name: message_rag}]\nmodel: {provider: offline, max_tokens: 0}\n", "model.max_tokens", ">= 1"),
    ("strategies: [{name: message_rag}]\nmodel: {provider: offline, temperature: -5}\n", "model.temperature", ">= 0"),
    ("strategies: [{name: message_rag}]\nmodel: {provider: offline, timeout_s: 1e309}\n", "model.timeout_s", "finite"),
    ("strategies: [{name: message_rag}]\njudge: {provider: offline, timeout_s: .inf}\n", "judge.timeout_s", "finite"),
    ("strategies: [{name: message_rag}]\nseed: -1\n", "seed", ">= 0"),
    ("strategies: [{name: message_rag}]\nstore_options: {postgres: {ef_search: 0}}\n", "ef_search", "greater than or equal to 1"),
    ("strategies: [{name: message_rag}]\nstore_options: {postgres: {ef_search: '100'}}\n", "ef_search", "valid integer"),
    ("strategies: [{name: message_rag}]\nstore_options: {chroma: {port: 70000}}\n", "port", "less than or equal to 65535"),
])
def test_out_of_range_knobs_are_refused_naming_the_field_before_any_folder(tmp_path, capsys, body, field, problem):
    ds = _dataset(tmp_path)
    path = _write(tmp_path, BASE.format(ds=ds, out=tmp_path / "results") + body)
    assert cli_main(["run", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    readable = err.replace("greater than or equal to", ">=").replace("less than or equal to", "<=")
    assert field in err and (problem in err or problem in readable), err
    assert "Traceback" not in err
    assert not (tmp_path / "results").exists()


def _alias_bomb(levels: int = 9) -> str:
    """About a kilobyte of YAML whose value expands to 10**levels leaves."""
    lines = ["    ef_search: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for i in range(1, levels):
        lines.append(f"    l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]")
    return "store_options:\n  postgres:\n" + "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_in_a_config_is_refused_at_once(tmp_path, capsys):
    ds = _dataset(tmp_path)
    bomb = _alias_bomb()
    assert len(bomb) < 1100
    path = _write(tmp_path, BASE.format(ds=ds, out=tmp_path / "results") + "strategies: [{name: message_rag}]\n" + bomb)
    with pytest.raises(ConfigError, match=r"cfg.yaml:\d+:\d+: YAML alias \*l\d: aliases expand to more than"):
        load_config(path)
    assert cli_main(["run", str(path)]) == 2
    assert "alias bomb" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()


def test_store_options_are_typed_in_python_too(tmp_path):
    """A config built in Python (no YAML to bound) cannot smuggle a structure where a number belongs."""
    ds = _dataset(tmp_path)
    shared = [1] * 10
    nested: list = shared
    for _ in range(6):
        nested = [nested] * 10  # a million leaves through shared references
    base = {"name": "py", "datasets": [str(ds)], "strategies": [{"name": "message_rag"}]}
    with pytest.raises(ConfigError, match=r"store_options.postgres: store 'postgres': ef_search: Input should be a valid integer"):
        validate_config({**base, "store_options": {"postgres": {"ef_search": nested}}})
    with pytest.raises(ConfigError, match=r"store 'chroma' has no option 'ef_serach'. Did you mean 'ef_search'"):
        validate_config({**base, "store_options": {"chroma": {"ef_serach": 10}}})
    with pytest.raises(ConfigError, match=r"strategy 'pg': store 'postgres': hnsw_m: Input should be greater than or equal to 2"):
        validate_config({**base, "strategies": [{"name": "pg", "preset": "fact_rag", "store": {"type": "postgres", "hnsw_m": 1}}]})
    ok = validate_config({**base, "store_options": {"postgres": {"ef_search": 40, "table": "t_ok"}, "chroma": {"port": 8001}}})
    assert ok.store_options == {"postgres": {"ef_search": 40, "table": "t_ok"}, "chroma": {"port": 8001}}
