"""Re-scoring an existing run with another judge, without re-running its strategies.

A run judges its answers the same way: after its units, as a pass over the recorded answers
(:func:`judge_recorded`; never inside the unit loop), so re-judging and judging are one code path.

``rejudge(run_dir, judge, prompt=...)`` copies the run's records into a new run folder, replaces
only the ``judge`` field of every answered probe of a final attempt with the new judge's verdict
(contexts, answers, memory operations and the other streams are copied byte for byte; probes of
failed or superseded attempts count nowhere, so they are not judged again — a paid judge would
bill them), swaps those attempts' judge call records for the new ones, and writes a manifest that
names the new judge and its prompt hash and links the source run (``rejudged_from``). ragas's LLM
metrics are judge-made too: when the run scored them, an OpenAI-compatible new judge scores them
again (:mod:`memlab.judging.ragas_pass`) and another judge leaves them empty. Metrics are
scored when the folder is loaded, so ``answer_correct`` follows the new judge; ``memlab rejudge``
writes the new folder's tables and plots (``memlab.write_report``).

The new folder's status and failed-call count are computed, not copied: a judge call that failed
after its retries (an endpoint answering 500, 429, 401 or garbage) makes the folder
``completed_with_failures`` (``memlab rejudge`` exits 3, ``memlab baseline`` refuses it) and
leaves that probe's ``answer_correct`` empty rather than scored by containment.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import uuid
from pathlib import Path
from typing import Any

from memlab.judging.batch import build_judge, judge_until_stop
from memlab.judging.ragas_pass import clear_recorded, has_ragas_values, ragas_recorded, ragas_wanted
from memlab.judging.prompts import DEFAULT_JUDGE_PROMPT, check_prompt_name, judge_inputs, judge_manifest
from memlab.judging.recorded import final_attempts, probe_scope, write_pass
from memlab.runfolder.records import check_format, read_manifest
from memlab.runfolder.recorder import read_jsonl, write_json_atomic
from memlab.redact import redact


def source_judge_spec(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The judge a run was made with (``judge:`` or ``models: {judge: ...}`` of its config), if any."""
    config = manifest.get("config") or {}
    return config.get("judge") or (config.get("models") or {}).get("judge")


def rejudged_status(manifest: dict[str, Any], failed_calls: int) -> str:
    """The status of a re-judged copy of a run: the source's when the source did not finish, else
    ``completed`` only when every unit finished and no counted model call (judge calls included) failed."""
    status = manifest.get("status")
    if status not in ("completed", "completed_with_failures"):
        return str(status)
    units = manifest.get("units") or {}
    incomplete = bool(units.get("failed")) or bool(units.get("not_run")) or units.get("ok", 0) < units.get("total", 0)
    return "completed_with_failures" if failed_calls or incomplete else "completed"


def rejudge(run_dir: str | Path, judge: Any = None, *, prompt: str = DEFAULT_JUDGE_PROMPT, out: str | Path | None = None,
            workers: int = 1) -> Path:
    """Re-judge ``run_dir``'s answers with ``judge`` (a ModelSpec or its dict; None: the run's own
    judge, else the offline judge) under ``prompt``; returns the new run folder.

    ``out`` defaults to ``<run_dir>-rejudged-<prompt>`` (``-2``, ``-3``... when taken). The tables and
    plots of the new folder are the analysis side's (``memlab.write_report(new_dir)``; ``memlab
    rejudge`` writes them): judging sits below the analysis package and imports nothing from it."""
    from memlab.llm.base import ModelSpec
    from memlab.runfolder.folders import _claim_dir

    src = Path(run_dir)
    check_prompt_name(prompt)
    manifest = read_manifest(src / "manifest.json", " (is this a memlab run folder?)")
    if check_format(manifest, str(src / "manifest.json")) < 2:
        raise ValueError(f"{src}: run format 1 cannot be re-judged; re-run it with this memlab")
    spec = judge if isinstance(judge, ModelSpec) else ModelSpec.model_validate(judge or source_judge_spec(manifest) or {})
    spec.register_secrets()  # before the first call can fail and quote the key
    dest = Path(out) if out is not None else _claim_dir(src.with_name(f"{src.name}-rejudged-{prompt}"))
    if (dest / "manifest.json").exists():
        raise FileExistsError(f"{dest} already holds a run; choose another --out")
    dest.mkdir(parents=True, exist_ok=True)
    try:
        _rejudge_into(src, dest, manifest, spec, prompt, workers)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return dest


def judge_recorded(src: Path, dest: Path, spec: Any, prompt: str, *, workers: int = 1, redo: bool = True,
                   budget: Any = None) -> tuple[list[dict[str, Any]], Any]:
    """The one judging path (issue 20): judge the recorded answers of ``src``'s final attempts with
    ``spec`` under ``prompt`` and write ``dest``'s ``probes.jsonl`` (the ``judge`` field filled) and
    ``calls.jsonl`` (the judge's calls, scoped to their probes, phase ``judge``). ``redo``: judge
    every answer (``memlab rejudge``: the earlier verdicts and judge calls are dropped); otherwise
    only answers without a verdict, or whose verdict failed (a run's judge pass, and its resume).
    ``dest`` may be ``src``: the files are replaced atomically. Returns (the verdicts made, the model).

    ``budget`` books the judge's endpoint calls (:mod:`memlab.cost.budget`). A fault that stops
    every later call (the budget reached, the endpoint down) is raised after the verdicts made so
    far and their calls are written: what was paid for is kept, and a resumed pass judges the rest."""
    probes = read_jsonl(src / "probes.jsonl")
    final = final_attempts(src)

    def pending(p: dict[str, Any]) -> bool:
        return redo or not isinstance(p.get("judge"), dict) or "error" in p["judge"]

    todo = [i for i, p in enumerate(probes) if p.get("answer") is not None and p.get("attempt") in final and pending(p)]
    items = [judge_inputs(prompt, probes[i]["question"], probes[i]["gold"], probes[i].get("gold_match") or "any",
                          probes[i].get("superseded") or [], probes[i]["answer"]) for i in todo]
    scopes = [probe_scope(probes[i]) for i in todo]
    model = build_judge(spec, budget)
    verdicts, made, stop = judge_until_stop(model, prompt, items, scopes=scopes, workers=workers,
                                            temperature=spec.temperature)
    judged = [(i, v) for i, v in zip(todo, verdicts, strict=True) if v is not None]
    write_pass(src, dest, probes, "judge", judged, made, purpose="judge", final=final, keep_other_calls=not redo)
    if stop is not None:
        raise stop
    return [v for _, v in judged], model


def _rejudge_into(src: Path, dest: Path, manifest: dict[str, Any], spec: Any, prompt: str, workers: int) -> None:
    for stream in sorted(src.glob("*.jsonl")):
        if stream.name not in ("probes.jsonl", "calls.jsonl"):
            shutil.copyfile(stream, dest / stream.name)
    verdicts, model = judge_recorded(src, dest, spec, prompt, workers=workers, redo=True)
    if has_ragas_values(dest):  # the run scored ragas's LLM metrics: they are judge-made, so the new judge redoes them
        if ragas_wanted(spec, (manifest.get("config") or {}).get("metrics")):
            ragas_recorded(dest, dest, spec, workers=workers, redo=True)
        else:
            clear_recorded(dest)  # a judge that cannot score them: another judge's values must not be credited to it
    final = final_attempts(src)
    failed_calls = sum(1 for c in read_jsonl(dest / "calls.jsonl") if c.get("attempt") in final and not c.get("ok", True))

    new = json.loads(json.dumps(manifest))
    judged = judge_manifest(spec, prompt)
    new.update(
        status=rejudged_status(manifest, failed_calls), failed_calls=failed_calls,
        judge_failed=sum(1 for v in verdicts if "error" in v), judged=len(verdicts),
        run_id=dest.name, run_uid=uuid.uuid4().hex, folder=str(dest.resolve()), judge=redact(judged),
        fingerprint=hashlib.sha256(json.dumps([manifest.get("fingerprint"), judged], sort_keys=True,
                                              default=str).encode()).hexdigest()[:16],
        rejudged_from={"path": str(src), "run_id": manifest.get("run_id"), "run_uid": manifest.get("run_uid"),
                       "fingerprint": manifest.get("fingerprint"), "judge": manifest.get("judge")},
    )
    config = new.setdefault("config", {})
    if isinstance(config.get("models"), dict):
        config["models"].pop("judge", None)  # the judge is now given once, as `judge:`
    config["judge"], config["judge_prompt"] = redact(spec.model_dump(mode="json")), prompt
    new.setdefault("models", {})["judge"] = redact(model.describe())
    write_json_atomic(dest / "manifest.json", new)
