"""Removing secrets from anything memlab writes: manifests, tables, errors, logs.

Secrets reach memlab as passwords in store DSNs (``postgresql://user:pw@host/db`` or
``host=… password=…``), credentials in endpoint URLs (``http://user:pw@host/v1``,
``?api_key=…``), and option keys that name a secret. :func:`redact` rewrites any of those in a
nested structure; :func:`redact_text` in free text such as an exception message. API keys
themselves are never read into a config (only the name of the environment variable holding one).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
_SECRET_WORDS = frozenset({"password", "passwd", "pwd", "pass", "secret", "token", "apikey", "credential",
                           "credentials", "auth", "key"})


def is_secret_key(name: str) -> bool:
    """``password``, ``api_key``, ``auth_token``… name a secret; ``max_tokens``, ``api_key_env`` do not."""
    if name == "api_key_env":
        return False
    return any(part in _SECRET_WORDS for part in re.split(r"[^a-z0-9]+", name.lower()))



_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]+")
_CONNINFO_PW = re.compile(r"(?i)\b(password|passwd)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)")
_SECRET_KV = re.compile(r"(?i)\b(api[_-]?key|token|secret)\s*[=:]\s*('(?:[^'\\]|\\.)*'|\"[^\"]*\"|[^\s,;&]+)")


def redact_url(url: str) -> str:
    """``scheme://user:pw@host/path?api_key=x`` → ``scheme://user:***@host/path?api_key=***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _CONNINFO_PW.sub(lambda m: f"{m.group(1)}={MASK}", url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{MASK}@{host}" if ":" in userinfo else f"{MASK}@{host}" if _looks_like_token(user) else netloc
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_key(k) for k, _ in pairs):
            query = urlencode([(k, MASK if is_secret_key(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _looks_like_token(user: str) -> bool:
    return len(user) >= 20 and bool(re.fullmatch(r"[A-Za-z0-9_\-.]+", user))


def redact_text(text: str) -> str:
    """Mask credentials in URLs, ``password=`` conninfo pairs and ``api_key=`` pairs of free text."""
    if not text:
        return text
    text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    text = _CONNINFO_PW.sub(lambda m: f"{m.group(1)}={MASK}", text)
    return _SECRET_KV.sub(lambda m: f"{m.group(1)}={MASK}", text)


def redact(obj: Any) -> Any:
    """A copy of ``obj`` (dicts, lists, strings) with every secret masked.

    ``api_key_env`` (the *name* of a variable) is kept: it is how a reader knows which key was used."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if isinstance(k, str) and is_secret_key(k) and v not in (None, "", False):
                out[k] = MASK
            else:
                out[k] = redact(v)
        return out
    if isinstance(obj, (list, tuple)):
        return type(obj)(redact(v) for v in obj)
    if isinstance(obj, str):
        return redact_text(obj)
    return obj
