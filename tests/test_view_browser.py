"""``memlab view`` in a real browser: Debian's Chromium (scripts/browser.sh) driven by Playwright,
against the command a user runs (``memlab view RUN_DIR --no-browser``) on real runs
(tests/support/view_runs.py).

A user's path: filter to one strategy's misses, open a probe and find the gold form highlighted,
switch to the comparison, open the timeline at the evidence turn. A hostile run (markup in turns and
questions, U+2028, a 1 MB turn, a 10,000-line context) renders as text, with a bounded page. A run
still being written shows what is recorded so far, and more after a reload. A wrong token gets 403.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import view_runs

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]


def _chromium() -> str:
    binary = shutil.which("chromium")
    if not binary:
        pytest.fail("chromium is not installed: run `bash scripts/browser.sh` (scripts/test.sh does) and re-run")
    return binary


class Viewer:
    """``memlab view`` in a child process, as a user starts it; stopped by its pid."""

    def __init__(self, *run_dirs: Path, **env_vars: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), **env_vars)
        self.proc = subprocess.Popen([sys.executable, "-m", "memlab.cli", "view", *map(str, run_dirs), "--no-browser"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
        self.url = ""
        seen = []
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            seen.append(line)
            if line.startswith("memlab view: http://127.0.0.1:"):
                self.url = line.split("memlab view: ", 1)[1].strip()
                break
        if not self.url:
            self.proc.wait(10)
            raise AssertionError(f"memlab view did not start (rc {self.proc.returncode}): {''.join(seen)[-2000:]}")
        self.base = self.url.split("#", 1)[0]
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()  # keep the pipe drained

    def route(self, route: str) -> str:
        return f"{self.base}#{route}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    return {"main": view_runs.shared(tmp_path_factory, "main"), "hostile": view_runs.shared(tmp_path_factory, "hostile"),
            "tmp": tmp_path_factory.mktemp("view_browser")}


@pytest.fixture(scope="module")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    pg.dialogs = []
    pg.errors = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    ctx.close()


def _ready(page, timeout: float = 60_000) -> None:
    page.wait_for_selector("body[data-ready='1']", timeout=timeout)
    err = page.evaluate("document.body.getAttribute('data-error')")
    assert not err, err
    assert page.evaluate("document.body.getAttribute('data-too-wide')") == "0"  # nothing runs off the page


def _until(page, js: str, timeout: float = 60.0) -> None:
    """Poll ``js`` in the page until it is true (Playwright's wait_for_function evaluates a string,
    which the viewer's Content-Security-Policy forbids — as it should)."""
    end = time.monotonic() + timeout
    while not page.evaluate(js):
        assert time.monotonic() < end, f"never true: {js}"
        time.sleep(0.1)


def _goto(page, url: str) -> None:
    page.goto("about:blank")  # a new hash on the same page would not reload: start from a blank page
    page.goto(url)
    _ready(page)


def _choose(page, name: str, value: str) -> None:
    page.evaluate("document.body.setAttribute('data-ready', '0')")
    page.select_option(f"select[name={name}]", value)
    _ready(page)


@pytest.fixture(scope="module")
def main_viewer(built) -> Iterator[Viewer]:
    v = Viewer(built["main"], MEMLAB_VIEW_FULL_SIDES="2")  # a probe page sends 2 contexts; the others load when opened
    yield v
    v.stop()


def test_a_user_filters_misses_opens_a_probe_compares_and_opens_the_timeline(main_viewer, page):
    _goto(page, main_viewer.url)
    assert page.locator("table.summary tbody tr").count() == 4
    page.click("nav >> text=Probes")
    _ready(page)
    _choose(page, "strategy", "window")
    _choose(page, "metric", "evidence_recall")
    _choose(page, "outcome", "miss")
    rows = page.locator("table.probes tbody tr")
    assert rows.count() > 0
    assert set(rows.evaluate_all("rs => rs.map(r => r.dataset.strategy)")) == {"window"}
    assert "p-city" in rows.evaluate_all("rs => rs.map(r => r.dataset.probe)")

    page.evaluate("document.body.setAttribute('data-ready', '0')")
    page.click("tr[data-probe='p-city'] a")
    _ready(page)
    window = page.locator("details[data-strategy='window']")  # the strategy whose miss was opened: sent whole
    assert window.locator(".ctx").count() == 1 and window.locator(".line.evidence").count() == 0  # its window missed the turn
    lazy = page.locator("details.lazy[data-strategy='full_context']")  # more strategies than sent whole: on demand
    assert lazy.count() == 1 and lazy.locator(".ctx").count() == 0
    lazy.locator("summary").click()
    _until(page, "document.querySelector(\"details[data-strategy='full_context'] .ctx .line.evidence mark.gold\") !== null")
    assert page.locator("details[data-strategy='full_context'] .line.evidence mark.gold").first.text_content() == "Braga"

    page.evaluate("document.body.setAttribute('data-ready', '0')")
    page.select_option("select[aria-label='compare with']", "full_context")
    _ready(page)
    assert page.locator("#pair [data-side='A'] h3").text_content().startswith("A: window")
    assert page.locator("#pair [data-side='B'] .line.only").count() > 0  # what full_context holds and the window does not

    _goto(page, main_viewer.route("/probe?run=0&dataset=view-fixture&conversation=lea-1&probe=p-city&strategy=fact_rag"))
    page.evaluate("document.body.setAttribute('data-ready', '0')")
    page.click("ul.evidence li[data-turn='a07'] a")
    _ready(page)
    focus = page.locator(".turn.focus")
    assert focus.get_attribute("data-turn") == "a07" and "Braga" in focus.text_content()
    assert "ADD" in focus.text_content()  # fact_rag wrote it at that turn
    assert page.locator("#story").count() == 1 and page.locator(".store .item.evidence").count() >= 1
    assert not page.errors


def test_a_wrong_token_gets_403(main_viewer, page):
    wrong = main_viewer.base.replace("token=", "token=x")
    response = page.goto(wrong)
    assert response.status == 403 and "wrong or missing token" in page.content()
    api = page.request.get(main_viewer.base.split("?", 1)[0] + "api/runs")
    assert api.status == 403
    ok = page.request.get(main_viewer.base.split("?", 1)[0] + "api/runs", headers={"X-Memlab-Token": main_viewer.base.split("token=", 1)[1]})
    assert ok.status == 200


def test_a_hostile_run_renders_as_text_with_a_bounded_page(built, page):
    v = Viewer(built["hostile"])
    try:
        _goto(page, v.route("/probe?run=0&dataset=hostile&conversation=h1&probe=p-long&strategy=full_context"))
        ctx = page.locator("details[data-strategy='full_context'] .ctx")
        assert ctx.get_attribute("data-total") == str(view_runs.LONG_CONTEXT_LINES)
        shown = ctx.locator(".line").count()
        assert 300 <= shown <= 310  # the first window and the evidence line, not 10,000
        evidence = ctx.locator(".line.evidence")
        assert evidence.count() == 1 and "<script>alert(4)</script>" in evidence.text_content()
        assert evidence.locator("mark.gold").text_content() == "bay 14"
        ctx.locator(".gap").first.click()
        _until(page, f"document.querySelectorAll(\"details[data-strategy='full_context'] .ctx .line\").length > {shown}")
        assert ctx.locator(".line").count() <= shown + 1000
        assert "<img src=x onerror=alert(2)>" in page.locator("main").text_content()  # t1 is the evidence turn: shown as text

        _goto(page, v.route("/probe?run=0&dataset=hostile&conversation=h1&probe=p-hint"))
        big = page.locator("ul.evidence li[data-turn='t5']")
        assert len(big.locator(".turn-text").text_content()) <= 4000
        cut = page.locator("details[data-strategy='full_context'] .line button")
        assert cut.count() == 1 and "more characters" in cut.text_content()  # the 1 MB turn as a context line
        big.locator("button").click()
        _until(page, "document.querySelector(\"li[data-turn='t5'] .turn-text\").textContent.length > 900000")
        assert big.locator(".turn-text").text_content().endswith("The hint is Zebra.")

        _goto(page, v.route("/probe?run=0&dataset=hostile&conversation=h1&probe=p-city"))
        assert page.locator("h1").text_content() == "Where did the user move? <b>bold</b>"
        assert "\u2028" in page.locator("ul.evidence li[data-turn='t3'] .turn-text").text_content()
        _goto(page, v.route("/timeline?run=0&strategy=full_context&dataset=hostile&user=eve"))
        assert page.locator(".turn").count() == 6
        big_turn = page.locator(".turn[data-turn='t5']")
        assert len(big_turn.locator(".turn-text").text_content()) <= 300 and "show all" in big_turn.locator("button").text_content()
        for route in ("/runs", "/probes?run=0", "/compare?run=0&a=full_context&b=no_memory&dataset=hostile&conversation=h1&probe=p-long"):
            _goto(page, v.route(route))
        assert page.evaluate("document.querySelectorAll('script').length") == 1  # app.js only
        assert page.evaluate("document.querySelectorAll('main img, main svg [onload], main [onerror], main [onload]').length") == 0
        assert not page.evaluate("[...document.querySelectorAll('main b')].some(b => b.textContent === 'bold')")
        assert not page.dialogs and not page.errors
    finally:
        v.stop()


def test_a_run_still_being_written_shows_what_is_recorded_and_more_after_a_reload(built, page):
    live = view_runs.partial_copy(built["main"], built["tmp"] / "live", units_kept=2)
    v = Viewer(live)
    try:
        _goto(page, v.route("/probes?run=0&per_page=500"))
        first = page.locator("table.probes tbody tr").count()
        assert 0 < first < 32
        assert "running" in page.locator("#status").text_content()
        view_runs.finish_copy(built["main"], live)
        time.sleep(2.5)  # the viewer looks at a run's files at most every 2 s
        page.reload()
        _ready(page, timeout=120_000)
        assert page.locator("table.probes tbody tr").count() == 32
        assert page.locator("#status").text_content().strip() == ""
    finally:
        v.stop()
