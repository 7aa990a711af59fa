"""Component plumbing: typed params, a registry per slot, and what components get to build with.

A component is a small class with a pydantic ``Params`` model, registered under a type name in
the registry of its slot with :func:`component`. A strategy spec names components by type and
overrides params; the resolved params (defaults filled in) are what the run manifest records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict

from memlab.registry import Registry

SLOTS = ("short_term", "extractor", "consolidator", "retriever")
"""Stores are not a slot registry here: they come from :data:`memlab.memory.stores.base.STORES`."""
REGISTRIES: dict[str, Registry[Any]] = {slot: Registry(f"{slot} component") for slot in SLOTS}

C = TypeVar("C", bound=type)


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


def component(slot: str, name: str) -> Callable[[C], C]:
    """Class decorator registering a component type for a slot."""

    def deco(cls: C) -> C:
        cls.type_name = name  # type: ignore[attr-defined]
        REGISTRIES[slot].register(name, cls)
        return cls

    return deco


class Component:
    type_name: ClassVar[str] = ""
    Params: ClassVar[type[Params]] = Params

    def __init__(self, params: Params, env: BuildEnv) -> None:
        self.params = params
        self.env = env

    def describe(self) -> dict[str, Any]:
        return {"type": self.type_name, **self.params.model_dump(mode="json")}


@dataclass
class BuildEnv:
    """What components may use: the run's roles (LLM layer), shared embedder, and store factory."""

    roles: Any
    embedder: Any
    strategy_name: str
    make_store: Callable[[dict[str, Any]], Any]
    extras: dict[str, Any] = field(default_factory=dict)


def build_component(slot: str, spec: dict[str, Any] | None, env: BuildEnv) -> Any:
    if not spec:
        return None
    spec = dict(spec)
    type_name = spec.pop("type", None)
    if not type_name:
        raise ValueError(f"{slot} component spec needs a 'type' (one of {REGISTRIES[slot].names()})")
    cls = REGISTRIES[slot].get(type_name)
    return cls(cls.Params.model_validate(spec), env)
