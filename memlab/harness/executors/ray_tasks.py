"""Units as Ray tasks: the same units and records as a local run, on a Ray cluster.

``executor: {type: ray, ray_address: ADDR}`` connects to an existing cluster
(``ray.init(address=ADDR)``; ``auto`` finds the one this machine belongs to); without an address
a private local Ray is started and shut down with the run. The job (config, datasets, resolved
strategies) is put in Ray's object store once; each task plays one unit into a buffer and
returns it, and the driver — the ``memlab run`` process — is still the only writer of the run
folder. A Ray worker process keeps its workbench between tasks (models and embedder load once)
and saves its embedding cache after each unit (the cache path is the config's, on the worker's
own disk). ``ray`` is an optional extra (``pip install 'memlab[ray]'``), imported only here.
"""

from __future__ import annotations

import os
from typing import Any

from memlab.harness.executors.base import OnEnd, Tick, UnitJob, UnitResult, Write, deliver, longest_first, models_manifest, play_buffered
from memlab.harness.units import Unit, Workbench


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RuntimeError("executor 'ray' needs the ray package: pip install 'memlab[ray]' "
                           "(on the driver and on every node of the cluster)") from None
    return ray


class RayExecutor:
    """Units as Ray tasks (one CPU each); at most ``workers`` in flight, or as many as the
    cluster has CPUs when ``workers`` is 1."""

    name = "ray"

    def __init__(self, workers: int, address: str | None = None) -> None:
        self.workers = workers
        self.address = address

    def describe(self) -> dict[str, Any]:
        return {"executor": self.name, "workers": self.workers, "ray_address": self.address or "local (started by the run)"}

    def models_manifest(self, job: UnitJob) -> dict[str, Any]:
        return models_manifest(job)

    def run(self, units: list[Unit], job: UnitJob, write: Write, tick: Tick, on_end: OnEnd) -> None:
        if not units:
            return
        ray = _import_ray()
        started = not ray.is_initialized()
        if started:
            if self.address:
                ray.init(address=self.address, log_to_driver=False)
            else:
                _start_private_ray(ray, max(self.workers, 1))
        try:
            self._play_all(ray, units, job, write, tick, on_end)
        finally:
            if started:
                ray.shutdown()

    def _play_all(self, ray: Any, units: list[Unit], job: UnitJob, write: Write, tick: Tick, on_end: OnEnd) -> None:
        task = ray.remote(num_cpus=1, max_retries=0)(_play_on_ray)
        limit = self.workers if self.workers > 1 else max(int(ray.cluster_resources().get("CPU", 1)), 1)
        job_ref = ray.put(job)
        waiting = longest_first(units)
        in_flight: dict[Any, Unit] = {}
        try:
            while waiting or in_flight:
                while waiting and len(in_flight) < limit:
                    unit = waiting.pop(0)
                    in_flight[task.remote(job_ref, unit)] = unit
                done, _ = ray.wait(list(in_flight), num_returns=1)
                in_flight.pop(done[0])
                deliver(ray.get(done[0]), write, tick, on_end)
        finally:
            for ref in in_flight:  # a fault or Ctrl-C: the rest is redone by --resume
                ray.cancel(ref, force=True)


_ray_benches: dict[str, Workbench] = {}
"""Per Ray worker process: the workbench of each run it has played units for."""


def _play_on_ray(job: UnitJob, unit: Unit) -> UnitResult:
    import socket

    from memlab.embeddings import shared_embedder

    bench = _ray_benches.get(job.run_uid)
    if bench is None:
        from memlab.strategies.slots import load_plugins

        load_plugins(job.config.plugins)
        bench = _ray_benches[job.run_uid] = job.workbench(f"ray-{socket.gethostname()}-{os.getpid()}")
    result = play_buffered(bench, unit, job.run_id)
    try:
        shared_embedder(job.config.embedding_cache).save()
    except OSError:
        pass  # a cache can always be rebuilt
    return result


def _start_private_ray(ray: Any, num_cpus: int, attempts: int = 3) -> None:
    """Start a private local Ray on 127.0.0.1. Ray gives its raylet a fixed 30 s to register and
    then gives up ("The current node timed out during startup"); on a machine busy with other
    work that can happen once, so the start is tried again (after a clean shutdown) before the
    run fails."""
    for attempt in range(1, attempts + 1):
        try:
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
            return
        except Exception as exc:
            if "timed out during startup" not in str(exc) or attempt == attempts:
                raise
            ray.shutdown()
