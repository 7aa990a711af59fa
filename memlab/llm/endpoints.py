"""Per-endpoint state shared by every model object in the process: rate limiter and circuit breaker.

An endpoint is a base URL (credentials redacted) plus a model name. The runner may build several
model objects for one endpoint (the roles' model, the judge) and call them from many threads;
limits and outage detection only work if they all share one :class:`Endpoint`. When two specs
for the same endpoint disagree, the stricter setting wins. Each endpoint has its own locks, so
a slow or failing endpoint never blocks callers of another one.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from memlab.llm.breaker import CircuitBreaker
from memlab.llm.limiter import RateLimit, RateLimiter
from memlab.llm.types import EndpointDown


@dataclass
class Endpoint:
    name: str
    """How errors and manifests name it, e.g. ``openai:gpt-4o-mini@http://host/v1``."""
    limiter: RateLimiter
    breaker: CircuitBreaker


_registry: dict[tuple[str, str], Endpoint] = {}
_lock = threading.Lock()


def endpoint(base_url: str | None, model: str, name: str, limits: RateLimit | None = None, breaker_failures: int = 5) -> Endpoint:
    """The shared state of (``base_url``, ``model``), created on first use; ``base_url`` must be redacted."""
    with _lock:
        found = _registry.get((base_url or "", model))
        if found is None:
            found = _registry[(base_url or "", model)] = Endpoint(name, RateLimiter(limits), CircuitBreaker(name, breaker_failures))
            return found
    found.limiter.tighten(limits)
    found.breaker.lower_threshold(breaker_failures)
    return found


def tripped() -> EndpointDown | None:
    """The error of an open circuit breaker in this process, if any.

    For a caller that sees calls fail through layers that wrap errors (a role raises
    ``RoleFailure``): after a failure, ``if (down := tripped()): stop the run, exit non-zero``.
    """
    with _lock:
        endpoints = list(_registry.values())
    return next((e.breaker.error for e in endpoints if e.breaker.error is not None), None)


def reset_endpoints(base_url: str | None = None) -> None:
    """Close the breakers and clear the pacing state of every endpoint on ``base_url`` (all when None),
    in place, so model objects already built work again: e.g. in a notebook after restarting a server.
    The configured limits are kept."""
    with _lock:
        endpoints = [e for (url, _), e in _registry.items() if base_url is None or url == base_url]
    for e in endpoints:
        e.breaker.reset()
        e.limiter.reset()
