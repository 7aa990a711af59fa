"""A circuit breaker for one endpoint: stop calling a server that cannot be reached.

Without it a dead endpoint costs every call its full retry budget (seconds each) and a run of
thousands of calls spends its time producing nothing but failures. The breaker counts
consecutive *calls* (after their retries) that failed because no connection could be made
(refused, DNS, connect timeout — :class:`~memlab.llm.types.EndpointUnreachable`); any call
that reached the server, successful or not, resets the count. At ``threshold`` it opens, and
from then on every call fails at once with :class:`~memlab.llm.types.EndpointDown`.

An endpoint that answers 429/503 with a ``Retry-After`` longer than the retry policy allows is
stopped the same way (:meth:`CircuitBreaker.trip`): waiting would stall every later call for that
long in silence, and a run should rather stop, say why, and be resumed later.

It stays open until :meth:`CircuitBreaker.reset` (or
:func:`memlab.llm.endpoints.reset_endpoints`): a run against a dead endpoint should stop, not
probe it again later and mix results from before and after an outage.
"""

from __future__ import annotations

import threading

from memlab.llm.types import EndpointDown


class CircuitBreaker:
    def __init__(self, endpoint: str, threshold: int = 5) -> None:
        """``threshold`` consecutive unreachable calls open the breaker; 0 disables it."""
        if threshold < 0:
            raise ValueError(f"circuit breaker threshold must be >= 0 (0 disables it), got {threshold}")
        self.endpoint = endpoint
        self.threshold = threshold
        self._lock = threading.Lock()
        self._failures = 0
        self._last_error = ""
        self._open: EndpointDown | None = None

    @property
    def error(self) -> EndpointDown | None:
        """The error every call gets while the breaker is open, else None."""
        return self._open

    def check(self) -> None:
        """Raise :class:`EndpointDown` if the breaker is open (before any attempt is made)."""
        if self._open is not None:
            raise EndpointDown(self._open.endpoint, self._open.failures, self._open.last_error, str(self._open))

    def record_unreachable(self, error: str) -> None:
        with self._lock:
            self._failures += 1
            self._last_error = error
            if self.threshold and self._failures >= self.threshold and self._open is None:
                self._open = EndpointDown(self.endpoint, self._failures, error)

    def trip(self, message: str) -> EndpointDown:
        """Open the breaker now, with ``message`` as every later call's error; returns that error."""
        with self._lock:
            if self._open is None:
                self._open = EndpointDown(self.endpoint, self._failures, message, message)
            return self._open

    def record_reachable(self) -> None:
        with self._lock:
            if self._open is None:
                self._failures = 0

    def reset(self) -> None:
        with self._lock:
            self._failures = 0
            self._last_error = ""
            self._open = None

    def lower_threshold(self, threshold: int) -> None:
        """Adopt a stricter threshold from another model sharing this endpoint (0 = no opinion)."""
        with self._lock:
            if threshold and (not self.threshold or threshold < self.threshold):
                self.threshold = threshold
