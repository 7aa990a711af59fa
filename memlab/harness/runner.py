"""The runner: plans the units of a comparison, plays them through an executor, records it all.

Work is split into units — one strategy × the conversations of one namespace of one dataset
(:mod:`memlab.harness.units`) — each played under a fresh attempt id. Every record carries its attempt;
a unit is finished when its last end marker in ``units.jsonl`` says ``ok``. ``--resume``
redoes every unit that is not finished — interrupted *or failed* (a Postgres that was down, a
full disk, an endpoint that sent garbage) — from scratch (its namespace is cleared first), and
the results loader keeps only each unit's final successful attempt, so nothing is counted twice.

A unit whose final attempt finished ``ok`` but had a model call that failed after its retries is
redone by ``--resume`` too: its numbers hold an errored answer or a skipped extraction, and the
endpoint may answer now.

Outcomes (``memlab run``'s exit status in brackets): a run whose every unit finished with every
model call answered is ``completed`` (0); one with failed units or failed calls is
``completed_with_failures`` (3; tables mark the affected rows); a run stopped by a fault no unit
can survive (an endpoint that is down, a full disk, a file-size limit, a crashed worker, any
unexpected error) is ``failed`` (1); one stopped before the call that would cross its budget
(:mod:`memlab.cost.budget`) is ``stopped_at_budget`` (4; the manifest's ``budget`` holds the
spend; resume it with a larger budget); Ctrl-C makes it ``interrupted`` (130). A run folder is
locked while a run or resume holds it.

A resume must continue the same experiment: another config (strategies, datasets, models, judge,
store options, seed, limit) or other memlab code (:func:`memlab.harness.provenance.source_hash`) is
refused with a message naming what differs, before anything is written.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from memlab.harness.config import RunConfig, validate_config
from memlab.datasets.io import dataset_hash
from memlab.datasets.models import Dataset
from memlab.datasets.stats import dataset_tokens
from memlab.datasets.threads import load_for_run
from memlab.embeddings import MINILM_ID, embedder_implementation
from memlab.harness.executors import UnitJob, make_executor
from memlab.harness.gc_policy import quiet_gc
from memlab.harness.provenance import code_version, environment, git_info, package_versions, source_hash
from memlab.runfolder.records import FORMAT_VERSION, UnitEvent, check_format, read_manifest
from memlab.runfolder.folders import _claim_dir, failing_attempts, finished_units  # noqa: F401 (re-exported)
from memlab.memory.stores.ownership import CopiedRunFolder, ServerLocks, claim_on_resume, postgres_dsns
from memlab.runfolder.recorder import RunLock, RunRecorder, read_jsonl, remove_stale_temporaries, write_json_atomic
from memlab.redact import redact, redact_text
from memlab.harness.units import Unit, now_iso, plan_units

EXIT_CODES = {"completed": 0, "completed_with_failures": 3, "failed": 1, "interrupted": 130, "stopped_at_budget": 4}
"""`memlab run` exit status by run status: a CI job fails on anything but a complete, failure-free run."""


class ResumeMismatch(RuntimeError):
    """--resume on a run folder whose config or datasets differ from the ones given."""


class RunAborted(RuntimeError):
    """A fault stopped the whole run (endpoint down, disk full); the manifest says ``failed``."""


def _fingerprint(resolved: list[dict[str, Any]], hashes: dict[str, str], config: RunConfig) -> str:
    payload = {"strategies": resolved, "datasets": hashes, "model": config.model.model_dump(mode="json"),
               "models": {k: v.model_dump(mode="json") for k, v in sorted(config.models.items())},
               "judge": config.judge.model_dump(mode="json") if config.judge else None,
               **({"judge_prompt": config.judge_prompt} if config.judge_spec() else {}),
               "limit": config.limit_conversations, "seed": config.seed,
               "store_options": config.store_options}
    return hashlib.sha256(json.dumps(redact(payload), sort_keys=True, default=str).encode()).hexdigest()[:16]


_RESUMED_CONFIG = ("model", "models", "judge", "judge_prompt", "limit_conversations", "seed", "store_options")
"""The config fields (besides strategies and datasets) a resume must keep: the fingerprint's."""


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _diff(old: Any, new: Any, path: str) -> list[str]:
    """``path.to.field: old → new`` for every leaf where two JSON values differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new), key=str):
            out += _diff(old.get(key), new.get(key), f"{path}.{key}" if path else str(key))
        return out
    return [] if old == new else [f"{path}: {_short(old)} → {_short(new)}"]


def resume_differences(manifest: dict[str, Any], resolved: list[dict[str, Any]], hashes: dict[str, str],
                       config: RunConfig) -> list[str]:
    """What differs between the run a manifest describes and the one ``config`` would make (the
    fingerprint's parts, secrets masked on both sides): what a refused ``--resume`` names."""
    out = _diff({d.get("name"): d.get("hash") for d in manifest.get("datasets") or []}, hashes, "datasets")
    old_cfg, new_cfg = manifest.get("config") or {}, redact(config.model_dump(mode="json"))
    for key in _RESUMED_CONFIG:
        out += _diff(old_cfg.get(key), new_cfg.get(key), key)
    old_s = {s.get("name"): s for s in manifest.get("strategies") or []}
    new_s = {s["name"]: s for s in redact(resolved)}
    out += [f"strategy {n!r} is not in the run being resumed" for n in new_s if n not in old_s]
    out += [f"strategy {n!r} of the run being resumed is not in this config" for n in old_s if n not in new_s]
    for name in [n for n in new_s if n in old_s]:
        out += _diff(old_s[name], new_s[name], f"strategies.{name}")
    return out


def planned_models(config: RunConfig) -> dict[str, Any]:
    """The ``models`` a run of ``config`` would record in its manifest — built and described, nothing
    called, played or written (a throwaway workbench in a temporary folder): what ``memlab check``
    compares with its baseline before playing anything."""
    import tempfile

    from memlab.harness.executors.base import models_manifest

    config = validate_config(config)
    typed = {t.name: t for t in config.typed_strategies()}
    with tempfile.TemporaryDirectory(prefix="memlab-models-") as tmp:
        return redact(models_manifest(UnitJob(config, {}, typed, Path(tmp), "planned", "planned")))


def _model_labels(models: dict[str, Any]) -> dict[str, str]:
    """Role → model id (a version for the offline stand-in) from a manifest's ``models``."""
    out = {}
    for role, d in [("default", models.get("default")), ("judge", models.get("judge")),
                    *sorted((models.get("roles") or {}).items())]:
        if isinstance(d, dict):
            out[role] = f"{d.get('provider') or '?'}:{d.get('model') or '?'}"
    return out


class Runner:
    def __init__(self, config: RunConfig, *, run_dir: str | Path | None = None, resume: bool = False,
                 progress: bool = True, executor: Any = None, adopt: bool = False,
                 units: set[tuple[str, str, str]] | None = None) -> None:
        config.register_secrets()  # before anything can fail: no error below may show a key or a password
        self.config = validate_config(config)
        self.budget_stop: str | None = None
        """Why the run stopped at its budget (None: it did not)."""
        self.resume = resume
        self.adopt = adopt
        """``--adopt``: a resume of a copy of a run folder gives the copy a run_uid of its own (memory.stores.ownership)."""
        self.notes: list[str] = []
        """What the console should say besides the table (e.g. that a copy was adopted)."""
        self.progress = progress
        self.executor = executor or make_executor(self.config)
        self.datasets: list[tuple[str, Dataset]] = load_for_run(config.datasets, config.threads, config.limit_conversations)
        names = [ds.name for _, ds in self.datasets]
        if len(set(names)) != len(names):
            raise ValueError(f"two datasets share a name ({sorted({n for n in names if names.count(n) > 1})}); "
                             "rename one (its `name:` field) so their results can be told apart")
        self.hashes = {ds.name: dataset_hash(ds) for _, ds in self.datasets}
        self.resolved = config.resolved_strategies()
        self.fingerprint = _fingerprint(self.resolved, self.hashes, config)
        self.units = plan_units([s["name"] for s in self.resolved], [ds for _, ds in self.datasets])
        self.planned = len(self.units)
        if units is not None:  # a sensitivity sweep plays only the units a varied knob can change
            self.units = [u for u in self.units if u.key in units]
        self._given_dir = Path(run_dir) if run_dir is not None else None
        if resume and self._given_dir is None:
            raise ValueError("--resume needs the run folder to continue")
        if resume and not (self._given_dir / "manifest.json").is_file():
            what = "does not exist" if not self._given_dir.exists() else "has no manifest.json (not a memlab run folder)"
            raise ResumeMismatch(f"--resume: {self._given_dir} {what}")
        self.code_hash = source_hash()
        self._created = self._given_dir is None or not self._given_dir.exists()
        """Whether this runner makes the folder: one it made is removed again if the run stops before
        its manifest is written (a provider or cache error), so no empty folder is left behind."""
        self.run_dir = self._given_dir if self._given_dir is not None else self._claim()
        self.manifest_path = self.run_dir / "manifest.json"
        self.run_id = self.run_dir.name
        self.status: str | None = None
        """The run's final status once :meth:`run` returned or raised (None before)."""
        self.manifest_error: str | None = None
        """Why the final manifest could not be written (it then still says 'running'); None when it was."""

    def _claim(self) -> Path:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        return _claim_dir(Path(self.config.output_dir) / f"{stamp}-{self.config.name}")

    # -- bookkeeping -------------------------------------------------------------------------------
    def _prepare_manifest(self) -> dict[str, Any]:
        if self.resume:
            if not self.manifest_path.exists():
                raise ResumeMismatch(f"--resume: {self.run_dir} has no manifest.json (not a memlab run folder)")
            manifest = read_manifest(self.manifest_path)
            check_format(manifest, str(self.manifest_path))
            if int(manifest.get("format_version") or 1) != FORMAT_VERSION:
                raise ResumeMismatch(f"--resume: {self.run_dir} was written in run format {manifest.get('format_version') or 1}; "
                                     f"this memlab writes format {FORMAT_VERSION}: start a new run")
            old_hash = manifest.get("code_hash")
            now_version = code_version(git_info())
            if (old_hash or self.code_hash) != self.code_hash or (old_hash is None and manifest.get("code_version") != now_version):
                raise ResumeMismatch(
                    f"--resume: {self.run_dir} was played by other memlab code (code {manifest.get('code_version')}, "
                    f"source {old_hash or '?'}; now {now_version}, source {self.code_hash}): units played by the two "
                    "would be mixed in one run; start a new run, or resume with the code that started it")
            if manifest.get("fingerprint") != self.fingerprint:
                diff = resume_differences(manifest, self.resolved, self.hashes, self.config)
                what = "; ".join(diff[:5]) + (f"; and {len(diff) - 5} more" if len(diff) > 5 else "") if diff else (
                    f"fingerprint {manifest.get('fingerprint')} != {self.fingerprint}")
                raise ResumeMismatch(f"--resume: {self.run_dir} was made with a different config or dataset: {what}; "
                                     "start a new run instead")
            adopted = claim_on_resume(manifest, self.run_dir, adopt=self.adopt)  # a copy of a folder: refused or adopted
            if adopted:
                self.notes.append(adopted)
            manifest.setdefault("resumed_at", []).append(now_iso())
            manifest["status"] = "running"
            return manifest
        if self.manifest_path.exists():
            raise FileExistsError(f"{self.run_dir} already holds a run; use --resume to continue it")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        from memlab.judging.prompts import judge_manifest  # imports DSPy: only when a run starts
        from memlab.strategies.composed import describe_components

        git = git_info()
        return {
            "format_version": FORMAT_VERSION,
            "run_id": self.run_id,
            "run_uid": uuid.uuid4().hex,
            "name": self.config.name,
            "description": self.config.description,
            "status": "running",
            "started_at": now_iso(),
            "ended_at": None,
            "fingerprint": self.fingerprint,
            "folder": str(self.run_dir.resolve()),  # the folder that owns run_uid's namespaces (memory.stores.ownership)
            "config": redact(self.config.model_dump(mode="json")),
            "strategies": redact(self.resolved),
            # one line per strategy, written here so the analysis side never imports a strategy
            "components": {spec["name"]: describe_components(spec) for spec in redact(self.resolved)},
            "datasets": [
                {"path": p, "name": ds.name, "version": ds.version, "hash": self.hashes[ds.name],
                 "split": ds.meta.get("split"),
                 "conversations": len(ds.conversations), "probes": len(ds.probes()),
                 "tokens_per_conversation": round(dataset_tokens(ds) / max(len(ds.conversations), 1)),
                 "tokens_per_user": round(dataset_tokens(ds) / max(len({c.ns for c in ds.conversations}), 1)),
                 **({"scaled": {"from": ds.meta.get("scaled_from"), "mode": ds.meta.get("filler"),
                                "target_tokens": ds.meta.get("target_tokens")}} if ds.meta.get("scaled_from") else {})}
                for p, ds in self.datasets
            ],
            "models": {},
            "judge": redact(judge_manifest(self.config.judge_spec(), self.config.judge_prompt)),
            "embedder": {"model": MINILM_ID, "implementation": embedder_implementation(), "dim": 384},
            "tokenizer": "tiktoken cl100k_base",
            "git": git,
            "code_version": code_version(git),
            "code_hash": self.code_hash,
            "packages": package_versions(),
            "environment": environment(),
            "seed": self.config.seed,
            "executor": self.executor.describe(),
            **({"unit_selection": {"played": len(self.units), "of": self.planned}} if len(self.units) < self.planned else {}),
        }

    # -- main loop -----------------------------------------------------------------------------------
    def run(self) -> Path:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        try:
            with RunLock(self.run_dir):
                return self._run_locked()
        except BaseException:
            if self._created and not self.manifest_path.exists():
                _remove_unused_dir(self.run_dir)
            raise

    def _run_locked(self) -> Path:
        from memlab.llm.endpoints import reset_endpoints

        # A run starts with every endpoint's breaker closed: an outage another run of this process met
        # (a notebook's earlier run, a test before) is not this run's verdict — it finds out itself.
        reset_endpoints()
        manifest = self._prepare_manifest()
        locks = self._claim_servers(manifest)
        try:
            return self._play(manifest)
        finally:
            locks.release()

    def _claim_servers(self, manifest: dict[str, Any]) -> ServerLocks:
        """The run uid's advisory lock on every Postgres server the run's stores use, held while it
        plays: another process playing the same uid is refused before anything is written."""
        dsns = postgres_dsns(self.config.store_options, self.resolved)
        what = "--resume" if self.resume else "run"
        try:
            return ServerLocks().acquire(manifest["run_uid"], dsns, what=what)
        except CopiedRunFolder:
            if not (self.resume and self.adopt):
                raise
        old = manifest["run_uid"]  # --adopt: the uid is in use elsewhere; this folder gets its own
        manifest.setdefault("adopted_from", []).append({"run_uid": old, "folder": None})
        manifest["run_uid"] = uuid.uuid4().hex
        self.notes.append(f"adopted: {self.run_dir} is now a run of its own (run_uid {manifest['run_uid']}; {old} is in "
                          "use by another process)")
        return ServerLocks().acquire(manifest["run_uid"], dsns, what=what)

    def _play(self, manifest: dict[str, Any]) -> Path:
        typed = {t.name: t for t in self.config.typed_strategies()}
        ledger, spend = self._budget(manifest)
        job = UnitJob(self.config, {ds.name: ds for _, ds in self.datasets}, typed,
                      self.run_dir, manifest["run_uid"], self.run_id, budget=ledger)
        models = redact(self.executor.models_manifest(job))
        if self.resume:
            old, new = _model_labels(manifest.get("models") or {}), _model_labels(models)
            changed = [f"{role}: {old[role]} → {new.get(role)}" for role in old if old[role] != new.get(role)]
            if changed:
                raise ResumeMismatch(f"--resume: {self.run_dir} was played by other models ({'; '.join(changed)}); "
                                     "start a new run instead")
        remove_stale_temporaries(self.run_dir)
        if not _reserve(self.run_dir):  # before the manifest says 'running': the run could not say how it ended
            raise RunAborted(
                f"run not started: less than {RESERVE_BYTES >> 20} MiB free for {self.run_dir}; memlab sets that much "
                "aside so that a run can always write how it ended (a full disk left manifests saying 'running'). "
                "Free some space and " + (f"resume with --resume {self.run_dir}" if self.resume else "run again"))
        recorder = RunRecorder(self.run_dir)
        manifest["models"] = models
        manifest["executor"] = redact(self.executor.describe())  # a resume may use other workers
        write_json_atomic(self.manifest_path, manifest)

        done: set[tuple[str, str, str]] = set()
        if self.resume:
            failing = failing_attempts(self.run_dir)
            done = {k for k, r in finished_units(self.run_dir).items() if r.get("status") == "ok" and r.get("attempt") not in failing}
        todo = [u for u in self.units if u.key not in done]
        status, abort_error = "completed", None
        progress = _progress(self.progress)
        try:
            with progress:
                task = progress.add_task(self.config.name, total=sum(u.turns for u in todo), spend=spend.label())

                def on_end(end: UnitEvent) -> None:
                    progress.update(task, description=f"{self.config.name} · {end.strategy} · {end.namespace}",
                                    spend=spend.label())

                with quiet_gc():
                    self.executor.run(todo, job, spend.counting(recorder.write), lambda n: progress.advance(task, n), on_end)
            recorder.close()  # every unit's records are on disk before the judge reads them
            if self.config.judge_spec() is not None:
                self._judge_pass(ledger)
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        except Exception as exc:
            from memlab.harness.units import _must_abort

            stop = _budget_stop(exc)
            if stop is not None:  # a clean stop: the unit in flight has no end record, --resume redoes it
                status, self.budget_stop = "stopped_at_budget", redact_text(str(stop))
            else:
                status, abort_error = "failed", redact_text(f"{type(exc).__name__}: {exc}")
                if not _must_abort(exc):
                    raise
        finally:
            try:
                recorder.close()
            except OSError:
                pass
            try:
                from memlab.embeddings import shared_embedder

                shared_embedder(self.config.embedding_cache).save()
            except OSError:
                pass
            if ledger is not None:
                manifest["budget"] = self._budget_manifest(ledger)
            self._finalize(manifest, status, abort_error)
        if self.manifest_error is not None:  # the console must not say 'failed' where the manifest says 'running'
            raise RunAborted(f"run stopped: {abort_error or 'the run ended'} (status {status}), but its manifest could not "
                             f"be updated ({self.manifest_error}): {self.manifest_path} still says 'running'; free some "
                             f"space and resume with --resume {self.run_dir}")
        if abort_error is not None:
            raise RunAborted(f"run stopped: {abort_error} (manifest status 'failed'; fix the cause and "
                             f"resume with --resume {self.run_dir})")
        return self.run_dir

    def _judge_pass(self, ledger: Any = None) -> None:
        """Judge the recorded answers of the final attempts that have no verdict yet (or a failed one),
        then score ragas's LLM metrics on them when the run asks for those: the one judging path,
        shared with ``memlab rejudge`` (:mod:`memlab.judging.rejudge`, :mod:`memlab.judging.ragas_pass`)."""
        from memlab.judging.ragas_pass import ragas_recorded, ragas_wanted
        from memlab.judging.rejudge import judge_recorded

        spec = self.config.judge_spec()
        workers = self.config.executor.workers if self.config.executor.type in ("threads", "auto") else 1
        judge_recorded(self.run_dir, self.run_dir, spec, self.config.judge_prompt, workers=workers, redo=False,
                       budget=ledger)
        if ragas_wanted(spec, self.config.metrics):
            ragas_recorded(self.run_dir, self.run_dir, spec, workers=workers, redo=False, budget=ledger)

    def _budget(self, manifest: dict[str, Any]) -> tuple[Any, _SpendTally]:
        """The run's budget ledger (None without a budget), started with what earlier sessions spent,
        and the spend tally the progress bar shows."""
        from memlab.cost.budget import LEDGER_FILE, BudgetLedger, spend_of_rows
        from memlab.cost.prices import PriceBook

        paid = any(s.provider != "offline" for s in self.config.model_specs())
        book = PriceBook(self.config.prices) if paid or self.config.budget.active() else None
        spent = spend_of_rows(read_jsonl(self.run_dir / "calls.jsonl"), book) if book is not None and self.resume else None
        tally = _SpendTally(book, spent, self.config.budget)
        if not self.config.budget.active():
            return None, tally
        assert book is not None and tally.spent is not None
        ledger = BudgetLedger(self.run_dir / LEDGER_FILE, self.config.budget, book)
        ledger.start(tally.spent)
        return ledger, tally

    def _budget_manifest(self, ledger: Any) -> dict[str, Any]:
        """The manifest's ``budget``: the limits of the last session, the spend so far, why it stopped."""
        state = ledger.state()
        return {"limits": self.config.budget.model_dump(), "spent": state.get("spent"),
                "stopped": self.budget_stop, "prices": ledger.book.sources()}

    def _finalize(self, manifest: dict[str, Any], status: str, abort_error: str | None) -> None:
        ends = finished_units(self.run_dir)
        failed_units = sorted(f"{s}/{d}/{ns}: {r['error']}" for (s, d, ns), r in ends.items() if r.get("status") != "ok")
        ok = {k for k, r in ends.items() if r.get("status") == "ok"}
        final = {r["attempt"] for k, r in ends.items() if k in ok}
        failed_calls = _failed_calls(self.run_dir / "calls.jsonl", final)
        if status == "completed" and (failed_units or failed_calls or len(ok) < len(self.units)):
            status = "completed_with_failures"
        manifest["status"] = status
        manifest["ended_at"] = now_iso()
        manifest["error"] = abort_error
        manifest["units"] = {"total": len(self.units), "ok": len(ok), "failed": failed_units,
                             "not_run": len(self.units) - len(ends)}
        manifest["failed_calls"] = failed_calls
        manifest["strategies_resolved"] = {s: r["resolved"] for (s, _d, _ns), r in sorted(ends.items()) if r.get("resolved")}
        self.status = status
        reserve = self.run_dir / RESERVE
        try:
            try:
                write_json_atomic(self.manifest_path, manifest)
            except OSError:
                # e.g. the disk is full: give back the space set aside when the run started, and retry
                reserve.unlink(missing_ok=True)
                write_json_atomic(self.manifest_path, manifest)
        except OSError as exc:  # nothing to write it with: say so, the manifest still says 'running'
            self.manifest_error = redact_text(f"{type(exc).__name__}: {exc}")
        finally:
            reserve.unlink(missing_ok=True)


def _budget_stop(exc: BaseException) -> BaseException | None:
    """The :class:`~memlab.cost.budget.BudgetExhausted` that stopped the run, if that is what ``exc`` is or carries."""
    from memlab.cost.budget import BudgetExhausted
    from memlab.harness.units import _causes

    return next((e for e in [exc, *_causes(exc)] if isinstance(e, BudgetExhausted)), None)


class _SpendTally:
    """What the run has spent on endpoints so far, counted from the call records as they are
    written (any executor), for the progress bar; empty for a run that calls no endpoint."""

    def __init__(self, book: Any, spent: Any, budget: Any) -> None:
        from memlab.cost.budget import Spend

        self.book = book
        self.spent = spent if spent is not None else (Spend() if book is not None else None)
        self.budget = budget

    def counting(self, write: Any) -> Any:
        if self.book is None:
            return write
        from memlab.cost.budget import spend_of_rows

        def counted(stream: str, record: Any) -> None:
            write(stream, record)
            if stream == "calls":
                self.spent.add(spend_of_rows([record if isinstance(record, dict) else record.model_dump()], self.book))
        return counted

    def label(self) -> str:
        if self.spent is None:
            return ""
        limit = f" of {self.budget.label()}" if self.budget.active() else ""
        return f"spent {self.spent.label()}{limit}"


def _failed_calls(path: Path, attempts: set[str]) -> int:
    """Failed model calls of the given unit attempts. A run without any failed call (the usual
    case) has no ``"ok": false`` in its call log, which a byte search tells at once: parsing
    every row only to count none took ~1 s at LoCoMo size (100,000 calls)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return 0
    if b'"ok":false' not in raw and b'"ok": false' not in raw:
        return 0
    return sum(1 for c in read_jsonl(path) if c.get("attempt") in attempts and not c.get("ok", True))


RESERVE = ".reserve"
RESERVE_BYTES = 1 << 20
"""Space set aside while a run is in progress (``RUN/.reserve``), given back to write the final
manifest when the disk filled up: without it a full disk left the manifest saying ``running``."""


def _reserve(run_dir: Path) -> bool:
    """Set aside :data:`RESERVE_BYTES` in ``RUN/.reserve``; False when the disk cannot hold them
    (then nothing is left behind and the run must not start)."""
    path = run_dir / RESERVE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            try:
                os.posix_fallocate(fd, 0, RESERVE_BYTES)  # blocks counted as used now, or ENOSPC now
            except OSError as exc:
                if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise
                os.write(fd, b"\0" * RESERVE_BYTES)  # a filesystem without fallocate: written blocks count too
        finally:
            os.close(fd)
    except OSError:
        path.unlink(missing_ok=True)
        return False
    return True


def _remove_unused_dir(run_dir: Path) -> None:
    """Remove a run folder this runner made and never wrote a manifest into (only its lock and reserve)."""
    for name in (".lock", RESERVE):
        (run_dir / name).unlink(missing_ok=True)
    try:
        run_dir.rmdir()
    except OSError:
        pass  # something else is in it: leave it




def _progress(enabled: bool) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("turns"),
                    TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[spend]}"),
                    disable=not enabled, transient=False)


def run(config: RunConfig, *, run_dir: str | Path | None = None, resume: bool = False, progress: bool = True,
        adopt: bool = False) -> Path:
    """Run a comparison; returns the run folder (``adopt``: see :class:`Runner`)."""
    return Runner(config, run_dir=run_dir, resume=resume, progress=progress, adopt=adopt).run()


__all__ = ["EXIT_CODES", "ResumeMismatch", "RunAborted", "Runner", "Unit", "failing_attempts", "finished_units",
           "resume_differences", "run"]
