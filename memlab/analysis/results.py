"""Loading run folders into pandas, inspect_ai-style.

``load_run(path)`` gives a :class:`RunResults` whose ``probes``, ``calls``, ``memory_ops``,
``turns`` and ``units`` are DataFrames holding only each unit's final attempt (see
:mod:`memlab.harness.runner`), with per-probe metric columns already scored. ``summary()`` and
``metrics_table()`` aggregate them per strategy (and category) with intervals clustered by user
(memory namespace, :mod:`memlab.analysis.stats`); ``compare()`` and ``compare_all()`` are paired comparisons
of strategies.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.analysis.metrics import (METRICS, OFFLINE_ANSWER_WARNING, answer_columns, check_metric_names, score_probe,
                                     score_values)
from memlab.analysis.ceiling import Ceilings
from memlab.analysis.integrity import DamagedRun, check_intact, check_probe_types  # noqa: F401 (DamagedRun re-exported)
from memlab.analysis.played_datasets import played_datasets
from memlab.runfolder.probe_record import ProbeRow
from memlab.runfolder.records import check_format, read_manifest, upgrade_v1
from memlab.runfolder.recorder import read_jsonl
from memlab.analysis.stream import read_frame
from memlab.analysis.stats import Intervals, cluster_interval, paired_compare



@dataclass
class RunResults:
    path: Path
    manifest: dict[str, Any]
    _frames: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    lean: bool = False
    """Probe rows without their heavy fields (contexts; :data:`memlab.analysis.stream.HEAVY`), each with
    where its whole record is (``_off``/``_len``; :meth:`record`): how a run at real length is read
    back in bounded memory. ``load_run`` sets it for a large ``probes.jsonl``."""
    only_metrics: tuple[str, ...] | None = None
    """The metrics this read-back scores (None: every registered one). A reader that needs one metric
    (``memlab suite-check``: string recall) then neither embeds every answer nor imports ragas for the
    metrics it never reads; the probe frame holds only these metrics' columns."""

    @property
    def metric_names(self) -> list[str]:
        """The metrics the probe frame holds: :attr:`only_metrics`, else every registered one."""
        return list(self.only_metrics) if self.only_metrics is not None else METRICS.names()

    @cached_property
    def format_version(self) -> int:
        return check_format(self.manifest, str(self.path / "manifest.json"))

    def _records(self, name: str) -> list[dict[str, Any]]:
        recs = read_jsonl(self.path / f"{name}.jsonl")
        if self.format_version == 1:
            recs = [upgrade_v1(name, r) for r in recs]
        return recs

    def _stream(self, name: str, *, flatten: str | None = None) -> pd.DataFrame:
        """A stream's frame, read once, each unit's final attempt (:meth:`final_rows`). Read column by
        column (:func:`memlab.analysis.stream.read_frame`: no dict per record held, which is what a
        long run's ``memory_ops`` would cost); a format-1 run's records are upgraded one by one."""
        key = name if flatten is None else f"{name}_flat"
        if key not in self._frames:
            if self.format_version == 1:
                df = pd.DataFrame(self._records(name))
                if flatten is not None and not df.empty and flatten in df.columns:
                    inner = pd.json_normalize(df[flatten].tolist())
                    df = pd.concat([df.drop(columns=[flatten]), inner.drop(columns=[c for c in inner.columns if c in df.columns])],
                                   axis=1)
            else:
                df = read_frame(self.path / f"{name}.jsonl", flatten=flatten)
            self._frames[key] = self.final_rows(df) if name != "units" else df
        return self._frames[key]

    def final_rows(self, df: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``df`` (records of one stream, with their ``attempt``) that count: each unit's
        final attempt, units in a fixed order, each unit's records as written. A parallel run writes
        whole units in the order they finish, and a mean summed in another order can differ in the
        last digit, so every executor must be read back in the same order."""
        if not df.empty and "attempt" in df.columns:
            df = df[df["attempt"].isin(self.final_attempts)]
            rank = df["attempt"].map(self._unit_rank)
            df = df.iloc[rank.argsort(kind="stable")]
        return df.reset_index(drop=True)

    def preload(self, *, probes: pd.DataFrame | None = None, calls: pd.DataFrame | None = None) -> RunResults:
        """Use frames read elsewhere instead of reading the streams: ``probes`` already scored
        (:meth:`score`), ``calls`` one row per call with its scope's fields. Both hold every attempt's
        rows; only the final attempts' are kept (:meth:`final_rows`). The viewer's index
        (:mod:`memlab.view.index`) streams a run folder of any size this way and hands the tables
        (summary, comparisons) only the light fields, without the contexts."""
        if probes is not None:
            self._frames["probes_scored"] = self.final_rows(probes)
        if calls is not None:
            self._frames["calls_flat"] = self.final_rows(calls)
        return self

    def score(self, records: list[dict[str, Any]], *, save_cache: bool = True) -> pd.DataFrame:
        """Every metric's value for these probe records (one row each, in order): mean metrics as
        floats, a level metric as its level. Each record gets its ceiling first (``gold_written``,
        :meth:`fill_ceilings`, in place). The run's embedding cache is read, and written back
        with the new vectors unless ``save_cache`` is False (a caller scoring a run in batches
        saves it once, with the last)."""
        self.fill_ceilings(records)
        names = self.metric_names
        # the answers' embedding cache serves the metrics that score in bulk (ragas's), and opening it imports ragas
        cache = self._embedding_cache() if any(METRICS.get(n).prepare is not None for n in names) else None
        scores = pd.DataFrame(score_values([ProbeRow.from_row(r) for r in records], names), columns=names)
        if cache is not None and save_cache:
            cache.save()
        means = [n for n in names if METRICS.get(n).aggregation == "mean"]
        scores[means] = scores[means].astype(float)  # a level column (proportions) stays text
        return scores

    def fill_ceilings(self, records: list[dict[str, Any]]) -> None:
        """Set ``gold_written`` (the probe's ceiling: could any context hold its gold?) on each record
        with a gold and without one, computed from the run's datasets (:mod:`memlab.analysis.ceiling`);
        the datasets are read only when some record needs it. A recorded value (a run from before
        ceilings were computed at read-back) is kept; without the dataset it stays None (unknown)."""
        todo = [r for r in records if r.get("gold_written") is None and r.get("gold")]
        if todo:
            self._ceilings.fill(todo)
        for r in records:  # every record carries the field, so a frame of any subset of them has the same column
            r.setdefault("gold_written", None)

    @cached_property
    def _ceilings(self) -> Ceilings:
        datasets, self.ceiling_notes = played_datasets(self.manifest)
        return Ceilings(datasets)

    ceiling_notes: list[str] = field(default_factory=list, repr=False)
    """Why a dataset's ceilings are unknown (missing, unreadable, changed since the run)."""

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

    def check_intact(self) -> RunResults:
        """Raise :class:`~memlab.analysis.integrity.DamagedRun` when the folder's records contradict its
        manifest (``units.jsonl`` or ``probes.jsonl`` missing or short) or a probe record has a field
        of the wrong type; return the run itself otherwise. ``memlab report`` and ``explain`` call it first."""
        check_intact(self.path, self.manifest, self.unit_ends, self.probes)
        return self

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
        return self._stream("calls", flatten="scope")

    @property
    def memory_ops(self) -> pd.DataFrame:
        return self._stream("memory_ops")

    @property
    def turns(self) -> pd.DataFrame:
        return self._stream("turns")

    def record(self, row: dict[str, Any]) -> dict[str, Any]:
        """A probe row's whole record: a lean row (:attr:`lean`) is read back from ``probes.jsonl``
        at its offset with its scores; any other row is its own record."""
        off = row.get("_off")
        if off is None or (isinstance(off, float) and np.isnan(off)):
            return row
        from memlab.analysis.stream import read_line

        rec = read_line(self.path / "probes.jsonl", int(off), int(row["_len"]))
        if self.format_version == 1:
            rec = upgrade_v1("probes", rec)
        return {**rec, **{k: v for k, v in row.items() if k not in rec}}

    def _lean_probes(self) -> pd.DataFrame:
        """The scored probe rows read line by line: records of non-final attempts skipped, the rest
        scored in batches and kept without their heavy fields (memlab.analysis.stream)."""
        from memlab.analysis.integrity import check_record_types
        from memlab.analysis.stream import HEAVY, light_rows, loads, scan

        final = self.final_attempts
        path = self.path / "probes.jsonl"

        def records():
            for number, (off, line) in enumerate(scan(path), start=1):
                if not line.strip():
                    continue
                rec = loads(line)
                if self.format_version == 1:
                    rec = upgrade_v1("probes", rec)
                if isinstance(rec, dict) and rec.get("attempt") in final:
                    check_record_types(self.path, number, rec, HEAVY)  # the fields the frame will not hold
                    yield off, len(line), rec

        try:
            rows = light_rows(self, records())
        except Exception:  # a record of the wrong type: name it as the whole read would, else the error itself
            check_probe_types(path.parent, pd.DataFrame(self._records("probes")), lambda: self._records("probes"))
            raise
        df = self.final_rows(pd.DataFrame(rows))
        means = [n for n in self.metric_names if METRICS.get(n).aggregation == "mean" and n in df.columns]
        df[means] = df[means].astype(float)  # as score() gives them (light rows carry None for a missing value)
        check_probe_types(self.path, df, lambda: self._records("probes"))
        return df

    @property
    def probes_recorded(self) -> pd.DataFrame:
        """The probe rows as recorded (each unit's final attempt, contexts included), without scores: for a
        reader that needs what was asked, shown and answered but no metric (``memlab profile``), scoring
        every metric would cost more than reading the run."""
        return self._stream("probes")

    @property
    def probes(self) -> pd.DataFrame:
        if "probes_scored" not in self._frames and self.lean:
            self._frames["probes_scored"] = self._lean_probes()
        if "probes_scored" not in self._frames:
            df = self._stream("probes")
            check_probe_types(self.path, df, lambda: self._records("probes"))  # a wrong type is damage, not a traceback
            if not df.empty:
                # A column that is a string in some records is NaN in the others once framed: turn
                # those back into None so "no error" is not read as a (truthy) NaN error.
                records = [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
                           for r in df.to_dict("records")]
                scores = self.score(records).set_axis(df.index)
                df = df.assign(gold_written=pd.Series([r.get("gold_written") for r in records], index=df.index, dtype=object))  # filled by score()
                df = pd.concat([df, scores], axis=1)
            self._frames["probes_scored"] = df
        return self._frames["probes_scored"]

    def _embedding_cache(self) -> Any:
        """The run's embedding cache file, when it still exists where the run wrote it, for the
        metrics that embed answers (ragas semantic similarity): read once, kept up to date."""
        from memlab.analysis import ragas_metrics

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

    @property
    def offline_answers(self) -> bool:
        """Whether the answers were written by the offline stand-in (the ``answer`` role's model, and
        the ``agent`` role's when a strategy answers through an agent): then answer metrics measure
        that extractive answerer, not the memory, and are marked as such (:data:`OFFLINE_ANSWER_WARNING`)."""
        return answers_offline(self.manifest)

    @property
    def answer_warning(self) -> str:
        """The one-line warning to show beside answer metrics ('' when a real model answered)."""
        return f"⚠ {OFFLINE_ANSWER_WARNING}" if self.offline_answers else ""

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
        """Per strategy, its fully resolved components as one line (what exported rows carry).

        The run writes these lines into its manifest; a run from before that is described here from
        its resolved specs (slots alphabetically, the store last) — the analysis side reads run
        folders and never imports a strategy to do it."""
        written = self.manifest.get("components") or {}
        return {spec["name"]: written.get(spec["name"]) or _describe_resolved(spec)
                for spec in self.manifest.get("strategies", [])}

    def conversations_per_strategy(self) -> pd.Series:
        """Conversations played to the end (in units that finished ok), per strategy."""
        counts: dict[str, int] = {}
        for (strategy, _, _), rec in self.unit_ends.items():
            if rec.get("status", "ok") == "ok":
                counts[strategy] = counts.get(strategy, 0) + len(rec.get("conversation_ids") or [rec.get("conversation_id")])
        return pd.Series(counts, dtype=float)

    def cost(self, prices: Any = None) -> pd.DataFrame:
        """Per strategy: model tokens and calls per conversation, split by purpose, and what they cost.

        Prompt / completion tokens and calls count chat calls; the embedding requests an external
        library sends to memlab's endpoint (purpose ``embed``) are only in ``tokens_embed`` — memlab's
        own strategies embed in-process, uncounted, so totals compare like with like.
        ``cached_tokens`` are the prompt tokens the endpoint served from its prompt cache.
        ``usd_per_conv`` prices the calls that reached an endpoint (not replayed from memlab's cache,
        not the offline stand-in, which costs nothing) with ``prices`` (a
        :class:`~memlab.cost.prices.PriceBook`; default: the run config's ``prices:`` table, then
        LiteLLM's offline map), cached tokens at the cached rate; NaN where a model has no price."""
        calls = self.calls
        n_conv = self.conversations_per_strategy()
        if calls.empty:
            return pd.DataFrame(index=pd.Index(self.strategies, name="strategy"))
        if "cached_tokens" not in calls:
            calls = calls.assign(cached_tokens=0)
        calls = calls.assign(tokens=calls["prompt_tokens"] + calls["completion_tokens"],
                             cached_tokens=calls["cached_tokens"].fillna(0), usd=self._call_usd(calls, prices))
        by = calls.pivot_table(index="strategy", columns="purpose", values="tokens", aggfunc="sum", fill_value=0)
        by.columns = [f"tokens_{c}" for c in by.columns]
        failed = calls.groupby("strategy")["ok"].agg(lambda s: int((~s.astype(bool)).sum())).rename("failed_calls")
        calls = calls[calls["purpose"] != "embed"]
        agg = calls.groupby("strategy").agg(
            prompt_tokens=("prompt_tokens", "sum"), completion_tokens=("completion_tokens", "sum"),
            cached_tokens=("cached_tokens", "sum"), calls=("call_id", "count"), call_latency_s=("latency_s", "sum"),
            usd=("usd", lambda s: float(s.sum(min_count=len(s))) if len(s) else 0.0),
        )
        out = agg.reindex(by.index, fill_value=0).join(failed)[
            ["prompt_tokens", "completion_tokens", "cached_tokens", "calls", "failed_calls", "call_latency_s", "usd"]].join(by)
        per = out.div(n_conv.reindex(out.index).replace(0, np.nan), axis=0)
        per.columns = [f"{c}_per_conv" for c in per.columns]
        return out[["failed_calls"]].join(per).reindex(self.strategies)

    def price_book(self) -> Any:
        """The prices this run's calls are costed with: the config's ``prices:`` table (when the file
        is still there) before LiteLLM's offline map (:class:`memlab.cost.prices.PriceBook`)."""
        from memlab.cost.prices import PriceBook, PriceTableError

        table = (self.manifest.get("config") or {}).get("prices")
        try:
            return PriceBook(table if table and Path(table).is_file() else None)
        except PriceTableError:
            return PriceBook()

    def _call_usd(self, calls: pd.DataFrame, prices: Any) -> pd.Series:
        """Each call's price in USD: 0 for a replayed or offline call, NaN for a model without a price."""
        from memlab.cost.prices import is_billable

        prices = prices if prices is not None else self.price_book()
        out = pd.Series(0.0, index=calls.index)
        cached = calls["cached"].fillna(False).astype(bool) if "cached" in calls else pd.Series(False, index=calls.index)
        for model, rows in calls[~cached].groupby(calls["model"].astype(str)):  # one price lookup per model
            if not is_billable({"model": model}):
                continue
            price = prices.get(model)
            if price is None:
                out[rows.index] = np.nan
                continue
            prompt, completion = rows["prompt_tokens"].fillna(0), rows["completion_tokens"].fillna(0)
            hit = np.minimum(rows["cached_tokens"].fillna(0).clip(lower=0), prompt)  # Price.cost, by column
            rate = price.input if price.cached_input is None else price.cached_input
            out[rows.index] = (prompt - hit) * price.input + hit * rate + completion * price.output
        return out

    @property
    def intervals(self) -> Intervals:
        """How this run's intervals are computed: config ``intervals`` (default ``cluster_t``), and for
        the bootstrap method ``bootstrap`` resamples seeded with the run seed."""
        cfg = self.manifest.get("config") or {}
        return Intervals(n_boot=int(cfg.get("bootstrap", 1000)), seed=int(self.manifest.get("seed", cfg.get("seed", 0)) or 0),
                         method=cfg.get("intervals") or "cluster_t")

    bootstrap = intervals
    """The former name of :attr:`intervals`."""

    @cached_property
    def namespaces(self) -> dict[tuple[str, str], str]:
        """(dataset, conversation id) → the memory namespace (user) it was played in: the cluster of
        every interval, since the conversations of one user share long-term memory."""
        out: dict[tuple[str, str], str] = {}
        for (_, dataset, ns), rec in self.unit_ends.items():
            for cid in rec.get("conversation_ids") or [rec.get("conversation_id")]:
                if cid is not None:
                    out[(str(dataset), str(cid))] = str(ns if ns is not None else cid)
        return out

    def headline_metrics(self) -> list[str]:
        """The metrics the run's config chose (``metrics:``), else every registered one; of those, the ones
        this read-back scores (:attr:`only_metrics`)."""
        chosen = (self.manifest.get("config") or {}).get("metrics")
        names = check_metric_names(chosen, "config.metrics") if chosen else METRICS.names()
        return [n for n in names if n in self.metric_names] if self.only_metrics is not None else names

    def _scored(self) -> pd.DataFrame:
        """Per probe: every reported column's number (a mean's value, a level's indicator) and
        ``<column>:can_hit`` (1 when the probe can be scored a hit at all, 0 not, NaN unknown)."""
        if "indicators" not in self._frames:
            probes = self.probes
            cols: dict[str, np.ndarray] = {}
            if not probes.empty:
                records: list[Any] = []
                if any(METRICS.get(n).ceiling is not None for n in self.metric_names):
                    records = [ProbeRow.from_row(r).event for r in probes.to_dict("records")]
                for name in self.metric_names:
                    m = METRICS.get(name)
                    values = [None if isinstance(v, float) and np.isnan(v) else v for v in probes[name].tolist()]
                    # without a ceiling every probe can be a hit (Metric.can_hit): no call per probe
                    can_hit = (np.array([m.can_hit(r) for r in records], dtype=float) if m.ceiling is not None
                               else np.ones(len(probes)))
                    for col, arr in m.indicators(values).items():
                        cols[col] = arr
                        cols[f"{col}:can_hit"] = np.where(np.isnan(arr), np.nan, can_hit)
            self._frames["indicators"] = pd.DataFrame(cols, index=probes.index)
        return self._frames["indicators"]

    def cluster_of(self, dataset: str, conversation_id: str) -> tuple[str, str]:
        """The interval cluster of a conversation's probes: (dataset, its user's namespace)."""
        return (str(dataset), self.namespaces.get((str(dataset), str(conversation_id)), str(conversation_id)))

    def _clusters(self, frame: pd.DataFrame) -> list[tuple[str, str]]:
        return [self.cluster_of(d, c) for d, c in zip(frame["dataset"].astype(str), frame["conversation_id"].astype(str))]

    def metrics_table(self, *, by_category: bool = True, n_boot: int | None = None,
                      metrics: list[str] | None = None) -> pd.DataFrame:
        """Long table: strategy × category (and 'all') × reported column → mean, CI, n, ceiling.

        Each metric is aggregated as it declares (a mean, or the share of each level of a
        categorical outcome); intervals are clustered by user (:mod:`memlab.analysis.stats`), the
        ``conversations`` column counts those clusters and the ``ci_method`` column says how the
        interval was made. Cost columns (context tokens, latencies) have no interval.

        Computed once per set of arguments and kept (a report asks for the same table several
        times: the printed table, metrics.csv, the category table, the design report); each call
        gets its own copy. Every interval is computed on its own, so a table does not depend on
        which others were computed before it."""
        key = (by_category, n_boot, tuple(metrics) if metrics else None)
        tables = self._frames.setdefault("metrics_tables", {})
        if key not in tables:
            tables[key] = self._metrics_table(by_category=by_category, n_boot=n_boot, metrics=metrics)
        out = tables[key].copy()
        out.attrs = dict(tables[key].attrs)
        return out

    def _metrics_table(self, *, by_category: bool, n_boot: int | None, metrics: list[str] | None) -> pd.DataFrame:
        spec = self.intervals if n_boot is None else Intervals(n_boot=n_boot, seed=self.intervals.seed,
                                                               method=self.intervals.method)
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
        answers = answer_columns()
        out["scores_answer"] = out["metric"].isin(answers)
        out["offline_answerer"] = out["scores_answer"] & self.offline_answers
        out["components"] = out["strategy"].map(self.components())
        for k, v in self.provenance().items():
            out[k] = v
        out.attrs["caption"] = spec.caption()
        return out

    @staticmethod
    def _metric_row(scored: pd.DataFrame, index: pd.Index, clusters: list[tuple[str, str]], spec: Intervals, m: Any,
                    name: str, col: str, hib: bool | None, strategy: str, category: str) -> dict[str, Any] | None:
        vals = scored.loc[index, col].to_numpy(dtype=float)
        n = int((~np.isnan(vals)).sum())
        if n == 0:
            return None
        mean, lo, hi = cluster_interval(vals, clusters, spec)
        return {"strategy": strategy, "category": category, "metric": col, "mean": mean,
                "ci_low": lo, "ci_high": hi, "n": n,
                "conversations": len({c for c, v in zip(clusters, vals) if not np.isnan(v)}),
                "ceiling": _nanmean(scored.loc[index, f"{col}:can_hit"]),
                "higher_is_better": hib, "aggregation": m.aggregation, "ci_method": spec.caption(),
                "description": m.description if col == name else f"{m.description}: share {col.split('.', 1)[1]}"}

    def recall_by_age(self, by: str = "tokens", metrics: tuple[str, ...] | list[str] = ("evidence_recall", "provenance_recall"),
                      strategies: list[str] | None = None) -> pd.DataFrame:
        """The forgetting curves: per strategy × evidence-age bin × metric, the mean with its interval
        (:mod:`memlab.analysis.forgetting`). ``by``: ``tokens`` of the user's history since the earliest
        evidence turn, or ``threads`` in between."""
        from memlab.analysis.forgetting import recall_by_age

        return recall_by_age(self, by=by, metrics=metrics, strategies=strategies)

    def category_table(self, metric: str = "evidence_recall") -> pd.DataFrame:
        """Per strategy × category: the mean of one reported column (``attrs['caption']``: the CI method)."""
        mt = self.metrics_table()
        sub = mt[mt["metric"] == metric]
        out = sub.pivot_table(index="strategy", columns="category", values="mean").reindex(self.strategies)
        out.attrs["caption"] = f"{metric} by category; intervals in metrics.csv ({self.intervals.caption()})"
        return out

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
        out.attrs["caption"] = self.intervals.caption()
        out.attrs["answer_columns"] = [c for c in headline if c in answer_columns()]
        out.attrs["answer_warning"] = self.answer_warning
        return out

    def answer_summary(self) -> pd.DataFrame:
        """The headline metrics that score the answer (answer accuracy, update answers, abstention),
        apart from the memory's: one row per strategy, ``attrs['caption']`` the one-line warning when
        the offline stand-in answered (its numbers measure that answerer, not the memory)."""
        summary = self.summary()
        cols = [c for col in summary.attrs.get("answer_columns", []) for c in (col, f"{col}_ci") if c in summary]
        out = summary[cols].copy() if not summary.empty else pd.DataFrame()
        out.attrs["caption"] = self.answer_warning or f"answers by {self.model_label}"
        return out

    def explanations(self, *, strategy: str | None = None, probe_id: str | None = None,
                     missed_only: bool = False) -> pd.DataFrame:
        """Why each probe scored what it did: one row per probe and metric that explains itself and
        applies (strategy, dataset, conversation_id, probe_id, category, metric, score, explanation),
        e.g. "no form of 'Lisbon' in the context; nearest: line 14 of Facts: 'moved to Lisbo…', 0.83
        of 'Lisbon'". ``missed_only`` keeps the rows whose score is not the metric's best (a mean
        below 1 when higher is better, above 0 when lower is; a level not marked better). Computed
        on demand from the recorded probes with the same scoring primitives as the metrics."""
        from memlab.redact import redact_text

        probes = self.probes
        cols = ["strategy", "dataset", "conversation_id", "probe_id", "category", "metric", "score", "explanation"]
        if probes.empty:
            return pd.DataFrame(columns=cols)
        keep = pd.Series(True, index=probes.index)
        if strategy is not None:
            keep &= probes["strategy"] == strategy
        if probe_id is not None:
            keep &= probes["probe_id"].astype(str) == str(probe_id)
        rows = []
        for rec in probes[keep].to_dict("records"):
            record = ProbeRow.from_row(self.record(rec))
            scope, event = record.scope, record.event
            for name, score in score_probe(record).items():
                if score.value is None or not score.explanation:
                    continue
                if missed_only and not score_missed(METRICS.get(name), score.value):
                    continue
                rows.append([scope.strategy, scope.dataset, scope.conversation_id, event.probe_id, event.category or None,
                             name, score.value, redact_text(score.explanation)])
        return pd.DataFrame(rows, columns=cols)

    def compare(self, a: str, b: str, metrics: list[str] | None = None, by_category: bool = True,
                by: str = "category") -> pd.DataFrame:
        """Paired comparison of strategies ``a`` and ``b`` over the probes both answered.

        Per category ('all' first) and reported column: both means, the mean difference A − B with
        an interval clustered by user, for binary columns the discordant probes (``a_only``: A hit,
        B missed; ``b_only``: the reverse), and a verdict (A better / B better / not shown).
        ``by`` groups by another probe column instead of the category (``evidence_scope``: own
        thread vs earlier threads; ``dataset``); the group's value goes in the ``category`` column."""
        known = sorted(set(self.probes["strategy"])) if not self.probes.empty else []
        for name in (a, b):
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"{self.path}: no strategy {name!r} in this run.{hint} Strategies: {', '.join(known) or '(none)'}")
        spec = self.intervals
        key = ["dataset", "conversation_id", "probe_id"]
        if by not in self.probes.columns:
            raise ValueError(f"{self.path}: cannot group by {by!r}: no such probe column")
        probes = self.probes[key + ["strategy"]].assign(_group=self.probes[by]).join(self._scored())
        pa, pb, common = paired_rows(probes, a, b, key)
        groups = [("all", np.ones(len(common), dtype=bool))]
        if by_category:
            groups += [(c, (pa["_group"] == c).to_numpy()) for c in sorted(set(pa["_group"].dropna()), key=str)]
        clusters = [self.cluster_of(ds, conv) for ds, conv, _ in common]
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
        out.attrs["caption"] = f"each strategy (A) against {reference} (B), paired over the same probes; {self.intervals.caption()}"
        return out


from memlab.scoring.metric_registry import COST_COLUMNS  # noqa: E402,F401  (re-exported)


def score_missed(metric: Any, score: Any) -> bool:
    """The score is not the metric's best (see :meth:`RunResults.explanations`); False for None."""
    if score is None:
        return False
    if metric.aggregation == "proportions":
        return dict(metric.levels).get(score) is not True
    if metric.higher_is_better is None:
        return False
    return float(score) < 1.0 if metric.higher_is_better else float(score) > 0.0


def _describe_resolved(spec: dict[str, Any]) -> str:
    """``extractor=post_turn; ...; store=in_memory`` from a resolved spec (runs that predate the
    manifest's ``components``)."""
    if spec.get("type") not in (None, "composed"):
        params = ",".join(f"{k}={v}" for k, v in sorted(spec.items()) if k not in ("name", "type", "description"))
        return f"{spec['type']}({params})"
    parts = []
    for slot in sorted((k for k, v in spec.items() if isinstance(v, dict) and "type" in v), key=lambda k: (k == "store", k)):
        params = ",".join(f"{k}={v}" for k, v in spec[slot].items() if k != "type")
        parts.append(f"{slot}={spec[slot]['type']}" + (f"({params})" if params else ""))
    return "; ".join(parts) or "none"

COMPARE_COLUMNS = ["a", "b", "category", "metric", "n", "conversations", "mean_a", "mean_b", "diff", "ci_low", "ci_high",
                   "a_only", "b_only", "verdict", "p_value", "higher_is_better", "ci_method"]


def answers_offline(manifest: dict[str, Any]) -> bool:
    """Whether a run's answers came from the offline stand-in (see :attr:`RunResults.offline_answers`)."""
    models = manifest.get("models") or {}
    roles = models.get("roles") or {}
    default = models.get("default") or {}
    answering = ["answer"] + (["agent"] if any(s.get("agent") for s in manifest.get("strategies") or []) else [])

    def offline(d: Any) -> bool:
        return isinstance(d, dict) and (bool(d.get("heuristic")) or d.get("provider") in ("offline", "heuristic"))

    return any(offline(roles.get(r, default)) for r in answering)


def _nanmean(values: pd.Series | np.ndarray) -> float:
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    return float(x.mean()) if x.size else float("nan")


def paired_rows(frame: pd.DataFrame, a: str, b: str, key: list[str]) -> tuple[pd.DataFrame, pd.DataFrame, pd.Index]:
    """The rows of strategies ``a`` and ``b`` on the probes both answered (``key`` names a probe), in
    the same order: what a paired comparison compares. Returns (a's rows, b's rows, the keys)."""
    pa = frame[frame["strategy"] == a].set_index(key)
    pb = frame[frame["strategy"] == b].set_index(key)
    common = pa.index.intersection(pb.index)
    return pa.loc[common], pb.loc[common], common


def load_run(path: str | Path, *, lean: bool | None = None, metrics: list[str] | None = None) -> RunResults:
    """A run folder's results. ``lean``: probe rows without their contexts (:attr:`RunResults.lean`);
    None: lean when ``probes.jsonl`` is at least :data:`memlab.analysis.stream.LEAN_BYTES` (a run at
    real length, whose contexts would not fit in memory as a frame). ``metrics``: score only these
    (:attr:`RunResults.only_metrics`; an unknown name fails with the names it may have meant)."""
    from memlab.analysis.stream import LEAN_BYTES

    path = Path(path)
    manifest_path = path / "manifest.json"
    if not manifest_path.exists():
        raise FileNotFoundError(f"{path} is not a memlab run folder (no manifest.json)")
    manifest = read_manifest(manifest_path, hint=f"; is {path} a run folder?")
    if lean is None:
        probes = path / "probes.jsonl"
        lean = probes.exists() and probes.stat().st_size >= LEAN_BYTES
    only = tuple(check_metric_names(metrics, "metrics")) if metrics is not None else None
    res = RunResults(path, manifest, lean=lean, only_metrics=only)
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
