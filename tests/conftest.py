"""Fixtures shared by the model-layer tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memlab.llm import calls
from tests.support.fake_openai_server import FakeOpenAIServer


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
