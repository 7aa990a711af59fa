"""No import cycle among memlab's modules — lazy (function-level) imports included, since a cycle
closed by a lazy import is still two modules that cannot be understood (or moved) apart — and none
among its packages (``memlab.harness``, ``memlab.analysis``...: the first two dotted components), so
the layers of docs/architecture.md hold: every package-level edge goes one way, and the run pipeline
imports nothing from the analysis package.

An edge is every ``import`` / ``from ... import`` of a memlab module anywhere in a module's code;
``from pkg import name`` points at ``pkg.name`` when that is a module, else at ``pkg``. The parent
package a submodule import loads implicitly is not an edge (package ``__init__`` files stay light:
docstrings, lazy re-exports). Registries that load their entries by module *name* (lazy entries,
``memlab.registry``) are not edges either: that is the point of a lazy entry."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def modules(root: Path, package: str = "memlab") -> dict[str, Path]:
    out = {}
    for path in (root / package).rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def import_graph(root: Path, package: str = "memlab") -> dict[str, set[str]]:
    mods = modules(root, package)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = pkg.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                while t and t not in mods:
                    t = t.rsplit(".", 1)[0] if "." in t else ""
                if t and t != name:
                    graph[name].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def package_of(module: str) -> str:
    """``memlab.harness.units`` → ``memlab.harness``; a top-level module (``memlab.registry``) is its own package."""
    return ".".join(module.split(".")[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph folded onto packages (an edge inside one package is dropped)."""
    out: dict[str, set[str]] = {package_of(m): set() for m in graph}
    for m, targets in graph.items():
        out[package_of(m)] |= {package_of(t) for t in targets} - {package_of(m)}
    return out


def _edges_between(graph: dict[str, set[str]], packages: list[str]) -> list[str]:
    return sorted(f"{m} → {t}" for m, ts in graph.items() for t in ts
                  if package_of(m) in packages and package_of(t) in packages and package_of(m) != package_of(t))


def test_memlab_has_no_import_cycle():
    graph = import_graph(ROOT)
    assert len(graph) > 100  # every module seen
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(" ↔ ".join(c) for c in found)


def test_the_check_finds_a_planted_cycle_through_a_lazy_import(tmp_path):
    pkg = tmp_path / "memlab"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from memlab.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from memlab import a\n    return a\n")
    (pkg / "c.py").write_text("import memlab.a\n")
    assert cycles(import_graph(tmp_path)) == [["memlab.a", "memlab.sub.b"]]


def test_memlab_has_no_package_level_cycle():
    """No two packages depend on each other, directly or through others (docs/architecture.md, the layers)."""
    graph = import_graph(ROOT)
    packages = package_graph(graph)
    assert {"memlab.harness", "memlab.analysis", "memlab.runfolder", "memlab.view"} <= set(packages)
    found = cycles(packages)
    assert not found, "package cycles: " + "; ".join(
        " ↔ ".join(c) + " (" + ", ".join(_edges_between(graph, c)) + ")" for c in found)


def test_the_check_finds_a_planted_package_cycle_with_no_module_cycle(tmp_path):
    """``memlab.p.a`` → ``memlab.q.b`` and ``memlab.q.c`` → ``memlab.p.d`` (lazily): no module cycle, a package one."""
    pkg = tmp_path / "memlab"
    for sub in ("p", "q", "r"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "p" / "a.py").write_text("from memlab.q import b\n")
    (pkg / "q" / "b.py").write_text("")
    (pkg / "q" / "c.py").write_text("def f():\n    import memlab.p.d\n")
    (pkg / "p" / "d.py").write_text("")
    (pkg / "r" / "e.py").write_text("import memlab.p.a\n")  # one way only: no cycle
    graph = import_graph(tmp_path)
    assert cycles(graph) == []
    assert cycles(package_graph(graph)) == [["memlab.p", "memlab.q"]]


RUN_PIPELINE = ("memlab.harness", "memlab.strategies", "memlab.roles", "memlab.llm", "memlab.offline", "memlab.memory",
                "memlab.external", "memlab.judging", "memlab.runfolder")
"""The packages that play a run (and its judge pass) and write its folder."""


def test_the_run_pipeline_imports_nothing_from_analysis():
    """Ceilings and every model-based metric are computed at read-back: nothing the run pipeline
    imports, directly or through another package, is in ``memlab.analysis`` (or the viewer above it)."""
    graph = import_graph(ROOT)
    reach: set[str] = set()
    todo = [m for m in graph if m.startswith(RUN_PIPELINE)]
    assert todo
    while todo:
        m = todo.pop()
        if m not in reach:
            reach.add(m)
            todo.extend(graph[m])
    bad = sorted(f"{m} ← {', '.join(sorted(s for s in graph if m in graph[s] and s in reach))}"
                 for m in reach if m.startswith(("memlab.analysis", "memlab.view")))
    assert not bad, f"the run pipeline reaches {bad}"


def test_the_two_pipelines_do_not_reach_into_strategies_or_models_from_analysis():
    """The analysis pipeline reads run folders: it never imports a strategy, a role, a model or the
    offline stand-in (the yardstick must not depend on the system under test). The viewer
    (``memlab view``) is on the same side: it reads run folders only."""
    graph = import_graph(ROOT)
    reach: set[str] = set()
    todo = [m for m in graph if m.startswith(("memlab.analysis.metrics", "memlab.analysis.stats", "memlab.analysis.results",
                                              "memlab.analysis.ceiling", "memlab.analysis.played_datasets", "memlab.scoring",
                                              "memlab.analysis.flips", "memlab.view"))]
    while todo:
        m = todo.pop()
        if m in reach:
            continue
        reach.add(m)
        todo.extend(graph[m])
    bad = sorted(m for m in reach if m.startswith(("memlab.strategies", "memlab.roles", "memlab.offline", "memlab.llm")))
    assert not bad, f"the scoring side reaches {bad}"


def test_the_flat_layout_paths_are_gone():
    """The 0.1 paths (``memlab.results``, ``memlab.config``, ...) were kept for one release by an import hook;
    the hook is gone (CHANGELOG), so an old path fails like any missing module instead of aliasing a new one."""
    import importlib
    import sys

    for old in ("memlab.results", "memlab.config", "memlab.embeddings_onnx"):
        sys.modules.pop(old, None)
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
