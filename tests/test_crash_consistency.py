"""No lost writes: a run killed mid-way leaves every recorded memory operation in the store,
and resuming it neither loses nor duplicates records — on the persistent backends.

The run is a real ``memlab run`` subprocess killed with SIGKILL (a crash, not a shutdown).
The memory-op log is written after the store write it describes, so every ADD/UPDATE/DELETE
in ``memory_ops.jsonl`` must be visible in the store afterwards, with the logged text and
validity.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from memlab.harness.config import RunConfig
from memlab.memory.stores.base import make_store
from memlab.runfolder.recorder import read_jsonl
from memlab.analysis.results import load_run
from memlab.harness.runner import Runner

ROOT = Path(__file__).resolve().parent.parent
STARTER = str(ROOT / "datasets" / "starter.yaml")


def _expected_state(ops: list[dict]) -> dict[tuple[str, str], tuple[str, bool]]:
    """(namespace, item id) → (text, valid) after replaying the logged operations in order."""
    state: dict[tuple[str, str], tuple[str, bool]] = {}
    for op in ops:
        key = (op["namespace"], op["item_id"])
        if op["op"] == "ADD":
            state[key] = (op["text"], True)
        elif op["op"] == "UPDATE":
            state[key] = (op["text"], True)
        elif op["op"] == "DELETE":
            state[key] = (state.get(key, (op["previous_text"], True))[0], False)
    return state


def _open_store(backend: str, run_dir: Path, strategy: str):
    if backend == "chroma":
        return make_store("chroma", path=str(run_dir / "stores" / strategy / "chroma"))
    return make_store("postgres")


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["chroma", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_killed_run_keeps_every_recorded_write_and_resume_does_not_duplicate(tmp_path: Path, backend: str, request):
    if backend == "postgres":
        request.getfixturevalue("postgres")  # the project's server answers (else skipped, or failed in CI)
    name = f"fact_rag@{backend}"
    cfg = {"name": "crash", "datasets": [STARTER], "output_dir": str(tmp_path / "results"),
           "embedding_cache": str(tmp_path / "emb.npz"),
           "strategies": [{"name": name, "preset": "fact_rag", "store": {"type": backend}}]}
    cfg_path = tmp_path / "cfg.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg))
    run_dir = tmp_path / "results" / "r1"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    proc = subprocess.Popen([sys.executable, "-m", "memlab.cli", "run", str(cfg_path), "--run-dir", str(run_dir),
                             "--no-progress"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    units, ops_path = run_dir / "units.jsonl", run_dir / "memory_ops.jsonl"
    deadline = time.time() + 180
    while time.time() < deadline and proc.poll() is None:
        ends = [r for r in read_jsonl(units) if r.get("event") == "end"]
        # one conversation finished and the next one has written memories: kill mid-conversation
        if len(ends) >= 1 and len({r["conversation_id"] for r in read_jsonl(ops_path)}) >= 2:
            break
        time.sleep(0.02)
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    ends = [r for r in read_jsonl(units) if r.get("event") == "end"]
    assert 1 <= len(ends) < 4, "the kill should land mid-run"

    # 1. every operation recorded as done is in the store, as recorded
    ops = read_jsonl(ops_path)
    expected = _expected_state(ops)
    assert expected, "the killed run should have recorded memory operations"
    store = _open_store(backend, run_dir, name)  # chroma: the dead writer's lock is free again
    try:
        for (ns, item_id), (text, valid) in expected.items():
            got = store.get(ns, [item_id])
            assert got, f"{backend}: recorded item {item_id} in {ns!r} is missing after the crash"
            assert got[0].text == text and got[0].valid == valid
    finally:
        store.close()

    # 2. resume: finished conversations are kept, the interrupted one restarts from a clean namespace
    Runner(RunConfig.model_validate(cfg), run_dir=run_dir, resume=True, progress=False).run()
    res = load_run(run_dir)
    assert res.manifest["status"] == "completed" and res.manifest["units"]["failed"] == []
    final_ops = res.memory_ops
    store = _open_store(backend, run_dir, name)
    try:
        for ns, frame in final_ops.groupby("namespace"):
            added = set(frame.loc[frame["op"] == "ADD", "item_id"])
            stored = store.list(ns)
            ids = [it.id for it in stored]
            assert len(ids) == len(set(ids)), f"{backend}: duplicate records in {ns!r}"
            assert set(ids) == added, f"{backend}: {ns!r} holds {len(ids)} records, the final attempt added {len(added)}"
            state = _expected_state(frame.to_dict("records"))
            for it in stored:
                assert (it.text, it.valid) == state[(ns, it.id)]
        if backend == "postgres":  # the server outlives the test: leave its table as found
            for ns in final_ops["namespace"].unique():
                store.reset(ns)
    finally:
        store.close()
