"""Datasets: validator error reporting, shipped data, suites, scaler, public-benchmark loaders, stats, schema."""

from __future__ import annotations

import importlib.util
import json
import re
import string
import sys
from collections import Counter
from pathlib import Path

import pytest


from memlab.datasets import Category, load_dataset, validate_file
from memlab.datasets.io import check_consistency
from memlab.datasets.loaders import FORMATS, detect
from memlab.datasets.source import read_source

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "datasets"
SUITES_DIR = DATASETS / "suites"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SUITES = ["recall", "multi_session", "temporal", "knowledge_update", "abstention", "preference", "agentic", "injection",
          "cross_thread", "long_task"]
SHIPPED = [DATASETS / "starter.yaml", *[SUITES_DIR / f"{s}.yaml" for s in SUITES]]


def _line_of(text: str, marker: str) -> int:
    """1-based line of the first line containing marker."""
    for i, line in enumerate(text.splitlines(), 1):
        if marker in line:
            return i
    raise AssertionError(f"marker {marker!r} not in text")


def _format_of(path: Path) -> str | None:
    return detect(read_source(path).data)


def _norm(s: str) -> str:
    s = "".join(" " if ch in string.punctuation else ch for ch in s.lower())
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


@pytest.fixture(scope="module")
def shipped():
    out = {}
    for path in SHIPPED:
        ds, problems = validate_file(path)
        out[path.name] = (ds, problems)
    return out


# ------------------------------------------------------------------------------------------- validator

SCHEMA_BAD = """\
name: bad-schema
conversations:
  - id: c1
    sessions:
      - id: s1
        timestamp: "2024-13-45T99:00:00"    # BAD_TS
        turns:
          - {id: t1, role: user, text: "I live in Lisbon."}
          - {id: t2, role: user, text: "hi", colour: blue}    # UNKNOWN_FIELD
    probes:
      - id: p1
        after_turn: t2
        question: "Where do I live?"
        category: trivia    # BAD_CATEGORY
        gold: Lisbon
"""

CONSISTENCY_BAD = """\
name: bad-consistency
conversations:
  - id: c1
    sessions:
      - id: s1
        timestamp: "2024-03-03T10:00:00"
        turns:
          - {id: t1, role: user, text: "My dog is called Pickle."}
          - {id: t2, role: assistant, text: "Cute!"}
          - {id: t1, role: user, text: "I live in Lisbon."}    # DUP_TURN
          - {id: t4, role: user, text: "Bye."}
    probes:
      - id: p1
        after_turn: t4
        question: "What's my dog called?"
        category: single_hop
        gold: Pickle
        evidence: [t9]    # UNKNOWN_EVIDENCE
      - id: p1    # DUP_PROBE
        after_turn: t2
        question: "Where do I live?"
        category: single_hop
        gold: Lisbon
        evidence: [t4]    # EVIDENCE_AFTER
      - id: p3
        after_turn: t4
        question: "What's my brother called?"
        category: abstention
        abstain: true
        gold: Bob    # ABSTAIN_GOLD
      - id: p4    # MISSING_GOLD
        after_turn: t4
        question: "What did I say?"
        category: single_hop
  - id: c1    # DUP_CONV
    sessions:
      - id: s1
        timestamp: "2024-03-03T10:00:00"
        turns:
          - {id: t1, role: user, text: "Hello."}
"""


def test_validator_reports_all_schema_problems_with_file_line_and_path(tmp_path):
    path = tmp_path / "bad_schema.yaml"
    path.write_text(SCHEMA_BAD)
    ds, problems = validate_file(path)
    assert ds is None
    by_path = {p.path: p for p in problems}
    expected = {
        "conversations[0].sessions[0].timestamp": _line_of(SCHEMA_BAD, "BAD_TS"),
        "conversations[0].sessions[0].turns[1].colour": _line_of(SCHEMA_BAD, "UNKNOWN_FIELD"),
        "conversations[0].probes[0].category": _line_of(SCHEMA_BAD, "BAD_CATEGORY"),
    }
    assert set(expected) <= set(by_path), [str(p) for p in problems]
    for jpath, line in expected.items():
        p = by_path[jpath]
        assert p.file == str(path)
        assert p.line == line, str(p)
        assert str(path) in str(p) and jpath in str(p)
    assert "bad timestamp" in by_path["conversations[0].sessions[0].timestamp"].message
    assert "unknown field" in by_path["conversations[0].sessions[0].turns[1].colour"].message
    assert "trivia" in by_path["conversations[0].probes[0].category"].message


def test_validator_reports_all_consistency_problems_at_once(tmp_path):
    path = tmp_path / "bad_consistency.yaml"
    path.write_text(CONSISTENCY_BAD)
    ds, problems = validate_file(path)
    assert ds is not None  # it parsed; every problem is a cross-field one
    expected = [  # (json path, marker on the expected line, words in the message)
        ("conversations[0].sessions[0].turns[2].id", "DUP_TURN", "duplicate turn id"),
        ("conversations[0].probes[0].evidence[0]", "UNKNOWN_EVIDENCE", "unknown evidence"),
        ("conversations[0].probes[1].id", "DUP_PROBE", "duplicate probe id"),
        ("conversations[0].probes[1].evidence[0]", "EVIDENCE_AFTER", "before its evidence"),
        ("conversations[0].probes[2].gold", "ABSTAIN_GOLD", "must not have gold"),
        ("conversations[0].probes[3].gold", "MISSING_GOLD", "at least one gold"),
        ("conversations[1].id", "DUP_CONV", "duplicate conversation id"),
    ]
    got = {(p.path, p.line): p for p in problems}
    for jpath, marker, words in expected:
        line = _line_of(CONSISTENCY_BAD, marker)
        assert (jpath, line) in got, f"missing {jpath} at line {line}; got {[str(p) for p in problems]}"
        p = got[(jpath, line)]
        assert p.file == str(path)
        assert words in p.message, str(p)
    assert len(problems) >= len(expected)


def test_validator_malformed_yaml(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("name: broken\nconversations:\n  - id: c1\n    sessions: [\n      - id: s1\n")
    ds, problems = validate_file(path)
    assert ds is None and len(problems) == 1
    p = problems[0]
    assert p.file == str(path) and p.line is not None and p.line >= 1
    assert "YAML" in p.message


# ------------------------------------------------------------------------------------------- shipped data


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_dataset_validates(shipped, path):
    ds, problems = shipped[path.name]
    assert problems == [], "\n".join(str(p) for p in problems[:20])
    assert ds is not None


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_literal_gold_answers_occur_in_evidence(shipped, path):
    """Answers that are quoted from the conversation must be found in their evidence turns."""
    ds, _ = shipped[path.name]
    literal = {Category.single_hop, Category.knowledge_update, Category.preference, Category.agentic, Category.injection}
    checked = 0
    user_texts: dict[str, dict[str, str]] = {}  # evidence may lie in an earlier thread of the same user
    for conv in ds.conversations:
        user_texts.setdefault(conv.ns, {}).update({t.id: t.text for _, t in conv.turns()})
    for conv, probe in ds.probes():
        if probe.abstain or probe.category not in literal or not probe.evidence:
            continue
        texts = user_texts[conv.ns]
        ev = _norm(" ".join(texts[e] for e in probe.evidence))
        hits = [any(_norm(f) in ev for f in g.forms()) for g in probe.gold]
        assert (all(hits) if probe.gold_match == "all" else any(hits)), f"{probe.id}: {probe.gold} not in {probe.evidence}"
        checked += 1
    assert checked > 0 or path.stem in ("multi_session", "temporal")  # those suites mix in derived answers


def test_starter_covers_every_category(shipped):
    ds, _ = shipped["starter.yaml"]
    cats = Counter(p.category for _, p in ds.probes())
    assert len(ds.conversations) == 4 and 32 <= sum(cats.values()) <= 40
    for c in ["single_hop", "multi_session", "temporal", "knowledge_update", "abstention", "preference"]:
        assert cats[Category(c)] >= 4, (c, cats)
    assert cats[Category.injection] >= 2
    assert len({c.ns for c in ds.conversations}) == 4


def test_suites_meet_counts(shipped):
    n_conv = n_probes = 0
    cats: Counter = Counter()
    for s in SUITES:
        ds, _ = shipped[f"{s}.yaml"]
        n_conv += len(ds.conversations)
        n_probes += len(ds.probes())
        cats.update(p.category.value for _, p in ds.probes())
        card = (SUITES_DIR / f"{s}.md").read_text()
        assert f"| probes | {len(ds.probes())} |" in card and f"| conversations | {len(ds.conversations)} |" in card
    assert n_conv >= 40 and n_probes >= 400
    for c in ["single_hop", "multi_session", "temporal", "knowledge_update", "abstention", "preference", "agentic", "injection"]:
        assert cats[c] >= 20, cats


def _invocations(conv) -> list[int]:
    """Turns per invocation (a user message and the turns after it until the next user message)."""
    out: list[int] = []
    for _, t in conv.turns():
        if t.role == "user" or not out:
            out.append(0)
        out[-1] += 1
    return out


def test_thread_suites_need_earlier_threads(shipped):
    """cross_thread and long_task: many users, several threads each, most probes answerable only
    from earlier threads; long_task's first thread holds one invocation of 25-40 steps with probes
    asked inside it."""
    for name, (lo, hi) in (("cross_thread.yaml", (5, 8)), ("long_task.yaml", (3, 5))):
        ds, _ = shipped[name]
        users = Counter(c.ns for c in ds.conversations)
        assert len(users) >= 12 and all(lo <= n <= hi for n in users.values()), (name, users)
        scopes: Counter = Counter()
        seen: dict[str, set[str]] = {}
        for conv in ds.conversations:
            own = {t.id for _, t in conv.turns()}
            for p in conv.probes:
                if p.evidence:
                    scopes["earlier" if not set(p.evidence) & own else "own" if set(p.evidence) <= own else "mixed"] += 1
                    assert set(p.evidence) <= own | seen.get(conv.ns, set()), p.id
            seen.setdefault(conv.ns, set()).update(own)
        assert scopes["earlier"] >= 50 and scopes["own"] >= 14, (name, scopes)
    lt, _ = shipped["long_task.yaml"]
    firsts = [c for c in lt.conversations if c.id.endswith("-t1")]
    for conv in firsts:
        longest = max(_invocations(conv))
        assert 25 <= longest <= 40, (conv.id, longest)
        after = {t.id: i for i, (_, t) in enumerate(conv.turns())}
        roles = [t.role for _, t in conv.turns()]
        mid = [p for p in conv.probes if roles[after[p.after_turn] + 1] != "user"]  # the invocation goes on after it
        assert len(mid) >= 2, conv.id


def test_suite_specific_properties(shipped):
    ku, _ = shipped["knowledge_update.yaml"]
    assert all(p.superseded for _, p in ku.probes())
    texts = " ".join(t.text for c in ku.conversations for _, t in c.turns()).lower()
    for phrase in ["anymore", "former", "i'm now at", "actually, not"]:
        assert phrase in texts, phrase
    ag, _ = shipped["agentic.yaml"]
    assert all(any(t.role == "tool" and t.tool_name for _, t in c.turns()) for c in ag.conversations)
    inj, _ = shipped["injection.yaml"]
    assert all(p.forbidden for _, p in inj.probes())
    groups = Counter(c.meta.get("collision_group") for c in inj.conversations if c.meta.get("collision_group"))
    assert groups and all(v == 2 for v in groups.values())
    assert len({c.ns for c in inj.conversations}) == len(inj.conversations)
    ab, _ = shipped["abstention.yaml"]
    cats = Counter(p.category.value for _, p in ab.probes())
    assert cats["abstention"] > 0 and cats["single_hop"] > 0  # controls so that always abstaining does not win


def _generator():
    spec = importlib.util.spec_from_file_location("generate_suites", DATASETS / "generate_suites.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses need the module registered
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_generator_reproduces_suites_byte_for_byte():
    gen = _generator()
    for name in SUITES:
        text = gen.dump_yaml(gen.build_suite(name))
        assert text == (SUITES_DIR / f"{name}.yaml").read_text(encoding="utf-8"), f"{name}.yaml is stale; run datasets/generate_suites.py"


# ------------------------------------------------------------------------------------------- scaler


@pytest.fixture(scope="module")
def starter(shipped):
    return shipped["starter.yaml"][0]


def test_scale_10k_reaches_target_and_keeps_probes_valid(starter):
    from memlab.datasets.scale import scale_dataset
    from memlab.datasets.stats import dataset_tokens

    out = scale_dataset(starter, 10_000, seed=3)
    tokens = dataset_tokens(out)
    assert abs(tokens - 10_000) / 10_000 < 0.05, tokens
    assert out.meta["tokens"] == tokens
    assert out.name == "starter-10k"
    assert check_consistency(out, "scaled") == []
    # original sessions and probes untouched, in order
    for orig, new in zip(starter.conversations, out.conversations):
        assert [p.model_dump() for p in orig.probes] == [p.model_dump() for p in new.probes]
        kept = [s for s in new.sessions if not s.id.startswith("fill")]
        assert [s.model_dump() for s in kept] == [s.model_dump() for s in orig.sessions]
        assert len(new.sessions) > len(orig.sessions)
        ts = [s.timestamp for s in new.sessions]
        assert ts == sorted(ts)
    assert scale_dataset(starter, 10_000, seed=3).model_dump() == out.model_dump()  # deterministic
    assert scale_dataset(starter, 10_000, seed=4).model_dump() != out.model_dump()


def test_scale_filler_never_mentions_answers(starter):
    from memlab.datasets.scale import _banned_pattern, _norm, scale_dataset

    out = scale_dataset(starter, 30_000, seed=1)
    for conv in out.conversations:
        pat = _banned_pattern(conv)
        for s in conv.sessions:
            if s.id.startswith("fill"):
                assert not any(pat.search(_norm(t.text)) for t in s.turns)


@pytest.mark.slow
def test_scale_to_a_million_tokens(starter):
    from memlab.datasets.scale import scale_dataset

    out = scale_dataset(starter, 1_000_000, seed=0)
    assert out.name == "starter-1M"
    assert abs(out.meta["tokens"] - 1_000_000) < 20_000
    assert check_consistency(out, "scaled") == []


def test_scale_cli_writes_a_valid_file(tmp_path):
    from memlab.datasets.cli import main

    out = tmp_path / "recall-20k.yaml"
    assert main(["scale", str(SUITES_DIR / "recall.yaml"), "--target-tokens", "20k", "--out", str(out), "--seed", "2"]) == 0
    ds, problems = validate_file(out)
    assert problems == [] and ds.name == "suite-recall-20k"
    out2 = tmp_path / "locomo-5k.json"
    assert main(["scale", str(FIXTURES / "locomo_small.json"), "-n", "5000", "-o", str(out2),
                 "--filler-from", str(DATASETS / "starter.yaml")]) == 0
    ds2, problems2 = validate_file(out2)
    assert problems2 == [] and ds2.meta["filler"] == "conversations"


# ------------------------------------------------------------------------------------------- public benchmarks


def test_locomo_fixture_loads_with_repairs():
    from memlab.datasets import locomo

    assert "locomo" in FORMATS and _format_of(FIXTURES / "locomo_small.json") == "locomo"
    assert _format_of(DATASETS / "starter.yaml") == "native" and _format_of(FIXTURES / "longmemeval_small.json") != "locomo"
    ds = load_dataset(FIXTURES / "locomo_small.json")
    assert [c.id for c in ds.conversations] == ["conv-t1", "conv-t2"]
    c1 = ds.conversations[0]
    assert [s.id for s in c1.sessions] == ["session_1", "session_2", "session_3"]  # date key without session ignored
    assert c1.sessions[0].timestamp.isoformat() == "2023-05-08T13:56:00"
    assert ds.conversations[1].sessions[1].timestamp.isoformat() == "2023-10-22T19:40:00"  # "7:40pm"
    assert {t.speaker for _, t in c1.turns()} == {"Avery", "Jordan"} and {t.role for _, t in c1.turns()} == {"user"}
    photo = next(t for _, t in c1.turns() if t.id == "D2:2")
    assert "[shared image: a photo of a blue ceramic bowl" in photo.text
    probes = {p.id: p for _, p in ds.probes()}
    assert len(probes) == 11
    assert probes["conv-t1-q003"].evidence == ["D1:3", "D2:1"]  # "D1:3; D2:1"
    assert probes["conv-t1-q004"].evidence == ["D2:6"] and probes["conv-t1-q004"].gold[0].text == "3"  # "D:2:6", int answer
    assert probes["conv-t2-q002"].evidence == ["D2:2"]  # unknown D9:1 dropped
    adv = probes["conv-t1-q006"]
    assert adv.abstain and adv.category == Category.abstention and not adv.gold and adv.original_category == "5:adversarial"
    cats = Counter(p.category.value for p in probes.values())
    assert cats == {"single_hop": 5, "temporal": 2, "multi_session": 1, "open_domain": 1, "abstention": 2}
    assert all(p.after_turn == c.sessions[-1].turns[-1].id for c, p in ds.probes())
    assert check_consistency(ds, "locomo") == []
    _, repairs = locomo.load_with_report(FIXTURES / "locomo_small.json")
    assert ds.meta["repairs"] == len(repairs) == 6
    assert any("D:2:6" in r for r in repairs) and any("session_4_date_time" in r for r in repairs)
    assert probes["conv-t1-q007"].evidence == ["D2:2"] and any("D2:02" in r for r in repairs)  # zero-padded id normalised
    ds_b, _ = locomo.load_with_report(FIXTURES / "locomo_small.json", roles="assistant")
    assert {t.role for _, t in ds_b.conversations[0].turns()} == {"user", "assistant"}


def test_locomo_date_and_evidence_parsing():
    from memlab.datasets.locomo import parse_datetime, parse_evidence

    assert parse_datetime("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00"
    assert parse_datetime("12:09 am on 1 January, 2024").isoformat() == "2024-01-01T00:09:00"
    assert parse_datetime("nonsense") is None
    assert parse_evidence(["D8:6; D9:17"]) == (["D8:6", "D9:17"], True)
    assert parse_evidence(["D:11:26"]) == (["D11:26"], True)
    assert parse_evidence(["D1:3", "D2:4"]) == (["D1:3", "D2:4"], False)
    assert parse_evidence("D3:1") == (["D3:1"], False)
    assert parse_evidence(["D30:05", "D1:3"]) == (["D30:5", "D1:3"], True)


def test_longmemeval_fixture_loads():
    from memlab.datasets import longmemeval

    assert "longmemeval" in FORMATS and _format_of(FIXTURES / "longmemeval_small.json") == "longmemeval"
    assert _format_of(FIXTURES / "locomo_small.json") != "longmemeval"
    ds = load_dataset(FIXTURES / "longmemeval_small.json")
    assert len(ds.conversations) == 7 and all(len(c.probes) == 1 for c in ds.conversations)
    probes = {c.id: c.probes[0] for c in ds.conversations}
    assert {k: p.category.value for k, p in probes.items()} == {
        "e47becba": "single_hop", "b1c2d3e4": "single_hop", "pref0001": "preference", "ms000001": "multi_session",
        "ku000001": "knowledge_update", "tr000001": "temporal", "tr000002_abs": "abstention"}
    abs_p = probes["tr000002_abs"]
    assert abs_p.abstain and not abs_p.gold and abs_p.original_category == "temporal-reasoning_abs"
    assert probes["ms000001"].gold[0].text == "3" and probes["ms000001"].evidence == ["answer_m1:1", "answer_m2:1"]
    assert probes["b1c2d3e4"].evidence == ["answer_aa11:2"]  # has_answer on an assistant turn
    assert probes["e47becba"].asked_at.isoformat() == "2023-05-30T23:40:00"
    tr = next(c for c in ds.conversations if c.id == "tr000001")
    assert [s.id for s in tr.sessions] == ["answer_t1", "answer_t2"]  # sorted by date
    _, repairs = longmemeval.load_with_report(FIXTURES / "longmemeval_small.json")
    assert ds.meta["repairs"] == len(repairs) and any("sorted" in r for r in repairs)
    problems = [p for p in check_consistency(ds, "lme") if "superseded" not in p.message]
    assert problems == []


# ------------------------------------------------------------------------------------------- stats & schema


def test_stats_and_cli(capsys, starter):
    from memlab.datasets.cli import main
    from memlab.datasets.stats import dataset_stats

    st = dataset_stats(starter)
    assert st["conversations"] == 4 and st["probes"] == 40 and st["tokens"] > 3000
    assert sum(st["probes_by_category"].values()) == 40
    tk = st["tokens_per_conversation"]
    assert tk["min"] <= tk["median"] <= tk["max"]
    assert main(["stats", str(DATASETS / "starter.yaml"), str(FIXTURES / "locomo_small.json"),
                 str(FIXTURES / "longmemeval_small.json")]) == 0
    out = capsys.readouterr().out
    assert "starter" in out and "locomo" in out and "longmemeval" in out
    assert main(["stats", "--json", str(DATASETS / "starter.yaml")]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["probes"] == 40


def test_cli_register_adds_datasets_group():
    import argparse

    from memlab.datasets.cli import register

    parser = argparse.ArgumentParser(prog="memlab")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["datasets", "scale", "in.yaml", "--target-tokens", "1M", "--out", "o.yaml"])
    assert args.target_tokens == 1_000_000 and args.func.__name__ == "cmd_scale"


def test_schema_is_up_to_date():
    from memlab.datasets.schema import SCHEMA_PATH, schema_text

    assert SCHEMA_PATH == DATASETS / "schema.json"
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), "run `memlab datasets schema` to regenerate"
    schema = json.loads(schema_text())
    assert set(schema["$defs"]) >= {"Conversation", "Session", "Turn", "Probe", "GoldAnswer"}
