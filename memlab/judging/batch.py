"""Judging many answers at once, outside a run: what ``rejudge`` and ``judge-audit`` share.

Each item is judged through a memlab :class:`~memlab.roles.program.Role`, so retries, the
record/replay cache and the token ledger apply as in a run. Calls are collected with the scope
the caller gives each item (which probe, strategy and attempt it belongs to), so a re-judged run
can account for its judge calls like the original did.

A fault that stops every later call (an endpoint that is down, a budget that is reached:
:class:`~memlab.llm.types.EndpointDown`) stops the batch: :func:`judge_until_stop` returns the
verdicts made so far (None for the items not judged) and the calls made, so a run's judge pass
can keep what it paid for and a ``--resume`` judges only the rest.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from memlab.judging.prompts import judge_record, judge_role
from memlab.llm import calls
from memlab.llm.types import CallRecord, EndpointDown


def build_judge(spec: Any, budget: Any = None) -> Any:
    """The judge's chat model from a ModelSpec (or a dict of one); the offline judge needs no embedder.
    ``budget``: the run's :class:`~memlab.cost.budget.BudgetLedger`, which books its endpoint calls."""
    from memlab.llm.base import ModelSpec, make_model

    return make_model(spec if isinstance(spec, ModelSpec) else ModelSpec.model_validate(spec or {}), budget=budget)


def run_scoped(fn: Callable[[Any], Any], items: list[Any], scopes: list[dict[str, Any]], *, workers: int = 1
               ) -> tuple[list[Any], list[CallRecord], BaseException | None]:
    """``fn(item)`` for every item, each in its scope, ``workers`` at a time; the results in item
    order (None where not run), every call record made, and the fault that stopped the batch (or None)."""
    made: list[CallRecord] = []
    tasks = []
    with calls.call_sink(made.append):
        for item, scope in zip(items, scopes, strict=True):
            with calls.call_scope(**scope):
                tasks.append((contextvars.copy_context(), item))
    out: list[Any] = [None] * len(tasks)
    stop: BaseException | None = None
    if workers <= 1:
        for i, (ctx, item) in enumerate(tasks):
            try:
                out[i] = ctx.run(fn, item)
            except EndpointDown as exc:
                stop = exc
                break
        return out, made, stop
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(ctx.run, fn, item): i for i, (ctx, item) in enumerate(tasks)}
        for future in as_completed(futures):
            if future.cancelled():  # not started when the batch was stopped: not judged
                continue
            try:
                out[futures[future]] = future.result()
            except EndpointDown as exc:
                stop = stop or exc
                for other in futures:
                    other.cancel()
            except BaseException:
                for other in futures:
                    other.cancel()
                raise
    return out, made, stop


def judge_until_stop(model: Any, prompt: str, items: list[dict[str, str]], *, scopes: list[dict[str, Any]] | None = None,
                     workers: int = 1, temperature: float | None = None
                     ) -> tuple[list[dict[str, Any] | None], list[CallRecord], BaseException | None]:
    """Judge every item (the judge's inputs) with ``prompt`` at ``temperature`` until a fault stops
    every later call: the judge records in item order (None: not judged), every call made (each
    carrying its item's scope), and that fault (None: every item was judged)."""
    role = judge_role(model, prompt, temperature=temperature)
    return run_scoped(lambda inputs: judge_record(role, prompt, inputs), items, scopes or [{} for _ in items],
                      workers=workers)


def judge_all(model: Any, prompt: str, items: list[dict[str, str]], *, scopes: list[dict[str, Any]] | None = None,
              workers: int = 1, temperature: float | None = None) -> tuple[list[dict[str, Any]], list[CallRecord]]:
    """Judge every item (the judge's inputs) with ``prompt`` at ``temperature``; the judge records in
    item order, and every call made (each carrying its item's scope). A fault that stops every
    later call is raised."""
    out, made, stop = judge_until_stop(model, prompt, items, scopes=scopes, workers=workers, temperature=temperature)
    if stop is not None:
        raise stop
    return out, made  # type: ignore[return-value]
