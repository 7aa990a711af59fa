"""The baseline a regression gate compares against: one run's results, pinned and committable.

``memlab baseline RUN_DIR --out FILE`` writes it; ``memlab check`` (:mod:`memlab.analysis.gate`) reads it.
A baseline holds what produced the numbers (dataset hashes, models with their versions, the
judge and its prompt hash, code version, metric definitions) — so a gate can refuse to compare
numbers measured with another yardstick — and the numbers themselves: per strategy and category
every metric with its interval, costs, and every probe's outcome (per-probe metric values,
answer, a context excerpt, context tokens), so a later run is compared probe by probe with a
paired test rather than mean against mean.

The same :func:`snapshot` describes the run being gated, so both sides are computed by one
function and differ only where the runs differ.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

BASELINE_FORMAT = "memlab-baseline"
BASELINE_VERSION = 1
"""Bump when a field's meaning changes; an older or newer file is refused with a clear message."""

EXCERPT_CHARS = 300


class BaselineError(ValueError):
    """A baseline file that cannot be used; the message names the file, the field and the problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProbeOutcome(_Strict):
    """One probe as one strategy handled it: enough to pair it with a later run and show a flip."""

    strategy: str
    dataset: str
    conversation_id: str
    probe_id: str
    namespace: str | None = Field(default=None, description="The user (memory namespace) the conversation was played "
                                  "in: the cluster of the paired interval (older files: the conversation).")
    category: str
    question: str
    answer: str | None
    error: str | None = None
    context_excerpt: str = Field(description="The injected context around the first gold form (else its start).")
    context_tokens: int
    latency_s: float | None = Field(description="Seconds to assemble the memory context and answer the probe.")
    scores: dict[str, float] = Field(description="Per reported metric column (and cost column) its value; "
                                     "columns that do not apply to the probe are left out.")

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.strategy, self.dataset, self.conversation_id, self.probe_id)


class MetricValue(_Strict):
    mean: float
    ci_low: float | None
    ci_high: float | None
    n: int


class StrategyCosts(_Strict):
    context_tokens_per_probe: float | None
    model_tokens_per_conv: float | None
    p95_latency_s: float | None = Field(description="95th percentile of the per-probe latency (context + answer).")


class StrategyBaseline(_Strict):
    components: str
    values: dict[str, dict[str, MetricValue]] = Field(description="Category ('all' first) → column → value.")
    costs: StrategyCosts


class MetricDefinition(_Strict):
    description: str
    higher_is_better: bool | None
    aggregation: str
    levels: list[tuple[str, bool | None]]
    definition: str = Field(description="Hash of the declaration and the scoring function's source.")


class DatasetPin(_Strict):
    name: str
    version: str | None
    hash: str
    conversations: int | None = None
    probes: int | None = None
    split: str | None = None
    """The dataset's declared split (``meta.split``: ``dev`` or ``eval``; None: undeclared)."""


class JudgePin(_Strict):
    model: str | None
    prompt: str | None = None
    prompt_hash: str | None = None


class Baseline(_Strict):
    """A run's results as a gate needs them (see the module docstring)."""

    format: Literal["memlab-baseline"] = BASELINE_FORMAT
    format_version: int = BASELINE_VERSION
    created_at: str
    source_run: str
    run_status: str | None
    config_name: str | None
    code_version: str | None
    datasets: list[DatasetPin]
    models: dict[str, str] = Field(description="Role (and `default`) → model id as recorded, version included.")
    judge: JudgePin | None
    embedder: str | None
    metrics: dict[str, MetricDefinition]
    scoring_hash: str = Field(description="Hash of memlab's scoring code (memlab/analysis/metrics.py, memlab/scoring/).")
    bootstrap: dict[str, float]
    intervals: str | None = Field(default=None, description="How the intervals were made (memlab.analysis.stats method).")
    offline_answers: bool | None = Field(default=None, description="The answers came from the offline stand-in "
                                         "(answer metrics are then not gated by default).")
    strategies: dict[str, StrategyBaseline]
    probes: list[ProbeOutcome]


# -- what produced the numbers --------------------------------------------------------------------
def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def metric_definitions() -> dict[str, MetricDefinition]:
    """Every registered metric's declaration and a hash of it and its function's source: a metric
    whose meaning changed gets another hash, so a gate never compares across the change."""
    from memlab.analysis.metrics import METRICS

    out = {}
    for name in METRICS.names():
        m = METRICS.get(name)
        try:
            source = inspect.getsource(m.fn)
        except (OSError, TypeError):
            source = f"{m.fn.__module__}.{m.fn.__qualname__}"
        decl = json.dumps([m.higher_is_better, m.aggregation, [list(lv) for lv in m.levels], m.description])
        out[name] = MetricDefinition(description=m.description, higher_is_better=m.higher_is_better,
                                     aggregation=m.aggregation, levels=list(m.levels), definition=_sha(decl + source))
    return out


def scoring_hash() -> str:
    """Hash of the code every metric's text comparison goes through (normalisation, matching)."""
    import memlab.analysis.metrics
    import memlab.scoring

    files = [Path(memlab.analysis.metrics.__file__), *sorted(Path(memlab.scoring.__file__).parent.glob("*.py"))]
    return _sha("".join(f.name + f.read_text(encoding="utf-8") for f in files))


def model_pins(manifest: dict[str, Any]) -> dict[str, str]:
    """Role → model id (version included, e.g. ``offline-1+382eb34f``) from a run manifest."""
    models = manifest.get("models") or {}

    def label(d: dict[str, Any] | None) -> str:
        d = d or {}
        return f"{d.get('provider') or '?'}:{d.get('model') or '?'}"

    out = {"default": label(models.get("default"))} if models.get("default") else {}
    out.update({role: label(d) for role, d in sorted((models.get("roles") or {}).items())})
    return out


def judge_pin(manifest: dict[str, Any]) -> JudgePin | None:
    """The judge and its prompt hash; the prompt hash is None when the run did not record one."""
    judge = manifest.get("judge")
    if isinstance(judge, dict):
        model = judge.get("model")
        if isinstance(model, dict):
            model = f"{model.get('provider') or '?'}:{model.get('model') or '?'}"
        return JudgePin(model=model, prompt=judge.get("prompt"), prompt_hash=judge.get("prompt_hash"))
    spec = (manifest.get("config") or {}).get("judge")
    if spec:
        return JudgePin(model=f"{spec.get('provider') or '?'}:{spec.get('model') or '?'}")
    return None


# -- the numbers ------------------------------------------------------------------------------------
def excerpt(context: str | None, gold: list[list[str]] | None, width: int = EXCERPT_CHARS) -> str:
    """Up to ``width`` characters of ``context`` around the first gold form found in it (else its
    start), whitespace collapsed: what a reviewer needs to see whether the answer was there."""
    text = re.sub(r"\s+", " ", context or "").strip()
    if len(text) <= width:
        return text
    lower = text.lower()
    at = min((i for forms in gold or [] for form in forms if form and (i := lower.find(form.lower())) >= 0), default=-1)
    start = 0 if at < 0 else max(0, min(at - width // 3, len(text) - width))
    return ("…" if start else "") + text[start:start + width] + ("…" if start + width < len(text) else "")


def _finite(x: Any) -> float | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)


def probe_outcomes(res: Any) -> list[ProbeOutcome]:
    """Every scored probe of a run (:class:`memlab.analysis.results.RunResults`) as a :class:`ProbeOutcome`."""
    from memlab.analysis.metrics import METRICS
    from memlab.analysis.results import COST_COLUMNS

    probes = res.probes
    if probes.empty:
        return []
    columns: dict[str, np.ndarray] = {}
    for name in METRICS.names():
        values = [None if isinstance(v, float) and np.isnan(v) else v for v in probes[name].tolist()]
        columns.update(METRICS.get(name).indicators(values))
    for col in COST_COLUMNS:
        if col in probes:
            columns[col] = probes[col].to_numpy(dtype=float)
    out = []
    for i, rec in enumerate(probes.to_dict("records")):
        rec = {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in rec.items()}
        latency = None
        if rec.get("answer_latency_s") is not None:
            latency = float(rec.get("retrieval_total_s") or 0.0) + float(rec["answer_latency_s"])
        out.append(ProbeOutcome(
            strategy=str(rec["strategy"]), dataset=str(rec["dataset"]), conversation_id=str(rec["conversation_id"]),
            probe_id=str(rec["probe_id"]), namespace=res.cluster_of(rec["dataset"], rec["conversation_id"])[1], category=str(rec.get("category")), question=str(rec.get("question") or ""),
            answer=rec.get("answer"), error=rec.get("error"),
            context_excerpt=excerpt(rec.get("context") if "_off" not in rec else res.record(rec).get("context"), rec.get("gold")),
            context_tokens=int(rec.get("context_tokens") or 0), latency_s=latency,
            scores={col: float(arr[i]) for col, arr in columns.items() if not np.isnan(arr[i])}))
    return out


def _costs(res: Any, outcomes: list[ProbeOutcome]) -> dict[str, StrategyCosts]:
    cost = res.cost()
    out = {}
    for strategy in res.strategies:
        mine = [o for o in outcomes if o.strategy == strategy]
        lat = [o.latency_s for o in mine if o.latency_s is not None]
        tokens = None
        if strategy in cost.index and "prompt_tokens_per_conv" in cost:
            tokens = _finite(cost.loc[strategy, "prompt_tokens_per_conv"] + cost.loc[strategy, "completion_tokens_per_conv"])
        out[strategy] = StrategyCosts(
            context_tokens_per_probe=float(np.mean([o.context_tokens for o in mine])) if mine else None,
            model_tokens_per_conv=tokens, p95_latency_s=float(np.percentile(lat, 95)) if lat else None)
    return out


def snapshot(res: Any) -> Baseline:
    """Describe a loaded run (:class:`memlab.analysis.results.RunResults`) as a :class:`Baseline`."""
    m = res.manifest
    outcomes = probe_outcomes(res)
    table = res.metrics_table(by_category=True)
    costs = _costs(res, outcomes)
    components = res.components()
    strategies: dict[str, StrategyBaseline] = {}
    for strategy in res.strategies:
        values: dict[str, dict[str, MetricValue]] = {}
        for row in table[table["strategy"] == strategy].itertuples():
            values.setdefault(str(row.category), {})[str(row.metric)] = MetricValue(
                mean=float(row.mean), ci_low=_finite(row.ci_low), ci_high=_finite(row.ci_high), n=int(row.n))
        ordered = {"all": values.pop("all", {}), **dict(sorted(values.items()))}
        strategies[strategy] = StrategyBaseline(components=components.get(strategy, ""), values=ordered,
                                                costs=costs[strategy])
    return Baseline(
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), source_run=str(m.get("run_id") or res.path.name),
        run_status=m.get("status"), config_name=m.get("name"), code_version=m.get("code_version"),
        datasets=[DatasetPin(name=d["name"], version=str(d.get("version")) if d.get("version") is not None else None,
                             hash=d["hash"], conversations=d.get("conversations"), probes=d.get("probes"),
                             split=d.get("split"))
                  for d in m.get("datasets", [])],
        models=model_pins(m), judge=judge_pin(m), embedder=(m.get("embedder") or {}).get("model"),
        metrics=metric_definitions(), scoring_hash=scoring_hash(),
        bootstrap={"n_boot": res.intervals.n_boot, "seed": res.intervals.seed}, intervals=res.intervals.method,
        offline_answers=res.offline_answers,
        strategies=strategies, probes=outcomes)


# -- files -------------------------------------------------------------------------------------------
def make_baseline(run_dir: str | Path) -> Baseline:
    """The baseline of a finished run; refuses a run that did not complete without failures (its
    numbers would pin a broken state)."""
    from memlab.analysis.results import load_run

    res = load_run(run_dir)
    status = res.manifest.get("status")
    if status != "completed":
        failed = (res.manifest.get("units") or {}).get("failed") or []
        detail = f"; failed units: {'; '.join(failed[:3])}" if failed else ""
        raise BaselineError(f"{run_dir}: run status is {status!r}, a baseline needs a completed run without "
                            f"failures{detail}")
    answered = set(res.probes["strategy"]) if not res.probes.empty else set()
    empty = [s for s in res.strategies if s not in answered]
    if not res.strategies or empty:  # a gate against it would compare nothing and pass
        raise BaselineError(f"{run_dir}: {'no probes were answered' if not answered else 'no probes of ' + ', '.join(empty)}"
                            ": a baseline needs probes for every strategy it pins (do its datasets have probes?)")
    return snapshot(res)


def write_baseline(run_dir: str | Path, out: str | Path) -> Path:
    """Write the baseline of ``run_dir`` to ``out`` (JSON); returns the path."""
    base = make_baseline(run_dir)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(base), encoding="utf-8")
    return out


def dumps(base: Baseline) -> str:
    """The file's text: the header indented, then one probe per line, so a refreshed baseline's diff
    in review shows which probes moved."""
    data = base.model_dump(mode="json")
    probes = data.pop("probes")
    head = json.dumps(data, indent=1, ensure_ascii=False)
    lines = ",\n".join("  " + json.dumps(p, ensure_ascii=False, separators=(",", ":")) for p in probes)
    return head[:-2] + ',\n "probes": [\n' + lines + "\n ]\n}\n"


def load_baseline(path: str | Path) -> Baseline:
    """Read a baseline file, with a clear error for a missing, malformed or incompatible one."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no baseline file; write one with `memlab baseline RUN_DIR --out {path}`")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise BaselineError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    if not isinstance(data, dict) or data.get("format") != BASELINE_FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise BaselineError(f"{path}: not a memlab baseline (field `format` is {got!r}, expected {BASELINE_FORMAT!r})")
    version = data.get("format_version")
    if version != BASELINE_VERSION:
        raise BaselineError(f"{path}: baseline format_version {version!r}, this memlab reads version {BASELINE_VERSION}; "
                            "write it again with `memlab baseline RUN_DIR --out FILE`")
    try:
        return Baseline.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        more = f" (and {exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
        raise BaselineError(f"{path}: invalid baseline: {problems}{more}") from None
