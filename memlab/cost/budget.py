"""Budgets: a run stops before the model call that would cross a spending limit.

``budget: {max_usd, max_tokens, max_calls}`` in a config (or ``memlab run --budget max_usd=2``)
caps what a run spends on endpoints. Only calls that reach an endpoint count: a reply replayed
from memlab's record/replay cache and the offline stand-in cost nothing. The cap is enforced at
the model layer (:class:`BudgetedModel`, placed by :func:`memlab.llm.base.make_model` between
the cache and the endpoint), so every call — roles, agents, an external library's calls through
memlab's endpoint, the judge and ragas's LLM metrics — is counted the same way.

**Before the call.** Each call reserves its worst case first: its prompt (counted offline) plus
``max_tokens`` of output (the request's, else the model's, else the price map's maximum output),
priced with the model's input and output rates. When the tokens spent, the reservations in
flight and this worst case would together cross a limit, the call is not made:
:class:`BudgetExhausted` is raised, and the ledger stays *stopped* so no later call starts
either. A call that was made settles its reservation with the usage the endpoint reported
(cached input tokens at the cached rate).

**A clean stop.** ``BudgetExhausted`` stops the run as an endpoint that is down does (it is an
:class:`~memlab.llm.types.EndpointDown`): the unit in flight gets no end record, so its records
are never counted (no torn unit), and the manifest says ``stopped_at_budget`` with the spend.
``--resume`` with a larger budget redoes that unit from scratch and plays the rest; the spend of
the first session (read back from ``calls.jsonl``, every attempt's calls included: money spent is
spent) counts against the new budget.

**One ledger per run.** The spend lives in a small file in the run folder (``.budget.json``)
updated under an exclusive ``flock``, so threads and worker processes (and a local Ray) share one
budget. A Ray cluster on other machines cannot reach the file: a budget is refused there.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memlab.cost.prices import PriceBook, is_billable, model_name
from memlab.llm.types import ChatRequest, ChatResponse, EndpointDown

LEDGER_FILE = ".budget.json"
_KEYS = {"max_usd": "max_usd", "usd": "max_usd", "max_tokens": "max_tokens", "tokens": "max_tokens",
         "max_calls": "max_calls", "calls": "max_calls"}


class BudgetSpec(BaseModel):
    """A run's spending limits (each optional; none set: no budget). Not part of the run's
    fingerprint: a stopped run is resumed with a larger budget."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    max_usd: float | None = Field(default=None, gt=0, description="USD spent on endpoint calls (prices: LiteLLM's "
                                  "offline map or the config's `prices:` table; cached input at the cached rate).")
    max_tokens: int | None = Field(default=None, ge=1, description="Prompt + completion tokens of endpoint calls.")
    max_calls: int | None = Field(default=None, ge=1, description="Endpoint calls (a replayed or offline call is free).")

    def active(self) -> bool:
        return any(v is not None for v in (self.max_usd, self.max_tokens, self.max_calls))

    def label(self) -> str:
        parts = [f"${self.max_usd:g}" if self.max_usd is not None else "",
                 f"{self.max_tokens:,} tokens" if self.max_tokens is not None else "",
                 f"{self.max_calls:,} calls" if self.max_calls is not None else ""]
        return ", ".join(p for p in parts if p) or "none"


def parse_budget_flags(values: list[str] | None, base: dict[str, Any] | None = None) -> BudgetSpec:
    """``--budget max_usd=2 --budget calls=500`` (also ``usd=``, ``tokens=``) on top of a config's
    ``budget:`` block as written (``base``; the flags change it before the config is validated)."""
    data = dict(base or {})
    for value in values or []:
        for part in value.split(","):
            key, sep, number = part.partition("=")
            field = _KEYS.get(key.strip())
            if not sep or field is None:
                raise ValueError(f"--budget {value!r}: expected KEY=VALUE with KEY one of max_usd, max_tokens, max_calls")
            try:
                data[field] = float(number) if field == "max_usd" else int(float(number))
            except ValueError:
                raise ValueError(f"--budget {value!r}: {number!r} is not a number") from None
    try:
        return BudgetSpec.model_validate(data)
    except ValueError as exc:
        raise ValueError(f"--budget: {exc}") from None


class BudgetExhausted(EndpointDown):
    """The next call could cross the run's budget: the run stops here (like an endpoint that is down)."""

    attempts = 0
    """No request was sent: the call record of a refused call says so (``attempts: 0``), and it is not billed."""

    def __init__(self, message: str, spent: dict[str, Any] | None = None) -> None:
        super().__init__("budget", 0, message, message)
        self.spent = spent or {}


@dataclass
class Spend:
    usd: float = 0.0
    tokens: int = 0
    calls: int = 0

    def add(self, other: Spend) -> None:
        self.usd += other.usd
        self.tokens += other.tokens
        self.calls += other.calls

    def label(self) -> str:
        return f"${self.usd:,.4f} · {self.tokens:,} tokens · {self.calls:,} calls"


def spend_of_rows(rows: list[dict[str, Any]] | Any, book: PriceBook) -> Spend:
    """What recorded calls cost (the billable ones: not replayed, not offline); a model without a price adds no USD."""
    out = Spend()
    for row in rows:
        if not is_billable(row):
            continue
        price = book.get(row.get("model"))
        prompt, completion = int(row.get("prompt_tokens") or 0), int(row.get("completion_tokens") or 0)
        usd = price.cost(prompt, completion, int(row.get("cached_tokens") or 0)) if price is not None else 0.0
        out.add(Spend(usd, prompt + completion, 1))
    return out


class BudgetLedger:
    """The run's spend and its limits, shared through a file (see the module docstring). Picklable."""

    def __init__(self, path: str | Path, spec: BudgetSpec, book: PriceBook) -> None:
        self.path = Path(path)
        self.spec = spec
        self.book = book

    # -- the file ----------------------------------------------------------------------------------
    def start(self, spent: Spend) -> None:
        """Begin a session with what earlier sessions spent (nothing reserved, not stopped)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._update(lambda state: {"spent": asdict(spent), "reserved": asdict(Spend()), "stopped": None})

    def state(self) -> dict[str, Any]:
        return self._update(lambda state: state)

    def _update(self, change: Any) -> dict[str, Any]:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = b""
            while chunk := os.read(fd, 65536):
                raw += chunk
            state = json.loads(raw) if raw.strip() else {"spent": asdict(Spend()), "reserved": asdict(Spend()), "stopped": None}
            new = change(state)
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps(new).encode())  # a few hundred bytes: one write
            return new
        finally:
            os.close(fd)  # releases the lock

    # -- one call ----------------------------------------------------------------------------------
    def reserve(self, model: str, prompt_tokens: int, max_output: int, what: str) -> Spend:
        """Book a call's worst case, or raise :class:`BudgetExhausted` (and stop the ledger) when it could cross a limit."""
        price = self.book.get(model)
        worst = Spend(price.cost(prompt_tokens, max_output) if price is not None else 0.0, prompt_tokens + max_output, 1)
        spec = self.spec

        def book(state: dict[str, Any]) -> dict[str, Any]:
            spent, reserved = Spend(**state["spent"]), Spend(**state["reserved"])
            if state.get("stopped"):
                raise BudgetExhausted(state["stopped"], asdict(spent))
            would = Spend(spent.usd + reserved.usd + worst.usd, spent.tokens + reserved.tokens + worst.tokens,
                          spent.calls + reserved.calls + worst.calls)
            crossed = []
            if spec.max_usd is not None and would.usd > spec.max_usd:
                crossed.append(f"max_usd ${spec.max_usd:g} (spent ${spent.usd:.4f}, this call up to ${worst.usd:.4f})")
            if spec.max_tokens is not None and would.tokens > spec.max_tokens:
                crossed.append(f"max_tokens {spec.max_tokens:,} (spent {spent.tokens:,}, this call up to {worst.tokens:,})")
            if spec.max_calls is not None and would.calls > spec.max_calls:
                crossed.append(f"max_calls {spec.max_calls:,} (made {spent.calls:,})")
            if crossed:
                state["stopped"] = (f"budget reached before a {what} call to {model_name(model) or model}: it could cross "
                                    + "; ".join(crossed) + (f" (calls in flight: {reserved.calls})" if reserved.calls else ""))
                return state
            reserved.add(worst)
            state["reserved"] = asdict(reserved)
            return state

        state = self._update(book)
        if state.get("stopped"):
            raise BudgetExhausted(state["stopped"], state["spent"])
        return worst

    def settle(self, reservation: Spend, response: ChatResponse | None, model: str) -> None:
        """Replace a reservation with what the call cost (a call that failed: one call, no tokens)."""
        if response is None:
            actual = Spend(0.0, 0, 1)
        else:
            usage = response.usage
            price = self.book.get(model)
            usd = price.cost(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) if price is not None else 0.0
            actual = Spend(usd, usage.prompt_tokens + usage.completion_tokens, 1)

        def book(state: dict[str, Any]) -> dict[str, Any]:
            spent, reserved = Spend(**state["spent"]), Spend(**state["reserved"])
            reserved = Spend(max(reserved.usd - reservation.usd, 0.0), max(reserved.tokens - reservation.tokens, 0),
                             max(reserved.calls - reservation.calls, 0))
            spent.add(actual)
            state["spent"], state["reserved"] = asdict(spent), asdict(reserved)
            return state

        self._update(book)

    def wrap(self, model: Any, spec: Any = None) -> BudgetedModel:
        return BudgetedModel(model, self, getattr(spec, "max_tokens", None))


class BudgetedModel:
    """A chat model whose calls are booked against a :class:`BudgetLedger` before they are made."""

    def __init__(self, inner: Any, ledger: BudgetLedger, max_tokens: int | None = None) -> None:
        self.inner = inner
        self.ledger = ledger
        self.max_tokens = max_tokens
        self.model_id = inner.model_id

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def reject(self, request: ChatRequest) -> None:
        self.inner.reject(request)

    def __getattr__(self, name: str) -> Any:  # endpoint, limiter, ... of the wrapped model
        return getattr(self.inner, name)

    def complete(self, request: ChatRequest) -> ChatResponse:
        from memlab.tokens import count_message_tokens, count_tool_tokens

        prompt = count_message_tokens(request.messages) + count_tool_tokens(request.tools)
        price = self.ledger.book.get(self.model_id)
        max_output = request.max_tokens or self.max_tokens or (price.max_output_tokens if price else None) or 0
        reservation = self.ledger.reserve(self.model_id, prompt, max_output, request.signature or request.purpose)
        try:
            response = self.inner.complete(request)
        except BaseException:
            self.ledger.settle(reservation, None, self.model_id)
            raise
        self.ledger.settle(reservation, response, self.model_id)
        return response
