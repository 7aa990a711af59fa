"""Keeping credentials out of everything memlab writes.

An endpoint URL may carry a credential (``http://user:pass@host/v1``, ``?api_key=...``), and the
``openai`` client's exceptions can echo request details, so every label, manifest entry, cache
line and error message built from a URL or an exception goes through :func:`redact_url` or a
:class:`Redactor` first. The redacted URL is also what cache keys are built from, so changing a
password does not invalidate a recorded cache.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

MASK = "***"

SECRET_QUERY_PARAMS = frozenset(
    {"api_key", "api-key", "apikey", "key", "token", "access_token", "auth", "password", "secret", "sig", "signature", "code"}
)
"""Query parameters treated as credentials (compared case-insensitively), besides every name whose
words name a secret (:func:`memlab.redact.is_secret_key`: ``auth_token``, ``client_secret``,
``x-api-key``, ``access-token``...)."""


def _is_secret_param(name: str) -> bool:
    from memlab.redact import is_secret_key

    return name.lower() in SECRET_QUERY_PARAMS or is_secret_key(name)


def redact_url(url: str | None) -> str | None:
    """``url`` with its password and credential query values replaced by ``***`` (user name kept).

    The userinfo is found as :func:`memlab.redact.split_userinfo` finds it, so a password holding
    ``#``, ``?`` or ``/`` is masked whole."""
    from memlab.redact import register_secret, split_userinfo

    if not url:
        return url
    split = split_userinfo(url)
    if split is not None and split[1] is not None:
        head, userinfo, rest = split
        user, sep, password = userinfo.partition(":")
        register_secret(password if sep else user)
        url = f"{head}{user}:{MASK}@{rest}" if sep else f"{head}{MASK}@{rest}"
    parts = urlsplit(url)
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, MASK if _is_secret_param(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def url_secrets(url: str | None) -> list[str]:
    """The credential values inside ``url`` (password, user name when it is a bare token, secret query
    values), each also percent-decoded, since an error message may show either form."""
    from memlab.redact import split_userinfo

    if not url:
        return []
    found: list[str] = []
    split = split_userinfo(url)
    if split is not None and split[1] is not None:
        user, _, password = split[1].partition(":")
        secret = password if password else user
        found += [secret, unquote(secret)]
    for part in urlsplit(url).query.split("&"):
        name, sep, value = part.partition("=")
        if sep and _is_secret_param(unquote(name)):
            found += [value, unquote(value.replace("+", " "))]
    return [s for s in dict.fromkeys(found) if s]


def split_query(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its query string, and the query as a dict.

    The ``openai`` client appends the route to ``base_url`` textually, so a query left in the base
    URL ends up in the middle of the path (``/v1?key=x/chat/completions``); it must be sent as
    ``default_query`` instead.
    """
    parts = urlsplit(url)
    base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", parts.fragment))
    return base, dict(parse_qsl(parts.query, keep_blank_values=True))


class Redactor:
    """Replaces known secret values (an API key, URL credentials) in any text with ``***``."""

    def __init__(self, secrets: list[str | None]) -> None:
        # longest first, so a secret containing another is masked whole
        self.secrets = sorted({s for s in secrets if s and len(s) >= 3}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text
