"""Judging many answers at once, outside a run: what ``rejudge`` and ``judge-audit`` share.

Each item is judged through a memlab :class:`~memlab.roles.program.Role`, so retries, the
record/replay cache and the token ledger apply as in a run. Calls are collected with the scope
the caller gives each item (which probe, strategy and attempt it belongs to), so a re-judged run
can account for its judge calls like the original did.
"""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from memlab.judging.prompts import judge_record, judge_role
from memlab.llm import calls
from memlab.llm.types import CallRecord


def build_judge(spec: Any) -> Any:
    """The judge's chat model from a ModelSpec (or a dict of one); the offline judge needs no embedder."""
    from memlab.llm.base import ModelSpec, make_model

    return make_model(spec if isinstance(spec, ModelSpec) else ModelSpec.model_validate(spec or {}))


def judge_all(model: Any, prompt: str, items: list[dict[str, str]], *, scopes: list[dict[str, Any]] | None = None,
              workers: int = 1, temperature: float | None = None) -> tuple[list[dict[str, Any]], list[CallRecord]]:
    """Judge every item (the judge's inputs) with ``prompt`` at ``temperature``; the judge records in
    item order, and every call made (each carrying its item's scope)."""
    role = judge_role(model, prompt, temperature=temperature)
    made: list[CallRecord] = []
    scopes = scopes or [{} for _ in items]
    tasks = []
    with calls.call_sink(made.append):
        for inputs, scope in zip(items, scopes, strict=True):
            with calls.call_scope(**scope):
                tasks.append((contextvars.copy_context(), inputs))
    if workers <= 1:
        out = [ctx.run(judge_record, role, prompt, inputs) for ctx, inputs in tasks]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            out = list(pool.map(lambda t: t[0].run(judge_record, role, prompt, t[1]), tasks))
    return out, made
