"""Retry with exponential backoff and jitter for retryable model errors, honouring Retry-After.

Jitter spreads the retries of many threads that failed together, so they do not hit the
endpoint again in lockstep. When the endpoint said how long to wait (``Retry-After`` on a 429 or
503, carried as ``RetryableModelError.retry_after_s``), that wait is used instead: retrying
earlier would only earn another 429. A wait longer than ``max_retry_after_s`` fails the call
now rather than stalling a run for minutes.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from memlab.llm.types import ModelError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter: float = 0.25
    max_retry_after_s: float = 120.0

    def delay(self, attempt: int) -> float:
        d = min(self.max_delay_s, self.base_delay_s * (2 ** (attempt - 1)))
        return d * (1 + random.uniform(-self.jitter, self.jitter))


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (OpenAI's precise variant) or ``Retry-After``
    (delta-seconds or an HTTP-date); None when absent or unreadable."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def with_retries(fn: Callable[[], T], policy: RetryPolicy, on_retry: Callable[[int, Exception], None] | None = None) -> tuple[T, int]:
    """Call ``fn`` until it succeeds or a non-retryable error / the attempt limit; return (result, attempts).

    The error that ends the call carries ``attempts`` (how many requests were made)."""
    attempt = 1
    while True:
        try:
            return fn(), attempt
        except ModelError as exc:
            wait = getattr(exc, "retry_after_s", None)
            give_up = not exc.retryable or attempt >= policy.max_attempts
            if not give_up and wait is not None and wait > policy.max_retry_after_s:
                exc.args = (f"{exc} (the endpoint asked to retry after {wait:.0f}s, more than the {policy.max_retry_after_s:.0f}s allowed)",)
                give_up = True
            if give_up:
                exc.attempts = attempt
                raise
            if on_retry:
                on_retry(attempt, exc)
            time.sleep(wait if wait is not None else policy.delay(attempt))
            attempt += 1
