"""Fixtures shared by the tests: the fake OpenAI-compatible server, the call records, and the
project's PostgreSQL server (the ``postgres`` fixture, which also marks every test that uses it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memlab.harness.gc_policy import batch_process
from memlab.llm import calls
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.support.postgres import find_server, required

batch_process()
"""The test processes collect as a ``memlab`` command does (memlab.harness.gc_policy; a run sets its own while it
plays). A pytest worker is a long-lived process whose heap holds every test module's imports and fixtures; with
CPython's defaults it walked that whole heap in a full collection every few seconds (27 of them, 6.0 CPU s of
92, in five of the suite's files; 46 CPU s of the two workers' 576 in a clean-clone run; 5 CPU s with this
setting, 2026-11-29), the largest process's peak memory the same (1.03 GB). When cyclic garbage is freed is
all that changes: a test that needs it freed at a point calls ``gc.collect()``."""


SLOW_DATA = ("long_horizon_s", "long_horizon_m")
"""Datasets too large for the fast tier: the long-horizon suites (16 users × ~28k tokens, 12 × ~100k)
take seconds to tens of seconds to read and play, so a test parametrised over one is ``slow``."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that uses the ``postgres`` fixture is marked ``postgres`` (``-m "not postgres"`` leaves
    it out), however it came to use it; a test parametrised over a :data:`SLOW_DATA` dataset is
    marked ``slow``. The fast tier is ``pytest -m "not slow and not postgres"``.

    The files keep their collection order: scripts/test.sh lets pytest-xdist hand them out by their number of
    tests (its ``--loadscope-reorder`` default). Handing the longest files out first instead (the order of a
    measured ranking, with ``--no-loadscope-reorder``) was measured slower on a clean clone, 739 s against 559,
    625 and 666 s in three runs with xdist's order (2026-11-29, docs/ci_time.md): the long files are also the
    ones that start servers and worker processes, and started together with the gates and suite checks they
    most likely only competed for the two cores (the machine's speed drifts between runs: one run against three)."""
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
