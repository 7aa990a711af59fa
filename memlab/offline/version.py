"""The offline model's version: a hash of the source of its whole import closure.

Any edit to a rule can change behaviour, so the label recorded with every call must change with
the source; a hand-bumped number is forgotten. The stand-in's replies come from ``memlab/offline/``
and also from the modules it imports (the provider in ``llm/offline_model.py``, ``tokens.py``,
``scoring/``, the offline judge…), so the hash covers every memlab module reachable from the
provider and the offline judge by an import statement — at module level or inside a function
(``TYPE_CHECKING`` blocks aside) — computed from the source, not listed by hand. ``MAJOR`` is
bumped by hand for a redesign.
"""

from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

MAJOR = 1
ROOTS = ("memlab.llm.offline_model", "memlab.scoring.offline_judge")
"""Where the stand-in's behaviour starts: the chat provider and the offline judge."""
CHECKOUT = Path(__file__).resolve().parents[2]
"""The folder holding the ``memlab`` package."""


def _file(base: Path, module: str) -> Path | None:
    p = base.joinpath(*module.split("."))
    if (p / "__init__.py").is_file():
        return p / "__init__.py"
    return p.with_suffix(".py") if p.with_suffix(".py").is_file() else None


def _imported(base: Path, module: str, path: Path) -> set[str]:
    """The memlab modules (and their packages) ``path`` imports anywhere in its body."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                names.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                target = child.module or ""
                if child.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - (child.level - 1)]
                    target = ".".join(parts + ([target] if target else []))
                names.add(target)
                names.update(f"{target}.{a.name}" for a in child.names)  # a name may be a submodule
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    found = set()
    for name in names:
        if name == "memlab" or name.startswith("memlab."):
            parts = name.split(".")
            found.update(m for i in range(1, len(parts) + 1) if _file(base, m := ".".join(parts[:i])))
    return found


def closure(base: Path = CHECKOUT, roots: tuple[str, ...] = ROOTS) -> list[Path]:
    """The ``.py`` files of every memlab module reachable from ``roots`` by import statements."""
    seen: dict[str, Path] = {}
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module in seen or (path := _file(base, module)) is None:
            continue
        seen[module] = path
        todo += _imported(base, module, path)
    return sorted(seen.values())


@lru_cache(maxsize=8)
def source_hash(base: Path = CHECKOUT) -> str:
    """8 hex digits of the sha256 over the closure's files (path and bytes, sorted)."""
    h = hashlib.sha256()
    for path in closure(base):
        h.update(path.relative_to(base).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:8]


def model_id(base: Path = CHECKOUT) -> str:
    return f"offline-{MAJOR}+{source_hash(base)}"
