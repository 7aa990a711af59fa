"""Reading dataset files that users actually have: real benchmark layouts, JSON, bad bytes, hostile YAML.

Each test reproduces a reported failure: format detection by key position, JSON parsed as YAML,
read errors without a file name, validation stopping at the first bad file, silently accepted
duplicate keys, NUL characters that only Postgres rejects, and YAML alias bombs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from memlab.datasets import dataset_hash, load_dataset, validate_file
from memlab.datasets.io import DatasetError
from memlab.datasets.stats import collect_stats

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
LOCOMO = FIXTURES / "locomo_small.json"
LONGMEMEVAL = FIXTURES / "longmemeval_small.json"
NATIVE = FIXTURES / "native_small.yaml"

LOCOMO_KEY_ORDER = ["qa", "conversation", "event_summary", "observation", "session_summary", "sample_id"]
LONGMEMEVAL_KEY_ORDER = ["question_id", "question_type", "question", "answer", "question_date", "haystack_dates",
                         "haystack_session_ids", "haystack_sessions", "answer_session_ids"]


def _line_of(text: str, marker: str) -> int:
    for i, line in enumerate(text.splitlines(), 1):
        if marker in line:
            return i
    raise AssertionError(f"marker {marker!r} not in text")


def _only_problem(path: Path) -> str:
    ds, problems = validate_file(path)
    assert ds is None and len(problems) == 1, [str(p) for p in problems]
    return str(problems[0])


# ------------------------------------------------------------------------------------------- formats


def test_fixtures_keep_the_published_key_order():
    """The fixtures must look like the published files, or they hide key-order bugs."""
    for sample in json.loads(LOCOMO.read_text(encoding="utf-8")):
        assert list(sample) == LOCOMO_KEY_ORDER
    for item in json.loads(LONGMEMEVAL.read_text(encoding="utf-8")):
        assert list(item) == LONGMEMEVAL_KEY_ORDER


def _padded_locomo(tmp_path: Path, min_offset: int = 229_000) -> tuple[Path, int]:
    """The LoCoMo fixture with its first sample grown until its sample_id sits past min_offset, as in locomo10.json."""
    samples = json.loads(LOCOMO.read_text(encoding="utf-8"))
    conv = samples[0]["conversation"]
    speakers = [conv["speaker_a"], conv["speaker_b"]]
    n = 10
    while True:
        conv[f"session_{n}_date_time"] = f"10:00 am on {n % 28 + 1} August, 2024"
        conv[f"session_{n}"] = [{"speaker": speakers[k % 2], "dia_id": f"D{n}:{k + 1}",
                                 "text": f"Session {n}, message {k + 1}: nothing much happened today, just work and errands."}
                                for k in range(40)]
        text = json.dumps(samples, indent=1)
        if text.index('"sample_id"') > min_offset:
            break
        n += 1
    path = tmp_path / "locomo10.json"
    path.write_text(text, encoding="utf-8")
    return path, text.index('"sample_id"')


def test_locomo_is_recognised_when_sample_id_comes_late(tmp_path):
    path, offset = _padded_locomo(tmp_path)
    assert offset > 229_000
    ds = load_dataset(path)
    assert [c.id for c in ds.conversations] == ["conv-t1", "conv-t2"]
    assert ds.meta["source_format"] == "locomo"
    assert any(s.id == "session_10" for s in ds.conversations[0].sessions)


def test_a_single_locomo_sample_object_is_recognised(tmp_path):
    sample = json.loads(LOCOMO.read_text(encoding="utf-8"))[1]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(sample), encoding="utf-8")
    assert [c.id for c in load_dataset(path).conversations] == ["conv-t2"]


def test_longmemeval_in_published_key_order_loads():
    ds = load_dataset(LONGMEMEVAL)
    assert ds.meta["source_format"] == "longmemeval" and len(ds.conversations) == 7


def test_unknown_format_is_one_problem_naming_the_known_formats(tmp_path):
    """A REALTALK-style conversation file: LoCoMo-like keys, but none of the structure memlab reads."""
    realtalk = {"name": {"speaker_1": "Emi", "speaker_2": "Elise"}}
    for n in range(1, 15):
        realtalk[f"session_{n}"] = [{"clean_text": "hi", "speaker": "Emi", "date_time": "01.01.2024, 10:00:00"}]
        realtalk[f"session_{n}_date_time"] = "01.01.2024, 10:00:00"
        realtalk[f"events_session_{n}"] = {"Emi": [], "Elise": []}
        realtalk[f"session_{n}_summary"] = "They talked."
    path = tmp_path / "Chat_1_Emi_Elise.json"
    path.write_text(json.dumps(realtalk), encoding="utf-8")
    msg = _only_problem(path)
    assert str(path) in msg and "format not recognised" in msg
    for known in ("native memlab", "LoCoMo", "LongMemEval"):
        assert known in msg
    assert "name, session_1" in msg  # says what the file looks like

    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"prompt": "x", "completion": "y"}]), encoding="utf-8")
    assert "format not recognised" in _only_problem(listed)


def test_a_native_file_with_a_typo_still_gets_native_errors(tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text("name: x\nconversation: []\n")
    ds, problems = validate_file(path)
    assert {p.path for p in problems} == {"conversations", "conversation"}, [str(p) for p in problems]


def test_a_malformed_record_names_the_file_the_record_and_its_line(tmp_path):
    samples = json.loads(LOCOMO.read_text(encoding="utf-8"))
    samples[1]["conversation"]["session_1"] = "not a list of turns"
    text = json.dumps(samples, indent=1)
    path = tmp_path / "locomo.json"
    path.write_text(text, encoding="utf-8")
    ds, problems = validate_file(path)
    assert ds is None and len(problems) == 1
    p = problems[0]
    assert p.file == str(path) and p.path == "[1]" and "LoCoMo sample #1" in p.message
    assert p.line == text.splitlines().index(" {", 2) + 1  # the line where the second sample starts


# ------------------------------------------------------------------------------------------- folders


def test_stats_reads_a_folder_recursively_and_skips_non_datasets(tmp_path, capsys):
    from memlab.datasets.cli import main

    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text(NATIVE.read_text(encoding="utf-8"))
    (tmp_path / "sub" / "locomo.json").write_text(LOCOMO.read_text(encoding="utf-8"))
    (tmp_path / "README.md").write_text("# datasets\n")
    (tmp_path / "generate.py").write_text("print('hi')\n")
    (tmp_path / "schema.json").write_text(json.dumps({"$schema": "x", "type": "object"}))
    (tmp_path / ".hidden.yaml").write_text("not: [valid\n")
    rows, notes = collect_stats([tmp_path])
    assert [Path(r["path"]).name for r in rows] == ["a.yaml", "locomo.json"]
    assert any("README.md" in n and "generate.py" in n for n in notes)
    assert any("schema.json" in n and "not a dataset" in n for n in notes)
    assert main(["stats", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "native-small" in captured.out and "locomo" in captured.out and "README.md" in captured.err

    (tmp_path / "sub" / "broken.yaml").write_text("name: broken\nconversations: [{id: c1}]\n")
    assert main(["stats", str(tmp_path)]) == 1
    assert "broken.yaml" in capsys.readouterr().err


def test_a_file_named_directly_must_be_a_dataset(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"type": "object"}))
    with pytest.raises(DatasetError, match="format not recognised"):
        collect_stats([path])


# ------------------------------------------------------------------------------------------- JSON


JSON_WITH_TABS = """{
\t"name": "json-tabs",
\t"conversations": [{
\t\t"id": "c1",
\t\t"sessions": [{"id": "s1", "timestamp": "2024-03-03T10:00:00", "turns": [
\t\t\t{"id": "t1", "role": "user", "text": "I love this \\ud83d\\ude00 emoji."},
\t\t\t{"id": "t2", "role": "user", "text": "hi", "colour": "blue"}
\t\t]}],
\t\t"probes": [{"id": "p1", "after_turn": "t2", "question": "What do I love?",
\t\t\t"category": "trivia", "gold": "emoji"}]
\t}]
}
"""


def test_json_with_tabs_and_surrogate_pairs_is_read_as_json(tmp_path):
    good = JSON_WITH_TABS.replace(', "colour": "blue"', "").replace("trivia", "single_hop")
    path = tmp_path / "tabs.json"
    path.write_text(good, encoding="utf-8")
    ds = load_dataset(path)
    assert ds.conversations[0].sessions[0].turns[0].text == "I love this \U0001F600 emoji."


def test_json_schema_problems_report_their_lines(tmp_path):
    path = tmp_path / "tabs.json"
    path.write_text(JSON_WITH_TABS, encoding="utf-8")
    ds, problems = validate_file(path)
    by_path = {p.path: p for p in problems}
    assert by_path["conversations[0].sessions[0].turns[1].colour"].line == _line_of(JSON_WITH_TABS, '"colour"')
    assert by_path["conversations[0].probes[0].category"].line == _line_of(JSON_WITH_TABS, "trivia")


def test_yaml_content_with_a_json_suffix_is_a_json_error(tmp_path):
    path = tmp_path / "actually.json"
    path.write_text("name: x\nconversations: []\n")
    msg = _only_problem(path)
    assert msg.startswith(f"{path}:1:") and "not valid JSON" in msg


def test_same_dataset_from_yaml_and_json_hashes_the_same(tmp_path):
    data = yaml.safe_load(NATIVE.read_text(encoding="utf-8"))
    as_json = tmp_path / "native_small.json"
    as_json.write_text(json.dumps(data, default=str, indent="\t"), encoding="utf-8")
    from_yaml = load_dataset(NATIVE)
    assert dataset_hash(load_dataset(as_json)) == dataset_hash(from_yaml)
    # pinned: the hash of unchanged content must not move when the reader or the schema's optional fields change
    assert dataset_hash(from_yaml) == "sha256:f53150df1c2b9486343c40702947b583460e9ff5f739a554a2ca9e11342f0ea3"
    with_empty_facts = from_yaml.model_copy(deep=True)
    with_empty_facts.conversations[0].sessions[0].turns[0].facts = []  # an optional field at its default
    assert dataset_hash(with_empty_facts) == dataset_hash(from_yaml)


# ------------------------------------------------------------------------------------------- read errors


def test_non_utf8_bytes_name_the_file_line_and_column(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: x\nconversations:\n  - id: caf\xe9\n")
    ds, problems = validate_file(path)
    assert ds is None and len(problems) == 1
    p = problems[0]
    assert (p.file, p.line, p.column) == (str(path), 3, 12) and "UTF-8" in p.message
    with pytest.raises(DatasetError, match="latin1.yaml:3:12"):
        load_dataset(path)


@pytest.mark.parametrize("fixture", [LOCOMO, LONGMEMEVAL], ids=["locomo", "longmemeval"])
def test_truncated_benchmark_json_names_the_file_and_position(tmp_path, fixture):
    text = fixture.read_text(encoding="utf-8")
    cut = text[: len(text) // 2]
    path = tmp_path / fixture.name
    path.write_text(cut, encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        load_dataset(path)
    (p,) = err.value.problems
    assert p.file == str(path) and "not valid JSON" in p.message
    assert p.line == cut.count("\n") + 1 and p.column


def test_validate_checks_every_file_and_fails_if_any_is_bad(tmp_path, capsys):
    from memlab.cli import main

    good = tmp_path / "a.yaml"
    good.write_text(NATIVE.read_text(encoding="utf-8"))
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"name: \xff\n")
    third = tmp_path / "c.yaml"
    third.write_text("name: c\nconversations: [{id: c1}]\n")
    assert main(["validate", str(good), str(bad), str(third)]) == 1
    out = capsys.readouterr().out
    assert f"✓ {good}" in out and f"✗ {bad}" in out and f"✗ {third}" in out
    assert f"{bad}:1:7" in out and "conversations[0].sessions" in out
    assert main(["validate", str(good)]) == 0


# ------------------------------------------------------------------------------------------- strict YAML


def test_duplicate_yaml_keys_are_rejected_with_line_and_key(tmp_path):
    text = NATIVE.read_text(encoding="utf-8").replace("    namespace: ana\n", "    namespace: ana\n    namespace: bob\n", 1)
    path = tmp_path / "dup.yaml"
    path.write_text(text)
    msg = _only_problem(path)
    assert msg.startswith(f"{path}:{_line_of(text, 'namespace: bob')}:") and "duplicate key 'namespace'" in msg
    assert f"first at line {_line_of(text, 'namespace: ana')}" in msg


def test_duplicate_json_keys_are_rejected_with_line_and_key(tmp_path):
    text = '{"name": "x",\n "conversations": [],\n "name": "y"}'
    path = tmp_path / "dup.json"
    path.write_text(text)
    msg = _only_problem(path)
    assert msg.startswith(f"{path}:3:") and "duplicate key 'name' (first at line 1)" in msg


def test_nul_and_unpaired_surrogates_are_rejected_by_field_and_line(tmp_path):
    text = NATIVE.read_text(encoding="utf-8")
    first_turn = next(line for line in text.splitlines() if "text:" in line)
    nul = tmp_path / "nul.yaml"
    nul.write_text(text.replace(first_turn, first_turn.replace("text: ", 'text: "NUL here \\0" #', 1), 1))
    ds, problems = validate_file(nul)
    (p,) = problems
    assert p.path == "conversations[0].sessions[0].turns[0].text" and "NUL" in p.message
    assert p.line == _line_of(text, first_turn)

    data = yaml.safe_load(text)
    data["conversations"][0]["probes"][0]["question"] = "where\u0000?"
    data["conversations"][0]["meta"] = {"note": "half an emoji \ud83d"}
    js = tmp_path / "bad.json"
    js.write_text(json.dumps(data, default=str, indent=1), encoding="utf-8")  # ensure_ascii: escapes survive
    ds, problems = validate_file(js)
    got = {p.path: p for p in problems}
    assert set(got) == {"conversations[0].probes[0].question", "conversations[0].meta.note"}, [str(p) for p in problems]
    assert "NUL" in got["conversations[0].probes[0].question"].message
    assert "surrogate" in got["conversations[0].meta.note"].message
    assert all(p.line and p.file == str(js) for p in problems)
    with pytest.raises(DatasetError):
        load_dataset(js)


def _alias_bomb() -> str:
    """A classic "billion laughs" document: 12 levels of 10 aliases each, ~2.6 KB, 10^12 leaves expanded."""
    lines = ["name: laughs", 'lol_level_00: &lol_level_00 ["lol lol lol lol", "lol lol lol lol", "lol lol lol lol"]']
    for i in range(1, 12):
        ref = f"*lol_level_{i - 1:02d}"
        lines.append(f"lol_level_{i:02d}: &lol_level_{i:02d} [{', '.join([ref] * 10)}]")
    lines.append("conversations: [*lol_level_11]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_fails_fast_with_file_and_line(tmp_path):
    text = _alias_bomb()
    assert 2_000 < len(text) < 3_000
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    # In a child limited to 1 GiB of address space, so a regression fails here instead of eating the machine.
    child = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from memlab.datasets.io import validate_file
        ds, problems = validate_file({str(path)!r})
        print("\\n".join(str(p) for p in problems))
    """)
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (line,) = proc.stdout.strip().splitlines()
    assert line.startswith(f"{path}:") and "alias" in line and "alias bomb" in line
    lineno = int(line[len(str(path)) + 1:].split(":")[0])
    assert "*lol_level_" in text.splitlines()[lineno - 1]


def test_a_recursive_alias_is_rejected(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("name: loop\nconversations: &c\n  - *c\n")
    msg = _only_problem(path)
    assert msg.startswith(f"{path}:3:") and "contains it" in msg


def test_a_few_small_aliases_still_load(tmp_path):
    """PyYAML's dumper writes aliases for repeated lists (datasets/suites/preference.yaml has some)."""
    text = NATIVE.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    shared = ["Lisboa", "LIS"]
    for probe in data["conversations"][0]["probes"][:2]:
        probe["gold"] = [{"text": "Lisbon", "aliases": shared}]
    path = tmp_path / "aliased.yaml"
    dumped = yaml.safe_dump(data, sort_keys=False)
    assert "*id001" in dumped
    path.write_text(dumped)
    ds = load_dataset(path)
    assert [p.gold[0].aliases for p in ds.conversations[0].probes[:2]] == [shared, shared]


# ------------------------------------------------------------------------------------------- parse once


def test_a_valid_yaml_file_is_parsed_once_without_a_line_map(tmp_path, monkeypatch):
    """Line numbers are only worked out when there is a problem to report."""
    def no_compose(*args, **kwargs):
        raise AssertionError("the happy path must not compose a second node tree")

    monkeypatch.setattr(yaml, "compose", no_compose)
    assert load_dataset(NATIVE).name == "native-small"


def test_problems_in_yaml_still_get_lines_after_a_single_parse(tmp_path):
    text = NATIVE.read_text(encoding="utf-8").replace("category: single_hop", "category: trivia", 1)
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    ds, problems = validate_file(path)
    (p,) = problems
    assert p.path.endswith(".category") and p.line == _line_of(text, "trivia")

