"""Executors: how the units of a run are carried out — serially, in local worker processes or
threads, or as Ray tasks (see docs/scale.md). Whatever the executor, the runner's thread is the
only writer of the run folder and the metrics are the same to the last digit."""

from memlab.harness.executors.base import Executor, UnitJob
from memlab.harness.executors.choose import make_executor
from memlab.harness.executors.serial import SerialExecutor

__all__ = ["Executor", "SerialExecutor", "UnitJob", "make_executor"]
