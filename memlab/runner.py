"""The runner: plays every conversation turn by turn through every strategy and records it all.

Work is split into units — one (strategy, dataset, conversation) — each with an attempt id.
Every record carries its attempt; a unit is finished when its end marker is in
``units.jsonl``. ``--resume`` skips finished units and restarts unfinished ones with a fresh
attempt (their namespace is cleared first), and the results loader keeps only the records of
each unit's final attempt, so nothing is redone or counted twice.

Failures are data: a model call that fails after retries is a failed call (``calls.jsonl``)
and an errored probe; a store that is unreachable fails its unit with the backend's message
and the run moves on. Ctrl-C marks the run ``interrupted``.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memlab.config import RunConfig
from memlab.datasets.io import dataset_hash, load_dataset
from memlab.datasets.models import Conversation, Dataset
from memlab.datasets.stats import dataset_tokens
from memlab.embeddings import MINILM_ID, shared_embedder
from memlab.llm import calls
from memlab.llm.base import make_model
from memlab.llm.types import CallRecord
from memlab.memory.stores.base import make_store
from memlab.provenance import code_version, environment, git_info, package_versions
from memlab.recorder import RunRecorder, read_jsonl, write_json_atomic
from memlab.roles.program import MemoryRoles, RoleFailure
from memlab.strategies.base import TurnEvent
from memlab.strategies.components import BuildEnv
from memlab.strategies.composed import ComposedStrategy
from memlab.tokens import count_tokens


class ResumeMismatch(RuntimeError):
    """--resume on a run folder whose config or datasets differ from the ones given."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _fingerprint(resolved: list[dict[str, Any]], hashes: dict[str, str], config: RunConfig) -> str:
    payload = {"strategies": resolved, "datasets": hashes, "model": config.model.model_dump(mode="json"),
               "judge": config.judge.model_dump(mode="json") if config.judge else None,
               "limit": config.limit_conversations}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]


class _CallSink:
    """Writes call records and keeps per-turn totals for the turn records."""

    def __init__(self, recorder: RunRecorder) -> None:
        self.recorder = recorder
        self.turn = Counter()

    def __call__(self, record: CallRecord) -> None:
        self.recorder.write("calls", record.model_dump(mode="json"))
        self.turn["calls"] += 1
        self.turn["prompt_tokens"] += record.prompt_tokens
        self.turn["completion_tokens"] += record.completion_tokens
        self.turn["failed_calls"] += 0 if record.ok else 1


class Runner:
    def __init__(self, config: RunConfig, *, run_dir: str | Path | None = None, resume: bool = False,
                 progress: bool = True) -> None:
        self.config = config
        self.resume = resume
        self.progress = progress
        self.datasets: list[tuple[str, Dataset]] = [(p, load_dataset(p)) for p in config.datasets]
        if config.limit_conversations:
            self.datasets = [(p, ds.model_copy(update={"conversations": ds.conversations[: config.limit_conversations]}))
                             for p, ds in self.datasets]
        self.hashes = {ds.name: dataset_hash(ds) for _, ds in self.datasets}
        self.resolved = config.resolved_strategies()
        self.fingerprint = _fingerprint(self.resolved, self.hashes, config)
        if run_dir is None:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            run_dir = _claim_dir(Path(config.output_dir) / f"{stamp}-{config.name}")
        self.run_dir = Path(run_dir)
        self.manifest_path = self.run_dir / "manifest.json"
        self.run_id = self.run_dir.name

    # -- bookkeeping -------------------------------------------------------------------------------
    def _finished_units(self) -> set[tuple[str, str, str]]:
        done = set()
        for rec in read_jsonl(self.run_dir / "units.jsonl"):
            if rec.get("event") == "end":
                done.add((rec["strategy"], rec["dataset"], rec["conversation_id"]))
        return done

    def _prepare_manifest(self) -> dict[str, Any]:
        if self.resume:
            if not self.manifest_path.exists():
                raise ResumeMismatch(f"--resume: {self.run_dir} has no manifest.json")
            manifest = json.loads(self.manifest_path.read_text())
            if manifest.get("fingerprint") != self.fingerprint:
                raise ResumeMismatch(
                    f"--resume: {self.run_dir} was made with a different config or dataset "
                    f"(fingerprint {manifest.get('fingerprint')} != {self.fingerprint}); start a new run instead"
                )
            manifest.setdefault("resumed_at", []).append(_now())
            manifest["status"] = "running"
            return manifest
        if self.manifest_path.exists():
            raise FileExistsError(f"{self.run_dir} already holds a run; use --resume to continue it")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        git = git_info()
        return {
            "run_id": self.run_id,
            "name": self.config.name,
            "description": self.config.description,
            "status": "running",
            "started_at": _now(),
            "ended_at": None,
            "fingerprint": self.fingerprint,
            "config": self.config.model_dump(mode="json"),
            "strategies": self.resolved,
            "datasets": [
                {"path": p, "name": ds.name, "version": ds.version, "hash": self.hashes[ds.name],
                 "conversations": len(ds.conversations), "probes": len(ds.probes()),
                 "tokens_per_conversation": round(dataset_tokens(ds) / max(len(ds.conversations), 1))}
                for p, ds in self.datasets
            ],
            "models": {},
            "embedder": {"model": MINILM_ID, "implementation": "numpy forward pass (memlab.embeddings)", "dim": 384},
            "tokenizer": "tiktoken cl100k_base",
            "git": git,
            "code_version": code_version(git),
            "packages": package_versions(),
            "environment": environment(),
            "seed": self.config.seed,
        }

    # -- main loop -----------------------------------------------------------------------------------
    def run(self) -> Path:
        manifest = self._prepare_manifest()
        recorder = RunRecorder(self.run_dir)
        embedder = shared_embedder(self.config.embedding_cache)
        model = make_model(self.config.model, embedder=embedder)
        judge = make_model(self.config.judge, embedder=embedder) if self.config.judge else None
        roles = MemoryRoles(model, judge)
        manifest["models"] = {"roles": model.describe(), "judge": judge.describe() if judge else None,
                              "heuristic": bool(model.is_heuristic)}
        write_json_atomic(self.manifest_path, manifest)

        done = self._finished_units() if self.resume else set()
        units = [(spec, p, ds, conv) for spec in self.resolved for p, ds in self.datasets for conv in ds.conversations]
        todo = [u for u in units if (u[0]["name"], u[2].name, u[3].id) not in done]
        total_turns = sum(len(u[3].turns()) for u in todo)
        sink = _CallSink(recorder)
        status = "completed"
        progress = _progress(self.progress)
        try:
            with progress, calls.call_sink(sink):
                task = progress.add_task(f"{self.config.name}", total=total_turns)
                strategies: dict[str, ComposedStrategy] = {}
                for spec, _path, ds, conv in todo:
                    name = spec["name"]
                    progress.update(task, description=f"{name} · {conv.id}")
                    try:
                        if name not in strategies:
                            strategies[name] = self._build(spec, roles, embedder)
                            manifest.setdefault("strategies_resolved", {})[name] = strategies[name].describe()
                        strategy = strategies[name]
                        self._play(strategy, ds, conv, roles, recorder, sink, progress, task)
                    except _UnitFailed:
                        pass
                    except Exception as exc:  # building the strategy failed (e.g. store unreachable)
                        self._unit_end(recorder, name, ds, conv, uuid.uuid4().hex[:12], "failed", f"{type(exc).__name__}: {exc}", 0.0)
                        progress.advance(task, len(conv.turns()))
                for s in strategies.values():
                    s.close()
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            recorder.close()
            embedder.save()
            manifest["status"] = status
            manifest["ended_at"] = _now()
            unit_recs = [r for r in read_jsonl(self.run_dir / "units.jsonl") if r.get("event") == "end"]
            manifest["units"] = {"total": len(units), "finished": len({(r["strategy"], r["dataset"], r["conversation_id"]) for r in unit_recs}),
                                 "failed": sorted({f"{r['strategy']}/{r['conversation_id']}: {r['error']}" for r in unit_recs if r["status"] == "failed"})}
            write_json_atomic(self.manifest_path, manifest)
        return self.run_dir

    def _build(self, spec: dict[str, Any], roles: MemoryRoles, embedder: Any) -> ComposedStrategy:
        name = spec["name"]

        def store_factory(store_spec: dict[str, Any]) -> Any:
            store_spec = dict(store_spec)
            backend = store_spec.pop("type")
            options = {**self.config.store_options.get(backend, {}), **store_spec}
            if backend == "chroma" and not options.get("host"):
                options.setdefault("path", str(self.run_dir / "stores" / name / "chroma"))
            return make_store(backend, **options)

        env = BuildEnv(roles=roles, embedder=embedder, strategy_name=name, make_store=store_factory)
        return ComposedStrategy(spec, env, namespace_prefix=f"{self.run_id}/{name}/")

    def _play(self, strategy: ComposedStrategy, ds: Dataset, conv: Conversation, roles: MemoryRoles,
              recorder: RunRecorder, sink: _CallSink, progress: Any, task: Any) -> None:
        attempt = uuid.uuid4().hex[:12]
        name = strategy.name
        t_unit = time.perf_counter()
        base = {"run_id": self.run_id, "attempt": attempt, "strategy": name, "dataset": ds.name, "conversation_id": conv.id}
        recorder.write("units", {**base, "event": "start", "at": _now()})
        probes_after: dict[str, list] = {}
        for probe in conv.probes:
            probes_after.setdefault(probe.after_turn, []).append(probe)
        speakers = conv.speakers
        played = 0
        try:
            with calls.call_scope(strategy=name, dataset=ds.name, conversation_id=conv.id, attempt=attempt):
                strategy.begin(conv.id, conv.ns, fresh=True)
                for session, turn in conv.turns():
                    ts = turn.timestamp or session.timestamp
                    event = TurnEvent(conv.id, conv.ns, session.id, turn, ts, turn.speaker or speakers.get(turn.role, turn.role))
                    sink.turn.clear()
                    t0 = time.perf_counter()
                    with calls.call_scope(turn_id=turn.id):
                        ops = strategy.observe(event)
                    for op in ops:
                        recorder.write("memory_ops", {**base, "turn_id": turn.id, **op.record()})
                    recorder.write("turns", {**base, "turn_id": turn.id, "session_id": session.id, "role": turn.role,
                                             "latency_s": round(time.perf_counter() - t0, 5),
                                             "ops": dict(Counter(op.op.value for op in ops)), **sink.turn})
                    for probe in probes_after.get(turn.id, []):
                        self._ask(strategy, roles, probe, ts, base, recorder)
                    progress.advance(task)
                    played += 1
                strategy.end()
        except Exception as exc:
            progress.advance(task, len(conv.turns()) - played)
            self._unit_end(recorder, name, ds, conv, attempt, "failed", f"{type(exc).__name__}: {exc}", time.perf_counter() - t_unit)
            raise _UnitFailed() from exc
        self._unit_end(recorder, name, ds, conv, attempt, "ok", None, time.perf_counter() - t_unit)

    def _ask(self, strategy: ComposedStrategy, roles: MemoryRoles, probe: Any, turn_ts: datetime,
             base: dict[str, Any], recorder: RunRecorder) -> None:
        now = probe.asked_at or turn_ts
        rec: dict[str, Any] = {
            **base, "probe_id": probe.id, "category": probe.category.value, "original_category": probe.original_category,
            "question": probe.question, "gold": [g.forms() for g in probe.gold], "gold_match": probe.gold_match,
            "superseded": probe.superseded, "forbidden": probe.forbidden, "abstain": probe.abstain,
            "evidence": probe.evidence, "asked_at": now.isoformat(), "error": None, "judge": None,
        }
        with calls.call_scope(probe_id=probe.id):
            ctx = strategy.context(probe.question, now)
            text = ctx.text
            rec.update(context=text, context_tokens=count_tokens(text), context_lines=len(ctx.lines),
                       context_source_turn_ids=sorted(ctx.source_turn_ids()),
                       retrieval_latency_s=round(ctx.retrieval_latency_s, 6),
                       retrieval_total_s=round(ctx.retrieval_total_s, 6))
            t0 = time.perf_counter()
            try:
                out = roles.answer(context=text or "(no memory)", question=probe.question, date=now.date().isoformat())
                rec["answer"] = str(out["answer"]).strip()
            except RoleFailure as exc:
                rec["answer"] = None
                rec["error"] = str(exc)
            rec["answer_latency_s"] = round(time.perf_counter() - t0, 5)
            if roles.judge is not None and rec["answer"] is not None:
                gold = " | ".join(f for forms in rec["gold"] for f in forms) or "(none: the right response is to say it is unknown)"
                try:
                    rec["judge"] = roles.judge(question=probe.question, gold=gold, response=rec["answer"])
                except RoleFailure as exc:
                    rec["judge"] = {"error": str(exc)}
        recorder.write("probes", rec)

    def _unit_end(self, recorder: RunRecorder, name: str, ds: Dataset, conv: Conversation, attempt: str,
                  status: str, error: str | None, wall: float) -> None:
        recorder.write("units", {"run_id": self.run_id, "attempt": attempt, "strategy": name, "dataset": ds.name,
                                 "conversation_id": conv.id, "event": "end", "status": status, "error": error,
                                 "wall_s": round(wall, 3), "at": _now()})


def _claim_dir(base: Path) -> Path:
    """Create and return ``base`` (or ``base-2``, ``base-3``...): two runs of one config started in
    the same second get separate folders instead of writing into each other's."""
    base.parent.mkdir(parents=True, exist_ok=True)
    for i in range(1, 10_000):
        candidate = base if i == 1 else base.with_name(f"{base.name}-{i}")
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a fresh run folder next to {base}")


class _UnitFailed(Exception):
    pass


def _progress(enabled: bool) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("turns"),
                    TimeElapsedColumn(), TimeRemainingColumn(), disable=not enabled, transient=False)


def run(config: RunConfig, *, run_dir: str | Path | None = None, resume: bool = False, progress: bool = True) -> Path:
    """Run a comparison; returns the run folder."""
    return Runner(config, run_dir=run_dir, resume=resume, progress=progress).run()
