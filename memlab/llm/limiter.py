"""Client-side rate limiting for one endpoint: requests/minute, tokens/minute and requests in flight.

Why client-side: an endpoint that is pushed past its limits answers 429 and the retries waste
time and quota; a runner that calls one model from many threads must stay under the limits
by itself. Both per-minute limits are enforced as *evenly spaced* admissions (GCRA with no
burst): at 120 requests/minute a request starts at most every 0.5 s, and a 2,000-token request
under 60,000 tokens/minute holds the next one back 2 s. That matches how providers enforce
"per minute" limits over short windows, so a steady client never trips them.

Token costs are estimated before sending (the prompt, counted offline) and corrected with the
usage the endpoint reports (:meth:`Permit.settle`). ``Retry-After`` from a 429/503 pauses the
whole endpoint (:meth:`RateLimiter.defer`), not only the call that received it, so the other
threads do not keep hammering a server that asked for a pause.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict, Field


class RateLimit(BaseModel):
    """An endpoint's limits; every field optional (unset = unlimited)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    requests_per_minute: float | None = Field(default=None, gt=0)
    tokens_per_minute: float | None = Field(default=None, gt=0)
    max_in_flight: int | None = Field(default=None, ge=1)

    def stricter(self, other: RateLimit | None) -> RateLimit:
        """Each limit at the lower of the two settings: two model objects sharing an endpoint
        must together stay under the strictest limit either was given."""
        if other is None:
            return self

        def low(a: float | None, b: float | None) -> float | None:
            return b if a is None else a if b is None else min(a, b)

        return RateLimit(
            requests_per_minute=low(self.requests_per_minute, other.requests_per_minute),
            tokens_per_minute=low(self.tokens_per_minute, other.tokens_per_minute),
            max_in_flight=low(self.max_in_flight, other.max_in_flight),  # type: ignore[arg-type]
        )


class Permit:
    """One admitted request. ``settle`` corrects the token estimate with the reported usage."""

    def __init__(self, limiter: RateLimiter, estimated_tokens: int) -> None:
        self._limiter = limiter
        self.estimated_tokens = estimated_tokens

    def settle(self, actual_tokens: int) -> None:
        self._limiter._settle(actual_tokens - self.estimated_tokens)
        self.estimated_tokens = actual_tokens


class RateLimiter:
    """Thread-safe admission control for one endpoint (see the module docstring)."""

    def __init__(self, limits: RateLimit | None = None) -> None:
        self.limits = limits or RateLimit()
        self._cond = threading.Condition()
        self._in_flight = 0
        self._next_request_at = 0.0
        self._next_tokens_at = 0.0
        self._not_before = 0.0
        self.admitted = 0
        self.deferrals = 0
        self.waited_s = 0.0
        self.max_in_flight_seen = 0

    def tighten(self, limits: RateLimit | None) -> None:
        with self._cond:
            self.limits = self.limits.stricter(limits)
            self._cond.notify_all()

    def reset(self) -> None:
        """Forget pacing and Retry-After pauses (limits kept)."""
        with self._cond:
            self._next_request_at = self._next_tokens_at = self._not_before = 0.0
            self._cond.notify_all()

    def defer(self, seconds: float) -> None:
        """Admit nothing for ``seconds`` (the endpoint's Retry-After)."""
        with self._cond:
            self._not_before = max(self._not_before, time.monotonic() + max(seconds, 0.0))
            self.deferrals += 1

    @contextlib.contextmanager
    def slot(self, estimated_tokens: int = 0) -> Iterator[Permit]:
        """Block until a request may start; the slot is held (counts as in flight) until exit."""
        t0 = time.monotonic()
        with self._cond:
            cap = self.limits.max_in_flight
            while cap is not None and self._in_flight >= cap:
                self._cond.wait()
                cap = self.limits.max_in_flight
            self._in_flight += 1
            self.max_in_flight_seen = max(self.max_in_flight_seen, self._in_flight)
            start = self._reserve(estimated_tokens)
        try:
            while True:
                now = time.monotonic()
                with self._cond:
                    start = max(start, self._not_before)
                if start <= now:
                    break
                time.sleep(start - now)
            with self._cond:
                self.admitted += 1
                self.waited_s += time.monotonic() - t0
            yield Permit(self, estimated_tokens)
        finally:
            with self._cond:
                self._in_flight -= 1
                self._cond.notify()

    def _reserve(self, tokens: int) -> float:
        """The earliest start for a request of ``tokens``, booking its share of both rates."""
        now = time.monotonic()
        start = max(now, self._not_before)
        rpm, tpm = self.limits.requests_per_minute, self.limits.tokens_per_minute
        if rpm is not None:
            start = max(start, self._next_request_at)
            self._next_request_at = start + 60.0 / rpm
        if tpm is not None:
            start = max(start, self._next_tokens_at)
            self._next_tokens_at = start + 60.0 * max(tokens, 0) / tpm
        return start

    def _settle(self, token_delta: int) -> None:
        tpm = self.limits.tokens_per_minute
        if tpm is None or token_delta == 0:
            return
        with self._cond:
            self._next_tokens_at += 60.0 * token_delta / tpm

    def stats(self) -> dict[str, float | int]:
        with self._cond:
            return {"admitted": self.admitted, "deferrals": self.deferrals, "waited_s": round(self.waited_s, 3),
                    "in_flight": self._in_flight, "max_in_flight_seen": self.max_in_flight_seen}
