"""The viewer's parts that need no run folder: reading streams by offset, marking a context's lines,
windowing a long context, the store replayed from memory operations, the token guard, the command
line a report prints (memlab/view; the whole app on a real run: tests/test_view.py)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from memlab.analysis.view_command import view_command
from memlab.view.index import read_line, scan
from memlab.view.lines import MAX_CHARS, MAX_PINNED, Marker, mark_difference, window
from memlab.view.timeline import Replay


def test_scan_gives_each_complete_line_with_its_offset_and_leaves_a_torn_last_line(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    recs = [{"a": 1, "t": "x\u2028y"}, {"a": 2, "t": "é" * 5000}, {"a": 3}]
    data = b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in recs) + b'{"a": 4, "torn'
    path.write_bytes(data)
    got = list(scan(path, chunk=64))  # chunks far smaller than a line: lines span reads
    assert [json.loads(line)["a"] for _, line in got] == [1, 2, 3]
    for off, line in got:
        assert read_line(path, off, len(line)) == json.loads(line)
    second = got[1][0]
    assert [json.loads(line)["a"] for _, line in scan(path, second)] == [2, 3]


def test_a_line_holding_the_gold_is_marked_with_the_literal_spans_and_the_stale_value():
    m = Marker([["Braga", "Braga, Portugal"]], ["Porto"])
    line = m.line("Lea moved from Porto to BRAGA; braganza is another word")
    assert line["gold"] and line["stale"]
    text = line["text"]
    assert [(text[a:b], kind) for a, b, kind in line["spans"]] == [("Porto", "stale"), ("BRAGA", "gold")]
    other = m.line("Bragança is not Braga's town")  # word-bounded: a longer word is not the form
    assert [other["text"][a:b] for a, b, _ in other["spans"]] == ["Braga"] and other["spans"][0][0] == 16
    assert m.line("nothing here") == {"text": "nothing here"}


def test_a_normalised_match_marks_the_line_without_a_span():
    m = Marker([["8 May 2023"]])
    line = m.line("[2023-05-08] we met")
    assert line.get("gold") is True and "spans" not in line


def test_a_long_line_is_cut_and_says_how_long_it_was():
    m = Marker([["needle"]])
    line = m.line("x " * MAX_CHARS + "needle")
    assert len(line["text"]) == MAX_CHARS and line["cut"] == 2 * MAX_CHARS + 6
    assert line["gold"]  # the whole line was tested, not only what is shown


def test_a_window_keeps_its_lines_and_the_marked_ones_elsewhere_up_to_a_cap():
    lines = [{"i": i, "text": str(i)} for i in range(10_000)]
    lines[5000]["evidence"] = True
    lines[7000]["gold"] = True
    shown = window(lines, 0, 300)
    assert [x["i"] for x in shown] == list(range(300)) + [5000, 7000]
    for x in lines:
        x["gold"] = True  # every line holds the gold: the page still gets a bounded number
    assert len(window(lines, 0, 300)) == 300 + MAX_PINNED
    assert [x["i"] for x in window(lines, 9_990, 300, pinned=False)] == list(range(9_990, 10_000))


def test_the_difference_of_two_contexts_is_by_text_not_position():
    a = [{"i": 0, "text": "x"}, {"i": 1, "text": "y"}, {"i": 2, "text": "z"}]
    b = [{"i": 0, "text": "z"}, {"i": 1, "text": "x"}]
    assert mark_difference(a, b) == (1, 0)
    assert [x.get("only", False) for x in a] == [False, True, False] and not any(x.get("only") for x in b)


def test_the_store_as_of_a_turn_replays_add_update_delete():
    turns = [{"conversation_id": "c1", "turn_id": f"t{i}"} for i in range(4)] + [{"conversation_id": "c2", "turn_id": "t0"}]
    ops = [{"seq": 1, "conversation_id": "c1", "turn_id": "t0", "op": "ADD", "item_id": "a", "text": "lives in Porto",
            "source_turn_ids": ["t0"]},
           {"seq": 2, "conversation_id": "c1", "turn_id": "t1", "op": "ADD", "item_id": "b", "text": "has a dog"},
           {"seq": 3, "conversation_id": "c1", "turn_id": "t2", "op": "UPDATE", "item_id": "a", "text": "lives in Braga",
            "previous_text": "lives in Porto", "source_turn_ids": ["t2"]},
           {"seq": 4, "conversation_id": "c1", "turn_id": "t3", "op": "DELETE", "item_id": "b"},
           {"seq": 5, "conversation_id": "c1", "turn_id": "t3", "op": "NOOP", "item_id": "a"},
           {"seq": 6, "conversation_id": "c2", "phase": "conversation_start", "op": "ADD", "item_id": "p", "text": "profile"}]
    replay = Replay.of(turns, ops)
    assert {k: v.text for k, v in replay.store(0.0, set()).items()} == {"a": "lives in Porto"}
    assert {k: v.text for k, v in replay.store(2.0, set()).items()} == {"a": "lives in Braga", "b": "has a dog"}
    assert set(replay.store(3.0, set())) == {"a"}
    # the second thread's turn t0 is its own turn, not the first thread's; its start op comes before it
    assert set(replay.store(3.9, set())) == {"a", "p"}
    assert replay.store(2.0, {"t2"})["a"].from_evidence


def test_the_token_guard_refuses_a_missing_or_wrong_token_and_a_foreign_host():
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from memlab.view.server import _Guard

    app = _Guard(Starlette(routes=[Route("/api/x", lambda r: PlainTextResponse("secret")),
                                   Route("/static/app.js", lambda r: PlainTextResponse("code"))]), "s3cret", {})
    c = TestClient(app, base_url="http://127.0.0.1")
    assert c.get("/api/x").status_code == 403
    assert c.get("/api/x?token=wrong").status_code == 403
    assert c.get("/api/x", headers={"X-Memlab-Token": "s3cre"}).status_code == 403
    assert c.get("/api/x?token=s3cret").text == "secret"
    assert c.get("/api/x", headers={"X-Memlab-Token": "s3cret"}).text == "secret"
    assert c.get("/static/app.js").status_code == 200  # the package's code is no secret
    evil = TestClient(app, base_url="http://attacker.example")
    assert evil.get("/api/x?token=s3cret").status_code == 403  # a DNS-rebinding page that learnt the token


def test_the_view_command_quotes_paths_for_a_shell():
    cmd = view_command([Path("results/a b"), "results/it's"], baseline="evals/baselines/ci.json")
    assert shlex.split(cmd) == ["memlab", "view", "results/a b", "results/it's", "--baseline", "evals/baselines/ci.json"]


def test_the_front_end_puts_run_text_in_the_page_as_text_only():
    """A run may hold anything: the front-end never parses run text as markup (no innerHTML, no
    insertAdjacentHTML, no document.write, no eval), and loads nothing from another origin."""
    static = Path(__file__).resolve().parents[1] / "memlab" / "view" / "static"
    js = (static / "app.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in js, sink
    page = (static / "index.html").read_text(encoding="utf-8")
    assert "http" not in page.replace('http-equiv', '') and "//" not in page
    assert "<script>" not in page  # no inline script: the Content-Security-Policy allows scripts from the server only


@pytest.mark.parametrize("bad", ["../index.py", "app.py", "%2e%2e/index.py"])
def test_static_files_are_only_the_front_end(bad: str):
    from starlette.testclient import TestClient

    from memlab.view.server import make_app

    class NoRuns:
        def __len__(self) -> int:
            return 0

    c = TestClient(make_app(NoRuns(), "t"), base_url="http://127.0.0.1")  # type: ignore[arg-type]
    r = c.get(f"/static/{bad}")
    assert r.status_code in (403, 404) and "import" not in r.text  # a normalised '..' leaves /static/: token needed
    assert c.get("/static/app.css").status_code == 200
