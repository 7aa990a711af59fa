"""End-to-end runs: the starter comparison, resume after a crash, failures recorded as data."""

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
from memlab.datasets.io import dataset_hash, load_dataset
from memlab.runfolder.recorder import read_jsonl
from memlab.analysis.report import write_report
from memlab.analysis.results import load_run
from memlab.harness.runner import ResumeMismatch, Runner
from tests.support.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parent.parent
STARTER = str(ROOT / "datasets" / "starter.yaml")


def _config(tmp_path: Path, **kw) -> RunConfig:
    data = {
        "name": "t", "datasets": [STARTER], "output_dir": str(tmp_path / "results"),
        "embedding_cache": str(tmp_path / "emb.npz"),
        "strategies": [{"name": "no_memory"}, {"name": "full_context"}, {"name": "fact_rag"}],
    }
    data.update(kw)
    return RunConfig.model_validate(data)


@pytest.fixture(scope="module")
def starter_run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("e2e")
    cfg = _config(tmp, strategies=[{"name": "no_memory"}, {"name": "full_context"}, {"name": "recent_window"},
                                   {"name": "fact_rag", "store": {"type": "chroma"}}])
    return Runner(cfg, progress=False).run()


@pytest.mark.slow
def test_starter_comparison_end_to_end(starter_run: Path):
    res = load_run(starter_run)
    m = res.manifest
    assert m["status"] == "completed" and m["units"]["failed"] == []
    ds = load_dataset(STARTER)
    assert m["datasets"][0]["hash"] == dataset_hash(ds)
    assert m["models"]["default"]["heuristic"] is True and m["models"]["heuristic"] is True
    assert m["format_version"] >= 2 and len(m["run_uid"]) == 32
    assert m["git"]["commit"] and "numpy" in m["packages"]
    fact = next(s for s in m["strategies"] if s["name"] == "fact_rag")
    assert fact["consolidator"]["min_similarity"] == 0.45  # resolved defaults recorded
    assert m["strategies_resolved"]["fact_rag"]["store_resolved"]["backend"] == "chroma"

    probes = res.probes
    assert len(probes) == 4 * len(ds.probes())
    assert not probes.duplicated(["strategy", "conversation_id", "probe_id"]).any()
    summary = res.summary()
    recall = summary["evidence_recall"]
    assert recall["full_context"] > recall["no_memory"] + 0.5
    assert recall["fact_rag"] >= 0.5 * recall["full_context"]
    tokens = summary["context_tokens"]
    assert tokens["fact_rag"] < 0.5 * tokens["full_context"]
    assert tokens["no_memory"] == 0
    # the long-term strategy made extraction calls; the bounds made none but answers
    cost = res.cost()
    assert cost.loc["fact_rag", "tokens_extract_per_conv"] > 0
    assert "tokens_extract_per_conv" not in cost.columns or pd_isnan_or_zero(cost.loc["no_memory"].get("tokens_extract_per_conv"))
    ops = res.memory_ops
    assert set(ops["strategy"]) == {"fact_rag"} and "ADD" in set(ops["op"])
    assert all(len(s) > 0 for s in ops["source_turn_ids"])  # provenance on every memory op


def pd_isnan_or_zero(v) -> bool:
    return v is None or v != v or v == 0


@pytest.mark.slow
def test_report_writes_csv_and_plots(starter_run: Path):
    files = write_report(starter_run, quiet=True)
    for p in files.values():
        assert p.exists() and p.stat().st_size > 0
    import pandas as pd

    metrics = pd.read_csv(files["metrics"])
    assert {"strategy", "category", "metric", "mean", "ci_low", "ci_high", "n", "higher_is_better",
            "code_version", "model", "datasets"} <= set(metrics.columns)
    assert metrics["model"].str.contains("offline-1+", regex=False).all()
    comps = metrics.set_index("strategy")["components"]
    assert comps.loc["fact_rag"].iloc[0].startswith("short_term=recent_window(n=6); extractor=post_turn")
    assert "store=chroma" in comps.loc["fact_rag"].iloc[0] and (comps.loc["no_memory"] == "none").all()
    for key in ("summary", "category_recall"):
        frame = pd.read_csv(files[key])
        assert {"components", "code_version", "model", "datasets"} <= set(frame.columns), key
    assert {"single_hop", "knowledge_update", "abstention", "all"} <= set(metrics["category"])


HOLD_PLUGIN = '''
"""Test double: holds a run at one conversation while a flag file exists, so a test kills it at a
known point (not after a race with the clock)."""
import os
import time
from pathlib import Path

from memlab.strategies.slots import Component, Params, component


@component("lifecycle", "hold_at")
class HoldAt(Component):
    """Holds the run at the start of ``conversation`` while the ``flag`` file exists."""

    class Params(Params):
        conversation: str
        flag: str

    def begin_conversation(self, state):
        if state.conversation_id == self.params.conversation and os.path.exists(self.params.flag):
            Path(self.params.flag + ".reached").touch()
            time.sleep(300)
'''


@pytest.fixture
def hold_plugin(tmp_path: Path, monkeypatch):
    """The ``hold_at`` component, importable here and in a ``memlab run`` subprocess; unregistered after."""
    (tmp_path / "hold_plugin.py").write_text(HOLD_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    yield "hold_plugin"
    sys.modules.pop("hold_plugin", None)
    from memlab.strategies.slots import SLOTS

    SLOTS["lifecycle"].registry.unregister("hold_at")


@pytest.mark.slow
def test_interrupted_run_resumes_without_redoing_or_duplicating(tmp_path: Path, hold_plugin: str):
    cfg_path = tmp_path / "cfg.yaml"
    out = tmp_path / "results"
    flag = tmp_path / "hold"
    flag.touch()
    held = load_dataset(STARTER).conversations[1].id  # fact_rag is killed at the start of its second conversation
    cfg = {"name": "resume", "datasets": [STARTER], "output_dir": str(out),
           "embedding_cache": str(tmp_path / "emb.npz"), "plugins": [hold_plugin], "executor": {"type": "serial"},
           "strategies": [{"name": "no_memory"},
                          {"name": "fact_rag", "lifecycle": {"type": "hold_at", "conversation": held, "flag": str(flag)}}]}
    cfg_path.write_text(yaml.safe_dump(cfg))
    run_dir = out / "r1"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    proc = subprocess.Popen([sys.executable, "-m", "memlab.cli", "run", str(cfg_path), "--run-dir", str(run_dir), "--no-progress"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    reached = Path(f"{flag}.reached")
    deadline = time.time() + 300
    while not reached.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert reached.exists(), f"the run never reached the hold: {proc.stderr.read().decode()[-2000:] if proc.poll() is not None else 'timeout'}"
    proc.send_signal(signal.SIGKILL)  # a crash, not a clean shutdown, at a known point: inside fact_rag's unit of `held`
    proc.wait()
    units = run_dir / "units.jsonl"
    before = [r for r in read_jsonl(units) if r.get("event") == "end"]
    started = [r for r in read_jsonl(units) if r.get("event") == "start"]
    assert ("fact_rag", held) in {(r["strategy"], r["conversation_id"]) for r in started}
    assert ("fact_rag", held) not in {(r["strategy"], r["conversation_id"]) for r in before}
    assert len(before) == 5, "every no_memory unit and fact_rag's first one finished before the hold"
    flag.unlink()  # the resumed run (and the clean one below) play straight through
    finished_attempts = {r["attempt"] for r in before}

    runner = Runner(RunConfig.model_validate(cfg), run_dir=run_dir, resume=True, progress=False)
    runner.run()
    recs = read_jsonl(units)
    starts = [r for r in recs if r.get("event") == "start"]
    # finished units were not started again
    keys_before = {(r["strategy"], r["conversation_id"]) for r in before}
    restarted = [r for r in starts if r["attempt"] not in finished_attempts and (r["strategy"], r["conversation_id"]) in keys_before]
    assert restarted == []
    res = load_run(run_dir)
    assert res.manifest["status"] == "completed" and len(res.manifest["resumed_at"]) == 1
    probes = res.probes
    n = len(load_dataset(STARTER).probes())
    assert len(probes) == 2 * n
    assert not probes.duplicated(["strategy", "conversation_id", "probe_id"]).any()
    ops = res.memory_ops
    assert not ops.duplicated(["conversation_id", "turn_id", "op", "text"]).any()

    # same numbers as an uninterrupted run (the offline model is deterministic)
    clean = Runner(RunConfig.model_validate(cfg), run_dir=out / "clean", progress=False).run()
    a = res.summary()[["evidence_recall", "answer_correct", "context_tokens"]]
    b = load_run(clean).summary()[["evidence_recall", "answer_correct", "context_tokens"]]
    assert a.round(6).equals(b.round(6))


def test_resume_refuses_a_different_config(tmp_path: Path):
    cfg = _config(tmp_path, strategies=[{"name": "no_memory"}], limit_conversations=1)
    run_dir = Runner(cfg, run_dir=tmp_path / "r", progress=False).run()
    other = _config(tmp_path, strategies=[{"name": "full_context"}], limit_conversations=1)
    with pytest.raises(ResumeMismatch, match="different config"):
        Runner(other, run_dir=run_dir, resume=True, progress=False).run()
    with pytest.raises(FileExistsError):
        Runner(cfg, run_dir=run_dir, progress=False).run()


def test_failed_model_calls_are_recorded_and_the_run_continues(tmp_path: Path):
    ds = load_dataset(STARTER)
    conv = ds.conversations[0]
    bad_question = conv.probes[0].question
    with FakeOpenAIServer() as server:
        server.default_fields = {"answer": "I don't know", "facts": "[]"}
        server.fail_when = bad_question
        cfg = _config(tmp_path, strategies=[{"name": "recent_window"}], limit_conversations=1,
                      model={"provider": "openai", "model": "fake", "base_url": server.base_url,
                             "max_attempts": 2, "retry_base_delay_s": 0.01})
        run_dir = Runner(cfg, progress=False).run()
    res = load_run(run_dir)
    assert res.manifest["status"] == "completed_with_failures" and res.manifest["failed_calls"] == 1
    probes = res.probes.set_index("probe_id")
    assert probes.loc[conv.probes[0].id, "errored"] == 1.0
    assert "500" in probes.loc[conv.probes[0].id, "error"]
    assert probes["errored"].sum() == 1 and len(probes) == len(conv.probes)
    calls = res.calls
    failed = calls[~calls["ok"].astype(bool)]
    assert len(failed) == 1 and failed.iloc[0]["attempts"] == 2 and failed.iloc[0]["purpose"] == "answer"
    assert res.manifest["models"]["heuristic"] is False


def test_unreachable_store_fails_its_conversations_with_a_clear_message(tmp_path: Path):
    cfg = _config(tmp_path, limit_conversations=2, strategies=[
        {"name": "no_memory"},
        {"name": "pg_down", "preset": "fact_rag", "store": {"type": "postgres", "dsn": "postgresql://memlab@127.0.0.1:9/none",
                                                              "connect_timeout": 2}},
    ])
    run_dir = Runner(cfg, progress=False).run()
    res = load_run(run_dir)
    failed = res.manifest["units"]["failed"]
    assert len(failed) == 2 and all("pg_down" in f and "postgres" in f and "127.0.0.1:9" in f for f in failed)
    assert res.manifest["status"] == "completed_with_failures"
    assert set(res.probes["strategy"]) == {"no_memory"}
    units = res.units.set_index(["strategy", "conversation_id"])
    assert (units.loc["no_memory", "status"] == "ok").all()


@pytest.mark.slow
def test_recorded_llm_run_replays_strictly_without_the_endpoint(tmp_path: Path):
    cache = tmp_path / "cache.jsonl"
    strategies = [{"name": "fact_rag"}]
    with FakeOpenAIServer() as server:
        server.default_fields = {"facts": '["The user has a dog named Biscuit."]', "answer": "Biscuit",
                                 "action": "ADD", "target": "-1", "merged": ""}
        model = {"provider": "openai", "model": "fake", "base_url": server.base_url,
                 "cache": {"mode": "record", "path": str(cache)}}
        rec_dir = Runner(_config(tmp_path, strategies=strategies, limit_conversations=1, model=model), progress=False).run()
        url = server.base_url
    model = {"provider": "openai", "model": "fake", "base_url": url, "max_attempts": 1,
             "cache": {"mode": "replay-strict", "path": str(cache)}}
    rep_dir = Runner(_config(tmp_path, strategies=strategies, limit_conversations=1, model=model), progress=False).run()
    a, b = load_run(rec_dir), load_run(rep_dir)
    assert b.manifest["status"] == "completed"
    assert (b.calls["ok"].astype(bool)).all() and b.calls["cached"].all()
    # The record run went to the endpoint once per distinct request (repeats within it are cache hits).
    n_recorded = len(cache.read_text().splitlines())
    assert int((~a.calls["cached"].astype(bool)).sum()) == n_recorded > 0
    assert a.calls["prompt_tokens"].sum() == b.calls["prompt_tokens"].sum() > 0
    assert list(a.probes["answer"]) == list(b.probes["answer"])
    assert a.memory_ops["op"].value_counts().to_dict() == b.memory_ops["op"].value_counts().to_dict()


@pytest.mark.slow
def test_length_sweep_table_and_plot(tmp_path: Path):
    from memlab.datasets.scale import scale_file
    from memlab.analysis.report import length_table, plot_recall_vs_length

    scaled = tmp_path / "starter-long.yaml"
    scale_file(STARTER, 12_000, scaled)
    cfg = _config(tmp_path, datasets=[STARTER, str(scaled)], limit_conversations=1,
                  strategies=[{"name": "full_context"}, {"name": "recent_window"}])
    res = load_run(Runner(cfg, progress=False).run())
    table = length_table(res).set_index(["strategy", "dataset"])
    assert len(table) == 4
    short, long = table.loc["full_context"].sort_values("history_tokens_per_conv").itertuples()
    assert long.history_tokens_per_conv > 2 * short.history_tokens_per_conv
    assert long.context_tokens_per_probe > 2 * short.context_tokens_per_probe  # full history grows with it
    window = table.loc["recent_window"]["context_tokens_per_probe"]
    assert window.max() < short.context_tokens_per_probe  # a window does not
    assert (table["components"].loc["recent_window"] == "short_term=recent_window(n=10)").all()
    png = plot_recall_vs_length(res, length_table(res), tmp_path / "len.png")
    assert png.stat().st_size > 10_000


def test_public_benchmark_files_run_end_to_end(tmp_path: Path):
    """LoCoMo and LongMemEval files go straight into a run; categories keep their originals."""
    fixtures = ROOT / "tests" / "fixtures"
    cfg = _config(tmp_path, datasets=[str(fixtures / "locomo_small.json"), str(fixtures / "longmemeval_small.json")],
                  strategies=[{"name": "no_memory"}, {"name": "full_context"}])
    res = load_run(Runner(cfg, progress=False).run())
    assert res.manifest["status"] == "completed" and res.manifest["units"]["failed"] == []
    assert {d["name"] for d in res.manifest["datasets"]} == {"locomo-locomo_small", "longmemeval-longmemeval_small"}
    probes = res.probes
    full = probes[probes["strategy"] == "full_context"]
    # every answerable probe's evidence turns are in the full history, by provenance
    assert full.loc[full["provenance_recall"].notna(), "provenance_recall"].eq(1.0).all()
    assert probes.loc[probes["strategy"] == "no_memory", "evidence_recall"].fillna(0).eq(0).all()
    assert {"5:adversarial", "knowledge-update", "temporal-reasoning_abs"} <= set(probes["original_category"])
    mapped = dict(zip(probes["original_category"], probes["category"]))
    assert mapped["5:adversarial"] == "abstention" and mapped["knowledge-update"] == "knowledge_update"


def test_runs_started_in_the_same_second_get_separate_folders(tmp_path: Path):
    cfg = _config(tmp_path, strategies=[{"name": "no_memory"}], limit_conversations=1)
    a, b = Runner(cfg, progress=False), Runner(cfg, progress=False)
    assert a.run_dir != b.run_dir and a.run_dir.is_dir() and b.run_dir.is_dir()
    assert load_run(a.run()).manifest["status"] == load_run(b.run()).manifest["status"] == "completed"
