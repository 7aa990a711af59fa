"""The regression gate (memlab/analysis/gate.py, memlab/analysis/baseline.py): baseline files, exit codes, the paired
rule, and the gate catching a strategy that really got worse.

Runs use a small dataset generated here (facts stated once, asked later), not evaluation data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from memlab.analysis.baseline import BaselineError, JudgePin, dumps, load_baseline, make_baseline, write_baseline
from memlab.cli import main
from memlab.harness.config import ConfigError, GateSpec, Tolerance, load_config
from memlab.analysis.gate import EXIT_CANNOT_COMPARE, EXIT_OK, EXIT_REGRESSION, check, compare

pytestmark = pytest.mark.slow

TOPICS = [  # (statement template, question, values): one fact per topic, a value per conversation
    ("My dog is called {}.", "What is the user's dog called?", ["Pepper", "Noodle", "Juniper", "Waffle", "Tango", "Clover", "Biscotti", "Marble"]),
    ("I work as a nurse at {} hospital.", "At which hospital does the user work?", ["Riverside", "Northgate", "St Ansel", "Harbourview", "Elmwood", "Kingsbridge", "Lakeshore", "Pinecrest"]),
    ("My sister {} lives in Oslo.", "What is the name of the user's sister?", ["Ingrid", "Solveig", "Marta", "Helene", "Astrid", "Berit", "Kari", "Liv"]),
    ("I drive an old {} hatchback.", "What make of car does the user drive?", ["Peugeot", "Fiat", "Skoda", "Renault", "Citroen", "Seat", "Dacia", "Opel"]),
    ("I go climbing at the {} gym on Tuesdays.", "Which gym does the user climb at?", ["Boulderhaus", "Crux", "Edge", "Overhang", "Summit", "Chalkbox", "Ridge", "Basecamp"]),
    ("My favourite dish is {}.", "What is the user's favourite dish?", ["ramen", "paella", "moussaka", "pierogi", "laksa", "gnocchi", "tagine", "bibimbap"]),
    ("I am learning the {} at evening classes.", "Which instrument is the user learning?", ["cello", "oboe", "banjo", "harp", "trombone", "ukulele", "viola", "clarinet"]),
    ("My dentist is Dr {}.", "What is the name of the user's dentist?", ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Kowalski", "Rossi", "Haddad", "Novak"]),
]
FILLER = ["The weather has been grey all week.", "I watched a documentary about bridges yesterday.",
          "Work was busy but fine today.", "I need to buy groceries later.", "The train was late again this morning.",
          "I finally tidied my desk."]


def make_dataset(path: Path, conversations: int = 8, gold_twist: str = "") -> Path:
    """Facts stated in one session, filler in a later one, every fact asked at the end."""
    convs = []
    for c in range(conversations):
        turns1, turns2, probes = [], [], []
        for t, (stmt, _, values) in enumerate(TOPICS):
            turns1 += [{"id": f"a{t:02d}u", "role": "user", "text": stmt.format(values[c])},
                       {"id": f"a{t:02d}a", "role": "assistant", "text": "Noted, thanks for telling me."}]
        for t, text in enumerate(FILLER):
            turns2 += [{"id": f"b{t:02d}u", "role": "user", "text": text},
                       {"id": f"b{t:02d}a", "role": "assistant", "text": "I see."}]
        for t, (_, question, values) in enumerate(TOPICS):
            probes.append({"id": f"c{c}-p{t}", "after_turn": turns2[-1]["id"], "question": question,
                           "category": "single_hop", "gold": values[c] + gold_twist, "evidence": [f"a{t:02d}u"]})
        convs.append({"id": f"c{c}", "namespace": f"c{c}", "sessions": [
            {"id": "s1", "timestamp": "2024-01-05T10:00:00", "turns": turns1},
            {"id": "s2", "timestamp": "2024-02-05T10:00:00", "turns": turns2}], "probes": probes})
    path.write_text(yaml.safe_dump({"name": "gate-facts", "version": "1", "conversations": convs}, sort_keys=False))
    return path


def write_config(tmp: Path, dataset: Path, name: str, retriever: dict | None = None, gate: dict | None = None) -> Path:
    strategy = {"name": "message_rag", **({"retriever": retriever} if retriever else {})}
    cfg = {"name": name, "datasets": [str(dataset)], "model": {"provider": "offline"},
           "strategies": [{"name": "full_context"}, strategy],
           "output_dir": str(tmp / "results"), "embedding_cache": str(tmp / "emb.npz"), **({"gate": gate} if gate else {})}
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> dict:
    """One baseline run and its baseline file, shared by the tests of this module."""
    import memlab

    tmp = tmp_path_factory.mktemp("gate")
    dataset = make_dataset(tmp / "facts.yaml")
    config = write_config(tmp, dataset, "gatebase")
    run_dir = memlab.run(load_config(config), progress=False)
    baseline = write_baseline(run_dir, tmp / "baseline.json")
    return {"tmp": tmp, "dataset": dataset, "config": config, "run_dir": run_dir, "baseline": baseline}


def test_baseline_round_trips_and_pins_what_produced_it(base):
    loaded = load_baseline(base["baseline"])
    fresh = make_baseline(base["run_dir"])
    assert loaded.model_dump(exclude={"created_at"}) == fresh.model_dump(exclude={"created_at"})
    assert json.loads(dumps(loaded)) == loaded.model_dump(mode="json")
    manifest = json.loads((base["run_dir"] / "manifest.json").read_text())
    assert [d.hash for d in loaded.datasets] == [d["hash"] for d in manifest["datasets"]]
    assert loaded.models["answer"] == f"offline:{manifest['models']['roles']['answer']['model']}"
    assert loaded.code_version == manifest["code_version"] and loaded.judge is None
    assert set(loaded.strategies) == {"full_context", "message_rag"}
    assert len(loaded.probes) == 2 * 8 * len(TOPICS)
    probe = next(p for p in loaded.probes if p.strategy == "full_context" and p.probe_id == "c3-p0")
    assert probe.question == TOPICS[0][1] and probe.scores["evidence_recall"] == 1.0
    assert TOPICS[0][2][3] in probe.context_excerpt  # the excerpt is taken around the gold answer
    assert loaded.metrics["evidence_recall"].higher_is_better is True


def test_gate_passes_on_an_identical_rerun_and_on_the_same_run(base, tmp_path):
    rerun = check(base["config"], base["baseline"])
    assert rerun.exit_code == EXIT_OK and rerun.status == "pass", rerun.summary()
    assert rerun.run_dir != str(base["run_dir"])
    assert rerun.deltas and all(d.diff == 0 for d in rerun.deltas) and not rerun.flips
    md = tmp_path / "same.md"
    code = main(["check", str(base["config"]), "--baseline", str(base["baseline"]), "--run", str(base["run_dir"]),
                 "--markdown", str(md)])
    assert code == EXIT_OK
    assert "no regression" in md.read_text() and "Flipped probes (0)" in md.read_text()


def test_gate_fails_on_a_really_degraded_strategy_and_lists_the_flipped_probes(base, tmp_path, capsys):
    # message_rag's retriever swapped for "the 2 most recent memories": the filler of the second
    # session pushes every fact out of its context.
    degraded = write_config(base["tmp"], base["dataset"], "gatedeg", retriever={"type": "recency", "k": 2})
    md = tmp_path / "diff.md"
    code = main(["check", str(degraded), "--baseline", str(base["baseline"]), "--markdown", str(md), "--no-progress"])
    out = capsys.readouterr().out
    assert code == EXIT_REGRESSION, out
    assert "REGRESSION message_rag · all · evidence_recall" in out
    assert "full_context" not in "".join(line for line in out.splitlines() if line.strip().startswith("REGRESSION"))
    text = md.read_text()
    assert "❌ memlab check: REGRESSION" in text
    assert "components changed" in text and "recency(k=2)" in text
    flipped = text.split("### Flipped probes", 1)[1]
    assert TOPICS[1][1] in flipped  # the question of a flipped probe
    assert "❌ evidence_recall" in flipped
    assert "### Costs" in text and "message_rag" in text.split("### Costs", 1)[1]


def test_paired_bootstrap_does_not_call_one_flipped_probe_a_regression(base):
    old = load_baseline(base["baseline"])
    new = make_baseline(base["run_dir"])
    flip = next(p for p in new.probes if p.strategy == "full_context" and p.scores.get("evidence_recall") == 1.0)
    flip.scores["evidence_recall"] = 0.0  # one probe of one conversation misses: noise at 64 probes
    tol = {"evidence_recall": Tolerance(max_drop=0.0)}
    noisy = compare(old, new, GateSpec(metrics=tol), [])
    assert noisy.exit_code == EXIT_OK
    row = next(d for d in noisy.deltas if d.strategy == "full_context" and d.category == "all")
    assert row.diff < 0 and not row.regression and "includes 0" in row.reason
    assert [f.new.probe_id for f in noisy.flips] == [flip.probe_id]
    strict = compare(old, new, GateSpec(metrics=tol, paired_bootstrap=False), [])
    assert strict.exit_code == EXIT_REGRESSION
    lenient = compare(old, new, GateSpec(metrics={"evidence_recall": Tolerance(max_drop=0.05)}, paired_bootstrap=False), [])
    assert lenient.exit_code == EXIT_OK
    floor = compare(old, new, GateSpec(metrics={"evidence_recall": Tolerance(floor=0.999, max_drop=None)}), [])
    assert floor.exit_code == EXIT_REGRESSION and "below the floor" in floor.regressions[0].reason


def test_lower_is_better_metrics_regress_when_they_rise(base):
    old = load_baseline(base["baseline"])
    new = make_baseline(base["run_dir"])
    for p in new.probes:
        if p.strategy == "message_rag":
            p.scores["context_tokens"] += 500
    result = compare(old, new, GateSpec(metrics={"context_tokens": Tolerance(max_drop=100)}), [])
    assert result.exit_code == EXIT_REGRESSION
    assert [(d.strategy, d.metric) for d in result.regressions] == [("message_rag", "context_tokens")]


def test_missing_or_incompatible_baseline_exits_2(base, tmp_path, capsys):
    assert main(["check", str(base["config"]), "--baseline", str(tmp_path / "nope.json")]) == EXIT_CANNOT_COMPARE
    assert "no baseline file" in capsys.readouterr().err
    future = json.loads(base["baseline"].read_text())
    future["format_version"] = 99
    (tmp_path / "future.json").write_text(json.dumps(future))
    with pytest.raises(BaselineError, match="format_version 99"):
        load_baseline(tmp_path / "future.json")
    broken = json.loads(base["baseline"].read_text())
    del broken["probes"][3]["scores"]
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    with pytest.raises(BaselineError, match=r"broken.json: invalid baseline: probes\.3\.scores"):
        load_baseline(tmp_path / "broken.json")
    (tmp_path / "bad.json").write_text('{"format": "memlab-baseline",\n "format_version": 1,,}')
    assert main(["check", "--run", str(base["run_dir"]), "--baseline", str(tmp_path / "bad.json")]) == EXIT_CANNOT_COMPARE
    assert "bad.json:2: not valid JSON" in capsys.readouterr().err


def test_changed_dataset_exits_2_before_running(base, tmp_path, capsys):
    changed = make_dataset(tmp_path / "facts.yaml", gold_twist="s")  # every gold answer differs
    config = write_config(tmp_path, changed, "gatechanged")
    md = tmp_path / "why.md"
    code = main(["check", str(config), "--baseline", str(base["baseline"]), "--markdown", str(md)])
    out = capsys.readouterr().out
    assert code == EXIT_CANNOT_COMPARE
    assert "dataset 'gate-facts' changed: hash sha256:" in out and "could not compare" in md.read_text()
    assert not (tmp_path / "results").exists()  # nothing was run


def test_a_changed_model_exits_2_before_running(base, tmp_path, capsys):
    """The run's models are described before anything is played: a baseline pinned to another
    version of the offline model (what a change to its code makes) is refused without a run, and
    the refusal names the role and both versions; --allow-model-change lets the run go ahead."""
    pinned = json.loads(Path(base["baseline"]).read_text())
    old = pinned["models"]["default"]
    pinned["models"] = {role: "offline:offline-1+00000000" for role in pinned["models"]}
    other = tmp_path / "other-model.json"
    other.write_text(json.dumps(pinned))
    config = write_config(tmp_path, base["dataset"], "gatemodel")
    code = main(["check", str(config), "--baseline", str(other), "--no-progress"])
    out = " ".join(capsys.readouterr().out.split())
    assert code == EXIT_CANNOT_COMPARE
    assert f"default: offline:offline-1+00000000 → {old}" in out and "on_model_change is 'error'" in out
    assert not (tmp_path / "results").exists()  # nothing was run
    # told to gate a model change: on dev data only for the offline model (the firewall) — this
    # dataset is eval data, so the run is still refused after it is played
    assert main(["check", str(config), "--baseline", str(other), "--no-progress", "--allow-model-change"]) == EXIT_CANNOT_COMPARE
    assert "evaluation firewall" in " ".join(capsys.readouterr().out.split())


def test_judge_prompt_and_metric_definition_changes_exit_2_model_change_refused_unless_allowed(base):
    old = load_baseline(base["baseline"])
    new = make_baseline(base["run_dir"])
    judged = new.model_copy(update={"judge": JudgePin(model="openai:gpt-x", prompt="strict", prompt_hash="abc123")})
    r = compare(old, judged, GateSpec(), ["evidence_recall"])
    assert r.exit_code == EXIT_CANNOT_COMPARE and any("judge prompt changed" in p for p in r.problems)
    redefined = new.model_copy(deep=True)
    redefined.metrics["evidence_recall"].definition = "0" * 16
    r = compare(old, redefined, GateSpec(), ["evidence_recall"])
    assert r.exit_code == EXIT_CANNOT_COMPARE and any("'evidence_recall' is defined differently" in p for p in r.problems)
    assert compare(old, redefined, GateSpec(), ["content_recall"]).exit_code == EXIT_OK  # not gated: no problem
    other_model = new.model_copy(deep=True)
    other_model.models["answer"] = "openai:gpt-4o-mini-2024-07-18"
    warned = compare(old, other_model, GateSpec(on_model_change="warn"), ["evidence_recall"])
    assert warned.exit_code == EXIT_OK and "answer: offline:" in warned.warnings[0]
    assert "model changed" in warned.to_markdown()
    refused = compare(old, other_model, GateSpec(), ["evidence_recall"])  # the default: the model is frozen
    assert refused.exit_code == EXIT_CANNOT_COMPARE and any("model frozen" in p for p in refused.problems)


def test_bad_gate_config_exits_2_naming_the_field(base, tmp_path, capsys):
    config = write_config(tmp_path, base["dataset"], "gatebad", gate={"metrics": {"evidence_recal": {"max_drop": 0.1}}})
    with pytest.raises(ConfigError, match="Did you mean 'evidence_recall'"):
        load_config(config)
    assert main(["check", str(config), "--baseline", str(base["baseline"])]) == EXIT_CANNOT_COMPARE
    assert "gate.metrics" in capsys.readouterr().err
    negative = write_config(tmp_path, base["dataset"], "gateneg", gate={"metrics": {"evidence_recall": {"max_drop": -1}}})
    with pytest.raises(ConfigError, match=r"gate\.metrics\.evidence_recall\.max_drop"):
        load_config(negative)


def test_baseline_refuses_a_run_that_did_not_complete(base, tmp_path):
    import shutil

    broken = tmp_path / "run"
    shutil.copytree(base["run_dir"], broken)
    manifest = json.loads((broken / "manifest.json").read_text())
    manifest["status"] = "completed_with_failures"
    (broken / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BaselineError, match="completed_with_failures"):
        make_baseline(broken)
    assert main(["check", "--run", str(broken), "--baseline", str(base["baseline"])]) == EXIT_CANNOT_COMPARE


def test_a_run_stopped_by_a_dead_endpoint_exits_2_without_leaking_the_key(base, tmp_path, monkeypatch, capsys):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("GATE_TEST_KEY", "sk-gate-secret-0123456789")
    config = write_config(tmp_path, base["dataset"], "gatedead")
    cfg = yaml.safe_load(config.read_text())
    cfg["model"] = {"provider": "openai", "model": "m", "base_url": f"http://127.0.0.1:{port}/v1", "api_key_env": "GATE_TEST_KEY",
                    "max_attempts": 1, "breaker_failures": 1, "connect_timeout_s": 1, "timeout_s": 2}
    config.write_text(yaml.safe_dump(cfg))
    md = tmp_path / "dead.md"
    # a model change (offline → the endpoint) is refused before running unless allowed: allowed here, the run starts
    code = main(["check", str(config), "--baseline", str(base["baseline"]), "--markdown", str(md), "--no-progress",
                 "--allow-model-change"])
    captured = capsys.readouterr()
    assert code == EXIT_CANNOT_COMPARE, captured.out + captured.err
    assert "the run failed" in captured.out and "is down" in captured.out
    assert "sk-gate-secret" not in captured.out + captured.err + md.read_text()


def _drop_one_probe_in(new, strategy: str, convs: int, column: str = "evidence_recall") -> None:
    """One probe (p0) of the first ``convs`` conversations of ``strategy`` misses ``column`` now."""
    for p in new.probes:
        if p.strategy == strategy and p.probe_id.endswith("-p0") and int(p.conversation_id[1:]) < convs:
            p.scores[column] = 0.0


def test_holm_keeps_the_checks_family_wise_error_and_reports_both_verdicts(base, tmp_path):
    old = load_baseline(base["baseline"])
    new = make_baseline(base["run_dir"])
    _drop_one_probe_in(new, "full_context", 5)  # Δ = -5/64 spread over 5 of 8 users: shown on its own at 95%
    one = compare(old, new, GateSpec(metrics={"evidence_recall": Tolerance()}), [])
    row = next(d for d in one.deltas if (d.strategy, d.category, d.metric) == ("full_context", "all", "evidence_recall"))
    family = [d for d in one.deltas if d.gated and d.p_value == d.p_value]
    assert len(family) == 2 and row.p_value < 0.025
    assert row.raw_regression and row.regression and one.exit_code == EXIT_REGRESSION
    assert row.p_adjusted == pytest.approx(min(1.0, 2 * row.p_value)) and "Holm-adjusted p" in row.reason
    # the same drop among many gated comparisons: raw regression, not one for the check as a whole
    many = {c: Tolerance() for c in ("evidence_recall", "content_recall", "provenance_recall", "answer_correct",
                                     "answer_f1", "false_abstention", "errored", "context_tokens")}
    wide = compare(old, new, GateSpec(metrics=many, answer_metrics="gate"), [])
    row = next(d for d in wide.deltas if (d.strategy, d.category, d.metric) == ("full_context", "all", "evidence_recall"))
    m = len([d for d in wide.deltas if d.gated and d.p_value == d.p_value])
    assert m >= 14 and row.p_adjusted == pytest.approx(min(1.0, m * row.p_value))
    assert row.raw_regression and not row.regression and wide.exit_code == EXIT_OK
    assert "not after the Holm correction" in row.reason
    assert f"0 regression(s) (Holm over {m} gated comparisons, family-wise 95%) (1 uncorrected)" in wide.summary()
    md = wide.to_markdown()
    assert "Raw regressions not confirmed after the correction (1)" in md and "| raw verdict | verdict |" in md
    # correction: none gives the raw verdicts
    raw = compare(old, new, GateSpec(metrics=many, answer_metrics="gate", correction="none"), [])
    assert raw.exit_code == EXIT_REGRESSION and [d.metric for d in raw.regressions] == ["evidence_recall"]
    # a broken floor is not a test: it stays a regression whatever the family size
    floor = dict(many, evidence_recall=Tolerance(floor=0.99, max_drop=None))
    assert compare(old, new, GateSpec(metrics=floor, answer_metrics="gate"), []).exit_code == EXIT_REGRESSION


def test_answer_metrics_of_the_offline_answerer_are_shown_not_gated(base):
    old = load_baseline(base["baseline"])
    new = make_baseline(base["run_dir"])
    assert new.offline_answers is True
    for p in new.probes:
        if p.strategy == "message_rag":
            p.scores["answer_correct"] = 0.0
    tol = {"answer_correct": Tolerance(), "evidence_recall": Tolerance()}
    auto = compare(old, new, GateSpec(metrics=tol), [])
    assert auto.exit_code == EXIT_OK, auto.summary()
    row = next(d for d in auto.deltas if (d.strategy, d.category, d.metric) == ("message_rag", "all", "answer_correct"))
    assert row.diff < -0.3 and not row.gated and not row.regression and row.not_gated_because.startswith("offline")
    assert any("answer metrics shown, not gated" in n and "answer_correct" in n for n in auto.notes)
    assert "(not gated: offline answerer)" in auto.to_markdown()
    gated = compare(old, new, GateSpec(metrics=tol, answer_metrics="gate"), [])
    assert gated.exit_code == EXIT_REGRESSION and [d.metric for d in gated.regressions] == ["answer_correct"]
    new.offline_answers = False  # a real answering model: gated by default
    old.offline_answers = False
    assert compare(old, new, GateSpec(metrics=tol), []).exit_code == EXIT_REGRESSION


def test_the_label_counts_the_gated_comparisons_that_have_no_test():
    """A comparison whose probes come from one user has no p-value: it is gated (a floor can fail it)
    but outside Holm's family, and the summary says how many such there are."""
    from memlab.analysis.gate import MetricDelta, _correct

    def delta(category: str, p: float) -> MetricDelta:
        return MetricDelta("s", category, "evidence_recall", True, 1.0, 1.0, 0.0, float("nan"), float("nan"), 4, 1,
                           True, False, "", p_value=p)

    rows = [delta("all", 0.5), delta("temporal", 0.9), delta("solo", float("nan"))]
    out, label = _correct(rows, GateSpec(metrics={"evidence_recall": Tolerance()}), {})
    assert label == ("(Holm over 2 gated comparisons, family-wise 95%; 1 more without a test (probes from fewer "
                     "than two users): only a floor can fail them)")
    assert [d.p_adjusted == d.p_adjusted for d in out] == [True, True, False]
    _, label = _correct(rows[:2], GateSpec(metrics={"evidence_recall": Tolerance()}), {})
    assert label == "(Holm over 2 gated comparisons, family-wise 95%)"
