"""The design report (memlab.analysis.html_report): its structure, escaping, drill-down and secrecy without a
browser, and its rendering in a real headless Chromium (Debian's package; scripts/browser.sh)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

from memlab.cli import main
from memlab.harness.config import RunConfig
from memlab.analysis.html_report import build_report, render_html, report_html, report_markdown, write_reports
from memlab.analysis.plots import pareto_front
from memlab.harness.runner import Runner

SCRIPT_TURN = 'My locker code is <script>alert("pwned")</script> and I park at bay 14.'
SECTIONS = ["question", "strategies", "datasets", "metrics", "recall-vs-tokens", "categories", "updates-abstention", "cost",
            "write-path", "compression", "failed-probes", "manifest"]

DATASET = {
    "name": "report-fixture",
    "description": "Hand-written for tests/test_html_report.py (not evaluation data).",
    "conversations": [{
        "id": "lea", "namespace": "lea",
        "sessions": [
            {"id": "s1", "timestamp": "2024-03-01T09:00:00", "turns": [
                {"id": "s1-01", "role": "user", "text": "I live in Porto and I work as a nurse at the city hospital."},
                {"id": "s1-02", "role": "assistant", "text": "Nice, how long have you been a nurse?"},
                {"id": "s1-03", "role": "user", "text": SCRIPT_TURN},
                {"id": "s1-04", "role": "assistant", "text": "Got it."},
                {"id": "s1-05", "role": "user", "text": "My sister Ines plays the cello in an orchestra."},
                {"id": "s1-06", "role": "assistant", "text": "Lovely."},
            ]},
            {"id": "s2", "timestamp": "2024-04-10T18:00:00", "turns": [
                {"id": "s2-01", "role": "user", "text": "Big news: I moved from Porto to Braga last week."},
                {"id": "s2-02", "role": "assistant", "text": "Congratulations on the move!"},
                {"id": "s2-03", "role": "user", "text": "I also adopted a dog called Bolacha."},
                {"id": "s2-04", "role": "assistant", "text": "What breed is Bolacha?"},
            ]},
        ],
        "probes": [
            {"id": "p-city", "after_turn": "s2-04", "question": "Which city does Lea live in now?",
             "category": "knowledge_update", "gold": "Braga", "superseded": ["Porto"], "evidence": ["s2-01"]},
            {"id": "p-dog", "after_turn": "s2-04", "question": "What is the name of Lea's dog?",
             "category": "single_hop", "gold": "Bolacha", "evidence": ["s2-03"]},
            # the gold is written in no turn: every strategy fails it, so it is always in the drill-down
            {"id": "p-locker", "after_turn": "s2-04", "question": "Which floor is Lea's locker on?",
             "category": "single_hop", "gold": "third floor", "evidence": ["s1-03"]},
            {"id": "p-brother", "after_turn": "s2-04", "question": "What is Lea's brother called?",
             "category": "abstention", "abstain": True},
        ],
    }],
}


def _run(tmp: Path, name: str, strategies: list[dict]) -> Path:
    data_path = tmp / "report_fixture.yaml"
    if not data_path.exists():
        data_path.write_text(yaml.safe_dump(DATASET, sort_keys=False), encoding="utf-8")
    cfg = RunConfig.model_validate({
        "name": name, "description": f"Question of {name}: which memory keeps Lea's facts?",
        "datasets": [str(data_path)], "output_dir": str(tmp / "results"),
        "embedding_cache": str(tmp / "emb.npz"), "strategies": strategies})
    return Runner(cfg, progress=False).run()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("html_report")
    main_run = _run(tmp, "main", [
        {"name": "no_memory"}, {"name": "full_context"},
        {"name": "summary", "short_term": {"type": "summarizing", "trigger": {"type": "every_n_steps", "n": 4}, "keep_recent": 2}},
        {"name": "fact_rag", "store": {"type": "in_memory"}}])
    other_run = _run(tmp, "other", [{"name": "recent_window", "short_term": {"type": "recent_window", "n": 2}}])
    return main_run, other_run


@pytest.fixture(scope="module")
def report_file(runs, tmp_path_factory) -> Path:
    return report_html([runs[0]], tmp_path_factory.mktemp("out") / "report.html")


def _case(page: str, strategy: str, probe: str) -> str:
    m = re.search(rf'<details class="case" data-probe="{probe}" data-strategy="{strategy}">(.*?)</details>', page, re.S)
    assert m, f"no drill-down for {strategy}/{probe}"
    return m.group(1)


@pytest.mark.slow
def test_report_has_every_section_and_needs_no_network(report_file: Path):
    page = report_file.read_text(encoding="utf-8")
    for section in SECTIONS:
        assert f'<section id="{section}">' in page, section
    assert "Question of main: which memory keeps Lea" in page
    assert "sha256:" in page  # dataset hash in the dataset card and the manifest facts
    assert not re.search(r'(src|href)="(https?:)?//', page), "the report must not load anything from the network"
    images = re.findall(r'<img class="plot"[^>]*src="([^"]+)"', page)
    declared = int(re.search(r'data-plots="(\d+)"', page).group(1))
    assert declared == len(images) >= 7  # tokens, category, updates, abstention, cost, write path, compression
    assert all(src.startswith("data:image/png;base64,") for src in images)
    compression = page.split('<section id="compression">')[1].split("</section>")[0]
    assert "every_n_steps" in compression and '<img class="plot"' in compression


@pytest.mark.slow
def test_dataset_text_is_escaped(report_file: Path):
    page = report_file.read_text(encoding="utf-8")
    assert 'alert("pwned")' not in page and "<script>alert" not in page
    assert "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;" in page  # shown as text in the full_context drill-down
    assert page.count("<script>") == 1  # only the report's own plot-loaded check


@pytest.mark.slow
def test_failed_probe_drilldown_marks_the_evidence_lines(report_file: Path):
    case = _case(report_file.read_text(encoding="utf-8"), "full_context", "p-locker")
    assert "gold not in context" in case and "third floor" in case
    lines = re.findall(r'<div class="ctx[^"]*" data-evidence="(true|false)">(.*?)</div>', case, re.S)
    marked = [text for flag, text in lines if flag == "true"]
    assert len(lines) >= 8  # full_context injects every turn so far
    assert len(marked) == 1 and "park at bay 14" in marked[0] and "[s1-03]" in marked[0]
    assert all("[s1-03]" not in text for flag, text in lines if flag == "false")


@pytest.mark.slow
def test_secrets_in_a_manifest_never_reach_the_report(runs, tmp_path: Path):
    planted = tmp_path / "run"
    shutil.copytree(runs[0], planted)
    manifest = json.loads((planted / "manifest.json").read_text())
    manifest["models"]["default"]["base_url"] = "https://user:hunter2pass@llm.example/v1?api_key=sk-planted-key"
    manifest["config"]["store_options"] = {"postgres": {"dsn": "postgresql://memlab:hunter2pass@db/memlab"}}
    (planted / "manifest.json").write_text(json.dumps(manifest))
    html_out, md_out = write_reports([planted], html=tmp_path / "r.html", md=tmp_path / "md" / "r.md")
    page, md = html_out.read_text(encoding="utf-8"), md_out.read_text(encoding="utf-8")
    for text in (page, md):
        assert "hunter2pass" not in text and "sk-planted-key" not in text
    assert "llm.example" in page  # the endpoint is named, its credentials masked


@pytest.mark.slow
def test_an_incomplete_run_is_flagged_in_the_question(runs, report_file: Path, tmp_path: Path):
    partial = tmp_path / "run"
    shutil.copytree(runs[0], partial)
    manifest = json.loads((partial / "manifest.json").read_text())
    manifest["status"] = "failed"
    (partial / "manifest.json").write_text(json.dumps(manifest))
    page = render_html(build_report([partial]))
    question = page.split('<section id="question">')[1].split("</section>")[0]
    assert "is not complete (status failed" in question
    assert "is not complete" not in report_file.read_text(encoding="utf-8")  # the same run, completed


@pytest.mark.slow
def test_a_run_without_answered_probes_still_gets_a_report(runs, tmp_path: Path):
    empty = tmp_path / "run"
    shutil.copytree(runs[0], empty)
    for stream in ("probes", "memory_ops", "calls", "compressions"):
        (empty / f"{stream}.jsonl").write_text("")
    report = build_report([empty])
    page = render_html(report)
    assert report.plots == [] and 'data-plots="0"' in page
    assert "No probes were answered" in page and "No probe failed" not in page


@pytest.mark.slow
def test_several_runs_side_by_side_labelled_by_run(runs, tmp_path: Path):
    page = report_html(list(runs), tmp_path / "both.html").read_text(encoding="utf-8")
    metrics = page.split('<section id="metrics">')[1].split("</section>")[0]
    for label in ("full_context @ main", "fact_rag @ main", "recent_window @ other"):
        assert f"<td>{label}</td>" in metrics
    assert "Question of other" in page and "Question of main" in page


@pytest.mark.slow
def test_markdown_variant_writes_its_plots_beside_it(runs, tmp_path: Path):
    out = report_markdown([runs[0]], tmp_path / "docs" / "design.md")
    text = out.read_text(encoding="utf-8")
    pngs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(pngs) >= 5
    for name in pngs:
        assert (out.parent / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "▶ **" in text  # an evidence line marked in the drill-down


@pytest.mark.slow
def test_cli_writes_the_reports_and_refuses_several_runs_without_one(runs, tmp_path: Path, capsys, monkeypatch):
    import base64
    import re

    from memlab.analysis import html_report

    built = []
    real_build = html_report.build_report
    monkeypatch.setattr(html_report, "build_report", lambda run_dirs: built.append(run_dirs) or real_build(run_dirs))
    assert main(["report", str(runs[0]), str(runs[1]), "--html", str(tmp_path / "r.html"), "--md", str(tmp_path / "r.md")]) == 0
    assert (tmp_path / "r.html").stat().st_size > 0 and (tmp_path / "r.md").stat().st_size > 0
    assert len(built) == 1  # one report read and drawn, rendered twice
    # the same plots in both: each PNG beside the markdown is one the HTML embeds
    embedded = {base64.b64decode(b) for b in re.findall(r'data:image/png;base64,([A-Za-z0-9+/=]+)', (tmp_path / "r.html").read_text())}
    beside = [f for f in tmp_path.glob("r*.png")]
    assert beside and all(f.read_bytes() in embedded for f in beside)
    assert main(["report", str(runs[0]), str(runs[1])]) == 2
    assert "--html" in capsys.readouterr().err


def test_pareto_front_keeps_only_undominated_points():
    import pandas as pd

    points = pd.DataFrame({"recall": [0.0, 0.8, 0.7, 0.9, 0.9], "tokens": [0.0, 300.0, 400.0, 1500.0, 2000.0]},
                          index=["none", "rag", "worse_rag", "full", "fuller"])
    assert pareto_front(points) == {"none", "rag", "full"}


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium(*args: str) -> subprocess.CompletedProcess:
    binary = shutil.which("chromium")
    if binary is None:
        pytest.fail("chromium is not installed: run `bash scripts/browser.sh` (scripts/test.sh does) and re-run")
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                              text=True, timeout=120)


@pytest.mark.slow
def test_report_renders_in_headless_chromium(report_file: Path, tmp_path: Path):
    import matplotlib.pyplot as plt

    url = report_file.resolve().as_uri()
    dom = _chromium("--virtual-time-budget=5000", "--dump-dom", url)
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body, f"chromium printed no DOM (rc {dom.returncode}): {dom.stderr[-500:]}"
    declared = int(re.search(r'data-plots="(\d+)"', body.group(0)).group(1))
    loaded = re.search(r'data-plots-loaded="(\d+)"', body.group(0))
    assert loaded, "the report's load script did not run"
    assert declared >= 5 and int(loaded.group(1)) == declared, "every plot must decode in the browser"
    # the small report fits a narrow page too (Chromium's default 800 px window)
    assert re.search(r'data-too-wide="0"', body.group(0)), body.group(0)
    page, scroll = (int(re.search(rf'{k}="(\d+)"', body.group(0)).group(1)) for k in ("data-page-width", "data-scroll-width"))
    assert scroll <= page
    shot = tmp_path / "report.png"
    _chromium(f"--screenshot={shot}", "--window-size=1400,3000", url)
    pixels = plt.imread(shot)
    assert pixels.shape[:2] == (3000, 1400)
    assert pixels[..., :3].std() > 0.05, "the screenshot is blank"


def test_a_probe_case_shows_the_judge_verdict_and_marks_items_citing_any_evidence_turn():
    from memlab.analysis.html_report import _case
    from memlab.analysis.report_render import _html_case

    record = {"strategy": "s", "dataset": "d", "conversation_id": "c", "probe_id": "p1", "category": "single_hop",
              "question": "Where?", "gold": [["Braga"]], "gold_match": "any", "answer": "Porto", "abstain": False,
              "evidence": ["t2", "t9"], "context_source_turn_ids": ["t1", "t2"], "answer_correct": 0.0,
              "evidence_recall": 1.0, "judge": {"correct": False, "reason": "says <b>Porto</b>"},
              "context_items": [{"text": "lives in Porto", "source_turn_ids": ["t1"], "kind": "fact", "section": "Facts"},
                                {"text": "moved to Braga", "source_turn_ids": ["t1", "t2"], "kind": "fact", "section": "Facts"}]}
    case = _case("s", record)
    assert case.reasons == ["answer wrong"] and case.missing_evidence == ["t9"]
    assert [line.evidence for line in case.lines] == [False, True]
    page = _html_case(case)
    assert "says &lt;b&gt;Porto&lt;/b&gt;" in page and "<b>Porto</b>" not in page
    assert "not in context: t9" in page


def test_a_failed_probe_says_where_the_gold_was_found_or_which_line_came_nearest():
    """The drill-down carries each metric's explanation (memlab.scoring.explain), so a reader sees
    *why* a probe scored 0 without opening the run folder — escaped like every dataset string."""
    from memlab.analysis.html_report import _case
    from memlab.analysis.report_model import Report, Section
    from memlab.analysis.report_render import _html_case, render_markdown

    items = [{"text": "moved to Lisbo<n> last spring", "source_turn_ids": ["t3"], "kind": "fact", "section": "Facts"},
             {"text": "likes green tea", "source_turn_ids": ["t1"], "kind": "fact", "section": "Facts"}]
    record = {"strategy": "s", "dataset": "d", "conversation_id": "c", "probe_id": "p2", "category": "single_hop",
              "question": "Where does she live?", "gold": [["Lisbon"]], "gold_match": "any", "answer": "Paris",
              "abstain": False, "evidence": ["t3"], "context_source_turn_ids": ["t3", "t1"],
              "context": "\n".join(i["text"] for i in items), "context_items": items, "answer_correct": 0.0,
              "evidence_recall": 0.0}
    case = _case("s", record)
    why = dict(case.explanations)
    assert "evidence_recall" in why and "nearest" in why["evidence_recall"] and "line 1 of Facts" in why["evidence_recall"]
    hit = dict(_case("s", {**record, "gold": [["green tea"]]}).explanations)
    assert hit["evidence_recall"].startswith("found 'green tea' in line 2 of Facts")
    page = _html_case(case)
    assert 'data-metric="evidence_recall"' in page and "Lisbo&lt;n&gt;" in page and "Lisbo<n>" not in page
    md, _ = render_markdown(Report("t", [Section("f", "Failed probes", [case])]), "r")
    assert "  - evidence\\_recall: " in md or "  - evidence_recall: " in md


# ---- 20 strategies: the report stays readable -------------------------------------------------

TWENTY = ([{"name": "no_memory"}, {"name": "full_context"}, {"name": "oracle"}]
          + [{"name": f"recent_window_last_{n}_messages", "short_term": {"type": "recent_window", "n": n}} for n in (1, 2, 3, 4, 6, 8)]
          + [{"name": f"message_rag_top_{k}", "preset": "message_rag", "retriever": {"type": "vector", "k": k}} for k in (1, 2, 4, 8)]
          + [{"name": f"fact_rag_top_{k}_in_memory", "preset": "fact_rag", "store": {"type": "in_memory"},
              "retriever": {"type": "vector", "k": k}} for k in (1, 3, 8)]
          + [{"name": f"summary_every_{n}_steps", "short_term": {"type": "summarizing",
                                                               "trigger": {"type": "every_n_steps", "n": n}, "keep_recent": 2}}
             for n in (2, 4, 6)]
          + [{"name": "agent_chat"}])


@pytest.fixture(scope="module")
def twenty(tmp_path_factory) -> Path:
    """A run of 20 strategies (long names, long component lists) on two users of the fixture."""
    import copy

    tmp = tmp_path_factory.mktemp("twenty")
    data = copy.deepcopy(DATASET)
    second = copy.deepcopy(data["conversations"][0])
    second["id"] = second["namespace"] = "lea-2"
    second["sessions"][1]["turns"][2]["text"] = "I also adopted a cat. Her name is Bolacha."
    data["conversations"].append(second)
    path = tmp / "twenty.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    cfg = RunConfig.model_validate({
        "name": "twenty", "description": "Twenty strategies side by side: does the report stay readable?",
        "datasets": [str(path)], "output_dir": str(tmp / "results"), "embedding_cache": str(tmp / "emb.npz"),
        "strategies": TWENTY})
    assert len(TWENTY) == 20
    return report_html([Runner(cfg, progress=False).run()], tmp / "twenty.html")


def _layout(report: Path, width: int) -> dict[str, str]:
    """The body attributes the report's load script sets, in Chromium at ``width`` px."""
    dom = _chromium("--virtual-time-budget=5000", f"--window-size={width},1000", "--dump-dom", report.resolve().as_uri())
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body, f"chromium printed no DOM (rc {dom.returncode}): {dom.stderr[-500:]}"
    return dict(re.findall(r'(data-[\w-]+)="([^"]*)"', body.group(0)))


@pytest.mark.slow
@pytest.mark.parametrize("width", [1400, 900])
def test_twenty_strategies_fit_the_page_and_every_plot_renders(twenty: Path, width: int, tmp_path: Path):
    attrs = _layout(twenty, width)
    assert "data-too-wide" in attrs, "the report's layout check did not run"
    assert attrs["data-too-wide"] == "0", f"elements wider than the page at {width}px: {attrs['data-too-wide-first']}"
    assert int(attrs["data-scroll-width"]) <= int(attrs["data-page-width"]), "the page scrolls sideways"
    assert int(attrs["data-plots"]) >= 6 and attrs["data-plots-loaded"] == attrs["data-plots"]
    if width == 1400:
        import matplotlib.pyplot as plt

        shot = tmp_path / "twenty.png"
        _chromium(f"--screenshot={shot}", "--window-size=1400,4000", twenty.resolve().as_uri())
        assert plt.imread(shot)[..., :3].std() > 0.05, "the screenshot is blank"


@pytest.mark.slow
def test_twenty_strategies_read_as_rows_with_answers_apart(twenty: Path):
    page = twenty.read_text(encoding="utf-8")
    metrics = page.split('<section id="metrics">')[1].split("</section>")[0]
    memory, answers = metrics.split("What the answering model made of it")
    assert "str.recall" in memory and "answer" not in memory.split("</thead>")[0]
    assert 'class="warn"' in answers and "offline extractive stand-in" in answers and "answer† ↑" in answers
    assert all(f"<td>{s['name']}</td>" in memory for s in TWENTY)
    assert '<span class="ci">' in memory  # intervals on a line of their own: narrow columns
    assert "<caption>" not in page  # captions below the scroll box, wrapping to the page


def test_one_colour_per_strategy_the_same_in_every_plot():
    from memlab.analysis.plots import strategy_colors

    labels = [f"s{i}" for i in range(20)]
    colors = strategy_colors(labels)
    assert len(set(colors.values())) == 20
    assert [colors[x] for x in labels[:10]] == list(strategy_colors(labels[:10]).values())  # a small report's colours kept
    assert len(set(strategy_colors([f"s{i}" for i in range(31)]).values())) == 31
    assert strategy_colors(["a", "b", "a"]) == strategy_colors(["a", "b"])


def test_many_strategies_become_a_ranked_dot_plot_and_few_get_labels_that_do_not_overlap():
    import pandas as pd

    from memlab.analysis.plots import MANY, place_labels, recall_vs_tokens_figure

    many = pd.DataFrame({"recall": [i / 20 for i in range(20)], "ci_low": [0.0] * 20, "ci_high": [1.0] * 20,
                         "tokens": [100.0 + i for i in range(20)]}, index=[f"strategy_{i:02d}" for i in range(20)])
    fig = recall_vs_tokens_figure(many, "t", "f", mark_pareto=True)
    ax = fig.axes[0]
    assert len(fig.axes) == 2 and [t.get_text() for t in ax.get_yticklabels()][0] == "strategy_19"  # best first, top
    few = many.iloc[:MANY].assign(recall=0.5, tokens=100.0)  # eight strategies on one spot
    fig = recall_vs_tokens_figure(few, "t", "f")
    texts = [t for t in fig.axes[0].texts if t.get_text().startswith("strategy_")]
    assert len(texts) == MANY
    from matplotlib.text import Text

    renderer = fig.canvas.get_renderer()
    boxes = [Text.get_window_extent(t, renderer) for t in texts]  # the label itself, not its leader line
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), "labels overlap"
    assert callable(place_labels)
