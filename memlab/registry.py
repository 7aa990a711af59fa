"""One registry type for every extension point of memlab, and how plugins reach them.

Every place a user can add something — a component in a slot, a compression trigger, a metric, a
strategy type, a store backend, a model provider, a dataset format, a preset — is a
:class:`Registry`: a name → object map that

* takes entries eagerly (``@REG.register("name")`` on a class or function, or ``REG.register("name", obj)``)
  or lazily as ``"module:attr"`` strings, so an optional heavy backend (chromadb, psycopg, mem0) is
  imported only when a spec names it;
* imports its built-in entries on first lookup (``builtins``: the module(s) that register them),
  and the plugins installed under the ``memlab.plugins`` entry-point group (:func:`load_installed_plugins`);
* checks an entry when it is registered (``check``: a trigger's spec names its own type, a
  component has typed params, …) and tells a class its name (``stamp``, e.g. ``type_name``);
* answers an unknown name with the close matches ("did you mean") and the known names.

A **plugin** is a Python module that registers into any of these registries with their ordinary
decorators. It is activated by naming it under ``plugins:`` in a run config (:func:`load_plugins`)
or by installing it with an entry point in the ``memlab.plugins`` group (the former groups
``memlab.components`` and ``memlab.strategies`` are read too). The catalog of extension points
is :mod:`memlab.extensions`.

:meth:`Registry.tagged` turns a registry of classes with typed ``Params`` into a pydantic field
type: a mapping's ``type`` picks the registered member and is validated as that member's params —
a discriminated union built from the registry at validation time, so a member a plugin registers
after the field was declared resolves like a built-in one.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")

PLUGIN_GROUPS = ("memlab.plugins", "memlab.components", "memlab.strategies")
"""Entry-point groups whose entries are imported as plugins (``memlab.plugins``; the other two are
the groups components and strategy types used before every registry shared one)."""

_installed_loaded = False


class RegistryError(KeyError):
    """An unknown or conflicting component name."""

    def __str__(self) -> str:  # KeyError quotes its message; we want plain text
        return str(self.args[0]) if self.args else ""


class Registry(Generic[T]):
    """Name → object map with lazy ``"module:attr"`` entries, built-ins imported on first lookup,
    installed plugins, checks at registration and did-you-mean errors."""

    def __init__(self, kind: str, *, builtins: str | Sequence[str] | Callable[[], None] | None = None,
                 stamp: str | None = None, check: Callable[[str, Any], None] | None = None) -> None:
        self.kind = kind
        """What an entry is, in messages ("compression trigger", "store")."""
        self._entries: dict[str, T | str] = {}
        self._builtins = builtins
        self._ready = False
        self._stamp = stamp
        self._check = check

    # -- registering ----------------------------------------------------------------------------------
    def register(self, name: str, obj: T | str | None = None, *, replace: bool = False) -> Any:
        """Register ``obj`` under ``name``; without ``obj``, a decorator registering what it decorates.

        Registering a name twice is refused unless ``replace`` — except the same object, a lazy
        string replaced by the object it names, or a class of the same module and qualified name
        (its module imported anew: a plugin reloaded), which replace the entry silently."""

        def _add(target: T | str) -> T | str:
            existing = self._entries.get(name)
            if existing is not None and not replace and existing is not target and not _same(existing, target):
                raise RegistryError(f"{self.kind} {name!r} is already registered "
                                    f"({_qualname(existing) if not isinstance(existing, str) else existing})")
            if not isinstance(target, str):
                self._admit(name, target)
            self._entries[name] = target
            return target

        if obj is None:
            return _add
        return _add(obj)

    def unregister(self, name: str) -> None:
        """Remove an entry (a plugin unloaded, or a throwaway entry a test added); unknown names are ignored."""
        self._entries.pop(name, None)

    def _admit(self, name: str, obj: Any) -> None:
        if self._check is not None:
            self._check(name, obj)
        if self._stamp is not None and isinstance(obj, type):
            setattr(obj, self._stamp, name)

    # -- looking up -----------------------------------------------------------------------------------
    def _load(self) -> None:
        """Import the built-in entries and the installed plugins, once (before the first lookup)."""
        if self._ready:
            return
        self._ready = True
        builtins = self._builtins
        if callable(builtins):
            builtins()
        elif builtins:
            for module in [builtins] if isinstance(builtins, str) else builtins:
                importlib.import_module(module)
        load_installed_plugins()

    def get(self, name: str) -> T:
        """Resolve ``name``, importing a lazy entry on first use."""
        self._load()
        if name not in self._entries:
            close = difflib.get_close_matches(name, list(self._entries), n=3, cutoff=0.5)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            known = ", ".join(sorted(self._entries)) or "(none)"
            raise RegistryError(f"Unknown {self.kind} {name!r}.{hint} Known: {known}")
        entry = self._entries[name]
        if isinstance(entry, str):
            module_name, _, attr = entry.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                raise RegistryError(
                    f"{self.kind} {name!r} needs module {module_name!r}, which failed to import: {exc}. "
                    "Install the matching extra (see README)."
                ) from exc
            resolved: Any = module
            for part in attr.split("."):
                resolved = getattr(resolved, part)
            self._admit(name, resolved)
            self._entries[name] = resolved
            return resolved
        return entry

    def names(self) -> list[str]:
        self._load()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._entries)} entries)"

    # -- a registry as a pydantic field type ----------------------------------------------------------
    def tagged(self, base: type, *, tag: str = "type", none: str | None = None) -> Any:
        """A pydantic field type whose value is one of this registry's members' typed params.

        The members are classes with a ``Params`` model (a subclass of ``base``) whose ``tag``
        field holds the member's name. A mapping is validated as the params of the member its
        ``tag`` names (an unknown name fails with did-you-mean; a wrong parameter is reported at
        its own location); a bare name stands for the member with default params; None for the
        member ``none`` when given; an instance of ``base`` passes as it is (validated once: it is
        the typed object a resolved config hands on). Serialised with its own fields
        (``SerializeAsAny``), so the JSON form is the member's, not the base's."""
        from typing import Annotated

        from pydantic import BeforeValidator, SerializeAsAny

        def member(value: Any) -> Any:
            if isinstance(value, base):
                return value
            if value is None and none is not None:
                value = none
            if isinstance(value, str):
                value = {tag: value}
            if not isinstance(value, Mapping):
                raise ValueError(f"a {self.kind} is a name or a mapping with {tag!r}, got {value!r}")
            name = value.get(tag)
            if name is None:
                raise ValueError(f"a {self.kind} needs {tag!r}: one of {', '.join(self.names())}")
            cls = self.get(str(name))  # RegistryError: the did-you-mean reaches the config error as it is
            return cls.Params.model_validate(dict(value))

        return Annotated[SerializeAsAny[base], BeforeValidator(member)]


def validate_fields(model: Any, given: Mapping[str, Any], *, subject: str, noun: str, root: str) -> Any:
    """``given`` (names → values, as a config wrote them) validated into the pydantic ``model`` of an
    entry (a strategy type's ``Params``, a store's ``Options``): a name that is not one of its fields is
    refused with the close matches and every known name, a wrong type or bound at its field's location —
    never with the value, which may be a secret. Raises ``ValueError`` starting with ``subject``
    (``noun``: what a field is called there; ``root``: the location of an error on the whole mapping)."""
    from pydantic import ValidationError

    names = sorted(model.model_fields)
    for key in given:
        if key not in model.model_fields:
            close = difflib.get_close_matches(key, names, n=2, cutoff=0.5)
            hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise ValueError(f"{subject} has no {noun} {key!r}.{hint} Its {noun}s: {', '.join(names) or 'none'}")
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or root}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"{subject}: {problems}") from None


def load_installed_plugins() -> None:
    """Import the plugins installed under :data:`PLUGIN_GROUPS` (once per process)."""
    global _installed_loaded
    if _installed_loaded:
        return
    _installed_loaded = True
    for group in PLUGIN_GROUPS:
        for ep in importlib.metadata.entry_points(group=group):
            ep.load()


def load_plugins(modules: Sequence[str]) -> None:
    """Import the plugin modules a run config lists (``plugins:``); each registers what it adds."""
    load_installed_plugins()
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ValueError(f"plugin module {name!r} could not be imported: {exc}") from exc


def _qualname(obj: object) -> str:
    return f"{getattr(obj, '__module__', '')}:{getattr(obj, '__qualname__', '')}"


def _same(existing: object, target: object) -> bool:
    """The same thing registered again: a lazy string and the object it names, or a class whose
    module was imported anew (same module and qualified name)."""
    if isinstance(existing, str):
        return not isinstance(target, str) and _qualname(target) == existing
    return (isinstance(existing, type) and isinstance(target, type)
            and _qualname(existing) == _qualname(target) and existing.__qualname__ != "")
