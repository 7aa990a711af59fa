"""Issue 12: units in parallel (processes, threads) and on Ray give the same records and metrics
as a serial run; a killed parallel run resumes without losing or duplicating records; a fault
in a worker stops the whole run.

The runs use a small generated dataset (not evaluation data): several conversations, each its
own namespace, so a run has enough units for workers to interleave.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest
import yaml

from memlab.cli import main as cli_main
from memlab.harness.config import ConfigError, RunConfig, load_config
from memlab.harness.executors.base import PortableFault
from memlab.runfolder.recorder import read_jsonl
from memlab.analysis.results import load_run
from memlab.harness.runner import EXIT_CODES, Runner

ROOT = Path(__file__).resolve().parent.parent
STRATEGIES = [{"name": "message_rag"}, {"name": "fact_rag", "store": {"type": "chroma"}},
              {"name": "window", "short_term": {"type": "recent_window", "n": 2}}]
PETS = ["cat", "dog", "parrot", "hamster", "turtle", "rabbit", "ferret", "goldfish"]
CITIES = ["Lisbon", "Oslo", "Quito", "Hanoi", "Perth", "Accra", "Lima", "Riga"]


def _dataset(tmp_path: Path, n: int = 6) -> Path:
    convs = []
    for i in range(n):
        turns = [
            {"id": "t1", "role": "user", "text": f"I live in {CITIES[i % 8]} and my pet is a {PETS[i % 8]} called Bo{i}."},
            {"id": "t2", "role": "assistant", "text": "Nice, thanks for telling me."},
            {"id": "t3", "role": "user", "text": f"My sister works as a nurse in {CITIES[(i + 3) % 8]}."},
            {"id": "t4", "role": "assistant", "text": "Good to know."},
            {"id": "t5", "role": "user", "text": f"Last week I moved to {CITIES[(i + 5) % 8]} for a new job."},
            {"id": "t6", "role": "assistant", "text": "Congratulations on the move."},
        ]
        convs.append({
            "id": f"c{i}", "namespace": f"c{i}",
            "sessions": [{"id": "s1", "timestamp": f"2024-02-{i + 1:02d}T09:00:00", "turns": turns}],
            "probes": [
                {"id": f"c{i}-pet", "after_turn": "t6", "question": "What is the name of my pet?", "category": "single_hop",
                 "gold": f"Bo{i}", "evidence": ["t1"]},
                {"id": f"c{i}-city", "after_turn": "t6", "question": "Which city do I live in now?",
                 "category": "knowledge_update", "gold": CITIES[(i + 5) % 8], "superseded": [CITIES[i % 8]],
                 "evidence": ["t5"]},
            ],
        })
    path = tmp_path / "parallel.json"
    path.write_text(json.dumps({"name": "parallel", "conversations": convs}), encoding="utf-8")
    return path


def _config(tmp_path: Path, dataset: Path, executor: dict, **kw) -> RunConfig:
    data = {"name": "par", "datasets": [str(dataset)], "output_dir": str(tmp_path / "results"),
            "embedding_cache": None, "strategies": STRATEGIES, "executor": executor}
    data.update(kw)
    return RunConfig.model_validate(data)


def _metrics(run) -> pd.DataFrame:
    """The summary without wall-clock columns (the only thing allowed to differ between executors)."""
    summary = run.summary()
    timing = [c for c in summary.columns if "latency" in c or c.endswith("_s") or "wall" in c]
    return summary.drop(columns=timing)


def _contexts(run) -> pd.DataFrame:
    keep = ["strategy", "conversation_id", "probe_id", "context", "answer", "context_source_turn_ids"]
    probes = run.probes[keep].copy()
    probes["context_source_turn_ids"] = probes["context_source_turn_ids"].map(tuple)
    return probes.sort_values(keep[:3]).reset_index(drop=True)


def _memory_ops(run) -> list[tuple]:
    """The memory operations that count: those of each unit's final attempt (what the loader gives).

    A run killed after a unit's records were written but before its end marker leaves that
    attempt's records in the folder; ``--resume`` plays the unit again under a new attempt id and
    the loader drops the unfinished one (see :func:`_assert_only_unfinished_attempts_left_over`)."""
    ops = run.memory_ops
    return sorted(zip(ops["strategy"], ops["conversation_id"], ops["seq"], ops["op"], ops["item_id"], ops["text"]))


def _assert_only_unfinished_attempts_left_over(run) -> None:
    """Records in the folder that the loader does not count belong to attempts that never ended —
    never to a second finished attempt of a unit (that would be work done twice)."""
    ends = [r for r in read_jsonl(run.path / "units.jsonl") if r.get("event") == "end"]
    ended = [r["attempt"] for r in ends]
    assert len(ended) == len(set(ended))
    units = [(r["strategy"], r["dataset"], r.get("namespace")) for r in ends if r.get("status", "ok") == "ok"]
    assert len(units) == len(set(units)), "a unit finished ok twice"
    for stream in ("turns", "calls", "memory_ops", "probes"):
        for rec in read_jsonl(run.path / f"{stream}.jsonl"):
            assert rec["attempt"] in run.final_attempts or rec["attempt"] not in ended, (stream, rec["attempt"])


@pytest.fixture(scope="module")
def serial_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serial")
    return load_run(Runner(_config(tmp, _dataset(tmp), {"type": "serial"}), progress=False).run())


def _assert_same_as_serial(run, serial_run) -> None:
    assert run.manifest["status"] == "completed"
    pd.testing.assert_frame_equal(_metrics(run), _metrics(serial_run), check_exact=True)
    pd.testing.assert_frame_equal(_contexts(run), _contexts(serial_run), check_exact=True)
    assert _memory_ops(run) == _memory_ops(serial_run)
    _assert_only_unfinished_attempts_left_over(run)


def _assert_units_contiguous(run_dir: Path) -> None:
    """Each unit's records are written together: its start, then its end, with no other unit's
    start or end in between (the single writer gets whole units)."""
    open_unit = None
    for rec in read_jsonl(run_dir / "units.jsonl"):
        if rec["event"] == "start":
            assert open_unit is None, f"unit {rec['attempt']} started inside unit {open_unit}"
            open_unit = rec["attempt"]
        else:
            assert rec["attempt"] == open_unit
            open_unit = None
    turns = [r["attempt"] for r in read_jsonl(run_dir / "turns.jsonl")]
    runs_of_attempts = [a for i, a in enumerate(turns) if i == 0 or turns[i - 1] != a]
    assert len(runs_of_attempts) == len(set(runs_of_attempts)), "a unit's turn records were interleaved with another's"


@pytest.mark.slow
@pytest.mark.parametrize("executor", [{"type": "processes", "workers": 2}, {"type": "threads", "workers": 2}])
def test_parallel_executors_give_the_serial_metrics_to_the_last_digit(tmp_path, serial_run, executor):
    run = load_run(Runner(_config(tmp_path, _dataset(tmp_path), executor), progress=False).run())
    _assert_same_as_serial(run, serial_run)
    assert run.manifest["executor"]["executor"] == executor["type"] and run.manifest["executor"]["workers"] == 2
    assert run.manifest["models"]["default"], "the manifest names the models whatever the executor"
    _assert_units_contiguous(run.path)
    # every worker had its own folder for embedded chroma (one writer per directory)
    assert len(list((run.path / "workers").iterdir())) >= 1


@pytest.mark.slow
def test_ray_executor_gives_the_serial_metrics(tmp_path, serial_run):
    run = load_run(Runner(_config(tmp_path, _dataset(tmp_path), {"type": "ray", "workers": 2}), progress=False).run())
    _assert_same_as_serial(run, serial_run)
    assert run.manifest["executor"]["executor"] == "ray"
    _assert_units_contiguous(run.path)
    import ray

    assert not ray.is_initialized(), "the Ray the run started is shut down with it"


def _children(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


@pytest.mark.slow
def test_a_killed_parallel_run_resumes_without_losing_or_duplicating_records(tmp_path, serial_run):
    dataset = _dataset(tmp_path)
    cfg = _config(tmp_path, dataset, {"type": "processes", "workers": 2}).model_dump(mode="json")
    cfg_path = tmp_path / "par.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg))
    run_dir = tmp_path / "results" / "killed"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    proc = subprocess.Popen([sys.executable, "-m", "memlab.cli", "run", str(cfg_path), "--run-dir", str(run_dir), "--no-progress"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    total = 3 * 6
    workers: list[psutil.Process] = []
    deadline = time.time() + 300
    while time.time() < deadline:
        workers = _children(proc.pid) or workers
        ends = [r for r in read_jsonl(run_dir / "units.jsonl") if r.get("event") == "end"]
        if len(ends) >= 4:
            break
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)  # a crash of the run, not a clean shutdown
    proc.wait()
    before = [r for r in read_jsonl(run_dir / "units.jsonl") if r.get("event") == "end"]
    assert 4 <= len(before) < total, "the kill should land mid-run"
    assert workers, "the run had worker processes"
    gone, alive = psutil.wait_procs(workers, timeout=30)
    assert not alive, "orphaned workers exit once their run is gone"

    Runner(RunConfig.model_validate(cfg), run_dir=run_dir, resume=True, progress=False).run()
    run = load_run(run_dir)
    ends = [r for r in read_jsonl(run_dir / "units.jsonl") if r.get("event") == "end"]
    assert len(ends) == total, "finished units were not played again, unfinished ones exactly once"
    assert {r["attempt"] for r in before} <= {r["attempt"] for r in ends}
    _assert_same_as_serial(run, serial_run)
    final = {r["attempt"] for r in ends}
    turns = [t for t in read_jsonl(run_dir / "turns.jsonl") if t["attempt"] in final]
    assert len(turns) == len(read_jsonl(serial_run.path / "turns.jsonl")), "no turn record lost or duplicated"


def _dead_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    return f"http://127.0.0.1:{port}/v1"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["processes", "threads"])
def test_an_endpoint_down_in_a_worker_stops_the_run(tmp_path, capsys, monkeypatch, kind):
    url = _dead_endpoint()
    cfg = _config(tmp_path, _dataset(tmp_path), {"type": kind, "workers": 2}, strategies=[{"name": "fact_rag"}],
                  model={"provider": "openai", "model": "m", "base_url": url, "api_key_env": "PAR_TEST_KEY",
                         "max_attempts": 2, "retry_base_delay_s": 0, "breaker_failures": 2}).model_dump(mode="json")
    path = tmp_path / "down.yaml"
    path.write_text(yaml.safe_dump(cfg))
    monkeypatch.setenv("PAR_TEST_KEY", "sk-test")  # inherited by spawned workers
    assert cli_main(["run", str(path), "--no-progress"]) == EXIT_CODES["failed"]
    out = capsys.readouterr()
    assert url.split("//")[1].split("/")[0] in out.out + out.err and "down" in (out.out + out.err).lower()
    run = next((tmp_path / "results").iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "EndpointDown" in manifest["error"]
    assert manifest["units"]["ok"] == 0


def test_an_endpoint_fault_crosses_a_process_boundary_as_itself():
    from memlab.llm.types import EndpointDown
    from memlab.harness.units import _must_abort

    exc = EndpointDown("http://127.0.0.1:1/v1", 3, "connection refused")
    with pytest.raises(TypeError):
        pickle.loads(pickle.dumps(exc))  # why PortableFault exists
    back = pickle.loads(pickle.dumps(PortableFault.capture(exc))).rebuild()
    assert type(back) is EndpointDown and str(back) == str(exc) and back.endpoint == exc.endpoint
    assert _must_abort(back)


def test_executor_settings_are_validated_and_named(tmp_path):
    ds = _dataset(tmp_path, n=1)
    base = {"name": "v", "datasets": [str(ds)], "strategies": [{"name": "no_memory"}]}
    for executor, message in [({"type": "serial", "workers": 4}, "serial executor plays one unit"),
                              ({"type": "procs"}, "unknown executor 'procs'"),
                              ({"workers": 0}, "executor.workers"),
                              ({"type": "threads", "ray_address": "auto"}, "set type: ray")]:
        path = tmp_path / "bad.yaml"
        path.write_text(yaml.safe_dump({**base, "executor": executor}))
        with pytest.raises(ConfigError, match=message) as err:
            load_config(path)
        assert str(path) in str(err.value)


def test_auto_picks_serial_processes_or_threads():
    from memlab.harness.executors import make_executor

    def kind(executor: dict, **kw) -> str:
        cfg = RunConfig.model_validate({"datasets": ["x"], "strategies": [{"name": "no_memory"}], "executor": executor, **kw})
        return make_executor(cfg).name

    endpoint = {"provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
    assert kind({}) == "serial"
    assert kind({"workers": 3}) == "processes"  # the offline model is CPU-bound
    assert kind({"workers": 3}, model=endpoint) == "threads"
    assert kind({"workers": 3}, model=endpoint, models={"extract": {"provider": "offline"}}) == "processes"
    assert kind({"type": "ray", "ray_address": "auto"}) == "ray"


def test_command_line_flags_override_the_config_executor(tmp_path, monkeypatch):
    import memlab.harness.runner

    ds = _dataset(tmp_path, n=1)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"name": "flags", "datasets": [str(ds)], "strategies": [{"name": "no_memory"}],
                                    "output_dir": str(tmp_path / "out"), "executor": {"type": "threads", "workers": 2}}))
    seen = {}

    class Stop(Exception):
        pass

    def fake_run(self):
        seen["executor"] = self.executor.describe()
        raise Stop

    monkeypatch.setattr(memlab.harness.runner.Runner, "run", fake_run)
    for argv, expected in [([], {"executor": "threads", "workers": 2}),
                           (["--workers", "3"], {"executor": "threads", "workers": 3}),
                           (["--executor", "processes"], {"executor": "processes", "workers": 2}),
                           (["--ray-address", "auto"], {"executor": "ray", "workers": 2, "ray_address": "auto"})]:
        with pytest.raises(Stop):
            cli_main(["run", str(path), "--no-progress", *argv])
        assert expected.items() <= seen["executor"].items(), (argv, seen)


class _FlakyRay:
    """Stands in for the ``ray`` module: its first ``init`` calls fail as Ray's startup does."""

    def __init__(self, failures: list[Exception]) -> None:
        self.failures = list(failures)
        self.inits = 0
        self.shutdowns = 0

    def init(self, **kw) -> None:
        self.inits += 1
        assert kw["_node_ip_address"] == "127.0.0.1"
        if self.failures:
            raise self.failures.pop(0)

    def shutdown(self) -> None:
        self.shutdowns += 1


def test_a_private_ray_that_times_out_at_startup_is_started_again():
    from memlab.harness.executors.ray_tasks import _start_private_ray

    ray = _FlakyRay([Exception("The current node timed out during startup. This could happen ...")])
    _start_private_ray(ray, 2)
    assert (ray.inits, ray.shutdowns) == (2, 1)
    other = _FlakyRay([ValueError("bad num_cpus")])
    with pytest.raises(ValueError):
        _start_private_ray(other, 2)
    assert other.inits == 1
    stuck = _FlakyRay([Exception("timed out during startup")] * 3)
    with pytest.raises(Exception, match="timed out"):
        _start_private_ray(stuck, 2, attempts=3)
    assert stuck.inits == 3


def test_a_run_reads_back_the_same_whatever_order_its_units_were_written_in(tmp_path, serial_run):
    """Parallel executors write whole units in the order they finish; a mean summed in another
    order can differ in the last digit, so results are read back in one canonical unit order."""
    import shutil

    copy = tmp_path / "reordered"
    shutil.copytree(serial_run.path, copy)
    for stream in ("probes", "calls", "memory_ops", "turns"):
        path = copy / f"{stream}.jsonl"
        lines = [ln for ln in path.read_text(encoding="utf-8").split("\n") if ln]
        blocks: dict[str, list[str]] = {}
        for ln in lines:
            blocks.setdefault(json.loads(ln)["attempt"], []).append(ln)
        assert len(blocks) > 2
        path.write_text("".join(ln + "\n" for attempt in reversed(list(blocks)) for ln in blocks[attempt]),
                        encoding="utf-8")
    again = load_run(copy)
    assert again.summary().to_csv() == serial_run.summary().to_csv()
    pd.testing.assert_frame_equal(again.probes, serial_run.probes, check_exact=True)
