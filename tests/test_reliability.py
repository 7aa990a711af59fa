"""Issue 7: results survive Unicode, crashes, retries, concurrent runs and shared servers.

Each test names the item of issue 7 it keeps fixed. The runs use a tiny hand-written dataset (not
evaluation data) and cheap strategies, so the whole file costs seconds, not minutes.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from memlab.cli import main as cli_main
from memlab.harness.config import RunConfig, load_config
from memlab.runfolder.recorder import RunLock, RunLocked, RunRecorder, read_jsonl
from memlab.analysis.results import load_run
from memlab.harness.runner import EXIT_CODES, ResumeMismatch, Runner

ROOT = Path(__file__).resolve().parent.parent
SEPARATORS = ["\u2028", "\u2029", "\u0085"]


def _dataset(tmp_path: Path, *, text_extra: str = "", shared: bool = False, probes: bool = True, n: int = 2) -> Path:
    """``n`` conversations about different people; ``shared`` puts them in one namespace."""
    convs = []
    for i in range(n):
        name = f"p{i}"
        t = (lambda k: f"c{i}-t{k}") if shared else (lambda k: f"t{k}")  # turn ids are unique per user
        conv = {
            "id": name, "namespace": "shared" if shared else name,
            "sessions": [{"id": "s1", "timestamp": f"2024-01-0{i + 1}T10:00:00", "turns": [
                {"id": t(1), "role": "user", "text": f"My locker code is {4000 + i}.{text_extra}"},
                {"id": t(2), "role": "assistant", "text": "Noted."},
                {"id": t(3), "role": "user", "text": f"I keep a bike called Rocket{i} in the shed."},
            ]}],
            "probes": [{"id": f"{name}-q", "after_turn": t(3), "question": "What is my locker code?", "category": "single_hop",
                        "gold": str(4000 + i), "evidence": [t(1)]}] if probes else [],
        }
        convs.append(conv)
    if shared and probes:  # the second conversation asks about what the first one said (its evidence: thread 1)
        convs[1]["probes"].append({"id": "p1-cross", "after_turn": "c1-t3", "question": "What is the name of the bike?",
                                   "category": "multi_session", "gold": "Rocket0", "evidence": ["c0-t3"]})
    path = tmp_path / "tiny.json"  # JSON, raw characters: PyYAML's dumper folds a raw U+0085 into a space
    path.write_text(json.dumps({"name": "tiny", "conversations": convs}, ensure_ascii=False), encoding="utf-8")
    return path


def _config(tmp_path: Path, dataset: Path, **kw) -> RunConfig:
    data = {"name": "rel", "datasets": [str(dataset)], "output_dir": str(tmp_path / "results"),
            "embedding_cache": str(tmp_path / "emb.npz"), "strategies": [{"name": "message_rag"}]}
    data.update(kw)
    return RunConfig.model_validate(data)


# -- 1. Unicode line separators ---------------------------------------------------------------------

@pytest.mark.parametrize("sep", SEPARATORS)
def test_line_separators_in_turns_and_answers_keep_the_run_readable(tmp_path, sep):
    ds = _dataset(tmp_path, text_extra=f" first{sep}second")
    run = Runner(_config(tmp_path, ds, strategies=[{"name": "full_context"}]), progress=False).run()
    res = load_run(run)
    assert len(res.probes) == 2
    assert any(sep in c for c in res.probes["context"]), "the separator is kept, not stripped"
    for stream in ("probes", "turns", "calls", "units"):
        for line in (run / f"{stream}.jsonl").read_bytes().split(b"\n")[:-1]:
            json.loads(line)  # every physical line is one record


def test_reader_splits_only_on_newline(tmp_path):
    path = tmp_path / "probes.jsonl"
    with RunRecorder(tmp_path) as rec:
        rec.write("probes", {"text": "a\u2028b\u0085c\rd"})
    assert [r["text"] for r in read_jsonl(path)] == ["a\u2028b\u0085c\rd"]
    assert b"\xe2\x80\xa8" not in path.read_bytes(), "written escaped, so no line-oriented tool splits it"


# -- 2. resume retries failed units; 6. only the final attempt's calls count ------------------------

PLUGIN = '''
"""A test component that fails while a marker file exists (a stand-in for a server that is down)."""
from pathlib import Path
from memlab.strategies.slots import Component, Params, component

class _P(Params):
    marker: str

@component("consolidator", "fail_while_marked")
class FailWhileMarked(Component):
    """Appends like ``append``, but raises at conversation end while the marker file exists."""
    Params = _P

    def on_conversation_end(self, state):
        state.candidates.clear()
        if Path(self.params.marker).exists():
            raise ConnectionError("store went away")
'''


def _flaky_setup(tmp_path: Path):
    (tmp_path / "flaky_plugin.py").write_text(PLUGIN)
    marker = tmp_path / "down"
    marker.touch()
    sys.path.insert(0, str(tmp_path))
    ds = _dataset(tmp_path)
    cfg = _config(tmp_path, ds, plugins=["flaky_plugin"], strategies=[
        {"name": "flaky", "preset": "fact_rag", "consolidator": {"type": "fail_while_marked", "marker": str(marker)}},
        {"name": "message_rag"}])
    return cfg, marker


@pytest.mark.slow
def test_resume_retries_failed_units_and_counts_only_final_attempts(tmp_path):
    cfg, marker = _flaky_setup(tmp_path)
    try:
        run = Runner(cfg, progress=False).run()
        first = load_run(run)
        assert first.manifest["status"] == "completed_with_failures"
        assert len(first.manifest["units"]["failed"]) == 2 and "store went away" in first.manifest["units"]["failed"][0]
        assert set(first.probes["strategy"]) == {"message_rag"}, "a failed attempt is not final"
        failed_calls = [c for c in read_jsonl(run / "calls.jsonl") if c["strategy"] == "flaky"]
        assert failed_calls and all(c["attempt"] for c in failed_calls), "every call record names its attempt"

        marker.unlink()
        Runner(cfg, run_dir=run, resume=True, progress=False).run()
        res = load_run(run)
    finally:
        sys.path.remove(str(tmp_path))
    assert res.manifest["status"] == "completed" and res.manifest["units"]["failed"] == []
    assert len(res.probes) == 4 and not res.probes.duplicated(["strategy", "conversation_id", "probe_id"]).any()
    # the failed attempt's calls stay on disk (what happened) but are not counted
    all_calls = [c for c in read_jsonl(run / "calls.jsonl") if c["strategy"] == "flaky"]
    final = res.calls[res.calls["strategy"] == "flaky"]
    assert len(all_calls) > len(final) > 0
    assert set(final["attempt"]) == set(res.units.query("strategy == 'flaky' and status == 'ok'")["attempt"])


# -- 3. namespaces unique per run -------------------------------------------------------------------

@pytest.mark.slow
def test_store_namespaces_carry_the_run_uid_and_resume_keeps_it(tmp_path):
    ds = _dataset(tmp_path)
    runs = []
    for parent in ("a", "b"):  # same basename, as two checkouts or CI jobs with the same stamped name
        cfg = _config(tmp_path / parent, ds, name="same", strategies=[{"name": "fact_rag"}])
        runs.append(Runner(cfg, run_dir=tmp_path / parent / "r", progress=False).run())
    assert runs[0].name == runs[1].name
    uids = [json.loads((r / "manifest.json").read_text())["run_uid"] for r in runs]
    assert uids[0] != uids[1]
    for run, uid in zip(runs, uids):
        spaces = {op["namespace"] for op in read_jsonl(run / "memory_ops.jsonl")}
        assert spaces and all(s.startswith(f"{uid}/fact_rag/tiny/") for s in spaces)


def test_concurrent_runs_with_the_same_folder_name_on_one_postgres_do_not_interfere(tmp_path, postgres):
    ds = _dataset(tmp_path, n=3)
    script = textwrap.dedent(f"""
        import sys
        from memlab.harness.config import RunConfig
        from memlab.harness.runner import Runner
        cfg = RunConfig.model_validate({{"name": "same", "datasets": [{str(ds)!r}], "output_dir": sys.argv[1],
            "embedding_cache": None,
            "strategies": [{{"name": "fact_rag@postgres", "preset": "fact_rag", "store": {{"type": "postgres"}}}}]}})
        print(Runner(cfg, progress=False).run())
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path / p)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
             for p in ("x", "y")]
    dirs = [Path(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    contexts = []
    for d in dirs:
        res = load_run(d)
        assert res.manifest["status"] == "completed"
        contexts.append(sorted(res.probes["context"]))
    assert contexts[0] == contexts[1], "each run sees exactly its own memories"


# -- 4. secrets ------------------------------------------------------------------------------------

@pytest.mark.slow
def test_store_passwords_never_reach_the_run_folder(tmp_path):
    secret = "hunter2-S3CRET"
    ds = _dataset(tmp_path)
    cfg = _config(tmp_path, ds, store_options={"postgres": {"dsn": f"postgresql://u:{secret}@127.0.0.1:1/db"}},
                  strategies=[{"name": "message_rag"},
                              {"name": "pg", "preset": "fact_rag",
                               "store": {"type": "postgres", "dsn": f"postgresql://u:{secret}@127.0.0.1:1/db"}}])
    run = Runner(cfg, progress=False).run()
    from memlab.analysis.report import write_report

    write_report(run)
    res = load_run(run)
    assert res.manifest["units"]["failed"], "the dead port fails the postgres units"
    for f in run.rglob("*"):
        if f.is_file() and f.suffix in {".json", ".jsonl", ".csv", ".md", ".html", ".txt"}:
            assert secret not in f.read_text(encoding="utf-8", errors="replace"), f"password leaked into {f.name}"


# -- 5. torn last line ----------------------------------------------------------------------------

def test_a_torn_last_line_is_cut_before_appending(tmp_path):
    path = tmp_path / "probes.jsonl"
    path.write_text('{"a": 1}\n{"a": 2, "b": "tor', encoding="utf-8")
    with RunRecorder(tmp_path) as rec:
        rec.write("probes", {"a": 3})
    assert [r["a"] for r in read_jsonl(path)] == [1, 3]


def test_short_writes_are_completed(tmp_path, monkeypatch):
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data[:3])))  # the kernel writes 3 bytes at a time
    with RunRecorder(tmp_path) as rec:
        rec.write("probes", {"text": "a long enough record to need many writes"})
    monkeypatch.setattr(os, "write", real)
    assert list(read_jsonl(tmp_path / "probes.jsonl")) == [{"text": "a long enough record to need many writes"}]


# -- 10. failures exit non-zero and partial rows are marked -----------------------------------------

@pytest.mark.slow
def test_all_units_failed_exits_non_zero_and_rows_are_marked_partial(tmp_path, capsys):
    ds = _dataset(tmp_path)
    cfg = {"name": "dead", "datasets": [str(ds)], "output_dir": str(tmp_path / "results"),
           "embedding_cache": str(tmp_path / "emb.npz"),
           "store_options": {"postgres": {"dsn": "postgresql://u@127.0.0.1:1/db"}},
           "strategies": [{"name": "message_rag"}, {"name": "pg", "preset": "fact_rag", "store": {"type": "postgres"}}]}
    path = tmp_path / "dead.yaml"
    path.write_text(yaml.safe_dump(cfg))
    code = cli_main(["run", str(path)])
    assert code == EXIT_CODES["completed_with_failures"] != 0
    out = capsys.readouterr().out
    assert "completed_with_failures" in out
    run = next((tmp_path / "results").iterdir())
    cov = load_run(run).coverage()
    row = cov.loc["pg"]
    assert (row["units_ok"], row["units_total"]) == (0, 2)


# -- 11. conversations sharing a namespace share memory ---------------------------------------------

def test_conversations_in_one_namespace_share_memory(tmp_path):
    ds = _dataset(tmp_path, shared=True)
    res = load_run(Runner(_config(tmp_path, ds, strategies=[{"name": "message_rag"}]), progress=False).run())
    cross = res.probes.set_index("probe_id").loc["p1-cross"]
    assert "Rocket0" in cross["context"], "the second conversation sees what the first one stored"
    assert len(res.units) == 1 and res.units.iloc[0]["conversation_ids"] == ["p0", "p1"]


# -- 13. one writer per run folder --------------------------------------------------------------------

def test_a_locked_run_folder_refuses_a_second_writer(tmp_path):
    ds = _dataset(tmp_path)
    run = Runner(_config(tmp_path, ds), progress=False).run()
    with RunLock(run):
        with pytest.raises(RunLocked, match="another memlab process"):
            Runner(_config(tmp_path, ds), run_dir=run, resume=True, progress=False).run()
        code = cli_main(["run", "--resume", str(run), str(_write_cfg(tmp_path, ds))])
        assert code != 0


def _write_cfg(tmp_path: Path, ds: Path) -> Path:
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(_config(tmp_path, ds).model_dump(mode="json", exclude_defaults=True)))
    return path


# -- 14. reports without probes, foreign manifests, resume mismatch -----------------------------------

def test_report_of_a_run_without_probes(tmp_path, capsys):
    ds = _dataset(tmp_path, probes=False)
    run = Runner(_config(tmp_path, ds), progress=False).run()
    assert cli_main(["report", str(run)]) == 0
    assert "no probes" in capsys.readouterr().out.lower()


def test_empty_manifest_and_resume_mismatch_are_one_line_errors(tmp_path, capsys):
    bogus = tmp_path / "bogus"
    bogus.mkdir()
    (bogus / "manifest.json").write_text("{}")
    assert cli_main(["report", str(bogus)]) != 0
    err = capsys.readouterr()
    assert "not a memlab manifest" in err.out + err.err and "Traceback" not in err.out + err.err

    ds = _dataset(tmp_path)
    run = Runner(_config(tmp_path, ds), progress=False).run()
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(_config(tmp_path, ds, seed=7).model_dump(mode="json")))
    with pytest.raises(ResumeMismatch):
        Runner(load_config(other), run_dir=run, resume=True, progress=False).run()
    assert cli_main(["run", "--resume", str(run), str(other)]) != 0
    err = capsys.readouterr()
    assert "different config" in (err.out + err.err) and "Traceback" not in err.out + err.err


# -- 17, 19, 20. config problems are caught before a run folder exists ---------------------------------

@pytest.mark.parametrize("body, message", [
    ("name: a\nname: b\n", "duplicate key 'name'"),
    ("strategies: [{name: x, preset: fact_rag, store: {type: redis}}]\n", "redis"),
    ("strategies: [{name: x, preset: fact_rag, store: {type: postgres, dns: 'postgresql://x'}}]\n", "dns"),
    ("store_options: {chroma: {hots: x}}\n", "hots"),
    ("bootstrap: -1\n", "bootstrap"),
    ("limit_conversations: -1\n", "limit_conversations"),
    ("name: ../../escape\n", "name"),
    ("strategies: [{name: ../../escape, preset: fact_rag}]\n", "name"),
])
def test_config_problems_are_reported_and_leave_no_run_folder(tmp_path, capsys, body, message):
    ds = _dataset(tmp_path)
    base = {"datasets": [str(ds)], "output_dir": str(tmp_path / "results"), "strategies": [{"name": "no_memory"}]}
    over = yaml.safe_load(body) if "name: a\nname: b" not in body else {}
    text = yaml.safe_dump({**base, **over}) if over else yaml.safe_dump(base) + body
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert cli_main(["run", str(path)]) != 0
    out = capsys.readouterr()
    assert message in out.out + out.err
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())
    assert not (tmp_path / "escape").exists() and not (tmp_path.parent / "escape").exists()


def test_negative_limit_on_the_command_line_is_rejected(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli_main(["run", "--limit", "-1", str(_write_cfg(tmp_path, _dataset(tmp_path)))])
    assert exc.value.code != 0


# -- 22. an endpoint that is down stops the run fast ---------------------------------------------------

def test_a_dead_endpoint_stops_the_run_with_a_clear_message(tmp_path, capsys):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    ds = _dataset(tmp_path)
    cfg = {"name": "down", "datasets": [str(ds)], "output_dir": str(tmp_path / "results"),
           "embedding_cache": str(tmp_path / "emb.npz"), "strategies": [{"name": "fact_rag"}],
           "model": {"provider": "openai", "model": "m", "base_url": f"http://127.0.0.1:{port}/v1", "api_key_env": "NOPE_KEY",
                     "max_attempts": 2, "retry_base_delay_s": 0, "breaker_failures": 2}}
    path = tmp_path / "down.yaml"
    path.write_text(yaml.safe_dump(cfg))
    os.environ["NOPE_KEY"] = "sk-test"
    try:
        code = cli_main(["run", str(path)])
    finally:
        del os.environ["NOPE_KEY"]
    out = capsys.readouterr()
    assert code == EXIT_CODES["failed"]
    assert f"127.0.0.1:{port}" in out.out + out.err and "down" in (out.out + out.err).lower()
    run = next((tmp_path / "results").iterdir())
    m = json.loads((run / "manifest.json").read_text())
    assert m["status"] == "failed" and m["units"]["not_run"] > 0, "it stopped instead of grinding through every unit"


# -- 23. a corrupt embedding cache is rebuilt; a full disk stops the run cleanly ------------------------

def test_a_corrupt_embedding_cache_is_rebuilt(tmp_path):
    ds = _dataset(tmp_path)
    (tmp_path / "emb.npz").write_bytes(b"this is not an npz file")
    res = load_run(Runner(_config(tmp_path, ds), progress=False).run())
    assert res.manifest["status"] == "completed"
    import numpy as np

    with np.load(tmp_path / "emb.npz") as data:
        assert len(data.files) > 0


def test_a_full_disk_fails_the_run_with_status_failed(tmp_path, monkeypatch, capsys):
    ds = _dataset(tmp_path)
    real = RunRecorder.write

    def full(self, stream, record):
        if stream == "probes":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, stream, record)

    monkeypatch.setattr(RunRecorder, "write", full)
    path = _write_cfg(tmp_path, ds)
    assert cli_main(["run", str(path)]) == EXIT_CODES["failed"]
    out = capsys.readouterr()
    assert "No space left" in out.out + out.err and "Traceback" not in out.out + out.err
    run = next((tmp_path / "results").iterdir())
    assert json.loads((run / "manifest.json").read_text())["status"] == "failed"


# -- 7. same config, same results --------------------------------------------------------------------

@pytest.mark.slow
def test_identical_runs_give_identical_records(tmp_path):
    """Ids, tie-breaks and contexts do not depend on the run: recency ties (every memory stored
    at the same session timestamp) are broken the same way in both runs."""
    ds = _dataset(tmp_path, n=3)
    strategies = [{"name": "recency", "preset": "fact_rag", "retriever": {"type": "recency", "k": 1}},
                  {"name": "hybrid", "preset": "fact_rag", "retriever": {"type": "hybrid", "k": 2}}]
    runs = [load_run(Runner(_config(tmp_path / d, ds, strategies=strategies), progress=False).run()) for d in "ab"]
    keep = ["strategy", "conversation_id", "probe_id", "context", "answer"]
    a, b = (r.probes[keep].sort_values(keep[:3]).reset_index(drop=True) for r in runs)
    assert a.equals(b)
    ops = [sorted((o["op"], o["item_id"], o["text"]) for o in read_jsonl(r.path / "memory_ops.jsonl")) for r in runs]
    assert ops[0] == ops[1] and ops[0]
