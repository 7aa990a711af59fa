"""A total deadline for one HTTP attempt, whatever the server does between bytes.

httpx's timeouts are per operation: the read timeout bounds the wait for the *next* bytes, so an
endpoint (or a proxy) that sends one byte every second holds a call for as long as it likes, each
byte resetting the clock. memlab bounds each attempt as a whole: :func:`attempt_deadline` sets the
attempt's deadline for the calling thread, and the HTTP client's network streams (wrapped by
:func:`install`) give every read and write the smaller of its own timeout and the time left, so a
read past the deadline times out like any other — the attempt fails with a retryable timeout and
the retry policy decides what comes next.

httpx offers no hook for this; :func:`install` wraps the network backend of the client's
connection pools (``httpcore``'s public ``NetworkBackend`` interface, reached through the pools'
``_network_backend`` attribute). It returns False when that attribute is missing (another httpx
release), and the model then has no total deadline; ``tests/test_model_faults.py`` fails in that
case, so an upgrade cannot drop it silently.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpcore

_local = threading.local()


@contextlib.contextmanager
def attempt_deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, this thread's HTTP reads and writes end at ``seconds`` from now (None: no deadline)."""
    previous = getattr(_local, "at", None)
    _local.at = None if seconds is None else time.monotonic() + seconds
    try:
        yield
    finally:
        _local.at = previous


def passed() -> bool:
    """Whether this thread's current deadline has passed (an attempt's timeout was the deadline's)."""
    at = getattr(_local, "at", None)
    return at is not None and time.monotonic() >= at - 0.001


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    at = getattr(_local, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise error("the attempt's total deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> _Stream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _bounded(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> _Stream:
        return _Stream(self._inner.connect_tcp(host, port, _bounded(timeout, httpcore.ConnectTimeout), local_address,
                                               socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> _Stream:
        return _Stream(self._inner.connect_unix_socket(path, _bounded(timeout, httpcore.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def install(client: Any) -> bool:
    """Make every connection of the httpx ``client`` honour :func:`attempt_deadline`; False when
    the client's pools cannot be reached (see the module docstring)."""
    transports = [getattr(client, "_transport", None), *getattr(client, "_mounts", {}).values()]
    pools = [getattr(t, "_pool", None) for t in transports if t is not None]
    if not pools or any(p is None or not hasattr(p, "_network_backend") for p in pools):
        return False
    for pool in pools:
        if not isinstance(pool._network_backend, _Backend):
            pool._network_backend = _Backend(pool._network_backend)
    return True
