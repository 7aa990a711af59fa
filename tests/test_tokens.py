"""Token counts summed over memoised lines (memlab/tokens.py) equal tiktoken's count of the whole text.

The split is exact only because of how cl100k's pre-tokenisation pattern treats newlines; these tests
hold it to whole-text encoding on strings built to break it (newline runs, whitespace-only lines,
punctuation before newlines, Unicode spaces Python and Rust disagree on, special-token text), on every
text file of the repository, and check that an encoding whose pattern is not the verified one is
counted whole."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

import memlab.tokens as tokens
from memlab.tokens import count_message_tokens, count_tokens, encoding

ROOT = Path(__file__).resolve().parents[1]
PIECES = ["\n", "\r", "\r\n", " ", "  ", "\t", "\n\n", " \n", "\n ", "a", "B", "word", " word", "'s", "'LL", "'", ".",
          ",", "!", "/", "-", "*", "#", ":", '"', "1", "23", "4567", "é", "日本", "\xa0", "\x1c", "\x1f", "\x85", "\u2028",
          "\u3000", "\x0b", "\x0c", "<|endoftext|>", "🙂"]


def _whole(text: str, name: str = "cl100k_base") -> int:
    return len(encoding(name).encode(text, disallowed_special=()))


def test_line_sums_equal_whole_text_counts_on_strings_built_to_break_them():
    rng = random.Random(5)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 60))) for _ in range(20_000)]
    texts += ["x" * 5000 + "\n" + ".\n\n" * 2000 + " \n" * 3, "\n" * 5000, "a\n" * 3000]  # past SHORT_TEXT
    wrong = [(t, count_tokens(t), _whole(t)) for t in texts if count_tokens(t) != _whole(t)]
    assert not wrong, wrong[:5]
    # the split did happen: many of these texts have more than one line
    assert sum(len(tokens._LINE_START.split(t)) > 1 for t in texts) > 5_000


def test_line_sums_equal_whole_text_counts_on_every_text_file_of_the_repository():
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    files = [ROOT / f for f in listed if f.endswith((".py", ".md", ".yaml", ".json", ".ipynb", ".html", ".txt", ".sh"))]
    assert len(files) > 200
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")[:20_000]
        assert count_tokens(text) == _whole(text), path
        assert count_tokens(text[:3000]) == _whole(text[:3000]), path  # a short text: the whole-text memo first


def test_a_chat_request_counts_the_same_as_before_line_sums():
    messages = [{"role": "system", "content": "Your input fields are:\n1. `memory` (str)\n\nAll interactions will be structured"},
                {"role": "user", "content": "[[ ## memory ## ]]\n- I live in Porto.\n- I live in Braga now.\n\n"
                                            "[[ ## question ## ]]\nWhere?\n\nRespond with `[[ ## answer ## ]]`."}]
    expected = 3 + sum(3 + _whole(m["role"]) + _whole(m["content"]) for m in messages)
    assert count_message_tokens(messages) == expected


def test_an_encoding_whose_pattern_is_not_the_verified_one_is_counted_whole(monkeypatch):
    text = "first line\nsecond line\n"
    calls = []
    real = tokens._encode_len

    def spy(t: str, name: str) -> int:
        calls.append(t)
        return real(t, name)

    monkeypatch.setattr(tokens, "_encode_len", spy)
    verified = tokens._SPLITS_AT_LINES["cl100k_base"]
    tokens._SPLITS_AT_LINES["cl100k_base"] = "some other pattern"
    tokens._splits_at_lines.cache_clear()
    try:
        assert tokens._count_lines(text, "cl100k_base") == _whole(text)
        assert calls == [text], "counted whole, not line by line"
    finally:
        tokens._SPLITS_AT_LINES["cl100k_base"] = verified
        tokens._splits_at_lines.cache_clear()
    calls.clear()
    fresh = "a line no other test counts 7f3a\n  indented, so it stays with the line before\nlast 7f3a"
    assert tokens._count_lines(fresh, "cl100k_base") == _whole(fresh)
    assert calls == ["a line no other test counts 7f3a\n  indented, so it stays with the line before\n", "last 7f3a"]


@pytest.mark.parametrize("name", ["o200k_base"])
def test_other_encodings_are_counted_whole(name):
    assert not tokens._splits_at_lines(name)
    text = "a.\n/b\nc"
    assert count_tokens(text, name) == _whole(text, name)
