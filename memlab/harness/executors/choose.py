"""Which executor a run uses, from the config's ``executor:`` block (or the command line).

``type: auto`` (the default) is serial for one worker; for more it picks threads when every
model is an HTTP endpoint (units wait on the network, and threads share the endpoint's rate
limiter) and processes otherwise (the offline model and the embedder are CPU-bound, and the GIL
would serialise threads).
"""

from __future__ import annotations

from typing import Any

ENDPOINT_PROVIDERS = frozenset({"openai"})
"""Model providers whose calls wait on a remote endpoint rather than on this machine's CPU."""


def auto_type(config: Any) -> str:
    if config.executor.workers <= 1:
        return "serial"
    specs = [config.model, *config.models.values(), *([config.judge] if config.judge else [])]
    return "threads" if all(s.provider in ENDPOINT_PROVIDERS for s in specs) else "processes"


def make_executor(config: Any) -> Any:
    """The executor ``config.executor`` asks for."""
    from memlab.harness.executors.local import ProcessExecutor, ThreadExecutor
    from memlab.harness.executors.ray_tasks import RayExecutor
    from memlab.harness.executors.serial import SerialExecutor

    spec = config.executor
    kind = auto_type(config) if spec.type == "auto" else spec.type
    if kind == "serial":
        return SerialExecutor()
    if kind == "processes":
        return ProcessExecutor(spec.workers)
    if kind == "threads":
        return ThreadExecutor(spec.workers)
    return RayExecutor(spec.workers, spec.ray_address)
