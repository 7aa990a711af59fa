"""Three per-call costs of DSPy 3.4 that memlab removes without changing a single prompt.

Every role call goes through ``dspy.ChatAdapter``. Profiling the LoCoMo-sized benchmark
(``benchmarks/locomo_scale_bench.py``, one conversation, every preset) found the first two, and a
planted-profile run the third: each depends only on a role's signature and types, yet was paid
again on every call:

- **A signature class per tool call.** With native function calling, ``Adapter._call_preprocess``
  removes a signature's tool fields with two ``Signature.delete`` calls, and each builds a new
  pydantic model class (7,768 classes in the profiled run, ~10% of its wall time). The classes
  are cyclic garbage, so they also swelled every full garbage collection. :class:`ChatAdapter`
  memoises the deletion per (signature, field): the same class is reused, so the request is
  byte-identical.
- **A pydantic ``TypeAdapter`` per input value.** ``dspy.adapters.utils.serialize_for_json``
  (every input field of every prompt) and ``parse_value`` (every output field) build a
  ``TypeAdapter`` for the value's type each time (76,000 builds, ~6% of the run).
  :func:`cache_type_adapters` gives that module a ``TypeAdapter`` factory that builds one per
  type and reuses it; a ``TypeAdapter`` is immutable once built, so serialising and validating
  through a cached one gives the same result.
- **The system message per call.** ``format_system_message`` renders every field's description
  and structure from the signature (~100,000 ``_get_fields_with_type`` calls in a four-user
  planted-profile run, ~6% of its time) though it depends on the signature alone.
  :class:`ChatAdapter` keeps it per (signature, instructions).

``tests/test_dspy_speed.py`` checks that prompts and parsed outputs are identical with and
without them.
"""

from __future__ import annotations

import threading
from typing import Any

import dspy

_deleted: dict[tuple[type, str], type] = {}
_deleted_lock = threading.Lock()


class _MemoisedDeletes:
    """Stands in for a Signature class inside ``Adapter._call_preprocess`` only: ``delete`` is
    memoised; every other attribute is the class's own."""

    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def delete(self, name: str) -> _MemoisedDeletes:
        key = (self.cls, name)
        out = _deleted.get(key)
        if out is None:
            with _deleted_lock:
                out = _deleted.get(key)
                if out is None:
                    out = _deleted[key] = self.cls.delete(name)
        return _MemoisedDeletes(out)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cls, name)


_system: dict[tuple[type, str], str] = {}


class ChatAdapter(dspy.ChatAdapter):
    """``dspy.ChatAdapter`` whose tool-free signature for native function calling, and whose system
    message, are built once per signature instead of on every call."""

    def format_system_message(self, signature: type) -> str:
        # a function of the signature's fields and instructions alone; a signature's fields never change
        # in place (DSPy's append/delete/with_instructions build a new class), its instructions are in the key
        key = (signature, signature.instructions)
        text = _system.get(key)
        if text is None:
            text = _system.setdefault(key, super().format_system_message(signature))
        return text

    def _call_preprocess(self, lm: Any, lm_kwargs: dict[str, Any], signature: type, inputs: dict[str, Any]) -> type:
        out = super()._call_preprocess(lm, lm_kwargs, _MemoisedDeletes(signature), inputs)  # type: ignore[arg-type]
        return out.cls if isinstance(out, _MemoisedDeletes) else out


class _CachedTypeAdapters:
    """A ``pydantic.TypeAdapter`` factory that builds one adapter per (hashable) type."""

    def __init__(self, factory: Any) -> None:
        self.factory = factory
        self.cache: dict[Any, Any] = {}
        self.lock = threading.Lock()

    def __call__(self, tp: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            return self.factory(tp, *args, **kwargs)
        try:
            adapter = self.cache.get(tp)
        except TypeError:  # an unhashable annotation: built as DSPy would
            return self.factory(tp)
        if adapter is None:
            adapter = self.factory(tp)
            with self.lock:
                adapter = self.cache.setdefault(tp, adapter)
        return adapter


def cache_type_adapters() -> None:
    """Give ``dspy.adapters.utils`` a caching ``TypeAdapter`` (idempotent)."""
    from dspy.adapters import utils

    if not isinstance(utils.TypeAdapter, _CachedTypeAdapters):
        utils.TypeAdapter = _CachedTypeAdapters(utils.TypeAdapter)


def uncache_type_adapters() -> None:
    """Undo :func:`cache_type_adapters` (tests compare DSPy's own behaviour with the cached one)."""
    from dspy.adapters import utils

    if isinstance(utils.TypeAdapter, _CachedTypeAdapters):
        utils.TypeAdapter = utils.TypeAdapter.factory
