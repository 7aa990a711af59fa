"""Run configuration: which datasets, strategies, models and settings a run uses.

Written as YAML under ``evals/`` (or built in Python). Everything is validated up front so a
typo fails before any work starts (and before a run folder is created), with did-you-mean hints
from the registries: strategy components and their params, store backends and their options,
model providers, plugin modules.

Models are per role: ``model:`` is the default for every role, and ``models:`` overrides it for
a purpose (``agent``, ``extract``, ``gate``, ``consolidate``, ``summarize``, ``compress``,
``answer``, ``judge``) — so "offline extraction + real answers" is a configuration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from memlab.cost.budget import BudgetSpec
from memlab.judging.defaults import DEFAULT_JUDGE_PROMPT
from memlab.llm.base import ModelSpec
from memlab.llm.types import ROLE_PURPOSES
from memlab.registry import RegistryError
from memlab.strategies.composed import StrategySpec, check_safe_name, resolve_strategy


EXECUTOR_TYPES = ("auto", "serial", "processes", "threads", "ray")
DEFAULT_RESAMPLES = 1000
"""``bootstrap:`` when a config does not say: the only value a ``cluster_t`` run may state."""


class ExecutorSpec(BaseModel):
    """How units are run (docs/scale.md). Not part of the run's fingerprint: a run may be resumed
    with other workers or another executor, and gives the same metrics either way."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    type: str = Field(default="auto", description="auto | serial | processes | threads | ray")
    workers: int = Field(default=1, ge=1, le=4096, description="Units played at once (ray: 1 = as many as the cluster has CPUs).")
    ray_address: str | None = Field(default=None, description="Ray cluster to join (`auto`, `ray://host:10001`); None starts a local Ray.")

    @field_validator("type")
    @classmethod
    def _known_type(cls, v: str) -> str:
        if v not in EXECUTOR_TYPES:
            raise ValueError(f"unknown executor {v!r}; one of: {', '.join(EXECUTOR_TYPES)}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> ExecutorSpec:
        if self.type == "serial" and self.workers > 1:
            raise ValueError(f"the serial executor plays one unit at a time (workers: {self.workers}); "
                             "use type processes, threads or auto")
        if self.ray_address and self.type != "ray":
            raise ValueError(f"ray_address is given but the executor is {self.type!r}; set type: ray")
        return self


class Tolerance(BaseModel):
    """How much worse one metric may get before ``memlab check`` calls it a regression (docs/gate.md).

    Direction comes from the metric's declaration, so the same two numbers work for a metric that
    should rise (recall) and one that should fall (leaks, context tokens)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    floor: float | None = Field(
        default=None, ge=0, description="The worst acceptable value, whatever the baseline says: a minimum for a "
        "higher-is-better metric, a maximum for a lower-is-better one. Breaking it is a regression even when "
        "the bootstrap cannot tell the change from noise.")
    max_drop: float | None = Field(
        default=0.0, ge=0, description="The largest acceptable worsening against the baseline, in the metric's "
        "units (a fall for ↑ metrics, a rise for ↓ ones). None: only the floor is checked.")


class GateSpec(BaseModel):
    """The regression gate's tolerances (``memlab check``, docs/gate.md). Not part of the run's
    fingerprint: changing a tolerance never changes what a run computes."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    metrics: dict[str, Tolerance] | None = Field(
        default=None, description="Metric column → tolerance (names from `memlab components`; a proportions "
        "metric's level as `update_context.current_only`; cost columns such as `context_tokens`). None: every "
        "headline metric with a direction, each with the default tolerance.")
    by_category: bool = Field(
        default=False, description="Also gate each probe category, not only all probes together (more tests, "
        "so more chance that noise crosses a tolerance).")
    paired_bootstrap: bool = Field(
        default=True, description="Call a drop a regression only when the paired interval over the same probes "
        "(clustered by user, the run's `intervals:` method) shows it at the given confidence after the Holm "
        "correction over the check's gated comparisons; False: any drop beyond max_drop counts.")
    bootstrap: int = Field(default=DEFAULT_RESAMPLES, ge=100, le=1_000_000, description="Resamples, when the run's "
                           "`intervals:` is `bootstrap` (refused otherwise).")
    confidence: float = Field(default=0.95, gt=0.5, lt=1.0, description="Confidence of the paired interval; "
                              "1 − confidence is the family-wise error rate of the whole check.")
    correction: Literal["holm", "none"] = Field(
        default="holm", description="Multiple-testing correction over the check's gated comparisons: `holm` "
        "(family-wise error ≤ 1 − confidence for the whole check) or `none` (each comparison on its own; "
        "the raw verdicts).")
    answer_metrics: Literal["auto", "gate", "show"] = Field(
        default="auto", description="Metrics scored on the answer (answer_correct, update_correct, abstention...): "
        "`auto` gates them only when the answering model is a real one (not the offline stand-in), `gate` always, "
        "`show` never (shown, not gated).")
    strategies: list[str] | None = Field(
        default=None, description="Strategies to gate (None: every strategy of the baseline).")
    on_model_change: Literal["warn", "error"] = Field(
        default="error", description="A model (or judge model) other than the baseline's: `error` (exit 2: "
        "strategy code is gated with the model frozen) or `warn` (report it at the top of the output and gate "
        "anyway; `memlab check --allow-model-change`). A change of the offline stand-in model is gated only "
        "on datasets declared `split: dev` (the evaluation firewall, docs/offline-model.md).")

    @field_validator("metrics")
    @classmethod
    def _known_columns(cls, v: dict[str, Tolerance] | None) -> dict[str, Tolerance] | None:
        if v is None:
            return v
        if not v:
            raise ValueError("list at least one metric, or leave it out to gate the headline metrics")
        from memlab.scoring.metric_registry import directed_columns

        known = directed_columns()
        for name in v:
            if name not in known:
                import difflib

                close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.5)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"{name!r} is not a metric column with a direction.{hint} "
                                 f"Known: {', '.join(sorted(known))}")
        return v


class SensitivitySpec(BaseModel):
    """What ``memlab sensitivity`` varies and compares (docs/sensitivity.md). Not part of a run's
    fingerprint: the grid's runs are ordinary runs, each with its own behaviour profile."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    vary: dict[str, list[Annotated[float, Field(ge=0.0, le=1.0)] | None]] = Field(
        min_length=1, description="Behaviour knob (`memlab components` lists them; docs/sensitivity.md) → the values "
        "to play it at. The comparison is played once per point of the grid (every combination).")
    contrasts: list[tuple[str, str]] | None = Field(
        default=None, description="Pairs [A, B] of strategies whose paired difference A − B is reported per profile; "
        "None: every strategy against `reference`.")
    reference: str | None = Field(default=None, description="The strategy every other is compared with when "
                                  "`contrasts` is not given (default: the config's first strategy).")
    metric: str = Field(default="evidence_recall", description="The metric the contrasts compare.")
    by: str | None = Field(default=None, description="A probe column (evidence_scope, dataset, category) to report "
                           "each contrast per group of, besides all probes.")

    @field_validator("vary")
    @classmethod
    def _known_knobs(cls, v: dict[str, list[float | None]]) -> dict[str, list[float | None]]:
        from memlab.offline.behaviour import DEFAULT, check_knob

        for knob, values in v.items():
            check_knob(knob)
            if not values:
                raise ValueError(f"{knob}: give at least one value")
            if len(set(values)) != len(values):
                raise ValueError(f"{knob}: a value is listed twice: {values}")
            for value in values:
                DEFAULT.with_knobs({knob: value})  # in range (a ProfileError names the knob)
        return v

    @field_validator("metric")
    @classmethod
    def _known_metric(cls, v: str) -> str:
        from memlab.scoring.metric_registry import check_metric_names

        return check_metric_names([v], "sensitivity.metric")[0]


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    _typed: list[Any] | None = PrivateAttr(default=None)
    _typed_key: str | None = PrivateAttr(default=None)
    _stores: dict[str, Any] | None = PrivateAttr(default=None)
    name: str = "run"
    description: str = ""
    datasets: list[str] = Field(min_length=1, description="Dataset files (native YAML/JSON, LoCoMo, LongMemEval).")
    strategies: list[StrategySpec] = Field(min_length=1)
    model: ModelSpec = Field(default_factory=ModelSpec, description="The default model for every LLM role.")
    models: dict[str, ModelSpec] = Field(default_factory=dict, description="Per-role overrides, keyed by purpose.")
    judge: ModelSpec | None = Field(default=None, description="Optional LLM judge for answer accuracy.")
    judge_prompt: Literal["lenient", "strict"] = Field(
        default=DEFAULT_JUDGE_PROMPT, description="The judge's prompt (docs/judging.md): strict (default) or lenient (LoCoMo-style).")
    plugins: list[str] = Field(default_factory=list, description="Modules to import that register components, presets or strategy types.")
    store_options: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Default options per store backend, e.g. {postgres: {dsn: ...}}."
    )
    threads: Literal["as_is", "per_session"] = Field(
        default="as_is", description="as_is: conversations as the files give them (conversations sharing a namespace "
        "are threads of one user); per_session: every session of a multi-session conversation becomes its own thread "
        "of the same user (short-term memory starts empty at each, long-term memory carries over).")
    limit_conversations: int | None = Field(default=None, ge=1, description="Use only the first N users per dataset "
                                            "(all threads of each; with one conversation per user, the first N conversations).")
    seed: int = Field(default=0, ge=0, description="Seed of every random choice of the run (noisy oracles, the "
                      "offline agent's tool reliability, bootstrap resamples).")
    bootstrap: int = Field(default=DEFAULT_RESAMPLES, ge=0, le=1_000_000, description="Resamples, for `intervals: bootstrap` "
                           "only (refused with `cluster_t`, which does not resample).")
    intervals: Literal["cluster_t", "bootstrap"] = Field(
        default="cluster_t", description="How every interval is made (docs/metrics.md): `cluster_t`, a cluster-robust "
        "t interval over users (covers ~95% at 4-32 users), or `bootstrap`, the former percentile cluster bootstrap "
        "(under-covers below ~30 users; kept to reproduce older numbers).")
    metrics: list[str] | None = Field(
        default=None, description="Headline metrics to print and export (names from `memlab components`); None: all.")
    answer_probes: bool = Field(
        default=True, description="False: a retrieval-only run. Every probe's context is assembled as usual (an agent "
        "still searches its memory) and recorded, but the answerer is not called: the context metrics (evidence, "
        "provenance and content recall, update_context, ragas context metrics) are scored, the metrics that score "
        "the answer are not applicable, and naming one in `metrics:` or `gate.metrics`, or configuring a judge, is "
        "refused. For comparisons of what memories reach the prompt, at none of the answer calls' cost.")
    embedding_cache: str | None = Field(default=".memlab/embeddings.npz", description="Persistent embedding cache (None: in memory).")
    output_dir: str = "results"
    executor: ExecutorSpec = Field(default_factory=ExecutorSpec, description="Serial, parallel or Ray execution of units.")
    gate: GateSpec = Field(default_factory=GateSpec, description="Tolerances of the regression gate (`memlab check`).")
    budget: BudgetSpec = Field(default_factory=BudgetSpec, description="Spending limits on endpoint calls "
                               "(max_usd, max_tokens, max_calls): the run stops before the call that would cross one "
                               "(docs/cost.md). Not part of the fingerprint: resume a stopped run with a larger budget.")
    prices: str | None = Field(default=None, description="A price table (YAML or CSV, USD per million tokens) used "
                               "before LiteLLM's offline price map, for budgets, cost tables and estimates (docs/cost.md).")
    sensitivity: SensitivitySpec | None = Field(
        default=None, description="The behaviour-profile grid and contrasts of `memlab sensitivity` (docs/sensitivity.md).")

    @field_validator("name")
    @classmethod
    def _safe_name(cls, v: str) -> str:
        return check_safe_name(v, "run name")

    @field_validator("metrics")
    @classmethod
    def _known_metrics(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return v
        from memlab.scoring.metric_registry import check_metric_names

        if not v:
            raise ValueError("list at least one metric, or leave `metrics:` out for all of them")
        names = check_metric_names(v, "metrics")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"metrics listed twice: {', '.join(dupes)}")
        return names

    @field_validator("models")
    @classmethod
    def _known_roles(cls, v: dict[str, ModelSpec]) -> dict[str, ModelSpec]:
        for key in v:
            if key not in ROLE_PURPOSES:
                import difflib

                close = difflib.get_close_matches(key, ROLE_PURPOSES, n=1, cutoff=0.5)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"unknown role {key!r}.{hint} Roles: {', '.join(ROLE_PURPOSES)}")
        return v

    @model_validator(mode="after")
    def _bootstrap_only_when_resampling(self) -> RunConfig:
        """``bootstrap:`` (and ``gate.bootstrap``) is a resample count: a run whose intervals are
        ``cluster_t`` resamples nothing, so a count given there would be read as doing something it
        does not — refused rather than ignored."""
        if self.intervals == "bootstrap":
            return self
        given = []
        if "bootstrap" in self.model_fields_set and self.bootstrap != DEFAULT_RESAMPLES:
            given.append(f"bootstrap: {self.bootstrap}")
        if "bootstrap" in self.gate.model_fields_set and self.gate.bootstrap != DEFAULT_RESAMPLES:
            given.append(f"gate.bootstrap: {self.gate.bootstrap}")
        if given:
            raise ValueError(f"{' and '.join(given)}: resamples are used only by `intervals: bootstrap`; this run's "
                             f"intervals are {self.intervals} (cluster-robust t, no resampling), so the count would "
                             "change nothing. Remove it, or set `intervals: bootstrap`")
        return self

    @model_validator(mode="after")
    def _answers_when_scored(self) -> RunConfig:
        """A retrieval-only run (``answer_probes: false``) records no answers: a metric, a gated column or a
        judge that needs them would read as measured while nothing was — refused here, not reported empty."""
        if self.answer_probes:
            return self
        from memlab.scoring.metric_registry import METRICS

        known = set(METRICS.names())  # a gate column may be a cost column (context_tokens), not a metric
        asked = {n.split(".")[0] for n in [*(self.metrics or ()), *(self.gate.metrics or {})]} & known
        on_answer = sorted(n for n in asked if METRICS.get(n).scores_answer)
        if on_answer:
            raise ValueError(f"answer_probes: false records no answers, so {', '.join(on_answer)} (scoring the answer) "
                             "cannot be measured; remove it, or answer the probes")
        if self.judge_spec() is not None:
            raise ValueError("answer_probes: false records no answers for a judge to judge; remove `judge:`, or "
                             "answer the probes")
        return self

    @model_validator(mode="after")
    def _judge_once(self) -> RunConfig:
        if self.judge is not None and "judge" in self.models:
            raise ValueError("give the judge either as `judge:` or as `models: {judge: ...}`, not both")
        if self.budget.active() and self.executor.ray_address:
            raise ValueError("budget: a Ray cluster's workers cannot share the run's spend ledger (a file in the run "
                             "folder); run a budgeted run on this machine (executor threads, processes, or a local ray)")
        return self

    def model_specs(self) -> list[ModelSpec]:
        """Every model the run may call: the default, the per-role ones and the judge."""
        return [self.model, *self.models.values(), *([self.judge] if self.judge else [])]

    def judge_spec(self) -> ModelSpec | None:
        return self.judge or self.models.get("judge")

    def role_specs(self) -> dict[str, ModelSpec]:
        """Purpose → model spec for every role (the default filled in)."""
        return {p: self.models.get(p, self.model) for p in ROLE_PURPOSES if p != "judge"}

    def typed_strategies(self) -> list[Any]:
        """Every strategy resolved once into its typed form (:class:`~memlab.strategies.composed.ResolvedStrategy`,
        or an external type's :class:`~memlab.external.base.ResolvedExternal`): computed when the config
        is validated and kept, so a knob (a trigger, ``retriever.k``, a store option) is validated once
        and reaches its component as an object."""
        if not self._resolved():
            self._resolve(f"config {self.name!r}")
        return self._typed  # type: ignore[return-value]

    def typed_store_options(self) -> dict[str, Any]:
        """``store_options`` validated once, each backend's block into its typed ``Options``
        (:class:`~memlab.memory.stores.base.StoreOptions`)."""
        if not self._resolved():
            self._resolve(f"config {self.name!r}")
        return self._stores  # type: ignore[return-value]

    def _resolved(self) -> bool:
        return self._typed is not None and self._typed_key == self._strategies_key()

    def _resolve(self, where: str) -> None:
        """Validate the store options and resolve every strategy, once (ConfigError naming ``where``
        and the entry)."""
        from memlab.memory.stores.base import typed_options

        names = [s.name for s in self.strategies]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ConfigError(f"{where}: strategy names must be unique; repeated: {dupes}")
        try:
            stores = {backend: typed_options(backend, options, f"store_options.{backend}")
                      for backend, options in self.store_options.items()}
        except (RegistryError, ValueError) as exc:
            raise ConfigError(f"{where}: {exc}") from None
        typed = []
        for i, strategy in enumerate(self.strategies):
            try:
                typed.append(resolve_strategy(strategy, stores))
            except (RegistryError, ValueError) as exc:
                raise ConfigError(f"{where}: strategies[{i}] ({strategy.name}): {exc}") from None
        self._stores, self._typed, self._typed_key = stores, typed, self._strategies_key()

    def _strategies_key(self) -> str:
        """What the typed strategies were resolved from (a copy with other strategies or store options
        resolves again)."""
        import json

        return ("\n".join(s.model_dump_json() for s in self.strategies) + "\n" + ",".join(self.plugins) + "\n"
                + json.dumps(self.store_options, sort_keys=True, default=str))

    def resolved_strategies(self) -> list[dict[str, Any]]:
        """The resolved strategies' JSON form (what the manifest records and the fingerprint hashes)."""
        return [t.spec() for t in self.typed_strategies()]

    def with_strategies(self, names: list[str]) -> RunConfig:
        """A copy of this config that plays only ``names``, in that order.

        Lets a notebook or script run a small slice of a committed config (CI) or the whole of it
        (a user) without copying its strategy definitions. A name is one of this config's
        strategies, or else a registered preset (added as ``{name: <preset>}``, e.g. a seed
        system next to the config's baselines). Raises :class:`ConfigError` naming every unknown
        name with the close matches."""
        from memlab.strategies.composed import PRESETS

        if not names:
            raise ConfigError(f"config {self.name!r}: choose at least one strategy")
        own = {s.name: s for s in self.strategies}
        unknown = [n for n in names if n not in own and n not in PRESETS]
        if unknown:
            import difflib

            known = [*own, *PRESETS.names()]
            hints = []
            for n in unknown:
                close = difflib.get_close_matches(n, known, n=1, cutoff=0.5)
                hints.append(f"{n!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
            raise ConfigError(f"config {self.name!r}: no strategy or preset named {', '.join(hints)}; "
                              f"the config has: {', '.join(own)}; presets: {', '.join(PRESETS.names())}")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ConfigError(f"config {self.name!r}: strategy names must be unique; repeated: {dupes}")
        typed = {t.name: t for t in self.typed_strategies()}
        chosen = [own[n] if n in own else StrategySpec(name=n) for n in names]
        copy = self.model_copy(update={"strategies": chosen})
        # the config's own strategies are handed on as they were resolved; a preset added here is
        # resolved now, for the first time (a composed strategy: nothing for check_offline to see)
        try:
            copy._typed = [typed[s.name] if s.name in own else resolve_strategy(s, self.typed_store_options())
                           for s in chosen]
        except (RegistryError, ValueError) as exc:
            raise ConfigError(f"config {self.name!r}: {exc}") from None
        copy._typed_key = copy._strategies_key()
        return copy

    def register_secrets(self) -> None:
        """Register every secret this config leads to — each model's API key (the judge's too),
        every password in a base URL, a store DSN or a secret-named option — before anything can
        fail or parse them (:mod:`memlab.redact`): from then on no error text shows them."""
        from memlab.redact import install_log_redaction, register_secrets_in

        install_log_redaction()  # a library logging a failed request must not print a key either
        for spec in [self.model, *self.models.values(), *([self.judge] if self.judge else [])]:
            spec.register_secrets()
        register_secrets_in(self.store_options)
        register_secrets_in([s.model_dump(mode="json") for s in self.strategies])

    def check(self) -> None:
        """What can be checked without doing any work besides the strategies and store options
        (validated by :meth:`_resolve`): plugins, models, prices."""
        from memlab.llm.base import MODELS
        from memlab.strategies.slots import load_plugins

        load_plugins(self.plugins)  # store options and strategies are validated next, once (_resolve)
        for spec in self.model_specs():
            MODELS.get(spec.provider)
            if spec.provider == "offline" and (spec.profile is not None or spec.options):
                from memlab.llm.offline_model import resolve_profile

                resolve_profile(spec)  # a bad behaviour profile fails here, naming its file and knob
        if self.prices is not None or (self.budget.max_usd is not None and
                                       any(s.provider != "offline" for s in self.model_specs())):
            from memlab.cost.prices import PriceBook

            book = PriceBook(self.prices)  # a malformed table fails here, naming its file and entry
            if self.budget.max_usd is not None:
                for spec in self.model_specs():
                    if spec.provider != "offline" and spec.model:
                        book.require(spec.model, "budget.max_usd needs every endpoint model's price")


class ConfigError(ValueError):
    """A run config that cannot be used; the message names the file and the offending entry."""




def read_config(path: str | Path) -> dict[str, Any]:
    """A run config file's mapping as written, not yet validated: what a command line's flags
    change before the one validation (:func:`validate_config`), so no flag costs a second one."""
    from memlab.datasets.problems import DatasetError
    from memlab.datasets.source import parse_yaml

    path = Path(path)
    try:
        # the dataset loader's parse: a YAML alias bomb (a kilobyte that expands to gigabytes in the
        # manifest) is refused at once, as are duplicate keys, each naming its line
        data = parse_yaml(path.read_text(encoding="utf-8"), str(path)) or {}
    except DatasetError as exc:
        raise ConfigError("; ".join(str(p) for p in exc.problems)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a run config is a mapping (name, datasets, strategies, ...), got {type(data).__name__}")
    return data


def written_block(data: dict[str, Any], key: str) -> dict[str, Any]:
    """A config mapping's block ``key`` as written, for a flag to change field by field (empty when
    absent; a value that is not a mapping is left for the validation to name)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Load a YAML run config; dataset paths are resolved relative to the current directory.

    ``overrides`` replace top-level fields of the file (a None value leaves the file's) before the
    config is validated, once: every strategy is resolved here (components looked up, params
    validated), so a typo fails before any work starts, naming the file, the strategy and the close
    matches."""
    data = read_config(path)
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return validate_config(data, str(path))


def notebook_config(config_path: str | Path, strategies: list[str], *, limit: int,
                    datasets: list[str] | None = None, workers: int | None = None, output_dir: str = "",
                    name: str | None = None) -> RunConfig:
    """A committed config sliced by a notebook's parameters cell: only ``strategies`` (the
    config's or presets), the first ``limit`` conversations of each dataset (0: all of them),
    ``datasets`` instead of the config's when given, and a new temporary folder for the run unless
    ``output_dir`` names one. One definition of what those parameters mean, so every notebook
    (and a papermill run of it at full size) reads them alike."""
    import tempfile

    overrides: dict[str, Any] = {"limit_conversations": limit or None, "datasets": datasets or None, "name": name,
                                 "output_dir": output_dir or tempfile.mkdtemp(prefix="memlab-nb-")}
    if workers is not None:
        overrides["executor"] = {"workers": workers}
    return load_config(config_path, overrides).with_strategies(strategies)

def recorded_config(data: dict[str, Any], where: str) -> RunConfig:
    """A run folder's recorded config (its manifest's ``config``), validated like any config. A run
    written before ``bootstrap:`` was refused under ``intervals: cluster_t`` may have recorded an
    inert resample count: it is dropped here (it never changed a number), so the folder stays usable."""
    data = dict(data)
    if data.get("intervals", "cluster_t") != "bootstrap":
        data.pop("bootstrap", None)
        if isinstance(data.get("gate"), dict):
            data["gate"] = {k: v for k, v in data["gate"].items() if k != "bootstrap"}
    return validate_config(data, where)


def validate_config(data: dict[str, Any] | RunConfig, where: str = "config") -> RunConfig:
    """Validate a config mapping completely (the same checks ``load_config`` makes)."""
    from memlab.redact import register_secrets_in
    from memlab.strategies.slots import load_plugins

    if isinstance(data, dict):
        register_secrets_in(data)  # the raw passwords, before any parser (or its error message) sees them
    if isinstance(data, dict) and isinstance(data.get("plugins"), list):
        try:
            load_plugins([str(p) for p in data["plugins"]])  # before strategies name a plugin's slots
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    if isinstance(data, RunConfig) and data._resolved():
        return data  # validated already (the runner is handed a loaded config): nothing is resolved twice
    try:
        config = data if isinstance(data, RunConfig) else RunConfig.model_validate(data)
    except ValidationError as exc:
        problems = "\n".join(f"  {'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{where}: invalid run config:\n{problems}") from None
    try:
        config.check()
    except (RegistryError, ValueError) as exc:
        raise ConfigError(f"{where}: {exc}") from None
    config._resolve(where)  # the store options and each strategy validated once, here
    if any(s.type not in (None, "composed") for s in config.strategies):
        from memlab.external.base import check_offline

        try:
            check_offline(config)  # a library that calls a model cannot run on the offline stand-in
        except (RegistryError, ValueError) as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return config
