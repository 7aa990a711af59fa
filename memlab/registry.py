"""A generic, lazily-resolved registry of named components.

Components (stores, retrievers, extractors, strategies, metrics...) are registered either
eagerly with the :meth:`Registry.register` decorator or lazily as ``"module:attr"`` strings,
so optional heavy backends (chromadb, psycopg) are imported only when a spec names them.
Unknown names raise an error that lists the close matches ("did you mean").
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class RegistryError(KeyError):
    """An unknown or conflicting component name."""

    def __str__(self) -> str:  # KeyError quotes its message; we want plain text
        return str(self.args[0]) if self.args else ""


class Registry(Generic[T]):
    """Name → factory map with lazy ``"module:attr"`` entries and did-you-mean errors."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T | str] = {}

    def register(self, name: str, obj: T | str | None = None, *, replace: bool = False) -> Callable[[T], T] | T | str:
        """Register ``obj`` under ``name``; without ``obj`` acts as a decorator."""

        def _add(target: T | str) -> T | str:
            existing = self._entries.get(name)
            if existing is not None and not replace and existing is not target:
                # A lazy string being replaced by the object it names is fine (import-time decorator).
                if not (isinstance(existing, str) and not isinstance(target, str) and _qualname(target) == existing):
                    raise RegistryError(f"{self.kind} {name!r} is already registered")
            self._entries[name] = target
            return target

        if obj is None:
            return _add  # type: ignore[return-value]
        return _add(obj)

    def get(self, name: str) -> T:
        """Resolve ``name``, importing a lazy entry on first use."""
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
            resolved = module
            for part in attr.split("."):
                resolved = getattr(resolved, part)
            self._entries[name] = resolved
            return resolved  # type: ignore[return-value]
        return entry

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


def _qualname(obj: object) -> str:
    return f"{getattr(obj, '__module__', '')}:{getattr(obj, '__qualname__', '')}"
