"""Parallel units on one machine: a pool of worker processes, or of threads.

Processes are for CPU-bound work — the offline model and the numpy embedder hold the GIL, so
threads would take turns on one core. Threads are for endpoint-bound work: a unit spends its time
waiting on HTTP, the endpoint's shared rate limiter (:mod:`memlab.llm.endpoints`) paces every
thread, and threads cost no start-up. Either way each worker builds its workbench once (models,
embedder, strategies), plays whole units into a buffer, and the runner's thread writes each
finished unit's records in one go (:mod:`memlab.harness.executors.base`).

Processes are *spawned*, not forked: the runner's process has threads (progress bar, store
clients) whose locks a fork would copy mid-use. A worker whose parent dies (a ``kill -9`` of the
run) exits within half a second instead of writing on to stores a ``--resume`` is about to clear.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import threading
from concurrent.futures import Executor as FuturesExecutor
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed, wait
from typing import Any

from memlab.harness.executors.base import (AffinityQueue, OnEnd, Tick, UnitJob, UnitResult, Write, deliver, longest_first,
                                          models_manifest, play_buffered)
from memlab.harness.units import Unit, Workbench

ORPHAN_POLL_S = 0.5
"""How often a worker process checks that the run that started it is still alive."""


def _drain(futures: dict[Future[UnitResult], Unit], write: Write, tick: Tick, on_end: OnEnd) -> None:
    for future in as_completed(futures):
        deliver(future.result(), write, tick, on_end)


class ProcessExecutor:
    """Units in ``workers`` spawned processes, each with its own workbench. Each process is a lane
    of its own (a one-process pool) fed by an :class:`~memlab.harness.executors.base.AffinityQueue`,
    so a user's units stay in the process that has embedded that user's texts."""

    name = "processes"
    DEPTH = 2
    """Units queued per lane: the next one is waiting while the parent writes the last one's records."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def describe(self) -> dict[str, Any]:
        return {"executor": self.name, "workers": self.workers, "start_method": "spawn"}

    def models_manifest(self, job: UnitJob) -> dict[str, Any]:
        return models_manifest(job)

    def run(self, units: list[Unit], job: UnitJob, write: Write, tick: Tick, on_end: OnEnd) -> None:
        if not units:
            return
        workers = min(self.workers, len(units))
        context = multiprocessing.get_context("spawn")
        lanes = [ProcessPoolExecutor(1, mp_context=context, initializer=_init_process, initargs=(job, os.getpid()))
                 for _ in range(workers)]
        queue = AffinityQueue(units, workers)
        in_flight: dict[Future[UnitResult], int] = {}

        def feed(lane: int) -> None:
            unit = queue.next(lane)
            if unit is not None:
                in_flight[lanes[lane].submit(_play_in_process, unit)] = lane

        finished = False
        try:
            with _blas_threads(max(1, (os.cpu_count() or 1) // workers)):  # workers are spawned on submit
                for _ in range(self.DEPTH):
                    for lane in range(workers):
                        feed(lane)
            while in_flight:
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    lane = in_flight.pop(future)
                    deliver(future.result(), write, tick, on_end)
                    feed(lane)
            finished = True
        finally:
            for pool in lanes:
                if finished:
                    pool.shutdown(wait=True)  # workers exit normally: their embedding caches are saved
                else:
                    _terminate(pool)


BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def _blas_threads(n: int) -> Iterator[None]:
    """Spawn workers with ``n`` BLAS threads each (unless the user chose a number): every
    worker's numpy otherwise starts one BLAS thread per core, and N workers × cores spinning
    threads made a 2-worker run on 2 cores six times slower than with one thread each."""
    chosen = {v: os.environ.get(v) for v in BLAS_THREAD_VARIABLES}
    if any(chosen.values()):
        yield
        return
    os.environ.update({v: str(n) for v in BLAS_THREAD_VARIABLES})
    try:
        yield
    finally:
        for v in BLAS_THREAD_VARIABLES:
            os.environ.pop(v, None)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop a process pool now (a fault stopped the run, or Ctrl-C): units in flight are lost
    on purpose — they have no end record, so ``--resume`` redoes them."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public API before Python 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    for proc in processes:
        proc.join(timeout=10)


_process_bench: Workbench | None = None
_process_job: UnitJob | None = None


def _init_process(job: UnitJob, parent_pid: int) -> None:
    """Worker set-up: plugins, Ctrl-C left to the parent, orphan watchdog, the workbench."""
    import signal
    from multiprocessing import util

    from memlab.harness.gc_policy import freeze_heap
    from memlab.strategies.slots import load_plugins

    global _process_bench, _process_job
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt stops
    load_plugins(job.config.plugins)  # a spawned process has not imported the config's plugins
    threading.Thread(target=_exit_when_orphaned, args=(parent_pid,), daemon=True, name="memlab-orphan-watch").start()
    _process_job = job
    _process_bench = job.workbench(f"p{os.getpid()}")
    freeze_heap()  # the worker's long-lived heap is built: collections walk only what units allocate
    util.Finalize(None, _close_process, exitpriority=10)  # run at a normal worker exit (pool shutdown)


def _exit_when_orphaned(parent_pid: int) -> None:
    import time

    while True:
        time.sleep(ORPHAN_POLL_S)
        if os.getppid() != parent_pid:
            os._exit(1)


def _close_process() -> None:
    from memlab.embeddings import shared_embedder

    if _process_bench is not None:
        _process_bench.close()
    if _process_job is not None:
        try:
            shared_embedder(_process_job.config.embedding_cache).save()
        except OSError:
            pass  # a cache can always be rebuilt


def _play_in_process(unit: Unit) -> UnitResult:
    assert _process_bench is not None and _process_job is not None, "worker not initialised"
    return play_buffered(_process_bench, unit, _process_job.run_id)


class ThreadExecutor:
    """Units in ``workers`` threads of this process, each thread with its own workbench
    (strategies keep per-unit state); models' endpoint limits and the embedder are shared."""

    name = "threads"

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def describe(self) -> dict[str, Any]:
        return {"executor": self.name, "workers": self.workers}

    def models_manifest(self, job: UnitJob) -> dict[str, Any]:
        return models_manifest(job)

    def run(self, units: list[Unit], job: UnitJob, write: Write, tick: Tick, on_end: OnEnd) -> None:
        local = threading.local()
        benches: list[Workbench] = []
        numbers = itertools.count(1)
        lock = threading.Lock()

        def play(unit: Unit) -> UnitResult:
            bench = getattr(local, "bench", None)
            if bench is None:
                with lock:
                    bench = local.bench = job.workbench(f"t{next(numbers)}")
                    benches.append(bench)
            return play_buffered(bench, unit, job.run_id)

        pool: FuturesExecutor = ThreadPoolExecutor(self.workers, thread_name_prefix="memlab-unit")
        try:
            _drain({pool.submit(play, u): u for u in longest_first(units)}, write, tick, on_end)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)  # threads cannot be killed: in-flight units finish
            for bench in benches:
                bench.close()
