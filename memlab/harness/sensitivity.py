"""Play a comparison once per point of a behaviour-profile grid (``memlab sensitivity``).

Every comparison memlab plays offline is produced by one set of stand-in behaviours; a sweep asks
which of its conclusions survive when the stand-in behaves otherwise. The grid is every
combination of the varied knobs' values (:mod:`memlab.offline.behaviour`). The first point is
played in full; at every later point a unit (strategy × user) is **played again only if a varied
knob can change it**: a knob acts in certain roles (and, for the agent, only when certain tools
are offered, and for tool / assistant knobs only on such turns), so a unit whose calls at an
already-played point never reached such a role, or whose conversations hold no such turn, gives
the same records whatever that knob's value — it is reused from that point. This is exact, not an
approximation: changing a knob a unit never consulted cannot change anything the unit did.

Each point's played units form an ordinary run folder (``profiles/pNN``) whose model id names the
point's profile; ``sensitivity.json`` says which folder holds each unit at each point. The
analysis (:mod:`memlab.analysis.sensitivity`) reads them back into one paired comparison per point.
An interrupted sweep continues with ``--resume``: finished points are kept, a point's unfinished
run is resumed, nothing is played twice.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from memlab.harness.config import RunConfig, validate_config
from memlab.runfolder.folders import _claim_dir
from memlab.runfolder.recorder import read_jsonl, write_json_atomic
from memlab.harness.units import plan_units

STATE_FILE = "sensitivity.json"
FORMAT = 1
UnitKey = tuple[str, str, str]
"""(strategy, dataset, namespace): one unit."""


@dataclass(frozen=True)
class Grid:
    """The varied knobs and their values; :meth:`points` is every combination, the first knob
    varying slowest."""

    knobs: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]

    @classmethod
    def from_vary(cls, vary: dict[str, list[float | None]]) -> Grid:
        return cls(tuple(vary), tuple(tuple(v) for v in vary.values()))

    def points(self) -> list[dict[str, float | None]]:
        return [dict(zip(self.knobs, combo, strict=True)) for combo in itertools.product(*self.values)]


def parse_vary(items: list[str]) -> dict[str, list[float | None]]:
    """``["agent.store_tool_observations=0,0.5,1", ...]`` → knob → values (``null`` / ``none``: as built).
    Unknown knobs and out-of-range values are refused with the knob named (did-you-mean)."""
    from memlab.offline.behaviour import DEFAULT, check_knob

    out: dict[str, list[float | None]] = {}
    for item in items:
        knob, sep, raw = item.partition("=")
        if not sep or not raw.strip():
            raise ValueError(f"--vary {item!r}: write KNOB=v1,v2,… (e.g. agent.store_tool_observations=0,0.5,1)")
        knob = check_knob(knob.strip())
        if knob in out:
            raise ValueError(f"--vary: {knob} is given twice")
        values: list[float | None] = []
        for text in raw.split(","):
            text = text.strip()
            try:
                values.append(None if text.lower() in ("null", "none") else float(text))
            except ValueError:
                raise ValueError(f"--vary {knob}: {text!r} is not a number") from None
        for v in values:
            DEFAULT.with_knobs({knob: v})
        if len(set(values)) != len(values):
            raise ValueError(f"--vary {knob}: a value is listed twice")
        out[knob] = values
    return out


def with_profile(config: RunConfig, point: dict[str, float | None]) -> RunConfig:
    """A copy of ``config`` whose offline models (the default and every per-role one; never the
    judge) have the knobs of ``point`` set on top of their own profile."""
    from memlab.llm.offline_model import resolve_profile

    def moved(spec: Any) -> Any:
        if spec.provider != "offline":
            return spec
        profile, seed = resolve_profile(spec)
        changed = profile.with_knobs(point).changed()
        options = {k: v for k, v in spec.options.items() if k != "tool_reliability"}
        return spec.model_copy(update={"profile": changed or None, "options": options})

    update = {"model": moved(config.model), "models": {role: moved(spec) for role, spec in config.models.items()}}
    return validate_config(config.model_copy(update=update), f"config {config.name!r} at {point}")


def _turn_roles(config: RunConfig) -> dict[tuple[str, str], set[str]]:
    """(dataset, namespace) → the roles of the turns its conversations hold."""
    from memlab.datasets.threads import load_for_run

    out: dict[tuple[str, str], set[str]] = {}
    for _, ds in load_for_run(config.datasets, config.threads, config.limit_conversations):
        for conv in ds.conversations:
            out.setdefault((ds.name, conv.ns), set()).update(t.role for _, t in conv.turns())
    return out


def offered_tools(resolved: dict[str, Any]) -> set[str]:
    """The memory tools a resolved strategy's components can offer its agent (a role call's record
    does not list them, so they are read from the components, as ``memlab components`` does)."""
    from memlab.strategies.slots import SLOTS, STORE_SLOT, load_families

    if resolved.get("type") not in (None, "composed"):
        return set()
    load_families()
    out: set[str] = set()
    for name, slot in SLOTS.items():
        spec = resolved.get(name)
        if name == STORE_SLOT or not isinstance(spec, dict) or not spec.get("type"):
            continue
        try:
            out.update(slot.registry.get(spec["type"]).offered_tools)
        except KeyError:
            continue
    return out


def unit_knobs(run_dir: Path, turn_roles: dict[tuple[str, str], set[str]]) -> dict[UnitKey, set[str]]:
    """The knobs each finished unit of a run can depend on: those acting in a role its calls
    reached (for an agent knob, in a strategy whose components offer a tool the knob needs) on a
    kind of turn its conversations hold."""
    from memlab.offline.behaviour import KNOBS

    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    tools = {spec["name"]: offered_tools(spec) for spec in manifest.get("strategies") or []}
    units: dict[str, UnitKey] = {}
    for rec in read_jsonl(run_dir / "units.jsonl"):
        if rec.get("event") == "end" and rec.get("status") == "ok":
            units[rec["attempt"]] = (rec["strategy"], rec["dataset"], rec["namespace"])
    reached: dict[UnitKey, set[str]] = {u: set() for u in units.values()}
    for rec in read_jsonl(run_dir / "calls.jsonl"):
        unit = units.get(rec.get("attempt"))
        if unit is not None and rec.get("signature"):
            reached[unit].add(rec["signature"])
    out: dict[UnitKey, set[str]] = {}
    for unit, signatures in reached.items():
        roles = turn_roles.get((unit[1], unit[2]), set())
        offered = tools.get(unit[0], set())
        out[unit] = {k.name for k in KNOBS
                     if any(sig in k.roles and (not k.tools or sig != "AgentStep" or offered & k.tools) for sig in signatures)
                     and (not k.turn_roles or roles & k.turn_roles)}
    return out


class SensitivityFailed(RuntimeError):
    """A point of the grid could not be played completely (its run folder says why)."""


def _state(path: Path) -> dict[str, Any]:
    return json.loads((path / STATE_FILE).read_text(encoding="utf-8"))


def run_sensitivity(config: RunConfig, vary: dict[str, list[float | None]], *, out_dir: str | Path | None = None,
                    resume: bool = False, progress: bool = True,
                    say: Callable[[str], None] = print) -> Path:
    """Play ``config`` at every point of the grid ``vary`` (see the module docstring); returns the
    sweep folder. Raises :class:`SensitivityFailed` when a point's run did not complete."""
    from memlab.harness.runner import Runner

    config = validate_config(config)
    grid = Grid.from_vary(vary)
    points = grid.points()
    if resume:
        if out_dir is None or not (Path(out_dir) / STATE_FILE).is_file():
            raise ValueError(f"--resume: {out_dir} is not a sensitivity folder (no {STATE_FILE})")
        out = Path(out_dir)
        old = _state(out)
        if old.get("grid") != {"knobs": list(grid.knobs), "values": [list(v) for v in grid.values]} or \
                old.get("config") != config.model_dump(mode="json", exclude={"executor", "sensitivity"}):
            raise ValueError(f"--resume: {out} was made with another config or grid; start a new sweep")
    else:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = Path(out_dir) if out_dir is not None else _claim_dir(Path(config.output_dir) / f"{stamp}-{config.name}-sensitivity")
        if (out / STATE_FILE).exists():
            raise FileExistsError(f"{out} already holds a sensitivity sweep; use --resume to continue it")
        out.mkdir(parents=True, exist_ok=True)
    turn_roles = _turn_roles(config)
    keys: list[UnitKey] = [u.key for u in plan_units([s.name for s in config.strategies], _datasets(config))]
    state: dict[str, Any] = {
        "format": FORMAT, "name": config.name, "description": config.description,
        "config": config.model_dump(mode="json", exclude={"executor", "sensitivity"}),
        "sensitivity": config.sensitivity.model_dump(mode="json") if config.sensitivity else None,
        "grid": {"knobs": list(grid.knobs), "values": [list(v) for v in grid.values]},
        "points": [], "status": "running"}
    played: dict[UnitKey, list[tuple[int, set[str]]]] = {}
    for k, point in enumerate(points):
        source: dict[UnitKey, int] = {}
        for key in keys:
            for j, deps in played.get(key, []):
                if all(points[j][d] == point[d] for d in deps if d in point):
                    source[key] = j
                    break
        need = {key for key in keys if key not in source}
        run_dir = out / "profiles" / f"p{k:02d}"
        label = ", ".join(f"{knob}={value}" for knob, value in point.items())
        entry: dict[str, Any] = {"index": k, "knobs": point, "run": None, "played": len(need), "reused": len(source)}
        if need:
            say(f"profile {k + 1}/{len(points)} ({label}): playing {len(need)} of {len(keys)} units, "
                f"{len(source)} reused")
            runner = _runner(Runner, with_profile(config, point), run_dir, need, progress)
            runner.run()
            if runner.status != "completed":
                state["status"] = "failed"
                state["points"].append({**entry, "run": str(run_dir.relative_to(out)), "status": runner.status})
                write_json_atomic(out / STATE_FILE, state)
                raise SensitivityFailed(f"profile {k + 1} ({label}): run {run_dir} ended {runner.status}; "
                                        f"fix the cause and continue with --resume {out}")
            deps = unit_knobs(run_dir, turn_roles)
            for key in need:
                played.setdefault(key, []).append((k, deps.get(key, set())))
                source[key] = k
            entry["run"] = str(run_dir.relative_to(out))
            entry["model"] = _model_label(run_dir)
        else:
            say(f"profile {k + 1}/{len(points)} ({label}): every unit reused")
        entry["sources"] = [[*key, j] for key, j in sorted(source.items())]
        entry["depends_on"] = {"|".join(key): sorted(d) for key, runs in played.items() for j, d in runs if j == k}
        state["points"].append(entry)
        write_json_atomic(out / STATE_FILE, state)
    state["status"] = "completed"
    write_json_atomic(out / STATE_FILE, state)
    return out


def _datasets(config: RunConfig) -> list[Any]:
    from memlab.datasets.threads import load_for_run

    return [ds for _, ds in load_for_run(config.datasets, config.threads, config.limit_conversations)]


def _runner(runner_cls: Any, config: RunConfig, run_dir: Path, units: set[UnitKey], progress: bool) -> Any:
    """A runner for one point: a new run, or the resume of that point's run after an interruption
    (a finished one then plays nothing; an unfinished one plays only its missing units)."""
    resume = (run_dir / "manifest.json").exists()
    return runner_cls(config, run_dir=run_dir, resume=resume, progress=progress, units=units)


def _model_label(run_dir: Path) -> str:
    models = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8")).get("models") or {}
    return str((models.get("default") or {}).get("model") or "?")
