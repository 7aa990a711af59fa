"""Run configuration: which datasets, strategies, models and settings a run uses.

Written as YAML under ``evals/`` (or built in Python). Everything is validated up front so a
typo fails before any work starts, with did-you-mean hints from the registries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memlab.llm.base import ModelSpec
from memlab.strategies.composed import StrategySpec, resolve_spec


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "run"
    description: str = ""
    datasets: list[str] = Field(min_length=1, description="Dataset files (native YAML/JSON, LoCoMo, LongMemEval).")
    strategies: list[StrategySpec] = Field(min_length=1)
    model: ModelSpec = Field(default_factory=ModelSpec, description="Answers every LLM role.")
    judge: ModelSpec | None = Field(default=None, description="Optional LLM judge for answer accuracy.")
    store_options: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Default options per store backend, e.g. {postgres: {dsn: ...}}."
    )
    limit_conversations: int | None = Field(default=None, description="Use only the first N conversations per dataset.")
    seed: int = 0
    bootstrap: int = 1000
    embedding_cache: str | None = Field(default=".memlab/embeddings.npz", description="Persistent embedding cache (None: in memory).")
    output_dir: str = "results"

    def resolved_strategies(self) -> list[dict[str, Any]]:
        names = [s.name for s in self.strategies]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ValueError(f"strategy names must be unique; repeated: {sorted(dupes)}")
        return [resolve_spec(s) for s in self.strategies]


class ConfigError(ValueError):
    """A run config that cannot be used; the message names the file and the offending entry."""


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Load a YAML run config; dataset paths are resolved relative to the current directory.

    Every strategy is resolved here (components looked up, params validated), so a typo fails
    before any work starts, naming the file, the strategy and the close matches."""
    from memlab.registry import RegistryError

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a run config is a mapping (name, datasets, strategies, ...), got {type(data).__name__}")
    if overrides:
        data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        config = RunConfig.model_validate(data)
    except ValidationError as exc:
        problems = "\n".join(f"  {'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{path}: invalid run config:\n{problems}") from None
    for i, strategy in enumerate(config.strategies):
        try:
            resolve_spec(strategy)
        except (RegistryError, ValueError) as exc:
            raise ConfigError(f"{path}: strategies[{i}] ({strategy.name}): {exc}") from None
    try:
        config.resolved_strategies()
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return config
