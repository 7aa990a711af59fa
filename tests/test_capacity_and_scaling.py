"""A bounded long-term memory and the data that can show it (issue 25): the ttl_fifo token cap, suite-check's
capacity contrast (detected where histories exceed the bound, not on short ones), informative length scaling
(facts, updates and distractors instead of filler, every probe still valid) and tokens per user."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import memlab
from memlab.datasets.io import load_dataset, validate_file
from memlab.datasets.scale import scale_dataset, write_scaled
from memlab.datasets.stats import dataset_stats
from memlab.harness.config import validate_config
from memlab.tokens import count_tokens

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ROOT = Path(__file__).resolve().parents[1]
PETS = ["Biscuit", "Pepper", "Nacho", "Waffles", "Clover", "Rocket", "Pixel", "Sprout", "Mochi", "Olive", "Gizmo",
        "Fig", "Hazel", "Juniper", "Koda", "Loki", "Miso", "Nimbus", "Pickle", "Poppy"]


def _facts_dataset(path: Path, users: int, facts: int) -> Path:
    """``users`` users, each stating ``facts`` annotated facts (a friend's pet each) in one thread, asked about at the
    end (the early facts are the old ones)."""
    convs = []
    for u in range(users):
        turns, probes = [], []
        for i in range(facts):
            name, friend = PETS[i % len(PETS)] + (str(i // len(PETS)) if i >= len(PETS) else ""), f"Friend{u}x{i}"
            text = f"My friend {friend} has a hamster called {name}, it loves sunflower seeds and cardboard tubes."
            turns += [{"id": f"t{i:03d}", "role": "user", "text": text, "facts": [text]},
                      {"id": f"a{i:03d}", "role": "assistant", "text": "Noted."}]
            probes.append({"id": f"u{u}-p{i:03d}", "after_turn": None, "question": f"What is {friend}'s hamster called?",
                           "category": "single_hop", "gold": name, "evidence": [f"t{i:03d}"]})
        for p in probes:
            p["after_turn"] = turns[-1]["id"]
        convs.append({"id": f"user-{u}", "speakers": {"user": f"U{u}", "assistant": "Assistant"},
                      "sessions": [{"id": "s1", "timestamp": "2024-01-01T10:00:00", "turns": turns}],
                      "probes": probes[::3]})
    path.write_text(yaml.safe_dump({"name": path.stem, "conversations": convs, "meta": {"split": "eval"}}, sort_keys=False))
    return path


def _run(tmp_path: Path, dataset: Path, strategies: list[dict]) -> memlab.analysis.results.RunResults:
    cfg = validate_config({"name": "cap", "datasets": [str(dataset)], "embedding_cache": None,
                           "output_dir": str(tmp_path), "strategies": strategies})
    return memlab.load_run(memlab.run(cfg, progress=False))


WHOLE = {"extractor": {"type": "oracle"}, "consolidator": {"type": "append"}, "store": {"type": "in_memory"},
         "retriever": {"type": "recency", "k": 100000}}


@pytest.mark.slow
def test_the_token_cap_keeps_the_newest_memories_within_budget(tmp_path):
    data = _facts_dataset(tmp_path / "facts.yaml", users=1, facts=30)
    cap = 200
    res = _run(tmp_path, data, [{"name": "whole", **WHOLE},
                                {"name": "capped", **WHOLE, "lifecycle": {"type": "ttl_fifo", "max_items": None,
                                                                           "max_tokens": cap}}])
    ops = res.memory_ops
    deleted = ops[(ops["strategy"] == "capped") & (ops["op"] == "DELETE")]
    assert len(deleted) > 0 and deleted["reason"].str.startswith("token cap").all()
    assert ops[(ops["strategy"] == "whole") & (ops["op"] == "DELETE")].empty
    # the oldest go first: every deleted fact is older than every fact left at the end
    added = ops[(ops["strategy"] == "capped") & (ops["op"] == "ADD")]
    kept = set(added["item_id"]) - set(deleted["item_id"])
    order = {item: i for i, item in enumerate(added["item_id"])}
    assert max(order[i] for i in deleted["item_id"]) < min(order[i] for i in kept)
    assert sum(count_tokens(t) for t in added[added["item_id"].isin(kept)]["text"]) <= cap
    probes = res.probes
    capped = probes[probes["strategy"] == "capped"]
    whole = probes[probes["strategy"] == "whole"]
    assert whole["evidence_recall"].mean() == 1.0
    assert capped["evidence_recall"].mean() < 1.0
    assert capped.sort_values("probe_id")["evidence_recall"].iloc[-1] == 1.0  # the newest fact is still there


@pytest.mark.slow
def test_capacity_contrast_is_detected_only_where_histories_exceed_the_bound(tmp_path):
    from memlab.analysis.suite_check import CAPACITY_TOKENS, suite_check

    long = _facts_dataset(tmp_path / "long.yaml", users=4, facts=180)
    short = _facts_dataset(tmp_path / "short.yaml", users=4, facts=15)
    per_user = 180 * count_tokens("My friend Friend0x0 has a hamster called Biscuit, it loves sunflower seeds and "
                                  "cardboard tubes.")
    assert per_user > CAPACITY_TOKENS > 15 * per_user / 180
    check = suite_check([str(long), str(short)], contrasts=["capacity"], output_dir=tmp_path / "sc")
    by = {r.dataset: r for r in check.results}
    assert by["long"].detected and by["long"].diff > 0.3
    assert not by["short"].detected and by["short"].diff == 0.0
    assert "does not exercise" in by["short"].note


def test_the_shipped_expectations_hold_the_capacity_column():
    import json

    expected = json.loads((ROOT / "datasets" / "suite_check.json").read_text())
    assert "capacity" in expected["contrasts"]
    long = json.loads((ROOT / "datasets" / "suite_check_long.json").read_text())
    assert long["datasets"]["suite-long-horizon-m"]["capacity"]["detected"] is True
    assert all(not d.get("capacity", {}).get("detected", False) for name, d in expected["datasets"].items())


# ------------------------------------------------------------------------------------------- informative scaling


@pytest.fixture(scope="module")
def informative(tmp_path_factory) -> tuple:
    src = load_dataset(ROOT / "datasets" / "suites" / "recall.yaml")
    out = scale_dataset(src, 40_000, seed=3, mode="informative")
    path = tmp_path_factory.mktemp("inf") / "recall-inf.yaml"
    write_scaled(out, path)
    return src, out, path


def test_informative_scaling_keeps_every_probe_valid(informative):
    src, out, path = informative
    ds, problems = validate_file(path)
    assert not problems
    assert [p.model_dump() for _, p in src.probes()] == [p.model_dump() for _, p in ds.probes()]
    assert out.meta["filler"] == "informative" and out.name.endswith("-informative")
    assert dataset_stats(ds)["tokens"] >= 0.95 * 40_000
    original = {t.id for c in src.conversations for _, t in c.turns()}
    for conv in ds.conversations:
        for _, t in conv.turns():  # original turns untouched, in the same order
            if t.id in original:
                continue
            assert t.id.startswith("fill")
            for _, probe in [(c, p) for c in src.conversations if c.id == conv.id for p in c.probes]:
                for form in [f for g in probe.gold for f in g.forms()] + probe.superseded:
                    assert not re.search(rf"(?<![a-z0-9]){re.escape(form.lower())}(?![a-z0-9])", t.text.lower()), (form, t.text)


def test_informative_sessions_carry_new_people_updates_and_distractors(informative):
    src, out, _ = informative
    for conv_src, conv in zip(src.conversations, out.conversations):
        said = " ".join(t.text for _, t in conv_src.turns())
        inserted = [t.text for _, t in conv.turns() if t.id.startswith("fill")]
        text = " ".join(inserted)
        people = re.findall(r"([A-Z][a-z]+ [A-Z][a-z]+), (?:an|someone|a|my|the)\b", text)
        assert len(set(people)) >= 3, conv.id  # new people, introduced by name and relation
        assert not any(p in said for p in people)  # names the conversation never used
        updates = [m.group(1) for m in re.finditer(r"(?:Update on|^)([A-Z][a-z]+ [A-Z][a-z]+)(?::| has moved again)", text, re.M)]
        for name in updates:  # an update comes after the person was introduced
            assert text.index(name) < text.index(f"Update on {name}") if f"Update on {name}" in text else True
        assert re.search(r"\b(adopted|work as|bought)\b", text), conv.id  # the kinds of facts probes ask about


def test_informative_scaling_is_deterministic_and_not_filler(informative, tmp_path):
    src, out, path = informative
    again = scale_dataset(src, 40_000, seed=3, mode="informative")
    write_scaled(again, tmp_path / "again.yaml")
    assert (tmp_path / "again.yaml").read_bytes() == path.read_bytes()
    filler = scale_dataset(src, 40_000, seed=3, mode="filler")
    assert filler.meta["filler"] == "chitchat" and not filler.name.endswith("-informative")
    assert "Update on" not in " ".join(t.text for c in filler.conversations for _, t in c.turns())


def test_the_cli_takes_the_mode(tmp_path):
    from memlab.datasets.cli import main

    out = tmp_path / "x.yaml"
    assert main(["scale", str(FIXTURES / "threads_small.yaml"), "--target-tokens", "3k", "--mode", "informative",
                 "--out", str(out)]) == 0
    assert load_dataset(out).meta["filler"] == "informative"


def test_tokens_per_user_sum_a_users_threads():
    ds = load_dataset(FIXTURES / "threads_small.yaml")
    st = dataset_stats(ds)
    from memlab.datasets.stats import conversation_tokens

    ana = sum(conversation_tokens(c) for c in ds.conversations if c.ns == "ana")
    ben = sum(conversation_tokens(c) for c in ds.conversations if c.ns == "ben")
    assert st["tokens_per_user"] == {"min": min(ana, ben), "median": (ana + ben) // 2, "max": max(ana, ben)}
