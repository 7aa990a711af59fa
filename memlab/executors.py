"""Executors: how the units of a run are carried out.

An executor takes the units still to do and a *job* describing how to play one, and reports
each unit's records to the runner's single writer. The serial executor plays units in this
process one after another, streaming records as they happen (so a crash loses at most the unit
in flight, which ``--resume`` redoes from scratch).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from memlab.records import UnitEvent
from memlab.units import Unit, UnitPlayer, Workbench


@dataclass
class UnitJob:
    """Everything needed to rebuild a workbench and play units, in any process."""

    config: Any
    datasets: dict[str, Any]
    resolved: dict[str, dict[str, Any]]
    run_dir: Path
    run_uid: str
    run_id: str


class Executor(Protocol):
    name: str

    def run(self, units: list[Unit], job: UnitJob, write: Callable[[str, BaseModel], None],
            tick: Callable[[int], None], on_end: Callable[[UnitEvent], None]) -> None:
        """Play every unit; records go to ``write`` (called from one thread at a time)."""

    def describe(self) -> dict[str, Any]:
        """Settings for the manifest."""


class SerialExecutor:
    """Units one after another in this process, records streamed to the run folder as they happen."""

    name = "serial"

    def __init__(self) -> None:
        self.bench: Workbench | None = None

    def describe(self) -> dict[str, Any]:
        return {"executor": self.name, "workers": 1}

    def workbench(self, job: UnitJob) -> Workbench:
        if self.bench is None:
            self.bench = Workbench(job.config, job.datasets, job.resolved, run_dir=job.run_dir, run_uid=job.run_uid)
        return self.bench

    def run(self, units, job, write, tick, on_end) -> None:
        bench = self.workbench(job)
        try:
            player = UnitPlayer(bench, write, tick)
            for unit in units:
                on_end(player.play(unit, run_id=job.run_id))
        finally:
            bench.close()
