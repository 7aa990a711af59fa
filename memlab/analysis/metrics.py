"""Probe-level metrics, declared lm-eval style: name, direction, aggregation, ceiling, which probes.

Metrics are computed from the recorded probe records at report time, so a scoring change never
needs a re-run. Each metric applies to a subset of probes (knowledge-update outcomes only to
probes with a superseded value, ...) and returns None for the others. Every comparison of text
goes through :mod:`memlab.scoring`, which depends on nothing under test (no model, no role, no
strategy), so tuning the system can never move the yardstick.

A metric's **aggregation** says how its per-probe values become a table entry: ``mean`` for a
binary or continuous score (the table shows the mean), ``proportions`` for a categorical outcome
(the table shows the share of each level). Its **ceiling** says whether a probe can be scored a
hit at all (string recall cannot credit a gold answer that no turn ever wrote). ``docs/metrics.md``
documents every metric.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from memlab.scoring import any_gold_form, contains, gold_present, is_abstention, token_f1
from memlab.scoring.explain import explain_carried, explain_presence, explain_sources

from memlab.scoring.metric_registry import (METRICS, OFFLINE_ANSWER_WARNING, Aggregation, Metric, Probe,  # noqa: F401
                                            Value, answer_columns, check_metric_names, metric)


def _answerable(p: Probe) -> bool:
    return not p.get("abstain") and bool(p.get("gold"))


def _match(p: Probe) -> str:
    return p.get("gold_match") or "any"


def _gold_written(p: Probe) -> bool | None:
    value = p.get("gold_written")
    return None if value is None else bool(value)


def _abstained(p: Probe) -> bool:
    judge = p.get("judge") or {}
    if "abstained" in judge and "error" not in judge:
        return bool(judge["abstained"])
    return is_abstention(p.get("answer") or "")


def _is_update(p: Probe) -> bool:
    return bool(p.get("superseded")) and _answerable(p)


UPDATE_LEVELS: tuple[tuple[str, bool | None], ...] = (
    ("current_only", True), ("both", False), ("stale_only", False), ("neither", False))


def update_outcome(text: str | None, p: Probe) -> str:
    """Which values of a knowledge update ``text`` holds: ``current_only``, ``both``,
    ``stale_only`` or ``neither`` (current: the gold answer; stale: any superseded value)."""
    current = gold_present(text, p["gold"], _match(p))
    stale = any(contains(text, s) for s in p["superseded"])
    return {(True, False): "current_only", (True, True): "both", (False, True): "stale_only"}.get((current, stale), "neither")


def _explain_context(p: Probe) -> str | None:
    if not _answerable(p):
        return None
    return explain_presence(p["gold"], _match(p), p.get("context_items"), p.get("context"))


def _explain_answer(p: Probe) -> str | None:
    if p.get("error"):
        return f"no answer: {str(p['error'])[:120]}"
    judge = p.get("judge") or {}
    verdict = ""
    if "correct" in judge and "error" not in judge:
        verdict = f"judge ({judge.get('model') or 'judge'}): {'correct' if judge['correct'] else 'wrong'}; "
    if p.get("abstain"):
        return verdict + ("the answer abstains" if _abstained(p) else f"the answer does not abstain: '{str(p.get('answer'))[:80]}'")
    if not p.get("gold"):
        return None
    return verdict + explain_presence(p["gold"], _match(p), None, p.get("answer"), where="answer")


def _explain_abstained(p: Probe) -> str | None:
    if p.get("error"):
        return f"no answer: {str(p['error'])[:120]}"
    answer = str(p.get("answer") or "")
    return f"the answer says it does not know: '{answer[:80]}'" if _abstained(p) else f"the answer does not abstain: '{answer[:80]}'"


def _explain_sources(p: Probe) -> str | None:
    if not p.get("evidence") or not _answerable(p):
        return None
    return explain_sources(p["evidence"], p.get("context_source_turn_ids") or [])


def _explain_carried(p: Probe) -> str | None:
    if not p.get("evidence") or not _answerable(p):
        return None
    return explain_carried(p["evidence"], p["gold"], p.get("context_items"))


def _explain_update(field: str) -> Callable[[Probe], str | None]:
    def explain(p: Probe) -> str | None:
        if not _is_update(p):
            return None
        text = p.get(field)
        stale = [s for s in p["superseded"] if contains(text, s)]
        current = explain_presence(p["gold"], _match(p), p.get("context_items") if field == "context" else None, text,
                                   where=field)
        return current + ("; stale value(s) present: " + ", ".join(f"'{s}'" for s in stale) if stale else "; no stale value")
    return explain


def _explain_leak(p: Probe) -> str | None:
    if not p.get("forbidden"):
        return None
    found = [(f, w) for f in p["forbidden"] for w in ("context", "answer") if contains(p.get(w), f)]
    return "; ".join(f"planted '{f}' in the {w}" for f, w in found) or "no planted string in the context or the answer"


@metric("evidence_recall", "string recall: a gold answer (normalised, aliases included) is in the injected context",
        higher_is_better=True, ceiling=_gold_written, explain=_explain_context)
def evidence_recall(p: Probe) -> Value:
    if not _answerable(p):
        return None
    return float(gold_present(p.get("context"), p["gold"], _match(p)))


@metric("provenance_recall", "provenance recall: share of evidence turns among the context's source turns "
        "(credits a summary or fact for its sources even when the value was lost)", higher_is_better=True, explain=_explain_sources)
def provenance_recall(p: Probe) -> Value:
    ev = p.get("evidence") or []
    if not ev or not _answerable(p):
        return None
    have = set(p.get("context_source_turn_ids") or [])
    return sum(e in have for e in ev) / len(ev)


@metric("content_recall", "content-preserving recall: share of evidence turns with a context item derived from them "
        "that still carries a gold form", higher_is_better=True, ceiling=_gold_written, explain=_explain_carried)
def content_recall(p: Probe) -> Value:
    ev = p.get("evidence") or []
    items = p.get("context_items")
    if not ev or not _answerable(p) or items is None:
        return None
    carried: set[str] = set()
    for item in items:
        sources = set(item.get("source_turn_ids") or []) & set(ev)
        if sources - carried and any_gold_form(item.get("text"), p["gold"]):
            carried |= sources
    return len(carried) / len(ev)


@metric("answer_correct", "answer is right: LLM judge when configured, else normalised gold containment; "
        "for abstention probes: the agent abstained", scores_answer=True, higher_is_better=True, explain=_explain_answer)
def answer_correct(p: Probe) -> Value:
    if p.get("error"):
        return 0.0
    if "error" in (p.get("judge") or {}):
        return None  # the judge failed: no verdict, and a containment score would mix two metrics in one mean
    if p.get("abstain"):
        return float(_abstained(p))
    if not p.get("gold"):
        return None
    judge = p.get("judge") or {}
    if "correct" in judge and "error" not in judge:
        return float(bool(judge["correct"]))
    return float(gold_present(p.get("answer"), p["gold"], _match(p)))


@metric("answer_f1", "best token F1 of the answer against any gold form (answerable probes)", scores_answer=True, higher_is_better=True)
def answer_f1(p: Probe) -> Value:
    if not _answerable(p):
        return None
    if p.get("error") or not p.get("answer"):
        return 0.0
    return max(token_f1(p["answer"], form) for forms in p["gold"] for form in forms)


@metric("update_context", "knowledge update: which values the context holds (current only / both / stale only / neither)",
        higher_is_better=None, aggregation="proportions", levels=UPDATE_LEVELS, explain=_explain_update("context"))
def update_context(p: Probe) -> Value:
    if not _is_update(p):
        return None
    return update_outcome(p.get("context"), p)


@metric("update_answer", "knowledge update: which values the answer asserts (current only / both / stale only / neither)",
        scores_answer=True, higher_is_better=None, aggregation="proportions", levels=UPDATE_LEVELS, explain=_explain_update("answer"))
def update_answer(p: Probe) -> Value:
    if not _is_update(p):
        return None
    return "neither" if p.get("error") else update_outcome(p.get("answer"), p)


@metric("update_correct", "knowledge update: the answer gives the current value and no superseded one",
        scores_answer=True, higher_is_better=True, explain=_explain_update("answer"))
def update_correct(p: Probe) -> Value:
    outcome = update_answer(p)
    return None if outcome is None else float(outcome == "current_only")


@metric("abstain_when_should", "abstention probe: the agent said it does not know", scores_answer=True, higher_is_better=True,
        explain=_explain_abstained)
def abstain_when_should(p: Probe) -> Value:
    if not p.get("abstain"):
        return None
    return float(_abstained(p)) if not p.get("error") else 0.0


@metric("false_abstention", "answerable probe: the agent wrongly said it does not know", scores_answer=True, higher_is_better=False, explain=_explain_abstained)
def false_abstention(p: Probe) -> Value:
    if not _answerable(p) or p.get("error"):
        return None
    return float(_abstained(p))


@metric("forbidden_leak", "injection: a planted string appears in the context or the answer", higher_is_better=False, explain=_explain_leak)
def forbidden_leak(p: Probe) -> Value:
    if not p.get("forbidden"):
        return None
    return float(any(contains(p.get("context"), f) or contains(p.get("answer"), f) for f in p["forbidden"]))


@metric("errored", "the probe could not be answered (model failure after retries)", higher_is_better=False)
def errored(p: Probe) -> Value:
    return float(bool(p.get("error")))


def explain_probe(p: Probe, names: Sequence[str] | None = None) -> dict[str, str]:
    """Why the probe scored what it did, per metric that explains itself (and applies to it)."""
    out = {}
    for name in names or METRICS.names():
        m = METRICS.get(name)
        if m.explain is not None and m.fn(p) is not None:  # only where the metric applies
            why = m.explain(p)
            if why:
                out[name] = why
    return out


def score_probe(p: Probe) -> dict[str, Value]:
    """Every metric's per-probe value (float for a mean metric, level name for proportions, None)."""
    return {name: METRICS.get(name).fn(p) for name in METRICS.names()}


def score_probes(records: Sequence[Probe]) -> list[dict[str, Value]]:
    """:func:`score_probe` of every record, after each metric's ``prepare`` saw them all (once per
    distinct hook): the same values, with repeated work done once."""
    hooks: list[Callable[[Sequence[Probe]], None]] = []
    for name in METRICS.names():
        hook = METRICS.get(name).prepare
        if hook is not None and hook not in hooks:
            hooks.append(hook)
    for hook in hooks:
        hook(records)
    return [score_probe(p) for p in records]


# The ragas metrics register themselves into METRICS (ragas itself is imported only when scoring).
from memlab.analysis import ragas_metrics as _ragas_metrics  # noqa: E402,F401
