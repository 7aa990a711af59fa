"""Slots: the kinds of component a composed strategy is built from, declared once.

A family package (``short_term/``, ``extractor/``, ...) declares its slot with :func:`declare_slot`
— with the slot's composition rules (:class:`Needs`: what it needs from other slots, filled in by a
default or refused) — and registers component classes in it with :func:`component`. Everything
else — the strategy spec's fields, spec resolution and its composition rules, building, the hooks
a strategy calls, the manifest's component line — iterates over :data:`SLOTS`, so adding a family
touches one place: its own package. Each slot's registry is a :class:`memlab.registry.Registry`;
family modules are found by :func:`load_families` (every module of this package, imported on the
first lookup in any slot), and a user's own components come from a plugin module
(:mod:`memlab.registry`: ``plugins:`` in a run config, or the ``memlab.plugins`` entry point).

A component is a small class with a pydantic ``Params`` model. It takes part in a strategy
through optional hooks called in slot order (``begin_conversation``, ``on_turn``,
``on_invocation_end``, ``on_conversation_end``) and contributes to the agent's context through
``context_sections``; components talk to each other only through the shared
:class:`~memlab.strategies.state.StrategyState` (e.g. extractor candidates → consolidator).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict

from memlab.registry import Registry, RegistryError, load_installed_plugins
from memlab.registry import load_plugins as registry_load_plugins

if TYPE_CHECKING:
    from memlab.strategies.base import ContextSection, TurnEvent
    from memlab.strategies.state import Invocation, Query, StrategyState
    from memlab.strategies.tools import MemoryTool


@dataclass(frozen=True)
class Needs:
    """A composition rule: a filled slot (or a component) needs one of ``slots`` filled too.

    When none is, the first of them is filled with ``default`` (a component type: an extractor's
    memories need a store, ``in_memory`` unless one is given) or, without a default, the strategy
    is refused with ``why`` (``{type}`` is the needing component's type). ``unless``: the rule
    does not apply when any of these slots is filled."""

    slots: str | tuple[str, ...]
    default: str | None = None
    why: str = ""
    unless: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.slots, str):
            object.__setattr__(self, "slots", (self.slots,))


@dataclass(frozen=True)
class Slot:
    name: str
    description: str
    order: int
    """Hook order: a lower slot runs first on every turn (e.g. the extractor before the consolidator)."""
    registry: Registry[Any]
    needs: tuple[Needs, ...] = ()
    """The slot's composition rules: what any component in it needs from the other slots."""


SLOTS: dict[str, Slot] = {}
STORE_SLOT = "store"
"""The storage backend is declared as a slot too, but its types are the store registry's backends."""


def _check_component(name: str, cls: Any) -> None:
    """A component is a :class:`Component` with a typed :class:`Params` model."""
    if not (isinstance(cls, type) and issubclass(cls, Component)):
        raise RegistryError(f"component {name!r}: {cls!r} is not a Component subclass")
    if not (isinstance(cls.Params, type) and issubclass(cls.Params, Params)):
        raise RegistryError(f"component {name!r}: its Params must subclass memlab.strategies.slots.Params")


def declare_slot(name: str, description: str, order: int, registry: Registry[Any] | None = None,
                 needs: tuple[Needs, ...] = ()) -> Registry[Any]:
    """Declare a slot and its composition rules (idempotent for the same module re-imported);
    returns its registry (a new one, whose built-ins are the family modules, unless given)."""
    if name in SLOTS:
        return SLOTS[name].registry
    reg = registry if registry is not None else Registry(f"{name} component", builtins=load_families,
                                                           stamp="type_name", check=_check_component)
    SLOTS[name] = Slot(name, description, order, reg, tuple(needs))
    return reg


def slot_registry(slot: str) -> Registry[Any]:
    """The registry of a declared slot (families loaded first); did-you-mean for an unknown slot."""
    if slot not in SLOTS:
        load_families()
    if slot not in SLOTS:
        import difflib

        close = difflib.get_close_matches(slot, list(SLOTS), n=2, cutoff=0.5)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise RegistryError(f"Unknown slot {slot!r}.{hint} Slots: {', '.join(sorted(SLOTS))}")
    return SLOTS[slot].registry


def ordered_slots() -> list[Slot]:
    load_families()
    return sorted(SLOTS.values(), key=lambda s: (s.order, s.name))


class Params(BaseModel):
    """A component's typed parameters. Validated once, when the config is (``validations`` counts
    how often each class was built from data: tests/test_resolve_once.py)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # every float knob finite (tests/test_config_bounds.py)
    validations: ClassVar[Counter] = Counter()

    def model_post_init(self, _context: Any) -> None:
        Params.validations[type(self).__qualname__] += 1


C = TypeVar("C", bound=type)


def component(slot: str, name: str) -> Callable[[C], C]:
    """Class decorator registering a component type in a slot's registry (memlab's and a plugin's)."""
    reg = slot_registry(slot)

    def deco(cls: C) -> C:
        cls.slot = slot  # type: ignore[attr-defined]
        reg.register(name, cls)  # checks it, and sets its type_name
        return cls

    return deco


@dataclass
class BuildEnv:
    """What components may use: the run's roles (per-role models), the shared embedder, the store
    factory (given the strategy's typed :class:`~memlab.memory.stores.base.StoreSpec`) and the
    strategy's deterministic id source."""

    roles: Any
    embedder: Any
    strategy_name: str
    make_store: Callable[[Any], Any]
    seed: int = 0


@dataclass
class Failures:
    """How often one kind of failure happened in a unit, with the first error as an example."""

    count: int = 0
    example: str = ""


class Component:
    """Base of every component: typed params, a description for the manifest, no-op hooks."""

    type_name: ClassVar[str] = ""
    slot: ClassVar[str] = ""
    Params: ClassVar[type[Params]] = Params
    context_order: ClassVar[int] = 50
    """Where this component's context sections go in the assembled prompt (lower first)."""
    offered_tools: ClassVar[dict[str, str]] = {}
    """The memory tools this component offers an agent (name → description), for ``memlab components``
    and for the tools' own schemas."""
    needs: ClassVar[tuple[Needs, ...]] = ()
    """This component's own composition rules, beside its slot's (``agent_tool`` extraction needs an agent)."""

    @classmethod
    def needs_for(cls, spec: dict[str, Any]) -> tuple[Needs, ...]:
        """The composition rules of this component with these (resolved, JSON) params: :attr:`needs`
        unless a parameter changes what it needs (episodes captured by an agent tool need an agent)."""
        return cls.needs

    def __init__(self, params: Params, env: BuildEnv) -> None:
        self.params = params
        self.env = env
        self.failures: dict[str, Failures] = {}
        """What failed in the current unit and was absorbed (by what happened → how often)."""

    def failed(self, what: str, error: object) -> None:
        """Record a failure this component absorbed — a model call that failed after its retries, a
        compression that could not run — and carried on with its fallback (``what`` says both, e.g.
        "extraction call failed; message not extracted"). The unit's end record lists them
        (``component_failures``) and ``memlab report`` shows them, so a degraded design is not
        mistaken for a weak one."""
        tally = self.failures.setdefault(what, Failures())
        tally.count += 1
        if not tally.example:
            tally.example = str(error)[:300]

    @classmethod
    def summary(cls) -> str:
        """One line for ``memlab components``: the first line of the class docstring."""
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

    def describe(self) -> dict[str, Any]:
        return {"type": self.type_name, **self.params.model_dump(mode="json")}

    # -- hooks (all optional) ---------------------------------------------------------------------
    def begin_unit(self, state: StrategyState) -> None:
        """A fresh unit of work: forget anything kept across conversations of the namespace."""

    def begin_conversation(self, state: StrategyState) -> None:
        """A new conversation starts: reset per-conversation buffers."""

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        """Take in one turn."""

    def on_invocation_end(self, invocation: Invocation, state: StrategyState) -> None:
        """The invocation's last turn has been taken in (post-invocation work goes here)."""

    def on_conversation_end(self, state: StrategyState) -> None:
        """The conversation is over."""

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        """What this component injects into the context for ``query``."""
        return []

    def tools(self, state: StrategyState) -> list[MemoryTool]:
        """Memory tools this component offers an agent (see :mod:`memlab.strategies.tools`)."""
        return []

    def close(self) -> None:
        """Release resources."""


def build_component(slot: str, spec: Any, env: BuildEnv) -> Component | None:
    """The component of ``slot`` for a resolved spec: a ``ComponentSpec`` (type and typed params,
    validated when the config was: built as they are) or, from older callers, a mapping (validated here)."""
    if not spec:
        return None
    reg = SLOTS[slot].registry
    if not isinstance(spec, dict):
        return reg.get(spec.type)(spec.params, env)
    spec = dict(spec)
    type_name = spec.pop("type", None)
    if not type_name:
        raise ValueError(f"{slot} component spec needs a 'type' (one of {reg.names()})")
    cls = reg.get(type_name)
    return cls(cls.Params.model_validate(spec), env)


_loaded = False


def load_families() -> None:
    """Import every family package of this package and its modules (a family's ``__init__`` declares
    its slot, its modules register components), then the installed plugins."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from pathlib import Path

    here = Path(__file__).resolve().parent
    for info in pkgutil.walk_packages([str(here)], prefix="memlab.strategies."):
        importlib.import_module(info.name)
    load_installed_plugins()


def load_plugins(modules: list[str]) -> None:
    """Import the plugin modules a run config lists (``plugins:``), after memlab's own families: a
    plugin may add to any registry (:mod:`memlab.registry`)."""
    load_families()
    registry_load_plugins(modules)


def registries() -> dict[str, Registry[Any]]:
    """Each component slot's registry, by slot name (``memlab.strategies.REGISTRIES``)."""
    load_families()
    return {name: slot.registry for name, slot in SLOTS.items()}
