"""The serial executor: units one after another in this process.

Records are streamed to the run folder as they happen, so a crash loses at most the unit in
flight, which ``--resume`` redoes from scratch.
"""

from __future__ import annotations

from typing import Any

from memlab.harness.executors.base import OnEnd, Tick, UnitJob, Write
from memlab.harness.units import Unit, UnitPlayer, Workbench


class SerialExecutor:
    """Units one after another in this process, records streamed to the run folder as they happen."""

    name = "serial"

    def __init__(self) -> None:
        self.bench: Workbench | None = None

    def describe(self) -> dict[str, Any]:
        return {"executor": self.name, "workers": 1}

    def workbench(self, job: UnitJob) -> Workbench:
        if self.bench is None:
            self.bench = job.workbench()
        return self.bench

    def models_manifest(self, job: UnitJob) -> dict[str, Any]:
        return self.workbench(job).models_manifest()

    def run(self, units: list[Unit], job: UnitJob, write: Write, tick: Tick, on_end: OnEnd) -> None:
        bench = self.workbench(job)
        try:
            player = UnitPlayer(bench, write, tick)
            for unit in units:
                on_end(player.play(unit, run_id=job.run_id))
        finally:
            bench.close()
