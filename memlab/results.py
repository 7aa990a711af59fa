"""Loading run folders into pandas, inspect_ai-style.

``load_run(path)`` gives a :class:`RunResults` whose ``probes``, ``calls``, ``memory_ops``,
``turns`` and ``units`` are DataFrames holding only each unit's final attempt (see
:mod:`memlab.runner`), with per-probe metric columns already scored. ``summary()`` and
``metrics_table()`` aggregate them per strategy (and category) with conversation-clustered
bootstrap CIs; ``compare()`` and ``compare_all()`` are paired comparisons of strategies.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.metrics import METRICS, check_metric_names, score_probes
from memlab.records import check_format, read_manifest, upgrade_v1
from memlab.recorder import read_jsonl
from memlab.stats import Bootstrap, cluster_bootstrap, paired_compare



@dataclass
class RunResults:
    path: Path
    manifest: dict[str, Any]
    _frames: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    @cached_property
    def format_version(self) -> int:
        return check_format(self.manifest, str(self.path / "manifest.json"))

    def _records(self, name: str) -> list[dict[str, Any]]:
        recs = read_jsonl(self.path / f"{name}.jsonl")
        if self.format_version == 1:
            recs = [upgrade_v1(name, r) for r in recs]
        return recs

    def _stream(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            df = pd.DataFrame(self._records(name))
            if name != "units" and not df.empty and "attempt" in df.columns:
                df = df[df["attempt"].isin(self.final_attempts)]
                # Units in a fixed order, each unit's records as written: a parallel run writes
                # whole units in the order they finish, and a mean summed in another order can
                # differ in the last digit, so every executor must be read back in the same order.
                rank = df["attempt"].map(self._unit_rank)
                df = df.iloc[rank.argsort(kind="stable")]
            self._frames[name] = df.reset_index(drop=True)
        return self._frames[name]

    @cached_property
    def unit_ends(self) -> dict[tuple, dict[str, Any]]:
        """Per unit (strategy, dataset, namespace): its last end record, whatever its status."""
        last: dict[tuple, dict[str, Any]] = {}
        for rec in self._records("units"):
            if rec.get("event") == "end":
                last[(rec["strategy"], rec["dataset"], rec.get("namespace") or rec.get("conversation_id"))] = rec
        return last

    @cached_property
    def _unit_rank(self) -> dict[str, int]:
        """Final attempt → its unit's place when units are sorted by (strategy, dataset, namespace)."""
        ordered = sorted(self.unit_ends.items(), key=lambda kv: tuple(str(k) for k in kv[0]))
        return {rec["attempt"]: i for i, (_, rec) in enumerate(ordered)}

    @cached_property
    def final_attempts(self) -> set[str]:
        """Per unit, the attempt whose records count: its last attempt, if that one finished ok.

        A failed last attempt is not final (``--resume`` redoes it); its records stay in the
        folder for debugging but are never scored."""
        return {r["attempt"] for r in self.unit_ends.values() if r.get("status", "ok") == "ok"}

    @property
    def units(self) -> pd.DataFrame:
        """One row per unit: its last end record (``status`` ok or failed)."""
        return pd.DataFrame(list(self.unit_ends.values()))

    def coverage(self) -> pd.DataFrame:
        """Per strategy: units that finished ok out of all planned units (``n ok/total`` in tables)."""
        total = ((self.manifest.get("units") or {}).get("total"))
        planned: dict[str, int] = {}
        if total:
            per = total // max(len(self.strategies), 1)
            planned = {s: per for s in self.strategies}
        ok: dict[str, int] = {}
        for (strategy, _, _), rec in self.unit_ends.items():
            planned.setdefault(strategy, 0)
            if rec.get("status", "ok") == "ok":
                ok[strategy] = ok.get(strategy, 0) + 1
        rows = [{"strategy": s, "units_ok": ok.get(s, 0), "units_total": max(planned.get(s, 0), ok.get(s, 0))}
                for s in self.strategies or sorted(planned)]
        out = pd.DataFrame(rows).set_index("strategy") if rows else pd.DataFrame(columns=["units_ok", "units_total"])
        out["complete"] = out["units_ok"] == out["units_total"]
        return out

    @property
    def compressions(self) -> pd.DataFrame:
        return self._stream("compressions")

    @property
    def agent_steps(self) -> pd.DataFrame:
        return self._stream("agent_steps")

    @property
    def calls(self) -> pd.DataFrame:
        """One row per model call, its scope's fields as columns (built once: a LoCoMo-sized run
        has ~100,000 calls and several tables read them)."""
        if "calls_flat" not in self._frames:
            df = self._stream("calls")
            if not df.empty and "scope" in df.columns:
                scope = pd.json_normalize(df["scope"].tolist())
                df = pd.concat([df.drop(columns=["scope"]), scope.drop(columns=[c for c in scope.columns if c in df.columns])],
                               axis=1)
            self._frames["calls_flat"] = df
        return self._frames["calls_flat"]

    @property
    def memory_ops(self) -> pd.DataFrame:
        return self._stream("memory_ops")

    @property
    def turns(self) -> pd.DataFrame:
        return self._stream("turns")

    @property
    def probes(self) -> pd.DataFrame:
        if "probes_scored" not in self._frames:
            df = self._stream("probes")
            if not df.empty:
                # A column that is a string in some records is NaN in the others once framed: turn
                # those back into None so "no error" is not read as a (truthy) NaN error.
                records = [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
                           for r in df.to_dict("records")]
                cache = self._embedding_cache()
                scores = pd.DataFrame(score_probes(records), index=df.index)
                if cache is not None:
                    cache.save()
                means = [n for n in METRICS.names() if METRICS.get(n).aggregation == "mean"]
                scores[means] = scores[means].astype(float)  # a level column (proportions) stays text
                df = pd.concat([df, scores], axis=1)
            self._frames["probes_scored"] = df
        return self._frames["probes_scored"]

    def _embedding_cache(self) -> Any:
        """The run's embedding cache file, when it still exists where the run wrote it, for the
        metrics that embed answers (ragas semantic similarity): read once, kept up to date."""
        from memlab import ragas_metrics

        path = (self.manifest.get("config") or {}).get("embedding_cache")
        if not path or ragas_metrics.ragas_problem() is not None:
            return None
        return ragas_metrics.use_embedding_cache(path)  # an unreadable file is ignored (and rebuilt) with a warning

    @property
    def strategies(self) -> list[str]:
        return [s["name"] for s in self.manifest.get("strategies", [])]

    @property
    def model_label(self) -> str:
        """The model(s) behind the numbers, labelled when an offline stand-in answered a role."""
        models = self.manifest.get("models") or {}
        default = models.get("default") or models.get("roles") or {}

        def label(d: dict[str, Any]) -> str:
            name = str(d.get("model") or d.get("provider") or "?")
            return f"{name} (offline stand-in for an LLM)" if d.get("heuristic") else name

        out = label(default)
        roles = models.get("roles") if "default" in models else {}
        overrides = {p: label(d) for p, d in (roles or {}).items() if d != default}
        if overrides:
            out += " · " + ", ".join(f"{p}={v}" for p, v in sorted(overrides.items()))
        return out

    def provenance(self) -> dict[str, Any]:
        """The columns every exported results file carries: what produced these numbers."""
        ds = self.manifest.get("datasets", [])
        return {
            "run_id": self.manifest.get("run_id"),
            "code_version": self.manifest.get("code_version"),
            "model": self.model_label,
            "embedder": (self.manifest.get("embedder") or {}).get("model"),
            "datasets": ";".join(f"{d['name']}@{d['hash'][:19]}" for d in ds),
        }

    def components(self) -> dict[str, str]:
        """Per strategy, its fully resolved components as one line (what exported rows carry)."""
        from memlab.strategies.composed import describe_components

        return {spec["name"]: describe_components(spec) for spec in self.manifest.get("strategies", [])}

    def conversations_per_strategy(self) -> pd.Series:
        """Conversations played to the end (in units that finished ok), per strategy."""
        counts: dict[str, int] = {}
        for (strategy, _, _), rec in self.unit_ends.items():
            if rec.get("status", "ok") == "ok":
                counts[strategy] = counts.get(strategy, 0) + len(rec.get("conversation_ids") or [rec.get("conversation_id")])
        return pd.Series(counts, dtype=float)

    def cost(self) -> pd.DataFrame:
        """Per strategy: model tokens and calls per conversation, split by purpose."""
        calls = self.calls
        n_conv = self.conversations_per_strategy()
        if calls.empty:
            return pd.DataFrame(index=pd.Index(self.strategies, name="strategy"))
        calls = calls.assign(tokens=calls["prompt_tokens"] + calls["completion_tokens"])
        by = calls.pivot_table(index="strategy", columns="purpose", values="tokens", aggfunc="sum", fill_value=0)
        by.columns = [f"tokens_{c}" for c in by.columns]
        agg = calls.groupby("strategy").agg(
            prompt_tokens=("prompt_tokens", "sum"), completion_tokens=("completion_tokens", "sum"),
            calls=("call_id", "count"), failed_calls=("ok", lambda s: int((~s.astype(bool)).sum())),
            call_latency_s=("latency_s", "sum"),
        )
        out = agg.join(by)
        per = out.div(n_conv.reindex(out.index).replace(0, np.nan), axis=0)
        per.columns = [f"{c}_per_conv" for c in per.columns]
        return out[["failed_calls"]].join(per).reindex(self.strategies)

    @property
    def bootstrap(self) -> Bootstrap:
        """How this run's intervals are computed (config ``bootstrap`` resamples, run seed)."""
        cfg = self.manifest.get("config") or {}
        return Bootstrap(n_boot=int(cfg.get("bootstrap", 1000)), seed=int(self.manifest.get("seed", cfg.get("seed", 0)) or 0))

    def headline_metrics(self) -> list[str]:
        """The metrics the run's config chose (``metrics:``), else every registered one."""
        chosen = (self.manifest.get("config") or {}).get("metrics")
        return check_metric_names(chosen, "config.metrics") if chosen else METRICS.names()

    def _scored(self) -> pd.DataFrame:
        """Per probe: every reported column's number (a mean's value, a level's indicator) and
        ``<column>:can_hit`` (1 when the probe can be scored a hit at all, 0 not, NaN unknown)."""
        if "indicators" not in self._frames:
            probes = self.probes
            cols: dict[str, np.ndarray] = {}
            if not probes.empty:
                records = [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
                           for r in probes.to_dict("records")]
                for name in METRICS.names():
                    m = METRICS.get(name)
                    values = [None if isinstance(v, float) and np.isnan(v) else v for v in probes[name].tolist()]
                    can_hit = np.array([m.can_hit(r) for r in records], dtype=float)
                    for col, arr in m.indicators(values).items():
                        cols[col] = arr
                        cols[f"{col}:can_hit"] = np.where(np.isnan(arr), np.nan, can_hit)
            self._frames["indicators"] = pd.DataFrame(cols, index=probes.index)
        return self._frames["indicators"]

    @staticmethod
    def _clusters(frame: pd.DataFrame) -> list[tuple[str, str]]:
        return list(zip(frame["dataset"].astype(str), frame["conversation_id"].astype(str)))

    def metrics_table(self, *, by_category: bool = True, n_boot: int | None = None,
                      metrics: list[str] | None = None) -> pd.DataFrame:
        """Long table: strategy × category (and 'all') × reported column → mean, CI, n, ceiling.

        Each metric is aggregated as it declares (a mean, or the share of each level of a
        categorical outcome); intervals are conversation-clustered (:mod:`memlab.stats`) and the
        ``ci_method`` column says so. Cost columns (context tokens, latencies) have no interval.

        Computed once per set of arguments and kept (a report asks for the same table several
        times: the printed table, metrics.csv, the category table, the design report); each call
        gets its own copy. Every interval is seeded on its own, so a table does not depend on
        which others were computed before it."""
        key = (by_category, n_boot, tuple(metrics) if metrics else None)
        tables = self._frames.setdefault("metrics_tables", {})
        if key not in tables:
            tables[key] = self._metrics_table(by_category=by_category, n_boot=n_boot, metrics=metrics)
        out = tables[key].copy()
        out.attrs = dict(tables[key].attrs)
        return out

    def _metrics_table(self, *, by_category: bool, n_boot: int | None, metrics: list[str] | None) -> pd.DataFrame:
        spec = self.bootstrap if n_boot is None else Bootstrap(n_boot=n_boot, seed=self.bootstrap.seed)
        probes = self.probes
        columns = ["strategy", "category", "metric", "mean", "ci_low", "ci_high", "n", "conversations", "ceiling",
                   "higher_is_better", "aggregation", "ci_method", "description"]
        if probes.empty:
            return pd.DataFrame(columns=columns)
        scored = self._scored()
        names = metrics or METRICS.names()
        groups = [("all", probes.index)]
        if by_category:
            groups += [(c, g.index) for c, g in probes.groupby("category")]
        rows = []
        # a row depends only on its cell's probes and the bootstrap spec (every interval is seeded on
        # its own), so rows are kept per cell and shared by the tables that contain them
        cells = self._frames.setdefault("metric_rows", {})
        for category, index in groups:
            for strategy, sf in probes.loc[index].groupby("strategy"):
                clusters = None
                for name in names:
                    m = METRICS.get(name)
                    for col, hib in m.columns():
                        key = (spec, category, strategy, name, col)
                        if key not in cells:
                            clusters = clusters if clusters is not None else self._clusters(sf)
                            cells[key] = self._metric_row(scored, sf.index, clusters, spec, m, name, col, hib,
                                                          strategy, category)
                        if cells[key] is not None:
                            rows.append(dict(cells[key]))
                for col in COST_COLUMNS:
                    if col in sf and sf[col].notna().any():
                        clusters = clusters if clusters is not None else self._clusters(sf)
                        rows.append({"strategy": strategy, "category": category, "metric": col,
                                     "mean": float(sf[col].astype(float).mean()), "ci_low": np.nan, "ci_high": np.nan,
                                     "n": int(sf[col].notna().sum()), "conversations": len(set(clusters)),
                                     "ceiling": np.nan, "higher_is_better": False, "aggregation": "mean", "ci_method": "",
                                     "description": COST_COLUMNS[col]})
        out = pd.DataFrame(rows, columns=columns)
        out["components"] = out["strategy"].map(self.components())
        for k, v in self.provenance().items():
            out[k] = v
        out.attrs["caption"] = spec.caption()
        return out

    @staticmethod
    def _metric_row(scored: pd.DataFrame, index: pd.Index, clusters: list[tuple[str, str]], spec: Bootstrap, m: Any,
                    name: str, col: str, hib: bool | None, strategy: str, category: str) -> dict[str, Any] | None:
        vals = scored.loc[index, col].to_numpy(dtype=float)
        n = int((~np.isnan(vals)).sum())
        if n == 0:
            return None
        mean, lo, hi = cluster_bootstrap(vals, clusters, spec)
        return {"strategy": strategy, "category": category, "metric": col, "mean": mean,
                "ci_low": lo, "ci_high": hi, "n": n,
                "conversations": len({c for c, v in zip(clusters, vals) if not np.isnan(v)}),
                "ceiling": _nanmean(scored.loc[index, f"{col}:can_hit"]),
                "higher_is_better": hib, "aggregation": m.aggregation, "ci_method": spec.caption(),
                "description": m.description if col == name else f"{m.description}: share {col.split('.', 1)[1]}"}

    def ceilings(self, metrics: list[str] | None = None) -> pd.DataFrame:
        """Per dataset and reported column: the share of applicable probes that can be scored a
        hit at all (string recall cannot credit a gold answer no turn wrote). A property of the
        dataset, not the strategy: computed over the first strategy's probes."""
        probes = self.probes
        if probes.empty:
            return pd.DataFrame()
        scored = self._scored()
        first = probes[probes["strategy"] == probes["strategy"].iloc[0]]
        cols = [c for name in (metrics or METRICS.names()) for c, _ in METRICS.get(name).columns()]
        out = {ds: {c: _nanmean(scored.loc[g.index, f"{c}:can_hit"]) for c in cols} for ds, g in first.groupby("dataset")}
        return pd.DataFrame(out).T.rename_axis("dataset")

    def summary(self) -> pd.DataFrame:
        """One row per strategy: the headline metrics (mean, ``_ci`` interval, ``_ceiling``) and costs.

        Headline metrics are the config's ``metrics:`` (all when not given); ``attrs['caption']``
        states the CI method."""
        mt = self.metrics_table(by_category=False, metrics=self.headline_metrics())
        if mt.empty:
            return pd.DataFrame()
        out = pd.DataFrame(index=pd.Index(sorted(set(mt["strategy"])), name="strategy"))
        headline = [c for name in self.headline_metrics() for c, _ in METRICS.get(name).columns()]
        for col in headline + list(COST_COLUMNS):
            sub = mt[mt["metric"] == col].set_index("strategy")
            if sub.empty:
                continue
            out[col] = sub["mean"]
            if col not in COST_COLUMNS:
                out[f"{col}_ci"] = pd.Series({s: (round(r.ci_low, 3), round(r.ci_high, 3)) for s, r in sub.iterrows()})
                out[f"{col}_ceiling"] = sub["ceiling"]
        out = out.join(self.cost(), how="left")
        order = [s for s in self.strategies if s in out.index] or list(out.index)
        out = out.reindex(order)
        out.attrs["caption"] = self.bootstrap.caption()
        return out

    def compare(self, a: str, b: str, metrics: list[str] | None = None, by_category: bool = True) -> pd.DataFrame:
        """Paired comparison of strategies ``a`` and ``b`` over the probes both answered.

        Per category ('all' first) and reported column: both means, the mean difference A − B with
        a conversation-clustered CI, for binary columns the discordant probes (``a_only``: A hit,
        B missed; ``b_only``: the reverse), and a verdict (A better / B better / not shown)."""
        known = sorted(set(self.probes["strategy"])) if not self.probes.empty else []
        for name in (a, b):
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"{self.path}: no strategy {name!r} in this run.{hint} Strategies: {', '.join(known) or '(none)'}")
        spec = self.bootstrap
        key = ["dataset", "conversation_id", "probe_id"]
        probes = self.probes[key + ["strategy", "category"]].join(self._scored())
        pa = probes[probes["strategy"] == a].set_index(key)
        pb = probes[probes["strategy"] == b].set_index(key)
        common = pa.index.intersection(pb.index)
        pa, pb = pa.loc[common], pb.loc[common]
        groups = [("all", np.ones(len(common), dtype=bool))]
        if by_category:
            groups += [(c, (pa["category"] == c).to_numpy()) for c in sorted(set(pa["category"]))]
        clusters = [(ds, conv) for ds, conv, _ in common]
        rows = []
        for category, mask in groups:
            cl = [c for c, k in zip(clusters, mask) if k]
            for name in metrics or self.headline_metrics():
                for col, hib in METRICS.get(name).columns():
                    r = paired_compare(pa[col].to_numpy(dtype=float)[mask], pb[col].to_numpy(dtype=float)[mask], cl, hib, spec)
                    if r.n == 0:
                        continue
                    rows.append({"a": a, "b": b, "category": category, "metric": col, **asdict(r),
                                 "higher_is_better": hib, "ci_method": spec.caption()})
        out = pd.DataFrame(rows, columns=COMPARE_COLUMNS)
        out.attrs["caption"] = f"paired over the same probes; A − B; {spec.caption()}"
        return out

    def compare_all(self, reference: str, metrics: list[str] | None = None, by_category: bool = False) -> pd.DataFrame:
        """Every other strategy (as A) against ``reference`` (as B), paired: one :meth:`compare` each."""
        others = [s for s in (self.strategies or sorted(set(self.probes["strategy"]))) if s != reference]
        frames = [self.compare(s, reference, metrics=metrics, by_category=by_category) for s in others]
        out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COMPARE_COLUMNS)
        out.attrs["caption"] = f"each strategy (A) against {reference} (B), paired over the same probes; {self.bootstrap.caption()}"
        return out


COST_COLUMNS = {
    "context_tokens": "memory context tokens injected for the probe (cl100k)",
    "retrieval_latency_s": "seconds inside the store's search calls for the probe",
    "retrieval_total_s": "seconds assembling the probe's memory context (embedding, search, reranking)",
    "answer_latency_s": "seconds spent answering the probe",
}
"""Per-probe costs reported beside the metrics (means, no interval)."""

COMPARE_COLUMNS = ["a", "b", "category", "metric", "n", "conversations", "mean_a", "mean_b", "diff", "ci_low", "ci_high",
                   "a_only", "b_only", "verdict", "higher_is_better", "ci_method"]


def _nanmean(values: pd.Series | np.ndarray) -> float:
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    return float(x.mean()) if x.size else float("nan")


def load_run(path: str | Path) -> RunResults:
    path = Path(path)
    manifest_path = path / "manifest.json"
    if not manifest_path.exists():
        raise FileNotFoundError(f"{path} is not a memlab run folder (no manifest.json)")
    manifest = read_manifest(manifest_path, hint=f"; is {path} a run folder?")
    res = RunResults(path, manifest)
    res.format_version  # refuse a newer format now, not at the first table
    return res


def evals_df(paths: list[str | Path]) -> pd.DataFrame:
    """One row per (run, strategy): summaries of several runs side by side."""
    frames = []
    for p in paths:
        r = load_run(p)
        s = r.summary().reset_index()
        s["components"] = s["strategy"].map(r.components())
        for k, v in r.provenance().items():
            s[k] = v
        frames.append(s)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def samples_df(paths: list[str | Path]) -> pd.DataFrame:
    """All scored probe records of several runs."""
    frames = []
    for p in paths:
        r = load_run(p)
        df = r.probes.copy()
        df["run_id"] = r.manifest.get("run_id")
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
