"""Removing secrets from anything memlab writes: manifests, tables, errors, logs.

Secrets reach memlab as passwords in store DSNs (``postgresql://user:pw@host/db`` or
``host=… password=…``), credentials in endpoint URLs (``http://user:pw@host/v1``,
``?api_key=…``), and option keys that name a secret. :func:`redact` rewrites any of those in a
nested structure; :func:`redact_text` in free text such as an exception message. API keys
themselves are never read into a config (only the name of the environment variable holding one).

Two rules make the masking hold whatever a password contains:

* **The userinfo of a URL ends at its last ``@``**, not at the first ``/``, ``?`` or ``#``:
  libpq reads ``postgresql://u:Hash#Secret9@host/db`` as user ``u``, password ``Hash#Secret9``,
  where a standard URL parser sees host ``u`` and a fragment. Taking everything up to the last
  ``@`` may mask more than the password (an ``@`` in a query), never less.
* **A password, once seen, is masked wherever it appears afterwards in free text**
  (:func:`register_secret`), as the model layer does for API keys: a password with a space splits
  a URL in an error message, and a driver's error may quote it on its own. Every DSN or URL that
  :func:`redact` meets registers its password, and so does a store that connects with one.
  Structured values (:func:`redact`) are masked by their structure only: a password that is also
  an ordinary word (``postgres``) must not rename a strategy called ``fact_rag@postgres``.
"""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

MASK = "***"
_SECRET_WORDS = frozenset({"password", "passwd", "pwd", "pass", "secret", "token", "apikey", "credential",
                           "credentials", "auth", "key"})
_MIN_SECRET = 6
"""Shorter registered values are not masked in free text (they would mask ordinary words); a URL's
or DSN's password is masked in place whatever its length."""

_known: set[str] = set()
_known_lock = threading.Lock()
_known_sorted: list[str] = []


def is_secret_key(name: str) -> bool:
    """``password``, ``api_key``, ``auth_token``, ``x-api-key``, ``client_secret``… name a secret;
    ``max_tokens``, ``api_key_env`` do not."""
    if name == "api_key_env":
        return False
    return any(part in _SECRET_WORDS for part in re.split(r"[^a-z0-9]+", name.lower()))


def register_secret(value: str | None) -> None:
    """Mask ``value`` (and its percent-decoded form) in every later :func:`redact_text`."""
    global _known_sorted
    if not value:
        return
    new = {v for v in (value, unquote(value)) if len(v) >= _MIN_SECRET} - _known
    if new:
        with _known_lock:
            _known.update(new)
            _known_sorted = sorted(_known, key=len, reverse=True)  # a secret holding another is masked whole


_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)(.*)$", re.S)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]+")
_CONNINFO_PW = re.compile(r"(?i)\b(password|passwd)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)")
_SECRET_KV = re.compile(r"(?i)\b(api[_-]?key|token|secret)\s*[=:]\s*('(?:[^'\\]|\\.)*'|\"[^\"]*\"|[^\s,;&]+)")


def split_userinfo(url: str) -> tuple[str, str | None, str] | None:
    """``(scheme://, userinfo, rest)`` of a URL; userinfo None when there is no ``@``, and the
    whole result None when ``url`` has no scheme.

    The userinfo is the standard one when the authority (up to the first ``/``, ``?`` or ``#``)
    holds an ``@``; otherwise, when an ``@`` comes later, everything up to the *last* ``@`` (a
    password holding ``/ ? #`` or a space, as libpq reads it; see the module docstring)."""
    m = _SCHEME.match(url)
    if m is None:
        return None
    head, after = m.group(1), m.group(2)
    end = min((i for i in (after.find(c) for c in "/?#") if i >= 0), default=len(after))
    if "@" in after[:end]:
        userinfo, _, host = after[:end].rpartition("@")
        return head, userinfo, host + after[end:]
    if "@" not in after:
        return head, None, after
    userinfo, _, rest = after.rpartition("@")
    return head, userinfo, rest


def url_password(url: str | None) -> str | None:
    """The credential in a URL's userinfo: the password, or a bare user name that looks like a token."""
    parts = split_userinfo(url or "")
    if parts is None or parts[1] is None:
        return None
    user, sep, password = parts[1].partition(":")
    if sep:
        return password or None
    return user if _looks_like_token(user) else None


def dsn_password(dsn: str | None) -> str | None:
    """The password of a DSN in URL form (``scheme://u:pw@…``) or key=value form (``password=…``)."""
    if not dsn:
        return None
    found = url_password(dsn.strip())
    if found:
        return found
    kv = _CONNINFO_PW.search(dsn)
    if kv:
        value = kv.group(2)
        if value.startswith("'"):
            value = re.sub(r"\\(.)", r"\1", value[1:-1] if value.endswith("'") and len(value) > 1 else value[1:])
        return value or None
    return None


def redact_url(url: str) -> str:
    """``scheme://user:pw@host/path?api_key=x`` → ``scheme://user:***@host/path?api_key=***``."""
    parts = split_userinfo(url)
    if parts is None:
        return _CONNINFO_PW.sub(lambda m: f"{m.group(1)}={MASK}", url)
    head, userinfo, rest = parts
    if userinfo is not None:
        user, sep, password = userinfo.partition(":")
        register_secret(password if sep else user if _looks_like_token(user) else None)
        if sep:
            userinfo = f"{user}:{MASK}"
        elif _looks_like_token(user):
            userinfo = MASK
        url = f"{head}{userinfo}@{rest}"
    try:
        split = urlsplit(url)
    except ValueError:
        return url
    if split.query:
        pairs = parse_qsl(split.query, keep_blank_values=True)
        if any(is_secret_key(k) for k, _ in pairs):
            query = urlencode([(k, MASK if is_secret_key(k) else v) for k, v in pairs], safe="*")
            url = urlunsplit((split.scheme, split.netloc, split.path, query, split.fragment))
    return url


def _looks_like_token(user: str) -> bool:
    return len(user) >= 20 and bool(re.fullmatch(r"[A-Za-z0-9_\-.]+", user))


def _mask_structure(text: str) -> str:
    """Credentials found by their structure: URL userinfo and secret query values,
    ``password=`` conninfo pairs, ``api_key=`` / ``token=`` / ``secret=`` pairs."""
    text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    if "password" in text.lower() or "passwd" in text.lower():
        register_secret(dsn_password(text))
        text = _CONNINFO_PW.sub(lambda m: f"{m.group(1)}={MASK}", text)
    return _SECRET_KV.sub(lambda m: f"{m.group(1)}={MASK}", text)


def redact_text(text: str) -> str:
    """Mask credentials in free text (an error message): by their structure (URLs, ``password=``
    and ``api_key=`` pairs) and every registered secret (:func:`register_secret`) wherever it is."""
    if not text:
        return text
    text = _mask_structure(text)
    for secret in _known_sorted:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def _redact_string(value: str) -> str:
    """A string value: one that *is* a URL or DSN is masked whole (its password may hold spaces,
    which end a URL in free text); any other string by its structure."""
    stripped = value.strip()
    if "@" in value and _SCHEME.match(stripped):
        return value.replace(stripped, _mask_structure(redact_url(stripped)))
    return _mask_structure(value)


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
        return _redact_string(obj)
    return obj
