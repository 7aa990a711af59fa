"""Loading run folders into pandas, inspect_ai-style.

``load_run(path)`` gives a :class:`RunResults` whose ``probes``, ``calls``, ``memory_ops``,
``turns`` and ``units`` are DataFrames holding only each unit's final attempt (see
:mod:`memlab.runner`), with per-probe metric columns already scored. ``summary()`` and
``metrics_table()`` aggregate them per strategy (and category) with bootstrap CIs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from memlab.metrics import METRICS, bootstrap_ci, score_probe
from memlab.records import check_format, upgrade_v1
from memlab.recorder import read_jsonl

UNIT = ["strategy", "dataset", "namespace"]


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
        df = self._stream("calls")
        if not df.empty and "scope" in df.columns:
            scope = pd.json_normalize(df["scope"].tolist())
            df = pd.concat([df.drop(columns=["scope"]), scope.drop(columns=[c for c in scope.columns if c in df.columns])], axis=1)
        return df

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
                scores = pd.DataFrame([score_probe(r) for r in records], index=df.index)
                df = pd.concat([df, scores.astype(float)], axis=1)
            self._frames["probes_scored"] = df
        return self._frames["probes_scored"]

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

    def metrics_table(self, *, by_category: bool = True, n_boot: int | None = None) -> pd.DataFrame:
        """Long table: strategy × category (and 'all') × metric → mean, CI, n, direction."""
        probes = self.probes
        n_boot = n_boot if n_boot is not None else int((self.manifest.get("config") or {}).get("bootstrap", 1000))
        seed = int(self.manifest.get("seed", 0))
        rows = []
        if probes.empty:
            return pd.DataFrame(columns=["strategy", "category", "metric", "mean", "ci_low", "ci_high", "n", "higher_is_better"])
        groups = [("all", probes)]
        if by_category:
            groups += list(probes.groupby("category"))
        extra = ["context_tokens", "retrieval_latency_s", "retrieval_total_s", "answer_latency_s"]
        for category, frame in groups:
            for strategy, sf in frame.groupby("strategy"):
                for name in METRICS.names() + extra:
                    vals = sf[name].to_numpy(dtype=float)
                    n = int((~np.isnan(vals)).sum())
                    if n == 0:
                        continue
                    mean, lo, hi = bootstrap_ci(vals, n_boot=n_boot if name in METRICS else 0, seed=seed)
                    hib = METRICS.get(name).higher_is_better if name in METRICS else False
                    rows.append({"strategy": strategy, "category": category, "metric": name, "mean": mean,
                                 "ci_low": lo, "ci_high": hi, "n": n, "higher_is_better": hib})
        out = pd.DataFrame(rows)
        out["components"] = out["strategy"].map(self.components())
        for k, v in self.provenance().items():
            out[k] = v
        return out

    def summary(self) -> pd.DataFrame:
        """One row per strategy: headline metrics (with CIs) and costs."""
        mt = self.metrics_table(by_category=False)
        if mt.empty:
            return pd.DataFrame()
        wide = mt.pivot_table(index="strategy", columns="metric", values="mean")
        lo = mt.pivot_table(index="strategy", columns="metric", values="ci_low")
        hi = mt.pivot_table(index="strategy", columns="metric", values="ci_high")
        cols = ["evidence_recall", "provenance_recall", "answer_correct", "answer_f1", "update_current", "stale_in_context",
                "stale_in_answer", "abstain_when_should", "false_abstention", "forbidden_leak", "errored", "context_tokens",
                "retrieval_latency_s", "retrieval_total_s", "answer_latency_s"]
        out = pd.DataFrame(index=wide.index)
        for c in cols:
            if c in wide:
                out[c] = wide[c]
                if c in METRICS:
                    out[f"{c}_ci"] = list(zip(lo[c].round(3), hi[c].round(3)))
        cost = self.cost()
        out = out.join(cost, how="left")
        order = [s for s in self.strategies if s in out.index]
        return out.reindex(order)


def load_run(path: str | Path) -> RunResults:
    path = Path(path)
    manifest_path = path / "manifest.json"
    if not manifest_path.exists():
        raise FileNotFoundError(f"{path} is not a memlab run folder (no manifest.json)")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{manifest_path}: corrupt manifest ({exc})") from None
    if not isinstance(manifest, dict) or "run_id" not in manifest:
        raise ValueError(f"{manifest_path}: not a memlab manifest (no run_id); is {path} a run folder?")
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
