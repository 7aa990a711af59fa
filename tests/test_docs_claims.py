"""Issue 18, item 21: docs/reliability.md cites only tests that exist.

The page says which test keeps each guarantee; a renamed or deleted test (or a file that never
existed) would leave a guarantee that nothing checks while the page still claims one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _defined_tests() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").glob("test_*.py"):
        names |= set(re.findall(r"^(?:async )?def (test_\w+)", path.read_text(encoding="utf-8"), re.M))
    return names


def test_every_test_file_and_test_the_reliability_page_cites_exists():
    text = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    files = set(re.findall(r"tests/[\w/]+\.py", text))
    assert files, "the page names its test files"
    assert [f for f in sorted(files) if not (ROOT / f).is_file()] == []
    assert not re.search(r"tests/test_\w*\*", text), "no wildcard file names: name each file"
    cited = set(re.findall(r"`(test_\w+)`", text))
    assert len(cited) > 20
    assert sorted(cited - _defined_tests()) == []
