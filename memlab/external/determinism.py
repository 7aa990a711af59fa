"""Repeatable library calls: seeded ids and the conversation's clock.

An external memory library draws random ids (``uuid.uuid4``) and reads the wall clock, and some
of both end up in the prompts it sends (LangMem tags each extraction session with a fresh uuid;
mem0 writes today's date into its extraction prompt). A record/replay cache keys on the prompt,
so a rerun — or a run on another day — would miss every recorded call, and the memory ids in the
run's records would differ from run to run.

Two general mechanisms make such calls repeatable without touching what the library does:

- :func:`seeded_ids`: while an adapter's call into its library runs, ``uuid.uuid4()`` returns ids
  drawn from a sequence seeded by the unit (sha256 of the seed and a counter, as version-4
  UUIDs). Everywhere else — other threads, memlab's own code — it is the standard function.
  The same unit played again draws the same ids, so the same prompts and the same records.
- :func:`library_clock` + :func:`install_clock`: a library module whose ``datetime`` is replaced
  by :class:`ClockedDatetime` sees the conversation's time (the turn being taken in) from
  ``datetime.now()`` while an adapter's call runs, and the real time otherwise. That is the date a
  deployment would have seen when the conversation happened, so relative dates resolve as they
  did then, and the prompt does not change with the day the run is made.

Both are context-local (:mod:`contextvars`): units played in parallel threads never see each
other's sequence or clock.
"""

from __future__ import annotations

import contextvars
import hashlib
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone, tzinfo
from types import ModuleType
from typing import Any

_real_uuid4 = uuid.uuid4
_ids: contextvars.ContextVar[_IdSequence | None] = contextvars.ContextVar("memlab_seeded_ids", default=None)
_clock: contextvars.ContextVar[datetime | None] = contextvars.ContextVar("memlab_library_clock", default=None)
_install_lock = threading.Lock()
_installed = False


class _IdSequence:
    """Version-4 UUIDs from sha256(seed, n): unique within a seed, the same for the same seed."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.n = 0
        self._lock = threading.Lock()

    def next(self) -> uuid.UUID:
        with self._lock:
            self.n += 1
            n = self.n
        digest = hashlib.sha256(f"{self.seed}\x00{n}".encode()).digest()
        return uuid.UUID(bytes=digest[:16], version=4)


def _uuid4() -> uuid.UUID:
    seq = _ids.get()
    return seq.next() if seq is not None else _real_uuid4()


def _install_uuid4() -> None:
    global _installed
    with _install_lock:
        if not _installed:
            uuid.uuid4 = _uuid4  # type: ignore[assignment]  # delegates to the original outside seeded_ids
            _installed = True


class IdSeed:
    """One unit's id sequence: entered around each library call, continued across calls."""

    def __init__(self, seed: str) -> None:
        _install_uuid4()
        self.sequence = _IdSequence(seed)

    @contextmanager
    def active(self) -> Iterator[None]:
        token = _ids.set(self.sequence)
        try:
            yield
        finally:
            _ids.reset(token)


def seeded_ids(seed: str) -> IdSeed:
    """A fresh id sequence for ``seed`` (a unit: the same unit played again draws the same ids)."""
    return IdSeed(seed)


@contextmanager
def library_clock(now: datetime | None) -> Iterator[None]:
    """Within the block, modules given :func:`install_clock` see ``now`` (None: the real time)."""
    if now is not None and now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)  # dataset times without a zone are UTC
    token = _clock.set(now)
    try:
        yield
    finally:
        _clock.reset(token)


class ClockedDatetime(datetime):
    """``datetime`` whose ``now()`` / ``utcnow()`` / ``today()`` read :func:`library_clock`."""

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> Any:  # type: ignore[override]
        fixed = _clock.get()
        if fixed is None:
            return datetime.now(tz)
        return fixed.astimezone(tz) if tz is not None else fixed.astimezone().replace(tzinfo=None)

    @classmethod
    def utcnow(cls) -> Any:  # type: ignore[override]
        fixed = _clock.get()
        return datetime.now(timezone.utc).replace(tzinfo=None) if fixed is None else fixed.astimezone(timezone.utc).replace(tzinfo=None)

    @classmethod
    def today(cls) -> Any:  # type: ignore[override]
        return cls.now()


def install_clock(module: ModuleType, name: str = "datetime") -> None:
    """Make ``module``'s ``datetime`` (imported as ``from datetime import datetime``) read the
    library clock. Idempotent; outside :func:`library_clock` it behaves as ``datetime`` does."""
    if getattr(module, name, None) is not ClockedDatetime:
        if getattr(module, name, None) is not datetime:
            raise TypeError(f"{module.__name__}.{name} is not datetime.datetime; cannot give it the conversation's clock")
        setattr(module, name, ClockedDatetime)
