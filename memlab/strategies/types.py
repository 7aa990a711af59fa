"""Strategy types: the registry of what a run config's ``type:`` may name, and the resolution of a
strategy of another type than memlab's composed one.

A run config's strategy is *composed* (memlab's components, the default) or names another
**strategy type** with ``type:`` — ``mem0``, ``langmem`` (lazy entries: :mod:`memlab.external`
holds their adapters), or a user's class registered with :func:`strategy_type` in a plugin module
(``plugins:``, or the ``memlab.plugins`` entry point: :mod:`memlab.registry`). The rest of the
strategy's mapping are the type's parameters, validated against its ``Params`` model (unknown keys
fail with a did-you-mean). The resolved spec — parameters with defaults, and the library's name and
version — goes into the manifest and the run's fingerprint.

The registry lives here, beside the composed strategy that resolves through it, not with the
adapters: the adapters build on :mod:`memlab.strategies.base`, so the strategies package is below
:mod:`memlab.external` and must not import it (docs/architecture.md, the layers).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from memlab.registry import Registry, validate_fields

COMPOSED = "composed"
"""The default strategy type: memlab's components in slots (memlab.strategies.composed)."""

def _check_strategy_type(name: str, cls: Any) -> None:
    """A strategy type is a class with a pydantic ``Params`` model, under any name but ``composed``."""
    if name == COMPOSED:
        raise ValueError(f"{COMPOSED!r} is memlab's own strategy type; choose another name")
    Params = getattr(cls, "Params", None)
    if not (isinstance(Params, type) and issubclass(Params, BaseModel)):
        raise ValueError(f"strategy type {name!r} ({cls.__module__}.{cls.__qualname__}) has no pydantic `Params` model")


STRATEGY_TYPES: Registry[type] = Registry("strategy type", stamp="type_name", check=_check_strategy_type)
STRATEGY_TYPES.register("mem0", "memlab.external.mem0_adapter:Mem0Strategy")
STRATEGY_TYPES.register("langmem", "memlab.external.langmem_adapter:LangMemStrategy")


def strategy_type(name: str) -> Callable[[type], type]:
    """Class decorator: register a strategy type under ``name`` (usable as ``type: name``)."""
    return STRATEGY_TYPES.register(name)


# -- requirements -----------------------------------------------------------------------------------
def module_available(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (config validation stays fast)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_extra(cls: type) -> str | None:
    """The one line that says how to install a type's library, or None when it is installed."""
    module = getattr(cls, "module", None)
    if not module or module_available(module):
        return None
    package = getattr(cls, "library", None) or module
    extra = getattr(cls, "extra", None)
    how = f"pip install 'memlab[{extra}]'" if extra else f"pip install {package}"
    return f"type {cls.type_name!r} needs the {package} package, which is not installed: {how}"


def library_version(cls: type) -> str | None:
    package = getattr(cls, "library", None)
    if not package:
        return None
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def library_info(cls: type) -> dict[str, Any]:
    """What the manifest says about the code behind a strategy type."""
    info: dict[str, Any] = {"module": cls.__module__}
    if getattr(cls, "library", None):
        info.update(package=cls.library, version=library_version(cls))
    return info


# -- spec resolution ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ResolvedExternal:
    """A strategy of another type as its config resolves it, once: the type's typed ``Params``
    (handed to the adapter as they are) and what the manifest says about the library.
    :meth:`spec` is its JSON form (the manifest's record and the run's fingerprint)."""

    name: str
    type: str
    description: str
    params: BaseModel
    library: dict[str, Any]

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "preset": None, "description": self.description,
                "params": self.params.model_dump(mode="json"), "library": dict(self.library)}


def resolve_external(name: str, type_name: str, description: str | None, raw: dict[str, Any]) -> ResolvedExternal:
    """Validate a strategy of type ``type_name``: the type exists (did-you-mean), its library is
    installed (else one line naming the extra), and ``raw`` are parameters of its ``Params``."""
    cls = STRATEGY_TYPES.get(type_name)  # its Params were checked when the type was registered
    params = validate_fields(cls.Params, raw, subject=f"strategy {name!r}: type {type_name!r}", noun="parameter",
                             root="(params)")
    missing = missing_extra(cls)
    if missing:
        raise ValueError(missing)
    return ResolvedExternal(name, type_name, description or _summary(cls), params, library_info(cls))


def _summary(cls: type) -> str:
    return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""


def summary(cls: type) -> str:
    """One line for ``memlab components``."""
    return _summary(cls)


def describe_external(resolved: dict[str, Any]) -> str:
    """``mem0(infer=False,k=8,window=6) [mem0ai 2.2.1]``: the components column of exported tables."""
    params = ",".join(f"{k}={v}" for k, v in (resolved.get("params") or {}).items())
    lib = resolved.get("library") or {}
    tag = f" [{lib['package']} {lib.get('version')}]" if lib.get("package") else f" [{lib.get('module')}]" if lib.get("module") else ""
    return f"{resolved['type']}({params}){tag}"
