"""The narrow storage interface every memory backend implements.

Stores persist :class:`MemoryItem` rows with an optional embedding each. They never embed
text themselves: the strategy passes vectors computed with the run's shared embedder, so
every backend sees identical inputs and differences in results come from the backend.
Every read takes a namespace and must never return another namespace's items.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from memlab.memory.item import MemoryItem, ScoredItem
from memlab.registry import Registry

Where = dict[str, Any]
"""Metadata filter: ``{"key": value}`` equality, ``{"key": [a, b]}`` membership. The special
key ``kind`` filters on the item's kind."""


class StoreError(RuntimeError):
    """A backend failed (unreachable server, locked directory...). The message names backend and address."""


@runtime_checkable
class MemoryStore(Protocol):
    name: str

    def add(self, items: Sequence[MemoryItem], embeddings: np.ndarray | None = None) -> None:
        """Insert items (ids must be new in their namespace). Idempotent for an identical re-add."""

    def get(self, namespace: str, ids: Sequence[str]) -> list[MemoryItem]:
        """Items by id, in the order asked; unknown ids are skipped."""

    def update(self, item: MemoryItem, embedding: np.ndarray | None = None) -> None:
        """Replace an existing item (same id and namespace); invalidation is ``valid=False``."""

    def delete(self, namespace: str, ids: Sequence[str]) -> int:
        """Hard-delete items; returns how many existed."""

    def search(
        self,
        namespace: str,
        *,
        embedding: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Where | None = None,
        include_invalid: bool = False,
    ) -> list[ScoredItem]:
        """Top-k: by cosine similarity when ``embedding`` is given, else keyword relevance for
        ``text``, else most recent first. Expired and invalidated items are excluded by default."""

    def list(self, namespace: str, *, where: Where | None = None, include_invalid: bool = True) -> list[MemoryItem]:
        """All items of a namespace, oldest first."""

    def count(self, namespace: str | None = None) -> int:
        """Number of stored items (all namespaces when None)."""

    def reset(self, namespace: str | None = None) -> None:
        """Drop a namespace's items, or everything."""

    def close(self) -> None:
        """Release connections/handles."""


STORES: Registry[Any] = Registry("store")
STORES.register("in_memory", "memlab.memory.stores.in_memory:InMemoryStore")
STORES.register("chroma", "memlab.memory.stores.chroma:ChromaStore")
STORES.register("postgres", "memlab.memory.stores.postgres:PostgresStore")


def make_store(name: str, **options: Any) -> MemoryStore:
    """Build a registered store by name; options go to its constructor."""
    return STORES.get(name)(**options)


def matches(item: MemoryItem, where: Where | None) -> bool:
    """Reference semantics of a ``Where`` filter, shared by backends that filter in Python."""
    if not where:
        return True
    for key, want in where.items():
        have = item.kind if key == "kind" else item.metadata.get(key)
        if isinstance(want, (list, tuple, set)):
            if have not in want:
                return False
        elif have != want:
            return False
    return True
