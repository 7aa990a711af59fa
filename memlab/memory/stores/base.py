"""The narrow storage interface every memory backend implements.

Stores persist :class:`MemoryItem` rows with an optional embedding each. They never embed
text themselves: the strategy passes vectors computed with the run's shared embedder, so
every backend sees identical inputs and differences in results come from the backend.
Every read takes a namespace and must never return another namespace's items.

**Result order (every backend, every search path).** Two runs with the same configuration
must see the same memories in the same order, whatever order the items were inserted in and
however the backend lays out its rows. So ties are never left to the backend:

* vector and keyword search: score descending, then ``created_at`` ascending (older first),
  then ``id`` ascending;
* recency search: ``created_at`` descending (newest first), then ``id`` ascending;
* ``list``: ``created_at`` ascending, then ``id`` ascending.

Ids compare by code point (Python ``str`` order; Postgres ``COLLATE "C"``, byte order of
UTF-8, which is the same order). Backends keep the id they are given (the strategy layer
assigns deterministic ids). An approximate index (HNSW) may still miss a true neighbour of a
large namespace; a tie at the k-th place is resolved exactly (see each backend).

**NUL characters.** PostgreSQL ``text``/``jsonb`` cannot hold U+0000, so that one backend
would fail where the others succeed. Every backend therefore stores U+0000 as U+FFFD
(REPLACEMENT CHARACTER) in the text, the kind, ``source_turn_ids`` and metadata keys and
string values at any depth (:func:`without_nul`); an id or namespace containing U+0000 is
rejected with a :class:`StoreError` on write, and finds nothing on read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict

from memlab.memory.item import MemoryItem, ScoredItem
from memlab.registry import Registry, validate_fields

Where = dict[str, Any]
"""Metadata filter: ``{"key": value}`` equality, ``{"key": [a, b]}`` membership. The special
key ``kind`` filters on the item's kind."""


class StoreError(RuntimeError):
    """A backend failed (unreachable server, locked directory...). The message names backend and address."""


class StoreOptions(BaseModel):
    """A backend's options, typed (``store_options.<backend>`` and a strategy's ``store:``): each
    backend declares its own as ``Options``. Checked when a config is loaded, before a run folder
    exists: no unknown option, no value of another type (a YAML string or list where a number
    belongs is refused, not converted), every number within its bounds."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)
    validations: ClassVar[Counter] = Counter()
    """How many times each backend's options class was validated from data: once per store block
    a run names (tests/test_resolve_once.py)."""

    def model_post_init(self, _context: Any) -> None:
        StoreOptions.validations[type(self).__qualname__] += 1

    def in_folder(self, folder: Path) -> StoreOptions:
        """These options for a store of a run whose files go under ``folder`` (a backend with a
        file location left unset puts it there; most have none)."""
        return self


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


def _check_store(name: str, cls: Any) -> None:
    """A store backend declares its options as a :class:`StoreOptions` model (``Options``): they are
    validated once, when a config is, and the backend is built with that typed object."""
    options = getattr(cls, "Options", None)
    if not (isinstance(options, type) and issubclass(options, StoreOptions)):
        raise ValueError(f"store {name!r} ({getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', cls)}) "
                         "has no `Options` model (a memlab.memory.stores.base.StoreOptions subclass)")


STORES: Registry[Any] = Registry("store", check=_check_store)
STORES.register("in_memory", "memlab.memory.stores.in_memory:InMemoryStore")
STORES.register("chroma", "memlab.memory.stores.chroma:ChromaStore")
STORES.register("postgres", "memlab.memory.stores.postgres:PostgresStore")


def typed_options(backend: str, given: dict[str, Any], where: str) -> StoreOptions:
    """``given`` (option name → value, as written) validated into ``backend``'s ``Options``: an
    unknown option is named with the close matches, a wrong type or bound at its field. Raises
    ValueError starting with ``where``."""
    return validate_fields(STORES.get(backend).Options, given, subject=f"{where}: store {backend!r}", noun="option",
                           root="options")


@dataclass(frozen=True)
class StoreSpec:
    """A strategy's store as its config resolves it, once: the backend and its typed options (the
    run's ``store_options`` for the backend under the strategy's own), and which options the
    strategy wrote itself — its manifest form names only those, as before store options were typed."""

    type: str
    options: StoreOptions
    written: tuple[str, ...] = ()

    def json(self) -> dict[str, Any]:
        dumped = self.options.model_dump(mode="json")
        return {"type": self.type, **{k: dumped[k] for k in self.written}}

    def build(self, folder: Path | None = None) -> MemoryStore:
        """The backend built with these options (``folder``: the run's folder for this strategy's
        store files, used where the options leave a location unset)."""
        return STORES.get(self.type)(self.options.in_folder(folder) if folder is not None else self.options)


def make_store(name: str, **options: Any) -> MemoryStore:
    """Build a registered store by name, its options validated into the backend's typed ``Options``
    (a bad one is a :class:`StoreError` naming the option)."""
    try:
        typed = typed_options(name, options, "make_store")
    except ValueError as exc:
        raise StoreError(str(exc)) from None
    return STORES.get(name)(typed)


def ranked(hits: Iterable[ScoredItem]) -> list[ScoredItem]:
    """Hits in the documented result order: score desc, ``created_at`` asc, ``id`` asc."""
    return sorted(hits, key=lambda h: (-h.score, h.item.created_at, h.item.id))


def top_k(items: Sequence[MemoryItem], scores: np.ndarray, k: int) -> list[ScoredItem]:
    """The k best of ``items`` by ``scores`` in the documented order, without ranking them all:
    everything scoring at least the k-th best score (so every tie at the k-th place) is ranked."""
    scores = np.asarray(scores).reshape(-1)
    if len(items) > k:
        kth = np.partition(-scores, k - 1)[k - 1]
        pick = np.flatnonzero(-scores <= kth)
    else:
        pick = np.arange(len(items))
    return ranked(ScoredItem(item=items[i], score=float(scores[i])) for i in pick)[:k]


def newest_first(items: Iterable[MemoryItem]) -> list[MemoryItem]:
    """Items in recency order: ``created_at`` desc, then ``id`` asc (two stable sorts)."""
    out = sorted(items, key=lambda it: it.id)
    out.sort(key=lambda it: it.created_at, reverse=True)  # stable: equal timestamps keep id order
    return out


NUL = "\x00"
NUL_REPLACEMENT = "\ufffd"


def _strip_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(NUL, NUL_REPLACEMENT)
    if isinstance(value, dict):
        return {_strip_nul(k): _strip_nul(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return type(value)(_strip_nul(v) for v in value)
    return value


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return NUL in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_has_nul(v) for v in value)
    return False


def without_nul(item: MemoryItem, backend: str) -> MemoryItem:
    """The item as every backend stores it: U+0000 replaced by U+FFFD (see the module doc).

    Returns the item itself when it holds no NUL (the common case costs one scan)."""
    for field, value in (("namespace", item.namespace), ("id", item.id)):
        if NUL in value:
            raise StoreError(
                f"{backend}: memory {field} {value!r} contains a NUL character (U+0000), which no backend stores"
            )
    if not _has_nul([item.text, item.kind, item.source_turn_ids, item.metadata]):
        return item
    return item.model_copy(
        update={
            "text": _strip_nul(item.text),
            "kind": _strip_nul(item.kind),
            "source_turn_ids": _strip_nul(list(item.source_turn_ids)),
            "metadata": _strip_nul(dict(item.metadata)),
        }
    )


def where_without_nul(where: Where | None) -> Where | None:
    """A filter compared against NUL-free stored values (string values mapped the same way)."""
    return _strip_nul(where) if where else where


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
