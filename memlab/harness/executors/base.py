"""What every executor shares: the job, the executor protocol, and a unit played into a buffer.

An executor takes the units still to do and a :class:`UnitJob` describing how to play one, and
hands each unit's records to the runner's single writer. Executors that play units elsewhere (a
worker process, a thread, a Ray task) play each unit into a buffer (:func:`play_buffered`) and
the runner's thread writes the buffer in one go (:func:`deliver`): a unit's records are never
interleaved with another unit's, its end record comes after all of them, and a run killed
mid-way loses only the units in flight — which ``--resume`` redoes, since they have no end record.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from memlab.runfolder.records import UnitEvent
from memlab.harness.units import Unit, UnitPlayer, Workbench

Write = Callable[[str, BaseModel], None]
Tick = Callable[[int], None]
OnEnd = Callable[[UnitEvent], None]


@dataclass
class UnitJob:
    """Everything needed to rebuild a workbench and play units, in any process (it is pickled)."""

    config: Any
    datasets: dict[str, Any]
    resolved: dict[str, dict[str, Any]]
    run_dir: Path
    run_uid: str
    run_id: str
    budget: Any = None
    """The run's :class:`~memlab.cost.budget.BudgetLedger` (None: no budget), shared by every worker."""

    def workbench(self, worker: str | None = None) -> Workbench:
        """A workbench for one worker. Each worker gets its own folder for embedded stores:
        chroma allows one writer per directory, so two workers must never share one."""
        run_dir = self.run_dir if worker is None else self.run_dir / "workers" / worker
        return Workbench(self.config, self.datasets, self.resolved, run_dir=run_dir, run_uid=self.run_uid,
                         budget=self.budget)


class Executor(Protocol):
    name: str

    def run(self, units: list[Unit], job: UnitJob, write: Write, tick: Tick, on_end: OnEnd) -> None:
        """Play every unit; records go to ``write`` (called from one thread at a time)."""

    def describe(self) -> dict[str, Any]:
        """Settings for the manifest."""

    def models_manifest(self, job: UnitJob) -> dict[str, Any]:
        """The models the units will use (for the manifest), without playing anything."""


def models_manifest(job: UnitJob) -> dict[str, Any]:
    """Build a throwaway workbench to describe the models (cheap: nothing is called)."""
    bench = job.workbench()
    try:
        return bench.models_manifest()
    finally:
        bench.close()


@dataclass
class PortableFault:
    """An exception that must cross a process boundary and be raised again on the other side.

    Exceptions whose ``__init__`` takes other arguments than their message (``EndpointDown``)
    cannot be unpickled the usual way; this rebuilds one of the same class with the same
    message and attributes, so the runner recognises it (``_must_abort``) as it would in-process."""

    cls: type[BaseException]
    args: tuple[Any, ...]
    state: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def capture(cls, exc: BaseException) -> PortableFault:
        state = {}
        for key, value in vars(exc).items():
            try:
                pickle.dumps(value)
            except Exception:
                continue
            state[key] = value
        args = tuple(a if _picklable(a) else str(a) for a in exc.args)
        return cls(type(exc), args, state)

    def rebuild(self) -> BaseException:
        exc = self.cls.__new__(self.cls)
        BaseException.__init__(exc, *self.args)
        vars(exc).update(self.state)
        return exc


def _picklable(value: Any) -> bool:
    try:
        pickle.dumps(value)
    except Exception:
        return False
    return True


@dataclass
class UnitResult:
    """One unit's records in the order they were emitted (its end record last), or the fault
    that stopped it (then the records up to the fault, and no end record)."""

    unit: Unit
    records: list[tuple[str, BaseModel]]
    end: UnitEvent | None
    fault: PortableFault | None = None


def play_buffered(bench: Workbench, unit: Unit, run_id: str) -> UnitResult:
    """Play ``unit`` and keep its records instead of writing them (for a worker)."""
    records: list[tuple[str, BaseModel]] = []
    player = UnitPlayer(bench, lambda stream, record: records.append((stream, record)))
    try:
        end = player.play(unit, run_id=run_id)
    except Exception as exc:  # only faults that stop the run get here (UnitPlayer fails the unit otherwise)
        return UnitResult(unit, records, None, PortableFault.capture(exc))
    return UnitResult(unit, records, end)


def deliver(result: UnitResult, write: Write, tick: Tick, on_end: OnEnd) -> None:
    """Write a unit's buffered records, in order, from the runner's thread; raise its fault if any."""
    for stream, record in result.records:
        write(stream, record)
    tick(result.unit.turns)
    if result.fault is not None:
        raise result.fault.rebuild()
    assert result.end is not None
    on_end(result.end)


def longest_first(units: list[Unit]) -> list[Unit]:
    """Hand out the longest units first: with N workers the run then ends when the last long unit
    ends, not when a long unit started last does (completion order never changes a metric)."""
    return sorted(units, key=lambda u: -u.turns)


class AffinityQueue:
    """Hands units to a fixed number of lanes (worker processes) so that the units of one user (a
    dataset's namespace) stay on one lane.

    A run plays every user once per strategy, and each strategy embeds that user's turns, facts and
    questions. A worker's embedding cache is its own (spawned processes share no memory, and the
    cache file is merged only when a worker exits), so when two workers played the same user each
    embedded its texts: a suite-check of the short suites on a cold cache computed 13,345 vectors
    for 7,651 distinct texts on two workers. Here a lane claims a whole user and plays that user's
    units one after another; a lane that runs out of users of its own takes units from the end of
    the largest user still in play, so the run still ends when the work does (that user's texts are
    then embedded twice). Longest users are claimed first, and a user's longest units come first, as
    :func:`longest_first` does. Which lane plays a unit never changes its records: a unit is played
    from a fresh strategy."""

    def __init__(self, units: list[Unit], lanes: int) -> None:
        groups: dict[tuple[str, str], list[Unit]] = {}
        for unit in longest_first(units):
            groups.setdefault((unit.dataset, unit.namespace), []).append(unit)
        self._open = sorted(groups.values(), key=lambda g: -sum(u.turns for u in g))  # stable: plan order on ties
        self._owned: list[list[list[Unit]]] = [[] for _ in range(lanes)]

    def next(self, lane: int) -> Unit | None:
        """The unit ``lane`` plays next, or None when none is left."""
        for group in self._owned[lane]:
            if group:
                return group.pop(0)
        if self._open:
            group = self._open.pop(0)
            self._owned[lane].append(group)
            return group.pop(0)
        largest = max((g for owned in self._owned for g in owned if g), key=lambda g: sum(u.turns for u in g),
                      default=None)
        return largest.pop() if largest is not None else None
