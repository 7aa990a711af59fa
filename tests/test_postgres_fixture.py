"""The ``postgres`` fixture (tests/conftest.py): a test that needs the project's server says so by
using it, is marked ``postgres`` for it, and is skipped with the reason when no server answers —
except where a server is required (scripts/test.sh, CI), where it fails."""

from __future__ import annotations

from tests.support.postgres import REQUIRE_POSTGRES, find_server, required


def test_a_server_that_does_not_answer_is_a_reason_without_the_password(monkeypatch):
    monkeypatch.setenv("MEMLAB_PG_DSN", "postgresql://memlab:Fixture%23Secret9@127.0.0.1:1/none")
    dsn, why = find_server(connect_timeout=2)
    assert dsn is None and "does not answer" in why and "Secret9" not in why


def test_the_server_is_required_in_ci_and_by_the_test_script(monkeypatch):
    monkeypatch.delenv(REQUIRE_POSTGRES, raising=False)
    monkeypatch.delenv("CI", raising=False)
    assert not required()
    monkeypatch.setenv(REQUIRE_POSTGRES, "1")
    assert required()
    monkeypatch.delenv(REQUIRE_POSTGRES)
    monkeypatch.setenv("CI", "true")
    assert required()


def test_using_the_fixture_marks_the_test(request, postgres):
    assert request.node.get_closest_marker("postgres") is not None and postgres.startswith("postgresql")


def test_the_test_script_requires_the_server_it_starts():
    from pathlib import Path

    script = (Path(__file__).resolve().parents[1] / "scripts" / "test.sh").read_text()
    start = script.index("bash scripts/pg.sh start")
    assert script.index(f"export {REQUIRE_POSTGRES}=1") > start
    assert script.index(f"export {REQUIRE_POSTGRES}=1") < script.index("pytest")
