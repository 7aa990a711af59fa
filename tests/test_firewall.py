"""The evaluation firewall in code: every dataset declares its split, the offline model neither reads
evaluation data nor carries its vocabulary, and the gate judges a change of the offline model on
development data only (docs/offline-model.md, "The evaluation firewall")."""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest
import yaml

from memlab.analysis.baseline import load_baseline
from memlab.harness.config import GateSpec, load_config
from memlab.datasets.io import load_dataset, validate_file
from memlab.analysis.gate import EXIT_CANNOT_COMPARE, compare

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "datasets"
EVAL = [DATASETS / "starter.yaml", DATASETS / "time_tracking.yaml", *sorted((DATASETS / "suites").glob("*.yaml"))]
DEV = [DATASETS / "dev" / "dev.yaml"]
OFFLINE = ROOT / "memlab" / "offline"


@functools.cache
def _load(path: Path):
    """Each shipped dataset read once for this module (read-only here): the long-horizon M suite alone takes ~3 CPU s
    to read, and the split check and the vocabulary both read every evaluation dataset."""
    return load_dataset(path)


@pytest.mark.parametrize("path", EVAL + DEV, ids=lambda p: p.name)
def test_every_shipped_dataset_declares_its_split(path):
    ds = _load(path)
    assert ds.meta.get("split") == ("dev" if path in DEV else "eval"), path
    card = path.with_suffix(".md")
    if card.exists():  # generated suites carry a card that says it too
        assert "**Split: eval**" in card.read_text(encoding="utf-8")


def test_a_split_other_than_dev_or_eval_is_refused(tmp_path):
    data = yaml.safe_load((DATASETS / "dev" / "dev.yaml").read_text(encoding="utf-8"))
    data["meta"]["split"] = "train"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    problems = validate_file(path)[1]
    assert [p.path for p in problems] == ["meta.split"] and "'dev'" in problems[0].message


def test_the_dev_config_reads_dev_data_and_the_ci_gate_eval_data():
    splits = lambda cfg: {load_dataset(ROOT / d).meta.get("split") for d in load_config(ROOT / cfg).datasets}  # noqa: E731
    assert splits("evals/dev.yaml") == {"dev"}
    assert splits("evals/ci.yaml") == {"eval"}


def _code_strings(path: Path) -> list[str]:
    """String constants of a module's code: docstrings (examples for readers) left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstrings.add(id(first.value))
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docstrings]


@functools.cache
def _eval_vocabulary() -> frozenset[str]:
    """What would give away that the offline model was fitted to evaluation data: the proper nouns the
    suite generator draws from and every gold answer of an evaluation dataset that is a name, a number
    or a phrase (not an everyday lowercase word)."""
    sys.path.insert(0, str(DATASETS))
    try:
        import suitegen.tasks as tasks
        import suitegen.vocab as vocab
    finally:
        sys.path.remove(str(DATASETS))
    terms: set[str] = set()
    for name in dir(vocab):
        pool = getattr(vocab, name)
        if name.isupper() and isinstance(pool, list) and pool and all(isinstance(x, str) for x in pool):
            terms.update(x for x in pool if x[:1].isupper())
    terms.update(tasks.VENDORS + tasks.STREETS)
    from memlab.datasets.synth import vocab as synth  # the long-horizon suites' generator (issue 25)

    for name in dir(synth):
        pool = getattr(synth, name)
        if name.isupper() and isinstance(pool, list) and pool and all(isinstance(x, str) for x in pool):
            terms.update(x for x in pool if x[:1].isupper() and " " not in x.strip())
    for path in EVAL:
        for _, probe in _load(path).probes():
            for gold in probe.gold:
                terms.update(f for f in gold.forms() if re.search(r"[A-Z0-9]|\s", f))
    return frozenset(t for t in terms if len(t) >= 4)  # cached: both tests read it, and it parses every eval dataset


@pytest.mark.slow
def test_the_offline_model_carries_no_evaluation_vocabulary_and_reads_no_dataset():
    vocabulary = _eval_vocabulary()
    assert len(vocabulary) > 500  # the check has something to find
    pattern = re.compile(r"(?<![\w])(" + "|".join(re.escape(t) for t in sorted(vocabulary, key=len, reverse=True)) + r")(?![\w])")
    found = {}
    for path in sorted(OFFLINE.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for s in _code_strings(path):
            for m in pattern.finditer(s):
                found.setdefault(path.name, set()).add(m.group(1))
        # no dataset file, folder or loader anywhere in its code
        assert not re.search(r"datasets/|\.ya?ml\b|starter|time_tracking|suitegen|generate_suites", "\n".join(_code_strings(path))), path
        assert "memlab.datasets" not in source, path
        if path.name == "version.py":  # hashes the stand-in's own source: memlab's .py files, found from its imports
            assert all(f"{x}(" not in source for x in ("open", "load_dataset", "yaml.safe_load", "json.load")), path
        else:
            assert "open(" not in source and "read_text" not in source and "read_bytes" not in source, path
    assert not found, f"evaluation vocabulary in the offline model's code: {found}"


@pytest.mark.slow
def test_the_vocabulary_check_would_catch_a_planted_term(tmp_path):
    """The check above is not vacuous: a rule keyed on an evaluation value is found."""
    planted = tmp_path / "rule.py"
    planted.write_text('CITY_RULE = {"Lisbon": "Europe/Lisbon"}\n"""A docstring may say Lisbon."""\n', encoding="utf-8")
    strings = _code_strings(planted)
    assert "Lisbon" in strings and any("Lisbon" in s for s in strings)
    assert "Lisbon" in _eval_vocabulary()


# ------------------------------------------------------------------------------------------- the gate


def _with_model(base, model: str):
    new = base.model_copy(deep=True)
    new.models = {role: model for role in new.models}
    return new


@pytest.mark.parametrize("baseline", ["evals/baselines/ci.json", "evals/baselines/dev.json"])
def test_a_model_change_is_refused_unless_told_otherwise(baseline):
    base = load_baseline(ROOT / baseline)
    other = _with_model(base, "openai:gpt-4o-mini-2024-07-18")
    r = compare(base, other, GateSpec(), ["evidence_recall"])
    assert r.exit_code == EXIT_CANNOT_COMPARE and any("model frozen" in p for p in r.problems)
    told = compare(base, other, GateSpec(on_model_change="warn"), ["evidence_recall"])
    assert not any("model" in p for p in told.problems) and any("model changed" in w for w in told.warnings)


def test_an_offline_model_change_is_judged_on_dev_data_only():
    for baseline, allowed in (("evals/baselines/ci.json", False), ("evals/baselines/dev.json", True)):
        base = load_baseline(ROOT / baseline)
        changed = _with_model(base, "offline:offline-1+00000000")
        r = compare(base, changed, GateSpec(on_model_change="warn"), ["evidence_recall"])
        firewall = [p for p in r.problems if "development data only" in p]
        assert bool(firewall) is not allowed, (baseline, r.problems)
        if not allowed:
            assert r.exit_code == EXIT_CANNOT_COMPARE and "starter" in firewall[0]
