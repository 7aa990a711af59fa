"""Retry with exponential backoff and jitter for retryable model errors."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
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

    def delay(self, attempt: int) -> float:
        d = min(self.max_delay_s, self.base_delay_s * (2 ** (attempt - 1)))
        return d * (1 + random.uniform(-self.jitter, self.jitter))


def with_retries(fn: Callable[[], T], policy: RetryPolicy, on_retry: Callable[[int, Exception], None] | None = None) -> tuple[T, int]:
    """Call ``fn`` until it succeeds or a non-retryable error / the attempt limit; return (result, attempts)."""
    attempt = 1
    while True:
        try:
            return fn(), attempt
        except ModelError as exc:
            if not exc.retryable or attempt >= policy.max_attempts:
                exc.attempts = attempt  # type: ignore[attr-defined]
                raise
            if on_retry:
                on_retry(attempt, exc)
            time.sleep(policy.delay(attempt))
            attempt += 1
