"""The metric registry: what a metric is (name, direction, aggregation, ceiling), what it gives per
probe (a :class:`Score`: the value and why) and the registry metrics are declared into, lm-eval style.

Kept apart from the metrics themselves (:mod:`memlab.analysis.metrics`, :mod:`memlab.analysis.ragas_metrics`)
so that anything that only needs to *name* metrics — a run config checking its ``metrics:`` and gate
columns — depends on this small module and not on the scoring code. The built-in definitions are the
registry's built-ins: their module is imported on the first lookup (:class:`memlab.registry.Registry`),
and a plugin declares its own metric with :func:`metric` like they do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from memlab.runfolder.probe_record import ProbeEvent
from memlab.registry import Registry, RegistryError

DEFINITIONS = "memlab.analysis.metrics"
"""The module that declares the built-in metrics (and imports the ragas ones)."""


Value = float | str | None
NOT_ANSWERED = "not answered: a retrieval-only run (answer_probes: false) assembles the context and asks no answer"
Aggregation = Literal["mean", "proportions"]


class Score:
    """A metric's value for one probe and its explanation — why the probe scored that (which gold
    form, found where / the nearest miss) — made by the same function, so they cannot drift apart.

    ``why`` is the explanation or a function that makes it: a table needs only values, over every
    probe of a run, while explanations are read for the few probes a page or a drill-down shows, so
    a metric passes a closure and it runs on the first read of :attr:`explanation` (then kept)."""

    __slots__ = ("value", "_why")

    def __init__(self, value: Value, why: str | Callable[[], str | None] | None = None) -> None:
        self.value = value
        self._why = why

    @property
    def explanation(self) -> str | None:
        why = self._why
        if callable(why):
            why = self._why = why()
        return why

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Score) and (self.value, self.explanation) == (other.value, other.explanation)

    __hash__ = None  # type: ignore[assignment]  (mutable cache: not hashable)

    def __repr__(self) -> str:
        return f"Score({self.value!r}, {self.explanation!r})"


@dataclass(frozen=True)
class Metric:
    """A per-probe score and how to report it.

    ``higher_is_better`` is the direction of a ``mean`` metric; a ``proportions`` metric gives a
    direction per level in ``levels`` (None: no better or worse)."""

    name: str
    description: str
    fn: Callable[[ProbeEvent], Score | Value]
    """The probe's :class:`Score` (a bare value is taken as a score without explanation: :meth:`score`)."""
    higher_is_better: bool | None
    aggregation: Aggregation = "mean"
    levels: tuple[tuple[str, bool | None], ...] = ()
    ceiling: Callable[[ProbeEvent], bool | None] | None = field(default=None, compare=False)
    """Whether a probe can be scored a hit at all (None: unknown, e.g. an older run); absent: always."""
    requires: Callable[[], None] | None = field(default=None, compare=False)
    """Raises ``ValueError`` (with the install hint) when an optional dependency the metric needs is
    missing: checked only when a config or report asks for the metric by name."""
    scores_answer: bool = field(default=False, compare=False)
    """The metric judges the agent's *answer* (not the injected context): with the offline
    extractive answerer it measures that stand-in, not the memory, so tables mark it and the gate
    does not gate it by default (:func:`answer_columns`, docs/offline-model.md)."""
    prepare: Callable[[Sequence[ProbeEvent]], None] | None = field(default=None, compare=False)
    """Called once with every probe record about to be scored, before ``fn`` is called on each: a
    metric whose per-probe work repeats across probes (the same context, the same answer) does
    it there once, in bulk; ``fn`` must give the same values with or without it."""
    explains: bool = field(default=True, compare=False)
    """``fn`` gives an explanation beside its value. False for a metric of bare values (ragas's):
    :func:`memlab.analysis.metrics.explain_probe` does not compute it — a probe page asking why would
    otherwise load ragas and an embedding model to learn there is nothing to say."""

    def score(self, p: ProbeEvent) -> Score:
        """The probe's value and explanation (a function returning a bare value, a plugin's, gives a
        score with no explanation). A metric that scores the answer does not apply to a probe that was
        not answered (a retrieval-only run): checked here, so no metric function has to."""
        if self.scores_answer and not p.answered:
            return Score(None, NOT_ANSWERED)
        out = self.fn(p)
        return out if isinstance(out, Score) else Score(out)

    def value(self, p: ProbeEvent) -> Value:
        """The probe's value alone (the explanation, a closure, is never made)."""
        if self.scores_answer and not p.answered:
            return None
        out = self.fn(p)
        return out.value if isinstance(out, Score) else out

    def columns(self) -> list[tuple[str, bool | None]]:
        """The table columns this metric reports, with their direction: its own name for a mean,
        ``name.level`` per level for proportions."""
        if self.aggregation == "mean":
            return [(self.name, self.higher_is_better)]
        return [(f"{self.name}.{level}", hib) for level, hib in self.levels]

    def indicators(self, values: Sequence[Value]) -> dict[str, np.ndarray]:
        """Per reported column, the per-probe numbers its aggregate is the mean of (NaN: not
        applicable). For proportions, each level's indicator, so its mean is the level's share."""
        if self.aggregation == "mean":
            return {self.name: np.array([np.nan if v is None else float(v) for v in values], dtype=float)}
        return {f"{self.name}.{level}": np.array([np.nan if v is None else float(v == level) for v in values], dtype=float)
                for level, _ in self.levels}

    def can_hit(self, p: ProbeEvent) -> float:
        """1.0 when the probe can be scored a hit, 0.0 when it cannot, NaN when unknown."""
        if self.ceiling is None:
            return 1.0
        ok = self.ceiling(p)
        return np.nan if ok is None else float(ok)


METRICS: Registry[Metric] = Registry("metric", builtins=DEFINITIONS)


MetricFn = Callable[[ProbeEvent], Score | Value]


def metric(name: str, description: str, *, higher_is_better: bool | None, aggregation: Aggregation = "mean",
           levels: tuple[tuple[str, bool | None], ...] = (),
           ceiling: Callable[[ProbeEvent], bool | None] | None = None,
           requires: Callable[[], None] | None = None,
           scores_answer: bool = False,
           prepare: Callable[[Sequence[ProbeEvent]], None] | None = None,
           explains: bool = True) -> Callable[[MetricFn], MetricFn]:
    """Declare ``fn(probe) -> Score`` as metric ``name``: one function gives the value and why
    (``Score(value, why)``, ``why`` a string or a closure made beside the value). A function that
    returns a bare value (float, level name or None) is a metric without explanations; say so with
    ``explains=False`` and no probe page computes it to ask why."""
    if aggregation == "proportions" and not levels:
        raise ValueError(f"metric {name!r}: a proportions metric declares its levels")

    def deco(fn: MetricFn) -> MetricFn:
        METRICS.register(name, Metric(name, description, fn, higher_is_better, aggregation, levels, ceiling, requires,
                                      scores_answer, prepare, explains))
        return fn

    return deco


def answer_columns() -> set[str]:
    """Every reported column of a metric that scores the answer (``scores_answer``)."""
    return {col for name in METRICS.names() if METRICS.get(name).scores_answer for col, _ in METRICS.get(name).columns()}


OFFLINE_ANSWER_WARNING = ("answer metrics come from the offline extractive stand-in, not an LLM: they measure that "
                          "answerer, not the memory, and are not comparable with recall (docs/offline-model.md)")
"""The one-line warning every table, report and notebook shows beside offline answer metrics."""


def check_metric_names(names: Sequence[str], where: str = "metrics") -> list[str]:
    """``names`` if every one is a registered metric; else an error naming the entry, with did-you-mean."""
    out = []
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise ValueError(f"{where}[{i}]: a metric name is a string, got {type(name).__name__}")
        try:
            m = METRICS.get(name)
        except RegistryError as exc:
            raise ValueError(f"{where}[{i}]: {exc}") from None
        if m.requires is not None:
            try:
                m.requires()
            except ValueError as exc:
                raise ValueError(f"{where}[{i}]: metric {name!r}: {exc}") from None
        out.append(name)
    return out


COST_COLUMNS = {
    "context_tokens": "memory context tokens injected for the probe (cl100k)",
    "retrieval_latency_s": "seconds inside the store's search calls for the probe",
    "retrieval_total_s": "seconds assembling the probe's memory context (embedding, search, reranking)",
    "answer_latency_s": "seconds spent answering the probe",
}
"""Per-probe costs reported beside the metrics (means, no interval)."""


def directed_columns() -> dict[str, bool]:
    """Every column a gate can judge → its direction (True: higher is better): the metrics' reported
    columns that declare one, and the per-probe cost columns (lower is better)."""
    out = {col: hib for name in METRICS.names() for col, hib in METRICS.get(name).columns() if hib is not None}
    out.update({col: False for col in COST_COLUMNS})
    return out
