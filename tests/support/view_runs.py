"""Small real runs for the viewer's tests (tests/test_view*.py): played by the runner with the
offline model, like every other end-to-end test, then read by the viewer.

- ``main``: two users, one with two threads (evidence in the earlier thread), a knowledge update,
  an abstention probe and a turn holding markup; strategies no_memory, full_context, a two-turn
  window and fact_rag (an in-memory store: ADD / UPDATE / NOOP in its timeline);
- ``after``: the same dataset and strategy names, the window widened to 8 turns: probes flip;
- ``hostile``: script tags and an event-handler attribute, U+2028, a 1 MB turn (in full_context's
  context, cut on the page), and one probe whose recorded context is rewritten to 10,000 lines
  (a real run of a 10,000-turn conversation takes minutes; the folder is what the viewer reads).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml

SCRIPT = 'My locker code is <script>alert("pwned")</script><img src=x onerror=alert(2)> and I park at bay 14.'
SEPARATOR_TURN = "Line one\u2028line two: I moved to Oslo\u2029after the winter."

DATASET: dict[str, Any] = {
    "name": "view-fixture",
    "description": "Hand-written for tests/test_view*.py (not evaluation data).",
    "conversations": [
        {"id": "lea-1", "namespace": "lea", "sessions": [
            {"id": "s1", "timestamp": "2024-03-01T09:00:00", "turns": [
                {"id": "a01", "role": "user", "text": "I live in Porto and I work as a nurse at the city hospital."},
                {"id": "a02", "role": "assistant", "text": "Nice, how long have you been a nurse?"},
                {"id": "a03", "role": "user", "text": SCRIPT},
                {"id": "a04", "role": "assistant", "text": "Got it."},
                {"id": "a05", "role": "user", "text": "My sister Ines plays the cello in an orchestra."},
                {"id": "a06", "role": "assistant", "text": "Lovely."}]},
            {"id": "s2", "timestamp": "2024-04-10T18:00:00", "turns": [
                {"id": "a07", "role": "user", "text": "Big news: I moved from Porto to Braga last week."},
                {"id": "a08", "role": "assistant", "text": "Congratulations on the move!"},
                {"id": "a09", "role": "user", "text": "I also adopted a dog called Bolacha."},
                {"id": "a10", "role": "assistant", "text": "What breed is Bolacha?"}]}],
         "probes": [
             {"id": "p-city", "after_turn": "a10", "question": "Which city does Lea live in now?",
              "category": "knowledge_update", "gold": "Braga", "superseded": ["Porto"], "evidence": ["a07"]},
             {"id": "p-dog", "after_turn": "a10", "question": "What is the name of Lea's dog?",
              "category": "single_hop", "gold": "Bolacha", "evidence": ["a09"]},
             {"id": "p-cello", "after_turn": "a10", "question": "Which instrument does Lea's sister play?",
              "category": "single_hop", "gold": "cello", "evidence": ["a05"]},
             {"id": "p-brother", "after_turn": "a10", "question": "What is Lea's brother called?",
              "category": "abstention", "abstain": True}]},
        {"id": "lea-2", "namespace": "lea", "sessions": [
            {"id": "s3", "timestamp": "2024-05-02T08:30:00", "turns": [
                {"id": "b01", "role": "user", "text": "Morning! Planning a trip to Lisbon in June."},
                {"id": "b02", "role": "assistant", "text": "Sounds fun."},
                {"id": "b03", "role": "user", "text": "My bike is a green Brompton."},
                {"id": "b04", "role": "assistant", "text": "Nice bike."}]}],
         "probes": [
             {"id": "p-job", "after_turn": "b04", "question": "What is Lea's job?", "category": "single_hop",
              "gold": "nurse", "evidence": ["a01"]},
             {"id": "p-bike", "after_turn": "b04", "question": "What colour is Lea's bike?", "category": "single_hop",
              "gold": "green", "evidence": ["b03"]}]},
        {"id": "tom-1", "namespace": "tom", "sessions": [
            {"id": "s1", "timestamp": "2024-02-11T20:00:00", "turns": [
                {"id": "c01", "role": "user", "text": "I teach chemistry at a high school in Leeds."},
                {"id": "c02", "role": "assistant", "text": "How many classes do you teach?"},
                {"id": "c03", "role": "user", "text": "Five classes, and I coach the chess club on Fridays."},
                {"id": "c04", "role": "assistant", "text": "Busy week."},
                {"id": "c05", "role": "user", "text": "My cat Pixel sleeps all day."},
                {"id": "c06", "role": "assistant", "text": "Cats do."}]}],
         "probes": [
             {"id": "p-subject", "after_turn": "c06", "question": "Which subject does Tom teach?",
              "category": "single_hop", "gold": "chemistry", "evidence": ["c01"]},
             {"id": "p-club", "after_turn": "c06", "question": "Which club does Tom coach?", "category": "single_hop",
              "gold": "chess", "evidence": ["c03"]}]},
    ],
}


def strategies(window: int) -> list[dict[str, Any]]:
    return [{"name": "no_memory"}, {"name": "full_context"},
            {"name": "window", "short_term": {"type": "recent_window", "n": window}},
            {"name": "fact_rag", "store": {"type": "in_memory"}}]


def play(tmp: Path, name: str, dataset: dict[str, Any], strats: list[dict[str, Any]], file: str) -> Path:
    from memlab.harness.config import RunConfig
    from memlab.harness.runner import Runner

    data_path = tmp / file
    if not data_path.exists():
        data_path.write_text(yaml.safe_dump(dataset, sort_keys=False, allow_unicode=True) if file.endswith(".yaml")
                             else json.dumps(dataset, ensure_ascii=False), encoding="utf-8")
    cfg = RunConfig.model_validate({
        "name": name, "description": f"viewer test run {name}", "datasets": [str(data_path)],
        "output_dir": str(tmp / "results"), "embedding_cache": str(tmp / "emb.npz"),
        "strategies": strats})
    return Runner(cfg, progress=False).run()


def main_run(tmp: Path) -> Path:
    return play(tmp, "main", DATASET, strategies(2), "view_fixture.yaml")


def after_run(tmp: Path) -> Path:
    return play(tmp, "after", DATASET, strategies(8), "view_fixture.yaml")


BIG_TURN_CHARS = 1_000_000
LONG_CONTEXT_LINES = 10_000


def hostile_dataset() -> dict[str, Any]:
    big = ("Lorem ipsum dolor sit amet, " * (BIG_TURN_CHARS // 28 + 1))[:BIG_TURN_CHARS - 30] + " The hint is Zebra."
    return {"name": "hostile", "description": "Hostile strings for tests/test_view_browser.py.", "conversations": [
        {"id": "h1", "namespace": "eve", "sessions": [{"id": "s1", "timestamp": "2024-01-01T10:00:00", "turns": [
            {"id": "t1", "role": "user", "text": SCRIPT},
            {"id": "t2", "role": "assistant", "text": "</textarea><svg onload=alert(3)>"},
            {"id": "t3", "role": "user", "text": SEPARATOR_TURN},
            {"id": "t4", "role": "assistant", "text": "Noted."},
            {"id": "t5", "role": "user", "text": big},
            {"id": "t6", "role": "assistant", "text": "That is long."}]}],
         "probes": [
             {"id": "p-city", "after_turn": "t6", "question": "Where did the user move? <b>bold</b>",
              "category": "single_hop", "gold": "Oslo", "evidence": ["t3"]},
             {"id": "p-hint", "after_turn": "t6", "question": "What is the hint?", "category": "single_hop",
              "gold": "Zebra", "evidence": ["t5"]},
             {"id": "p-long", "after_turn": "t6", "question": "Which bay does the user park at?",
              "category": "single_hop", "gold": "bay 14", "evidence": ["t1"]}]}]}


def hostile_run(tmp: Path) -> Path:
    """The hostile run; probe ``p-long`` of full_context then holds a 10,000-line context whose
    line 7,000 comes from the evidence turn and carries the gold form."""
    run = play(tmp, "hostile", hostile_dataset(), [{"name": "no_memory"}, {"name": "full_context"}], "hostile.json")
    path = run / "probes.jsonl"
    out = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        rec = json.loads(line)
        if rec["strategy"] == "full_context" and rec["probe_id"] == "p-long":
            items = [{"text": f"[2024-01-01] filler {i} <i>not markup</i>", "source_turn_ids": ["t4"], "kind": "turn",
                      "section": "Conversation history"} for i in range(LONG_CONTEXT_LINES)]
            items[7000] = {"text": "[2024-01-01] user: I park at bay 14 <script>alert(4)</script>", "source_turn_ids": ["t1"],
                           "kind": "turn", "section": "Conversation history"}
            rec["context_items"] = items
            rec["context"] = "\n".join(i["text"] for i in items)
            rec["context_lines"] = len(items)
            rec["context_source_turn_ids"] = ["t1", "t4"]
        out.append(json.dumps(rec, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return run


_BUILT: dict[str, Path] = {}


def shared(tmp_path_factory: Any, name: str) -> Path:
    """The run ``name`` (main, after, hostile), played once per test session and shared by the test
    modules (they read it, or copy it before changing anything)."""
    if name not in _BUILT:
        if "_tmp" not in _BUILT:
            _BUILT["_tmp"] = tmp_path_factory.mktemp("view_runs")
        _BUILT[name] = {"main": main_run, "after": after_run, "hostile": hostile_run}[name](_BUILT["_tmp"])
    return _BUILT[name]


def partial_copy(run: Path, dest: Path, units_kept: int) -> Path:
    """A copy of ``run`` as it stood while being written: the first ``units_kept`` units ended, the
    probes of those units, half a record torn at the end of probes.jsonl, status ``running``."""
    shutil.copytree(run, dest, ignore=shutil.ignore_patterns(".view", ".lock"))
    units = [json.loads(x) for x in (run / "units.jsonl").read_text().splitlines() if x.strip()]
    ends = [u for u in units if u["event"] == "end"][:units_kept]
    keep = {u["attempt"] for u in ends}
    (dest / "units.jsonl").write_text("".join(json.dumps(u) + "\n" for u in units if u["attempt"] in keep))
    for stream in ("probes", "calls", "turns", "memory_ops"):
        lines = [x for x in (run / f"{stream}.jsonl").read_text(encoding="utf-8").split("\n") if x.strip()]
        kept = [x for x in lines if json.loads(x)["attempt"] in keep]
        tail = ""
        if stream == "probes":
            rest = [x for x in lines if json.loads(x)["attempt"] not in keep]
            tail = rest[0][: len(rest[0]) // 2] if rest else ""
        (dest / f"{stream}.jsonl").write_text("".join(x + "\n" for x in kept) + tail, encoding="utf-8")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["status"] = "running"
    (dest / "manifest.json").write_text(json.dumps(manifest))
    return dest


def finish_copy(run: Path, dest: Path) -> None:
    """Bring a :func:`partial_copy` to the run's final state as its writer would: by appending (the
    torn record completed first)."""
    for stream in ("units", "probes", "calls", "turns", "memory_ops"):
        have = (dest / f"{stream}.jsonl").read_bytes()
        cut = have.rfind(b"\n") + 1
        kept = {json.loads(x)["attempt"] for x in have[:cut].splitlines() if x.strip()}
        rest = [x for x in (run / f"{stream}.jsonl").read_bytes().split(b"\n")
                if x.strip() and json.loads(x)["attempt"] not in kept]
        torn = have[cut:]
        if torn:
            assert rest and rest[0].startswith(torn), f"{stream}: the torn tail is not the next record"
            rest[0] = rest[0][len(torn):]
        with open(dest / f"{stream}.jsonl", "ab") as fh:
            fh.write(b"\n".join(rest) + b"\n" if rest else b"")
    (dest / "manifest.json").write_bytes((run / "manifest.json").read_bytes())
