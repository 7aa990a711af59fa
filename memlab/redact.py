"""Removing secrets from anything memlab writes: manifests, tables, errors, logs — the one place.

Secrets reach memlab as passwords in store DSNs (``postgresql://user:pw@host/db`` or
``host=… password=…``), credentials in endpoint URLs (``http://user:pw@host/v1``,
``?api_key=…``), option keys that name a secret, and API keys (read from the environment
variable a model spec names; never stored). :func:`redact` rewrites any of those in a nested
structure; :func:`redact_text` in free text such as an exception message. Every caller — the
model layer, the stores, the runner, the reports — uses these functions: there is one rule.

**The rule, whatever a password contains:**

* **A URL's userinfo runs to its last ``@``.** libpq reads ``postgresql://u:Hash#Secret9@host/db``
  as password ``Hash#Secret9`` where a standard URL parser sees a fragment, and a password may hold
  ``@`` too (``tester:Pass@word#Tail/x@host``). The password is everything after the userinfo's
  first ``:``. An ``@`` in a path or query therefore makes the userinfo longer — masking more,
  never less (write such an ``@`` as ``%40``, as the URL standard asks).
* **A secret query value** (``password=``, ``api_key=``, ``token=``, ``sig=``… any name
  :func:`is_secret_param` accepts) **runs from its ``=`` to the next ``&`` or the end of the URL**,
  ``#``, ``/``, ``?`` and spaces included.
* Both readings are applied to the same URL and every character either calls secret is masked, so
  a ``?`` in a userinfo password or an ``@`` in a query password cannot make one reading leak what
  the other would have masked.
* **A password, once seen, is masked wherever it appears afterwards in free text**
  (:func:`register_secret`). The run registers every password of its config and every model's API
  key when it starts, before anything is parsed or connected to (a space ends a URL in free text,
  and a driver or an HTTP client may quote a password or a key on its own). Values shorter than
  :data:`MIN_SECRET` characters are masked only where their structure shows them (they would mask
  ordinary words).
* **Credentials by their shape** are masked in free text whatever was registered:
  ``Authorization: Bearer <token>`` / ``Basic <token>``, and ``sk-…`` API keys (a 401 body may echo
  the header it rejected).
* Structured values (:func:`redact`) are masked by their structure only: a password that is also
  an ordinary word (``postgres``) must not rename a strategy called ``fact_rag@postgres``.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote, unquote_plus

MASK = "***"
_SECRET_WORDS = frozenset({"password", "passwd", "pwd", "pass", "secret", "token", "apikey", "credential",
                           "credentials", "auth", "key"})
SECRET_QUERY_PARAMS = frozenset(
    {"api_key", "api-key", "apikey", "key", "token", "access_token", "auth", "password", "secret", "sig", "signature",
     "code"})
"""Query parameters treated as credentials (compared case-insensitively), besides every name whose
words name a secret (:func:`is_secret_key`: ``auth_token``, ``client_secret``, ``x-api-key``...)."""

MIN_SECRET = 6
"""Shorter registered values are not masked in free text (they would mask ordinary words); a URL's
or DSN's password is masked in place whatever its length."""

_known: set[str] = set()
_known_lock = threading.Lock()
_known_sorted: list[str] = []


# --------------------------------------------------------------------------------------- names


def is_secret_key(name: str) -> bool:
    """``password``, ``api_key``, ``auth_token``, ``x-api-key``, ``client_secret``… name a secret;
    ``max_tokens``, ``api_key_env`` do not."""
    if name == "api_key_env":
        return False
    return any(part in _SECRET_WORDS for part in re.split(r"[^a-z0-9]+", name.lower()))


def is_secret_param(name: str) -> bool:
    """A URL query parameter holding a credential: the names of :data:`SECRET_QUERY_PARAMS`
    (``sig``, ``code``…, which are no secret as option names) or any :func:`is_secret_key` name."""
    return name.strip().lower() in SECRET_QUERY_PARAMS or is_secret_key(name)


# ----------------------------------------------------------------------------------- registry


def register_secret(value: str | None) -> None:
    r"""Mask ``value`` in every later :func:`redact_text` — and the forms a message may quote it in:
    percent-decoded, and escaped as Python's ``repr`` or JSON escape it (``\\`` for ``\``)."""
    global _known_sorted
    if not value:
        return
    forms = {value, unquote(value), unquote_plus(value)}
    forms |= {repr(f)[1:-1] for f in list(forms)} | {json.dumps(f, ensure_ascii=False)[1:-1] for f in list(forms)}
    new = {v for v in forms if len(v) >= MIN_SECRET} - _known
    if new:
        with _known_lock:
            _known.update(new)
            _known_sorted = sorted(_known, key=len, reverse=True)  # a secret holding another is masked whole


def register_env_secret(variable: str | None) -> None:
    """Register the value of environment variable ``variable`` (a model's ``api_key_env``) if set."""
    if variable:
        register_secret(os.environ.get(variable))


def register_secrets_in(obj: Any) -> None:
    """Register every secret a raw config value holds, before anything parses it: values of keys
    that name a secret, and the passwords and secret query values of every URL or DSN string."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str) and is_secret_key(k) and isinstance(v, (str, int)) and not isinstance(v, bool):
                register_secret(str(v))
            else:
                register_secrets_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            register_secrets_in(v)
    elif isinstance(obj, str):
        for secret in text_secrets(obj):
            register_secret(secret)


# ------------------------------------------------------------------------------------ parsing

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)(.*)$", re.S)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]+")
_CONNINFO_PW = re.compile(r"(?i)\b(password|passwd)\s*=\s*('(?:[^'\\]|\\.)*'?|\S+)")
_SECRET_KV = re.compile(r"(?i)\b(api[_-]?key|token|secret)\s*[=:]\s*('(?:[^'\\]|\\.)*'|\"[^\"]*\"|[^\s,;&]+)")
_AUTH_HEADER = re.compile(r"(?i)\b(authorization[\"']?\s*[:=]\s*[\"']?)(?:(bearer|basic|token|digest)\s+)?[^\s\"',;]+")
_BEARER = re.compile(r"(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=\-]{8,}")
_SK_KEY = re.compile(r"\bsk-[A-Za-z0-9][A-Za-z0-9_\-]{15,}")
_NOT_A_USER = re.compile(r"[/?#&=\s]")
"""A bare userinfo holding one of these is no user name: its ``@`` belongs to a path or query."""
_CREDENTIAL_SCHEMES = ("http", "https", "ws", "wss")
"""Schemes whose bare userinfo (``https://TOKEN@host``) is a credential; in a database DSN
(``postgresql://memlab@host/db``) it is a user name."""


def split_userinfo(url: str) -> tuple[str, str | None, str] | None:
    """``(scheme://, userinfo, rest)`` of a URL — the userinfo up to the **last** ``@`` (None when
    there is no ``@``); the whole result None when ``url`` has no scheme."""
    m = _SCHEME.match(url)
    if m is None:
        return None
    head, after = m.group(1), m.group(2)
    if "@" not in after:
        return head, None, after
    userinfo, _, rest = after.rpartition("@")
    return head, userinfo, rest


def _bare_user_is_secret(head: str, user: str) -> bool:
    return (head[:-3].lower() in _CREDENTIAL_SCHEMES or _looks_like_token(user) or bool(_NOT_A_USER.search(user)))


def _looks_like_token(user: str) -> bool:
    return len(user) >= 20 and bool(re.fullmatch(r"[A-Za-z0-9_\-.]+", user))


def _secret_spans(url: str) -> list[tuple[int, int]]:
    """Character ranges of ``url`` that hold a credential, by both readings of the module rule:
    the userinfo's password (to the last ``@``) and every secret query value (to ``&`` or the end)."""
    return _userinfo_spans(url) + _query_spans(url)


def _userinfo_spans(url: str) -> list[tuple[int, int]]:
    m = _SCHEME.match(url)
    if m is None:
        return []
    head, start = m.group(1), len(m.group(1))
    at = url.rfind("@", start)
    if at < 0:
        return []
    userinfo = url[start:at]
    colon = userinfo.find(":")
    if colon >= 0:
        spans = [(start + colon + 1, at)]
        if _NOT_A_USER.search(userinfo[:colon]):
            spans.append((start, start + colon))
        return spans
    return [(start, at)] if _bare_user_is_secret(head, userinfo) else []


def _query_spans(url: str) -> list[tuple[int, int]]:
    m = _SCHEME.match(url)
    if m is None:
        return []
    spans = []
    q = url.find("?", len(m.group(1)))
    while q >= 0:
        i = q + 1
        j = url.find("&", i)
        end = len(url) if j < 0 else j
        name, sep, _ = url[i:end].partition("=")
        if sep and is_secret_param(unquote_plus(name)):
            spans.append((i + len(name) + 1, end))
        q = j
    return spans


def ambiguous_userinfo(url: str | None) -> bool:
    """Whether the two readings of the module rule disagree on where ``url``'s host is: its last
    ``@`` lies inside a secret query value (``…/db?password=a@b``), so the userinfo rule would
    take a piece of that password for the host. Masking stays safe (both readings are masked);
    connecting or describing is refused: such an ``@`` must be written ``%40``."""
    if not url:
        return False
    m = _SCHEME.match(url.strip())
    if m is None:
        return False
    url = url.strip()
    at = url.rfind("@", len(m.group(1)))
    return at >= 0 and any(a <= at < b for a, b in _query_spans(url))


AMBIGUOUS_URL = ("an '@' inside a secret query value (…?password=a@b) makes the host ambiguous: write it as %40 "
                 "(the URL is not shown: it holds a password)")


def url_secrets(url: str | None) -> list[str]:
    """The credential values inside ``url`` (password, a bare user that is a credential, secret
    query values), each also percent-decoded, since an error message may show either form."""
    if not url:
        return []
    found: list[str] = []
    for a, b in _secret_spans(url):
        value = url[a:b]
        found += [value, unquote(value), unquote_plus(value)]
    return [s for s in dict.fromkeys(found) if s]


def dsn_password(dsn: str | None) -> str | None:
    """The password of a DSN in URL form (``scheme://u:pw@…``) or key=value form (``password=…``)."""
    if not dsn:
        return None
    text = dsn.strip()
    parts = split_userinfo(text)
    if parts is not None:
        if parts[1] is not None:
            user, sep, password = parts[1].partition(":")
            if sep and password:
                return password
        for a, b in _query_spans(text):  # ?password=… runs to the next '&' or the end
            if text[:a].lower().endswith(("password=", "passwd=")) and b > a:
                return text[a:b]
    kv = _CONNINFO_PW.search(text)
    if kv:
        value = kv.group(2)
        if value.startswith("'"):
            value = re.sub(r"\\(.)", r"\1", value[1:-1] if value.endswith("'") and len(value) > 1 else value[1:])
        return value or None
    return None


def text_secrets(text: str) -> list[str]:
    """Every credential the structure of ``text`` shows: a URL's (the whole text when it is one,
    else each URL in it) and a ``password=`` pair's value."""
    stripped = text.strip()
    found = url_secrets(stripped) if _SCHEME.match(stripped) else []
    for m in _URL.finditer(text):
        found += url_secrets(m.group(0))
    if "password" in text.lower() or "passwd" in text.lower():
        pw = dsn_password(text)
        if pw:
            found.append(pw)
    return list(dict.fromkeys(found))


# ------------------------------------------------------------------------------------ masking


def redact_url(url: str | None) -> str | None:
    """``url`` with its password and credential query values replaced by ``***`` (user name kept),
    by the module rule; every value masked is registered (:func:`register_secret`)."""
    if not url:
        return url
    spans = sorted(_secret_spans(url))
    if not spans:
        return url if _SCHEME.match(url) else _CONNINFO_PW.sub(lambda m: f"{m.group(1)}={MASK}", url)
    for secret in url_secrets(url):
        register_secret(secret)
    merged: list[list[int]] = []
    for a, b in spans:  # overlapping or touching ranges become one mask
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out, pos = [], 0
    for a, b in merged:
        out += [url[pos:a], MASK]
        pos = b
    out.append(url[pos:])
    return "".join(out)


def _mask_structure(text: str) -> str:
    """Credentials found by their structure: URL userinfo and secret query values,
    ``password=`` conninfo pairs, ``api_key=`` / ``token=`` / ``secret=`` pairs,
    ``Bearer``/``Basic`` tokens and ``sk-`` keys."""
    text = _URL.sub(lambda m: redact_url(m.group(0)) or "", text)
    if "password" in text.lower() or "passwd" in text.lower():
        register_secret(dsn_password(text))
        text = _CONNINFO_PW.sub(lambda m: m.group(0) if m.group(2).startswith(MASK) else f"{m.group(1)}={MASK}", text)
    text = _SECRET_KV.sub(lambda m: m.group(0) if m.group(2).startswith(MASK) else f"{m.group(1)}={MASK}", text)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2) + ' ' if m.group(2) else ''}{MASK}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return _SK_KEY.sub(MASK, text)


def _mask_known(text: str, extra: Iterable[str]) -> str:
    own = {s for s in extra if s and len(s) >= 3} - _known
    for secret in sorted([*own, *_known_sorted], key=len, reverse=True) if own else _known_sorted:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def redact_text(text: str, extra: Iterable[str] = ()) -> str:
    """Mask credentials in free text (an error message): every registered secret
    (:func:`register_secret`) and ``extra`` value wherever it is, then by their structure (URLs,
    ``password=`` and ``api_key=`` pairs, ``Bearer`` tokens, ``sk-`` keys).

    ``extra``: secrets of the caller (a model's own key and URL credentials) masked in this text
    even when shorter than :data:`MIN_SECRET`."""
    if not text:
        return text
    extra = list(extra)
    return _mask_known(_mask_structure(_mask_known(text, extra)), extra)


def _redact_string(value: str) -> str:
    """A string value: one that *is* a URL or DSN is masked whole (its password may hold spaces,
    which end a URL in free text); any other string by its structure."""
    stripped = value.strip()
    if _SCHEME.match(stripped) and ("@" in stripped or "?" in stripped):
        return value.replace(stripped, _mask_structure(redact_url(stripped) or ""))
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


_log_lock = threading.Lock()
_log_installed = False


def install_log_redaction() -> None:
    """Mask secrets in every log record any library makes from now on (idempotent).

    A client library may log a failed request on its own — an HTTP 401 body quoting
    ``Authorization: Bearer <key>`` — and an unconfigured ``logging`` prints warnings to the
    console; the record factory masks each record's message (:func:`redact_text`) when it is made,
    whichever logger and handler it goes to."""
    import logging

    global _log_installed
    with _log_lock:
        if _log_installed:
            return
        make = logging.getLogRecordFactory()

        def redacting_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = make(*args, **kwargs)
            try:
                message = record.getMessage()
            except Exception:  # a malformed format: leave it to logging to report
                return record
            masked = redact_text(message)
            if masked != message or record.args:
                record.msg, record.args = masked, None
            if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
                record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
            return record

        logging.setLogRecordFactory(redacting_factory)
        _log_installed = True
