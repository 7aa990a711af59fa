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

from memlab.runfolder.probe_record import ProbeEvent, ProbeRow
from memlab.scoring import any_gold_form, contains, gold_present, is_abstention, token_f1
from memlab.scoring.explain import explain_carried, explain_presence, explain_sources

from memlab.scoring.metric_registry import (METRICS, NOT_ANSWERED, OFFLINE_ANSWER_WARNING, Aggregation, Metric, Score,  # noqa: F401
                                            Value, answer_columns, check_metric_names, metric)

NOT_APPLICABLE = Score(None)
"""The score of a probe a metric does not apply to (no value, nothing to explain)."""


def _gold_written(p: ProbeEvent) -> bool | None:
    return None if p.gold_written is None else bool(p.gold_written)


def _verdict(p: ProbeEvent) -> dict | None:
    """The judge's verdict, when it gave one (not an error)."""
    judge = p.judge
    return judge if judge and "error" not in judge else None


def _abstained(p: ProbeEvent) -> bool:
    verdict = _verdict(p)
    if verdict is not None and "abstained" in verdict:
        return bool(verdict["abstained"])
    return is_abstention(p.answer or "")


def _is_update(p: ProbeEvent) -> bool:
    return bool(p.superseded) and p.answerable


def _no_answer(p: ProbeEvent) -> str:
    return f"no answer: {str(p.error)[:120]}"


def _abstention(p: ProbeEvent) -> str:
    """Whether the answer abstains, and who said so (the judge's verdict when it gave one)."""
    verdict = _verdict(p)
    by = f"judge ({verdict.get('model') or 'judge'}): " if verdict is not None and "abstained" in verdict else ""
    answer = str(p.answer or "")[:80]
    return by + (f"the answer says it does not know: '{answer}'" if _abstained(p) else f"the answer does not abstain: '{answer}'")


UPDATE_LEVELS: tuple[tuple[str, bool | None], ...] = (
    ("current_only", True), ("both", False), ("stale_only", False), ("neither", False))


def update_outcome(text: str | None, p: ProbeEvent) -> str:
    """Which values of a knowledge update ``text`` holds: ``current_only``, ``both``,
    ``stale_only`` or ``neither`` (current: the gold answer; stale: any superseded value)."""
    current = gold_present(text, p.gold, p.match)
    stale = any(contains(text, s) for s in p.superseded)
    return {(True, False): "current_only", (True, True): "both", (False, True): "stale_only"}.get((current, stale), "neither")


def _update_score(p: ProbeEvent, where: str) -> Score:
    """The update outcome of the context or the answer, and which values it holds."""
    text = p.context if where == "context" else p.answer

    def why() -> str:
        stale = [s for s in p.superseded if contains(text, s)]
        current = explain_presence(p.gold, p.match, p.context_items if where == "context" else None, text, where=where)
        return current + ("; stale value(s) present: " + ", ".join(f"'{s}'" for s in stale) if stale else "; no stale value")

    return Score(update_outcome(text, p), why)


@metric("evidence_recall", "string recall: a gold answer (normalised, aliases included) is in the injected context",
        higher_is_better=True, ceiling=_gold_written)
def evidence_recall(p: ProbeEvent) -> Score:
    if not p.answerable:
        return NOT_APPLICABLE
    return Score(float(gold_present(p.context, p.gold, p.match)),
                 lambda: explain_presence(p.gold, p.match, p.context_items, p.context))


@metric("provenance_recall", "provenance recall: share of evidence turns among the context's source turns "
        "(credits a summary or fact for its sources even when the value was lost)", higher_is_better=True)
def provenance_recall(p: ProbeEvent) -> Score:
    ev = p.evidence
    if not ev or not p.answerable:
        return NOT_APPLICABLE
    have = set(p.context_source_turn_ids)
    return Score(sum(e in have for e in ev) / len(ev), lambda: explain_sources(ev, p.context_source_turn_ids))


@metric("content_recall", "content-preserving recall: share of evidence turns with a context item derived from them "
        "that still carries a gold form", higher_is_better=True, ceiling=_gold_written)
def content_recall(p: ProbeEvent) -> Score:
    ev = p.evidence
    items = p.context_items
    if not ev or not p.answerable or items is None:
        return NOT_APPLICABLE
    carried: set[str] = set()
    for item in items:
        sources = set(item.get("source_turn_ids") or []) & set(ev)
        if sources - carried and any_gold_form(item.get("text"), p.gold):
            carried |= sources
    return Score(len(carried) / len(ev), lambda: explain_carried(ev, p.gold, items))


@metric("answer_correct", "answer is right: LLM judge when configured, else normalised gold containment; "
        "for abstention probes: the agent abstained", scores_answer=True, higher_is_better=True)
def answer_correct(p: ProbeEvent) -> Score:
    if p.error:
        return Score(0.0, _no_answer(p))
    if p.judge and "error" in p.judge:
        return NOT_APPLICABLE  # the judge failed: no verdict, and a containment score would mix two metrics in one mean
    if p.abstain:  # right when it abstains (the judge's ``abstained``, else refusal detection)
        return Score(float(_abstained(p)), lambda: _abstention(p))
    verdict = _verdict(p)
    said = ""
    if verdict is not None and "correct" in verdict:
        said = f"judge ({verdict.get('model') or 'judge'}): {'correct' if verdict['correct'] else 'wrong'}; "
    if not p.gold:
        return NOT_APPLICABLE
    why = lambda: said + explain_presence(p.gold, p.match, None, p.answer, where="answer")  # noqa: E731
    if said:
        return Score(float(bool(verdict["correct"])), why)
    return Score(float(gold_present(p.answer, p.gold, p.match)), why)


@metric("answer_f1", "best token F1 of the answer against any gold form (answerable probes)", scores_answer=True, higher_is_better=True)
def answer_f1(p: ProbeEvent) -> Score:
    if not p.answerable:
        return NOT_APPLICABLE
    if p.error:
        return Score(0.0, _no_answer(p))
    if not p.answer:
        return Score(0.0, "the answer is empty")
    f1, form = max((token_f1(p.answer, form), form) for forms in p.gold for form in forms)
    return Score(f1, lambda: f"best token F1 {f1:.2f} against '{form}'")


@metric("update_context", "knowledge update: which values the context holds (current only / both / stale only / neither)",
        higher_is_better=None, aggregation="proportions", levels=UPDATE_LEVELS)
def update_context(p: ProbeEvent) -> Score:
    return _update_score(p, "context") if _is_update(p) else NOT_APPLICABLE


@metric("update_answer", "knowledge update: which values the answer asserts (current only / both / stale only / neither)",
        scores_answer=True, higher_is_better=None, aggregation="proportions", levels=UPDATE_LEVELS)
def update_answer(p: ProbeEvent) -> Score:
    if not _is_update(p):
        return NOT_APPLICABLE
    return Score("neither", _no_answer(p)) if p.error else _update_score(p, "answer")


@metric("update_correct", "knowledge update: the answer gives the current value and no superseded one",
        scores_answer=True, higher_is_better=True)
def update_correct(p: ProbeEvent) -> Score:
    outcome = update_answer(p)
    if outcome.value is None:
        return NOT_APPLICABLE
    return Score(float(outcome.value == "current_only"), lambda: f"{outcome.value}: {outcome.explanation}")


@metric("abstain_when_should", "abstention probe: the agent said it does not know", scores_answer=True, higher_is_better=True)
def abstain_when_should(p: ProbeEvent) -> Score:
    if not p.abstain:
        return NOT_APPLICABLE
    if p.error:
        return Score(0.0, _no_answer(p))
    return Score(float(_abstained(p)), lambda: _abstention(p))


@metric("false_abstention", "answerable probe: the agent wrongly said it does not know", scores_answer=True, higher_is_better=False)
def false_abstention(p: ProbeEvent) -> Score:
    if not p.answerable or p.error:
        return NOT_APPLICABLE
    return Score(float(_abstained(p)), lambda: _abstention(p))


@metric("forbidden_leak", "injection: a planted string appears in the context or the answer", higher_is_better=False)
def forbidden_leak(p: ProbeEvent) -> Score:
    if not p.forbidden:
        return NOT_APPLICABLE
    found = [(f, w) for f in p.forbidden for w, text in (("context", p.context), ("answer", p.answer)) if contains(text, f)]
    return Score(float(bool(found)), lambda: "; ".join(f"planted '{f}' in the {w}" for f, w in found)
                 or "no planted string in the context or the answer")


@metric("errored", "the probe could not be answered (model failure after retries)", higher_is_better=False)
def errored(p: ProbeEvent) -> Score:
    if p.error:
        return Score(1.0, _no_answer(p))
    return Score(0.0, "answered" if p.answered else "no failure; " + NOT_ANSWERED)


def score_probe(record: ProbeRow, names: Sequence[str] | None = None) -> dict[str, Score]:
    """Every metric's (or ``names``') score of the probe: its value (float for a mean metric, level
    name for proportions, None where the metric does not apply) and why."""
    return {name: METRICS.get(name).score(record.event) for name in names or METRICS.names()}


def explain_probe(record: ProbeRow, names: Sequence[str] | None = None) -> dict[str, str]:
    """Why the probe scored what it did, per metric that applies to it and explains itself (the
    explanations of :func:`score_probe`)."""
    names = [n for n in names or METRICS.names() if METRICS.get(n).explains]
    return {name: s.explanation for name, s in score_probe(record, names).items()
            if s.value is not None and s.explanation}


def score_values(records: Sequence[ProbeRow], names: Sequence[str] | None = None) -> list[dict[str, Value]]:
    """Every metric's (or ``names``') value for every record (the tables' path: no explanation is
    made), after each metric's ``prepare`` saw them all (once per distinct hook): the values
    :func:`score_probe` gives, with repeated work done once."""
    events = [r.event for r in records]
    hooks: list[Callable[[Sequence[ProbeEvent]], None]] = []
    metrics = [METRICS.get(name) for name in names or METRICS.names()]
    for m in metrics:
        if m.prepare is not None and m.prepare not in hooks:
            hooks.append(m.prepare)
    for hook in hooks:
        hook(events)
    return [{m.name: m.value(p) for m in metrics} for p in events]


# The ragas metrics register themselves into METRICS (ragas itself is imported only when scoring).
from memlab.analysis import ragas_metrics as _ragas_metrics  # noqa: E402,F401
