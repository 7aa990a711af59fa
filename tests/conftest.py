"""Fixtures shared by the tests: the fake OpenAI-compatible server, the call records, and the
project's PostgreSQL server (the ``postgres`` fixture, which also marks every test that uses it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memlab.llm import calls
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.support.postgres import find_server, required


SLOW_DATA = ("long_horizon_s", "long_horizon_m")
"""Datasets too large for the fast tier: the long-horizon suites (16 users × ~28k tokens, 12 × ~100k)
take seconds to tens of seconds to read and play, so a test parametrised over one is ``slow``."""


LONGEST_FIRST = ("test_profile_estimate.py", "test_parallel.py", "test_html_report.py", "test_view.py",
                 "test_ceiling.py", "test_per_turn_cost.py", "test_view_browser.py", "test_store_contract.py",
                 "test_runner.py", "test_reliability.py", "02_compare_strategies_and_presets.ipynb", "test_ci_examples.py",
                 "test_notebooks.py", "test_crash_consistency.py", "test_sensitivity.py", "test_run_copies.py",
                 "test_behaviour_identity.py", "test_firewall.py", "01_quickstart.ipynb",
                 "06_history_length_break_even.ipynb", "test_capacity_and_scaling.py", "test_datasets.py")
"""Test files (and notebooks) that take the longest, run first, in this order: 20-140 s of a worker each in a
full run (``--durations=0``, 2026-11-29). scripts/test.sh gives whole files to two workers (pytest-xdist
``--dist loadfile``, with ``--no-loadscope-reorder``: xdist otherwise re-sorts files by their number of tests,
which put these few-test files last) in collection order, and a long file handed out last would leave the
other worker idle while it runs."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that uses the ``postgres`` fixture is marked ``postgres`` (``-m "not postgres"`` leaves
    it out), however it came to use it; a test parametrised over a :data:`SLOW_DATA` dataset is
    marked ``slow``. The fast tier is ``pytest -m "not slow and not postgres"``. The files of
    :data:`LONGEST_FIRST` are put first, in that order (the rest keep theirs)."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's tests keep their order
    for item in items:
        if "postgres" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)
        callspec = getattr(item, "callspec", None)
        if callspec is not None and any(name in callspec.id for name in SLOW_DATA):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def postgres() -> str:
    """The DSN of the project's PostgreSQL + pgvector server, checked to answer
    (:func:`tests.support.postgres.find_server`). Without one the test is skipped with the reason —
    or fails where a server is required (``MEMLAB_REQUIRE_POSTGRES``, which scripts/test.sh sets, or ``CI``)."""
    dsn, why = find_server()
    if dsn is None:
        message = f"needs the project's PostgreSQL server (scripts/pg.sh start): {why}"
        if required():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return dsn


@pytest.fixture()
def server() -> Iterator[FakeOpenAIServer]:
    """A local OpenAI-compatible fake server on 127.0.0.1, stopped after the test."""
    with FakeOpenAIServer() as s:
        yield s


@pytest.fixture()
def records() -> Iterator[list]:
    """Every call record the model layer emits during the test."""
    out: list = []
    with calls.call_sink(out.append):
        yield out
