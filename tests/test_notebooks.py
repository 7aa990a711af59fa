"""The notebook set's plumbing: jupytext pairs in sync, papermill parameters, committed without outputs.

nbval (``pytest --nbval-lax tests notebooks``) executes every notebook with its default (small CI)
parameters; these tests check what nbval does not: that each ``.ipynb`` and its ``py:percent``
twin say the same thing, that papermill can override the parameters, and that notebook 07 runs
on a benchmark file when one is given and explains itself when none is.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from pathlib import Path

import jupytext
import papermill
import pytest
from papermill.cli import papermill as papermill_cli

import memlab

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
IPYNBS = sorted(NOTEBOOKS.glob("*.ipynb"))
PAIR_FORMATS = "ipynb,py:percent"
_HEADER = re.compile(r"\A# ---\n.*?^# ---\n\n?", re.S | re.M)


def _body(py_text: str) -> str:
    """A py:percent file without its YAML header (which holds the jupytext version that wrote it)."""
    return _HEADER.sub("", py_text, count=1)


def _out_of_sync(ipynb: Path) -> str | None:
    """Why ``ipynb`` and its ``.py`` twin differ, or None when jupytext renders one as the other."""
    twin = ipynb.with_suffix(".py")
    if not twin.is_file():
        return f"{ipynb.name}: no paired {twin.name} (jupytext --set-formats {PAIR_FORMATS} {ipynb.name})"
    nb = jupytext.read(ipynb)
    formats = nb.metadata.get("jupytext", {}).get("formats")
    if formats != PAIR_FORMATS:
        return f"{ipynb.name}: jupytext formats {formats!r}, expected {PAIR_FORMATS!r}"
    rendered = _body(jupytext.writes(nb, fmt="py:percent"))
    committed = _body(twin.read_text(encoding="utf-8"))
    if rendered != committed:
        at = next(i for i, (a, b) in enumerate(zip(rendered.splitlines() + [""], committed.splitlines() + [""])) if a != b)
        return (f"{ipynb.name} and {twin.name} differ from body line {at + 1} "
                f"(run `jupytext --sync notebooks/{ipynb.name}` after editing either)")
    return None


def _parameters_cell(ipynb: Path) -> dict:
    cells = [c for c in json.loads(ipynb.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{ipynb.name}: {len(tagged)} cells tagged 'parameters' (papermill needs exactly one)"
    assert tagged[0] is cells[0], f"{ipynb.name}: the parameters cell must be the first code cell"
    return tagged[0]


def test_there_is_a_numbered_notebook_set():
    names = [p.stem for p in IPYNBS]
    assert names[:7] == ["01_quickstart", "02_compare_strategies_and_presets", "03_compression_triggers",
                         "04_extraction_modes", "05_storage_backends", "06_history_length_break_even",
                         "07_public_benchmarks"]
    assert all(re.fullmatch(r"\d\d_[a-z0-9_]+", n) for n in names)


@pytest.mark.parametrize("ipynb", IPYNBS, ids=lambda p: p.stem)
def test_notebook_and_its_py_percent_twin_are_in_sync(ipynb):
    assert _out_of_sync(ipynb) is None


def test_every_py_twin_has_its_notebook():
    orphans = [p.name for p in NOTEBOOKS.glob("*.py") if not p.with_suffix(".ipynb").is_file()]
    assert orphans == []


def test_the_sync_check_catches_an_edit_to_one_side(tmp_path):
    src = NOTEBOOKS / "01_quickstart.ipynb"
    for name in (src.name, src.with_suffix(".py").name):
        (tmp_path / name).write_bytes((NOTEBOOKS / name).read_bytes())
    copy = tmp_path / src.name
    assert _out_of_sync(copy) is None
    twin = copy.with_suffix(".py")
    twin.write_text(twin.read_text(encoding="utf-8").replace("limit = 1", "limit = 2"), encoding="utf-8")
    assert "differ from body line" in _out_of_sync(copy)
    twin.unlink()
    assert "no paired 01_quickstart.py" in _out_of_sync(copy)


@pytest.mark.parametrize("ipynb", IPYNBS, ids=lambda p: p.stem)
def test_parameters_cell_is_plain_assignments_with_a_small_default(ipynb):
    """papermill injects overrides after the tagged cell, so it must hold only assignments; nbval
    runs the defaults, so they are the small CI config (at most two conversations)."""
    cell = _parameters_cell(ipynb)
    tree = ast.parse("".join(cell["source"]))
    assert tree.body and all(isinstance(s, ast.Assign) for s in tree.body), f"{ipynb.name}: parameters cell has non-assignments"
    values = {s.targets[0].id: ast.literal_eval(s.value) for s in tree.body}
    if "limit" in values:
        assert 1 <= values["limit"] <= 2, f"{ipynb.name}: default limit {values['limit']} (CI runs the defaults)"


@pytest.mark.parametrize("ipynb", IPYNBS, ids=lambda p: p.stem)
def test_notebooks_are_committed_without_outputs(ipynb):
    nb = json.loads(ipynb.read_text(encoding="utf-8"))
    dirty = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and (c["outputs"] or c["execution_count"])]
    assert dirty == [], f"{ipynb.name}: cells {dirty} carry outputs (clear them: notebooks/README.md)"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


def _execute(tmp_path: Path, name: str, parameters: dict) -> str:
    """Run a notebook with papermill from notebooks/ (as Jupyter and nbval do); its text outputs."""
    out = tmp_path / name
    papermill.execute_notebook(str(NOTEBOOKS / name), str(out), parameters=parameters, kernel_name="python3",
                               cwd=str(NOTEBOOKS), progress_bar=False)
    text = []
    for cell in json.loads(out.read_text(encoding="utf-8"))["cells"]:
        for o in cell.get("outputs", []):
            text.append("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", "")))
    return "\n".join(text)


@pytest.mark.slow
def test_public_benchmarks_notebook_explains_a_missing_file_and_runs_nothing(tmp_path):
    runs = tmp_path / "runs"
    out = _execute(tmp_path, "07_public_benchmarks.ipynb",
                   {"locomo_path": str(tmp_path / "absent" / "locomo10.json"), "longmemeval_path": "", "output_dir": str(runs)})
    assert f"LoCoMo: no file at {tmp_path / 'absent' / 'locomo10.json'}" in out and "LoCoMo is skipped" in out
    assert "No benchmark file present: nothing to run." in out
    assert not runs.exists()


@pytest.mark.slow
def test_public_benchmarks_notebook_runs_a_given_locomo_file_with_a_limit(tmp_path):
    fixture = ROOT / "tests" / "fixtures" / "locomo_small.json"  # two conversations
    runs = tmp_path / "runs"
    out = _execute(tmp_path, "07_public_benchmarks.ipynb",
                   {"locomo_path": str(fixture), "longmemeval_path": "", "limit": 1, "output_dir": str(runs),
                    "strategies": ["no_memory", "full_context"]})
    assert f"running on: {fixture}" in out and "evidence_recall" in out
    (run_dir,) = runs.iterdir()
    res = memlab.load_run(run_dir)
    assert res.strategies == ["no_memory", "full_context"]
    assert set(res.probes["conversation_id"]) == {"conv-t1"}  # the limit reached the run
    assert set(res.probes["original_category"].dropna())


def _documented_big_run(ipynb: Path) -> list[str]:
    """The ``papermill notebooks/NN_x.ipynb out.ipynb ...`` command a notebook's introduction gives."""
    intro = "".join(json.loads(ipynb.read_text(encoding="utf-8"))["cells"][0]["source"])
    commands = re.findall(r"`(papermill notebooks/\S+ out\.ipynb [^`]*)`", intro)
    assert len(commands) == 1, f"{ipynb.name}: the introduction gives {len(commands)} papermill commands, expected one"
    return shlex.split(commands[0])


@pytest.mark.parametrize("ipynb", IPYNBS, ids=lambda p: p.stem)
def test_documented_big_run_overrides_declared_parameters_with_a_valid_config(ipynb, tmp_path, monkeypatch):
    """papermill only warns about a parameter the notebook does not declare, and a misspelt
    strategy would fail only after a long run: both are caught here, without running anything."""
    args = _documented_big_run(ipynb)
    assert args[1] == f"notebooks/{ipynb.name}"
    out = tmp_path / "prepared.ipynb"
    monkeypatch.chdir(ROOT)
    papermill_cli.main([args[1], str(out), *args[3:], "--prepare-only", "-k", "python3"], standalone_mode=False)
    cells = json.loads(out.read_text(encoding="utf-8"))["cells"]
    injected = next(c for c in cells if "injected-parameters" in c["metadata"].get("tags", []))
    declared: dict = {}
    exec("".join(_parameters_cell(ipynb)["source"]), {}, declared)
    given: dict = {}
    exec("".join(injected["source"]), {}, given)
    assert set(given) <= set(declared), f"{ipynb.name}: undeclared parameters {sorted(set(given) - set(declared))}"
    assert given.get("limit") == 0  # the big run: every conversation
    params = {**declared, **given}
    if "config_path" in params:
        config = memlab.load_config(ROOT / params["config_path"], {"datasets": params.get("datasets") or None})
        wanted = params["strategies"]
        if all(isinstance(s, str) for s in wanted):  # names picked from the config or the presets
            assert [s.name for s in config.with_strategies(wanted).strategies] == wanted
        else:  # full strategy specs (notebook 08): they must validate as the config's strategies
            valid = type(config).model_validate({**config.model_dump(mode="json"), "strategies": wanted})
            assert [s.name for s in valid.strategies] == [s["name"] for s in wanted]
