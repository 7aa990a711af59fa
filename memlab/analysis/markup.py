"""Untrusted text made safe for the markdown and HTML memlab writes.

Dataset turns, model answers, judge verdicts and probe ids end up in the design report
(:mod:`memlab.analysis.html_report`) and in the gate's pull-request comment (:mod:`memlab.analysis.gate`). Any of
them may hold markup: an external image (``![x](https://…)``, fetched when the comment is
viewed), an ``@mention`` (notifies a stranger), ``<details>`` or ``<!--`` (hides the rest of the
comment), a ``|`` or a line break (breaks the table it sits in), a NUL (not a character HTML
allows). These helpers are the one place such text is made inert; every interpolation of
untrusted text goes through one of them.
"""

from __future__ import annotations

import html
import re
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
"""C0 controls (and DEL) that HTML does not allow as text; tab, line feed, CR and form feed are allowed."""
_BREAKS = re.compile(r"[\r\n\f\v\u2028\u2029\u0085]+")
"""Every character a renderer may take as a line end, not only ``\\n``."""
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#!~])")
_MENTION = re.compile(r"@(?=\w)")
ZWSP = "\u200b"


def clean(text: Any) -> str:
    """``str(text)`` with the control characters HTML does not allow replaced by U+FFFD."""
    return _CONTROL.sub("\ufffd", str(text))


def html_text(text: Any) -> str:
    """Text for an HTML element or attribute: escaped (quotes too), controls replaced."""
    return html.escape(clean(text), quote=True)


def one_line(text: Any) -> str:
    """Every kind of line break folded into a space."""
    return _BREAKS.sub(" ", clean(text))


def md_inline(text: Any) -> str:
    """Markdown-safe inline text, one line: HTML escaped (no tag or comment survives), markdown
    syntax escaped (no link, image, emphasis, heading or table cell break), mentions broken by a
    zero-width space after the ``@``."""
    escaped = _MD_SPECIAL.sub(r"\\\1", html.escape(one_line(text), quote=False))
    return _MENTION.sub("@" + ZWSP, escaped)
