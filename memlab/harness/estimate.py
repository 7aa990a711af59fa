"""``memlab estimate``: what a config will cost with a real model, before it is run.

How the estimate is made (docs/cost.md has the whole method and how good it is):

1. **A dry run.** The config is played with the offline stand-in for every role and, when it has
   one, for the judge — the same strategies, datasets, prompts and call structure, at no cost.
   The stand-in counts every call's tokens with cl100k on the exact messages and its reply, so
   each strategy's calls and prompt tokens per purpose are those a real model would be sent, as
   far as the real model's replies lead the strategies the same way. When the config would score
   ragas's LLM metrics with a real judge, the ragas pass is run on the dry run's answers too, its
   prompts answered by :mod:`memlab.cost.ragas_standin`. ``limit`` plays only the first users of
   each dataset; the counts are then scaled to the whole config by the ratio of turns. A recorded
   run (``run_dir``, e.g. a few users recorded with a real model) can stand in for the dry run.
2. **Per named model.** Tokens are recounted for the model's tokenizer (an o200k model such as
   gpt-4o counts the same text in fewer tokens than cl100k: the ratio is measured on the run's own
   texts). Output tokens are given twice: *typical*, as in the dry run, and *max*, every call at
   its ``max_tokens`` — the range a real model's verbosity can move the cost in.
3. **Prices** from :class:`~memlab.cost.prices.PriceBook` (LiteLLM's offline map or a user's
   table): USD typical and max. Prompt caching is not assumed (it can only lower the cost).
4. **Wall time** under the config's endpoint settings: units run ``workers`` at a time, a unit's
   calls one after another, each taking ``latency_s`` plus its output at ``output_tps`` tokens per
   second; the endpoint's ``requests_per_minute``, ``tokens_per_minute`` and ``max_in_flight``
   bound it from below. The bound that binds is named.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from memlab.cost.prices import PriceBook

DEFAULT_LATENCY_S = 0.6
"""Seconds before a reply's first token (request, queueing, prompt processing): a typical hosted model."""
DEFAULT_OUTPUT_TPS = 60.0
"""Output tokens per second of a typical hosted model."""
TEXT_SAMPLE_CHARS = 400_000
"""Characters of the run's own texts the tokenizer ratio is measured on."""


@dataclass
class Estimate:
    """The projection: ``rows`` per model × strategy × purpose; ``wall`` per model; what it rests on."""

    rows: pd.DataFrame
    wall: pd.DataFrame
    source: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def by_strategy(self) -> pd.DataFrame:
        """Per model × strategy: calls, tokens and the USD range (purposes summed)."""
        cols = ["calls", "input_tokens", "output_tokens", "output_tokens_max", "usd", "usd_max"]
        return self.rows.groupby(["model", "strategy"], sort=False)[cols].sum(min_count=1).reset_index()

    def totals(self) -> pd.DataFrame:
        cols = ["calls", "input_tokens", "output_tokens", "output_tokens_max", "usd", "usd_max"]
        out = self.rows.groupby("model", sort=False)[cols].sum(min_count=1).reset_index()
        return out.merge(self.wall, on="model", how="left")

    def to_csv(self, path: str | Path) -> Path:
        """The long table (one row per model × strategy × purpose), with the wall time per model."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.rows.merge(self.wall[["model", "wall_s", "wall_bound"]], on="model", how="left").to_csv(path, index=False)
        return path


# --- the dry run -----------------------------------------------------------------------------------

def dry_run_config(config: Any, *, limit: int | None, output_dir: str | Path) -> tuple[Any, list[str]]:
    """``config`` with the offline stand-in for every model, no cache and no budget, writing into
    ``output_dir``; external strategies whose library needs a chat model are left out (named)."""
    from memlab.harness.config import validate_config
    from memlab.llm.base import ModelSpec

    offline = ModelSpec(provider="offline", options=config.model.options if config.model.provider == "offline" else {})
    kept, notes = [], []
    for s, resolved in zip(config.strategies, config.typed_strategies()):
        if _needs_real_model(resolved):
            notes.append(f"{s.name}: not estimated — type {s.type!r} sends its own prompts, which the offline stand-in "
                         "cannot answer; record a few users with a real model and estimate from that run (--run)")
            continue
        kept.append(s)
    if not kept:
        raise ValueError("no strategy of the config can be dry-run offline: " + "; ".join(notes))
    data = config.model_dump(mode="json")
    data.update(
        name=f"{config.name}-estimate", output_dir=str(output_dir), budget={}, prices=config.prices,
        model=offline.model_dump(mode="json"), models={p: offline.model_dump(mode="json") for p in config.models},
        judge=offline.model_dump(mode="json") if config.judge is not None else None,
        strategies=[s.model_dump(mode="json", exclude_none=True) for s in kept],
        limit_conversations=limit if limit is not None else config.limit_conversations)
    if data["executor"].get("ray_address"):
        data["executor"] = {"type": "auto", "workers": data["executor"].get("workers", 1)}
    return validate_config(data, f"estimate of {config.name!r}"), notes


def _needs_real_model(resolved: Any) -> bool:
    """Whether a resolved strategy's library sends its own prompts (read from the config's typed
    strategies: nothing is validated again)."""
    from memlab.external.base import chat_model_needed
    from memlab.strategies.types import ResolvedExternal

    return isinstance(resolved, ResolvedExternal) and chat_model_needed(resolved) is not None


def play_dry_run(config: Any, *, limit: int | None = None, output_dir: str | Path | None = None, progress: bool = True,
                 ragas: bool | None = None) -> tuple[Path, list[str]]:
    """Play the dry run; returns its run folder and what was left out. ``ragas``: also run the ragas
    LLM pass with its stand-in (default: when the config would score ragas's LLM metrics with a real judge)."""
    from memlab.harness.runner import Runner
    from memlab.judging.ragas_pass import LLM_METRICS, ragas_problem, ragas_recorded

    out = Path(output_dir) if output_dir is not None else Path(tempfile.mkdtemp(prefix="memlab-estimate-"))
    dry, notes = dry_run_config(config, limit=limit, output_dir=out)
    runner = Runner(dry, progress=progress)
    run_dir = runner.run()
    if runner.status not in ("completed", "completed_with_failures"):
        raise RuntimeError(f"the dry run stopped ({runner.status}); see {run_dir}")
    if ragas is None:
        asks = config.metrics is None or bool(set(config.metrics) & set(LLM_METRICS))
        ragas = config.judge_spec() is not None and asks and ragas_problem() is None
    if ragas:
        from memlab.cost.ragas_standin import RagasStandIn

        ragas_recorded(run_dir, run_dir, None, model=RagasStandIn(), redo=True)
    return run_dir, notes


# --- reading a run -----------------------------------------------------------------------------------

ROW_COLUMNS = ["model", "priced_as", "strategy", "dataset", "purpose", "calls", "input_tokens", "output_tokens",
               "output_tokens_max", "usd", "usd_max", "tokenizer", "price_source"]
"""The estimate's long table (``Estimate.rows``, and the CSV with the wall time added)."""
PROBE_PHASES = ("probe", "judge")
"""Calls made per probe asked (answering, judging, ragas): scaled by probes; the others by turns."""


def whole_config(config: Any) -> dict[str, dict[str, int]]:
    """Turns and probes per dataset of the whole config (its own ``limit_conversations`` applied)."""
    from memlab.datasets.threads import load_for_run

    return {ds.name: {"turn": sum(len(c.turns()) for c in ds.conversations), "probe": len(ds.probes())}
            for _, ds in load_for_run(config.datasets, config.threads, config.limit_conversations)}


@dataclass
class Recorded:
    """What the estimate reads from a run folder: its raw records of the final attempts (the metrics
    are not scored: a LoCoMo-sized run is read in seconds)."""

    manifest: dict[str, Any]
    calls: pd.DataFrame
    probes: list[dict[str, Any]]
    played: dict[str, dict[tuple[str, str], int]]


def read_recorded(run_dir: Path) -> Recorded:
    """The final attempts' calls and probes, and the turns and probes played per strategy × dataset."""
    from collections import Counter

    from memlab.runfolder.folders import finished_units
    from memlab.runfolder.records import read_manifest
    from memlab.runfolder.recorder import read_jsonl

    manifest = read_manifest(run_dir / "manifest.json", " (is this a memlab run folder?)")
    final = {r["attempt"] for r in finished_units(run_dir).values() if r.get("status") == "ok"}
    calls = pd.DataFrame([c for c in read_jsonl(run_dir / "calls.jsonl") if c.get("attempt") in final])
    probes = [{k: p.get(k) for k in ("strategy", "dataset", "context", "question", "answer")}
              for p in read_jsonl(run_dir / "probes.jsonl") if p.get("attempt") in final]
    turns = Counter((t["strategy"], t["dataset"]) for t in read_jsonl(run_dir / "turns.jsonl") if t.get("attempt") in final)
    return Recorded(manifest, calls, probes, {"turn": dict(turns),
                                              "probe": dict(Counter((p["strategy"], p["dataset"]) for p in probes))})


def measured(run: Recorded) -> pd.DataFrame:
    """The run's calls per strategy × dataset × purpose × driver (``probe``: made per probe asked;
    ``turn``: the rest), with the longest unit's calls and output tokens in ``attrs``."""
    calls = run.calls
    if calls.empty:
        return pd.DataFrame(columns=["strategy", "dataset", "purpose", "driver", "calls", "prompt_tokens",
                                     "completion_tokens", "api_tokens"])
    calls = calls[calls["purpose"] != "embed"]
    source = calls["token_source"] if "token_source" in calls else pd.Series("tiktoken", index=calls.index)
    phase = calls["phase"] if "phase" in calls else pd.Series("turn", index=calls.index)
    calls = calls.assign(api=source.eq("api"), driver=phase.isin(PROBE_PHASES).map({True: "probe", False: "turn"}))
    grouped = calls.groupby(["strategy", "dataset", "purpose", "driver"]).agg(
        calls=("call_id", "count"), prompt_tokens=("prompt_tokens", "sum"), completion_tokens=("completion_tokens", "sum"),
        api_tokens=("api", "mean")).reset_index()
    unit = calls.groupby(["strategy", "attempt"]).agg(unit_calls=("call_id", "count"),
                                                     unit_output=("completion_tokens", "sum")).reset_index()
    longest = unit.sort_values("unit_calls").groupby("strategy").tail(1).set_index("strategy")
    grouped.attrs["longest_unit"] = longest[["unit_calls", "unit_output"]].to_dict("index")
    return grouped


def tokenizer_ratio(run: Recorded, model: str) -> tuple[float, str]:
    """Tokens of ``model``'s tokenizer per cl100k token, measured on the run's own texts (contexts,
    questions, answers, up to :data:`TEXT_SAMPLE_CHARS`); 1.0 for a cl100k model or one whose
    tokenizer memlab does not know."""
    from memlab.tokens import count_tokens

    try:
        import tiktoken.model

        name = tiktoken.model.encoding_name_for_model(model)
    except (KeyError, ImportError):
        return 1.0, "cl100k_base (the model's tokenizer is unknown to tiktoken: counted as cl100k)"
    if name == "cl100k_base":
        return 1.0, name
    if name not in ("o200k_base",):
        return 1.0, f"cl100k_base (no offline copy of {name})"
    texts: dict[str, None] = {}
    size = 0
    for p in run.probes:
        for col in ("context", "question", "answer"):
            text = p.get(col)
            if text and text not in texts:
                texts[text] = None
                size += len(text)
        if size > TEXT_SAMPLE_CHARS:
            break
    cl = sum(count_tokens(t) for t in texts)
    other = sum(count_tokens(t, name) for t in texts)
    return (other / cl if cl else 1.0), name


# --- the projection -------------------------------------------------------------------------------------

def _max_tokens(config: Any, purpose: str, price: Any) -> int:
    """The output cap of a call of ``purpose``: its model's ``max_tokens``, else the price map's maximum."""
    from memlab.judging.ragas_pass import MAX_TOKENS, PURPOSE

    if purpose == PURPOSE:
        return MAX_TOKENS
    spec = config.judge_spec() if purpose == "judge" else config.models.get(purpose, config.model)
    cap = getattr(spec, "max_tokens", None) if spec is not None else None
    return int(cap or (price.max_output_tokens if price is not None else 0) or 0)


def _priced_model(config: Any, purpose: str, model: str | None, judge_model: str | None) -> str | None:
    """The model a call of ``purpose`` is priced as: the judge model for judge and ragas calls when
    given, else ``model``, else the config's own model for that purpose (None: the offline stand-in)."""
    if purpose in ("judge", "ragas") and judge_model:
        return judge_model
    if model:
        return model
    spec = config.judge_spec() if purpose in ("judge", "ragas") else config.models.get(purpose, config.model)
    return spec.model if spec is not None and spec.provider != "offline" else None


def project(config: Any, run_dir: Path, models: list[str | None], *, judge_model: str | None = None,
            prices: PriceBook | None = None, latency_s: float = DEFAULT_LATENCY_S,
            output_tps: float = DEFAULT_OUTPUT_TPS) -> Estimate:
    """The estimate for each of ``models`` (None: the config's own models) from a played run."""
    book = prices or PriceBook(config.prices)
    run = read_recorded(Path(run_dir))
    grouped, played = measured(run), run.played
    whole = whole_config(config)
    rows, walls, notes = [], [], []
    scale: dict[tuple[str, str, str], float] = {}
    for driver, counts in played.items():
        for (strategy, dataset), n in counts.items():
            scale[(strategy, dataset, driver)] = (whole.get(dataset) or {}).get(driver, n) / n if n else 1.0
    if any(abs(f - 1.0) > 1e-9 for f in scale.values()):
        shown = {(d, k): f for (s, d, k), f in scale.items()}
        notes.append("scaled from the users played to the whole config (per-turn calls by turns, per-probe calls by "
                     "probes): " + ", ".join(f"{d} {k}s ×{f:.2f}" for (d, k), f in sorted(shown.items())))
    for model in models:
        label = model or "config"
        ratios: dict[str, tuple[float, str]] = {}
        for g in grouped.itertuples():
            name = _priced_model(config, g.purpose, model, judge_model)
            price = book.get(name) if name else book.get(None)
            if name and name not in ratios:
                ratios[name] = tokenizer_ratio(run, name)
            ratio = ratios[name][0] if name and g.api_tokens < 0.5 else 1.0  # api-reported tokens are the model's own
            f = scale.get((g.strategy, g.dataset, g.driver), 1.0)
            calls = g.calls * f
            prompt, completion = g.prompt_tokens * ratio * f, g.completion_tokens * ratio * f
            out_max = calls * _max_tokens(config, g.purpose, price)
            rows.append({"model": label, "priced_as": name or "offline (free)", "strategy": g.strategy,
                         "dataset": g.dataset, "purpose": g.purpose, "calls": calls, "input_tokens": prompt,
                         "output_tokens": completion, "output_tokens_max": max(out_max, completion),
                         "usd": price.cost(prompt, completion) if price is not None else float("nan"),
                         "usd_max": price.cost(prompt, max(out_max, completion)) if price is not None else float("nan"),
                         "tokenizer": ratios[name][1] if name else "cl100k_base",
                         "price_source": price.source if price is not None else "no price known"})
            if price is None:
                notes.append(f"no price for {name!r}: give a price table (--prices)")
        walls.append(wall_time(config, [r for r in rows if r["model"] == label], grouped.attrs.get("longest_unit", {}),
                               label, latency_s, output_tps))
    frame = pd.DataFrame(rows, columns=ROW_COLUMNS)
    manifest = run.manifest
    source = {"run": str(run_dir), "run_id": manifest.get("run_id"), "models": manifest.get("models"),
              "code_version": manifest.get("code_version"),
              "datasets": [f"{d.get('name')}@{d.get('hash')}" for d in manifest.get("datasets") or []],
              "prices": book.sources(), "latency_s": latency_s, "output_tps": output_tps}
    return Estimate(frame, pd.DataFrame(walls), source, list(dict.fromkeys(notes)))


def wall_time(config: Any, rows: list[dict[str, Any]], longest: dict[str, Any], label: str, latency_s: float,
              output_tps: float) -> dict[str, Any]:
    """The run's wall time for one model: the largest of the latency bound (calls spread over the
    workers, a unit's calls one after another) and the endpoint's rate limits."""
    calls = sum(r["calls"] for r in rows)
    output = sum(r["output_tokens"] for r in rows)
    tokens = sum(r["input_tokens"] + r["output_tokens"] for r in rows)
    workers = config.executor.workers if config.executor.type != "serial" else 1
    limits = config.model.rate_limit
    if limits is not None and limits.max_in_flight:
        workers = min(workers, limits.max_in_flight)
    per_call = latency_s + (output / calls / output_tps if calls else 0.0)
    bounds = {f"latency ({workers} at a time, {per_call:.2f} s a call)": calls * per_call / max(workers, 1)}
    if longest:
        slowest = max(u["unit_calls"] * latency_s + u["unit_output"] / output_tps for u in longest.values())
        bounds["the longest unit's calls in a row"] = slowest
    if limits is not None and limits.requests_per_minute:
        bounds[f"requests_per_minute {limits.requests_per_minute:g}"] = calls * 60.0 / limits.requests_per_minute
    if limits is not None and limits.tokens_per_minute:
        bounds[f"tokens_per_minute {limits.tokens_per_minute:g}"] = tokens * 60.0 / limits.tokens_per_minute
    bound, seconds = max(bounds.items(), key=lambda kv: kv[1])
    return {"model": label, "wall_s": seconds, "wall_bound": bound}


def estimate(config: Any, models: list[str] | None = None, *, judge_model: str | None = None, limit: int | None = None,
             run_dir: str | Path | None = None, prices: str | Path | None = None, output_dir: str | Path | None = None,
             latency_s: float = DEFAULT_LATENCY_S, output_tps: float = DEFAULT_OUTPUT_TPS,
             progress: bool = True) -> Estimate:
    """Estimate ``config`` (a RunConfig or a YAML path) for each of ``models`` (none: its own models),
    from a dry run (``limit``: its first users only) or from the recorded ``run_dir``."""
    from memlab.harness.config import RunConfig, load_config

    config = config if isinstance(config, RunConfig) else load_config(config)
    book = PriceBook(prices if prices is not None else config.prices)
    notes: list[str] = []
    if run_dir is None:
        run_dir, notes = play_dry_run(config, limit=limit, output_dir=output_dir, progress=progress)
    est = project(config, Path(run_dir), list(models or [None]), judge_model=judge_model, prices=book,
                  latency_s=latency_s, output_tps=output_tps)
    est.notes = notes + est.notes
    return est

