"""Rendering the design report's document model (:mod:`memlab.analysis.report_model`).

:func:`render_html` writes one self-contained HTML file (plots as base64 PNGs, inline CSS, no
external URL); :func:`render_markdown` writes markdown with the plots as PNG files beside it. Dataset
text is untrusted: every string is escaped here, never interpolated raw.
"""

from __future__ import annotations

import base64
import html
import re
from typing import Any

from memlab.analysis.markup import clean, html_text, md_inline
from memlab.analysis.report_model import (Caution, Details, Facts, Heading, Plot, ProbeCase, Report, Table, Text)

_CSS = """
*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1400px;padding:1em 2em;color:#222}
h1{font-size:1.6em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.8em}h3{margin:1.2em 0 .3em}
nav a{margin-right:1em;display:inline-block}
.wide{overflow-x:auto;max-width:100%;margin:.6em 0}
table{border-collapse:collapse;font-size:.86em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;overflow-wrap:break-word;min-width:3.5em}
th{background:#f3f3f3}td.long{min-width:14em;max-width:42em}
th:first-child,td:first-child{position:sticky;left:0;background:#fff;z-index:1;min-width:9em;max-width:22em}
th:first-child{background:#f3f3f3}
td .ci{display:block;white-space:nowrap;color:#666;font-size:.85em}
p.caption{font-size:.85em;color:#555;margin:.2em 0 .8em}
p.warn{background:#fff8e1;border-left:4px solid #f9a825;padding:.3em .6em;font-size:.9em}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.15em 1em;font-size:.9em;border:1px solid #ddd;padding:.6em;border-radius:4px}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere;min-width:0}
figure{margin:.8em 0;max-width:100%}img.plot{max-width:100%;height:auto;border:1px solid #eee;margin:.5em 0}
pre{background:#f7f7f7;padding:.6em;overflow:auto;font-size:.8em;max-width:100%}
details{max-width:100%}
.case{border:1px solid #ddd;border-left:4px solid #c62828;margin:.6em 0;padding:.4em .8em;border-radius:3px}
.case .reason{display:inline-block;background:#fdecea;color:#8e0000;border-radius:3px;padding:0 .4em;margin-right:.3em;font-size:.85em}
.ctx{font-family:ui-monospace,monospace;font-size:.82em;white-space:pre-wrap;overflow-wrap:anywhere;margin:.1em 0}
.ctx.evidence{background:#fff3bf;border-left:3px solid #f9a825;padding-left:.3em}
ul.why{margin:0;padding-left:1.1em}
.ctx .src{color:#888}.sec{font-weight:600;font-size:.85em;margin-top:.4em}
"""

_LOADED_SCRIPT = """
window.addEventListener('load', function () {
  var n = 0;
  document.querySelectorAll('img.plot').forEach(function (img) { if (img.complete && img.naturalWidth > 0) { n++; } });
  document.body.setAttribute('data-plots-loaded', String(n));
  var page = document.documentElement.clientWidth, wide = [];
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= page + 1) { return; }
    for (var a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      var o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') { return; }
    }
    wide.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className ? '.' + el.className : ''));
  });
  document.body.setAttribute('data-too-wide', String(wide.length));
  document.body.setAttribute('data-too-wide-first', wide.slice(0, 5).join(' '));
  document.body.setAttribute('data-page-width', String(page));
  document.body.setAttribute('data-scroll-width', String(document.documentElement.scrollWidth));
});
"""
"""Sets on <body>: ``data-plots-loaded`` (how many plots the browser decoded) and the layout facts
``data-too-wide`` (elements reaching past the page's right edge outside a scroll box; their first
five in ``data-too-wide-first``), ``data-page-width`` and ``data-scroll-width``: how a headless
browser (tests/test_html_report.py) checks that every plot rendered and nothing runs off the page."""

_CI = re.compile(r"^(.*\S) (\[[^\]]*\])$")
_LONG_COLUMNS = {"description", "components"}


def _e(text: Any) -> str:
    return html_text(text)


def _html_block(b: Any) -> str:
    if isinstance(b, Text):
        return f"<p>{_e(b.text)}</p>"
    if isinstance(b, Heading):
        return f"<h3>{_e(b.text)}</h3>"
    if isinstance(b, Facts):
        return "<dl>" + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in b.pairs) + "</dl>"
    if isinstance(b, Details):
        return f"<details><summary>{_e(b.summary)}</summary><pre>{html.escape(clean(b.text), quote=False)}</pre></details>"
    if isinstance(b, Caution):
        return f'<p class="warn">⚠ {_e(b.text)}</p>'
    if isinstance(b, Table):
        head = "".join(f"<th>{_e(c)}</th>" for c in b.columns)
        long = [str(c) in _LONG_COLUMNS for c in b.columns]
        body = "".join("<tr>" + "".join(_html_cell(c, long[i] if i < len(long) else False) for i, c in enumerate(row))
                       + "</tr>" for row in b.rows)
        cap = f'<p class="caption">{_e(b.caption)}</p>' if b.caption else ""
        return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{cap}'
    if isinstance(b, Plot):
        data = base64.b64encode(b.png).decode("ascii")
        return f'<figure><img class="plot" alt="{_e(b.title)}" src="data:image/png;base64,{data}"><figcaption>{_e(b.title)}</figcaption></figure>'
    if isinstance(b, ProbeCase):
        return _html_case(b)
    raise TypeError(f"no HTML rendering for {type(b).__name__}")


def _html_cell(text: Any, long: bool) -> str:
    """A table cell: a "mean [low,high]" value keeps its interval on a line of its own (so columns
    stay narrow); long prose columns get room to wrap."""
    m = _CI.match(str(text))
    inner = f'{_e(m.group(1))}<span class="ci">{_e(m.group(2))}</span>' if m else _e(text)
    return f'<td class="long">{inner}</td>' if long else f"<td>{inner}</td>"


def _html_case(c: ProbeCase) -> str:
    reasons = "".join(f'<span class="reason">{_e(x)}</span>' for x in c.reasons)
    lines, section = [], None
    for line in c.lines:
        if line.section != section and line.section:
            lines.append(f'<div class="sec">{_e(line.section)}</div>')
        section = line.section
        cls = "ctx evidence" if line.evidence else "ctx"
        src = f' <span class="src">[{_e(", ".join(line.sources))}]</span>' if line.sources else ""
        lines.append(f'<div class="{cls}" data-evidence="{str(line.evidence).lower()}">{_e(line.text)}{src}</div>')
    missing = f" · not in context: {_e(', '.join(c.missing_evidence))}" if c.missing_evidence else ""
    why = "".join(f'<li data-metric="{_e(name)}"><b>{_e(name)}</b>: {_e(text)}</li>' for name, text in c.explanations)
    return (f'<details class="case" data-probe="{_e(c.probe_id)}" data-strategy="{_e(c.strategy)}"><summary><b>{_e(c.strategy)}</b> · '
            f"{_e(c.dataset)}/{_e(c.conversation_id)}/{_e(c.probe_id)} · {_e(c.category)} · {reasons}</summary>"
            f"<dl><dt>question</dt><dd>{_e(c.question)}</dd><dt>gold</dt><dd>{_e(c.gold)}</dd>"
            f"<dt>answer</dt><dd>{_e(c.answer)}</dd>" + (f"<dt>judge</dt><dd>{_e(c.judge)}</dd>" if c.judge else "")
            + (f'<dt>why</dt><dd><ul class="why">{why}</ul></dd>' if why else "")
            + f"<dt>evidence turns</dt><dd>{_e(', '.join(c.evidence) or '–')}{missing}</dd></dl>"
            f"<div>injected context ({c.context_lines or len(c.lines)} lines, {sum(x.evidence for x in c.lines)} from evidence turns):</div>"
            + ("".join(lines) or "<div class=\"ctx\">(empty)</div>") + "</details>")


def render_html(report: Report) -> str:
    """One self-contained HTML document: inline CSS, plots as base64 PNGs, no external URL."""
    nav = "".join(f'<a href="#{s.id}">{_e(s.title)}</a>' for s in report.sections)
    body = "".join(f'<section id="{s.id}"><h2>{_e(s.title)}</h2>{"".join(_html_block(b) for b in s.blocks)}</section>'
                   for s in report.sections)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(report.title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}</style></head>'
            f'<body data-plots="{len(report.plots)}"><h1>{_e(report.title)}</h1><nav>{nav}</nav>{body}'
            f"<script>{_LOADED_SCRIPT}</script></body></html>")


def _m(text: Any) -> str:
    """Markdown-safe inline text: HTML and markdown syntax escaped, one line (memlab.analysis.markup)."""
    return md_inline(text)


def _md_block(b: Any, stem: str, files: dict[str, bytes]) -> str:
    if isinstance(b, Text):
        return _m(b.text)
    if isinstance(b, Heading):
        return f"### {_m(b.text)}"
    if isinstance(b, Caution):
        return f"> ⚠️ **{_m(b.text)}**"
    if isinstance(b, Facts):
        return "\n".join(f"- **{_m(k)}**: {_m(v)}" for k, v in b.pairs)
    if isinstance(b, Details):
        return f"<details><summary>{_e(b.summary)}</summary>\n\n<pre>{html.escape(clean(b.text), quote=False)}</pre>\n</details>"
    if isinstance(b, Table):
        out = ["| " + " | ".join(_m(c) for c in b.columns) + " |", "|" + "---|" * len(b.columns)]
        out += ["| " + " | ".join(_m(c) for c in row) + " |" for row in b.rows]
        return "\n".join(out) + (f"\n\n*{_m(b.caption)}*" if b.caption else "")
    if isinstance(b, Plot):
        name = f"{stem}-{b.name}.png"
        files[name] = b.png
        return f"![{_m(b.title)}]({name})"
    if isinstance(b, ProbeCase):
        lines = [f"#### {_m(b.strategy)} · {_m(b.dataset)}/{_m(b.conversation_id)}/{_m(b.probe_id)} ({_m(b.category)})", "",
                 f"- **question**: {_m(b.question)}", f"- **gold**: {_m(b.gold)}", f"- **answer**: {_m(b.answer)}",
                 *([f"- **judge**: {_m(b.judge)}"] if b.judge else []),
                 f"- **why it failed**: {_m('; '.join(b.reasons))}",
                 *[f"  - {_m(name)}: {_m(text)}" for name, text in b.explanations],
                 f"- **evidence turns**: {_m(', '.join(b.evidence) or '–')}"
                 + (f" (not in context: {_m(', '.join(b.missing_evidence))})" if b.missing_evidence else ""),
                 f"- **injected context** ({b.context_lines or len(b.lines)} lines; ▶ = from an evidence turn):", ""]
        lines += [f"  - {'▶ **' if x.evidence else ''}{_m(x.text)}{'**' if x.evidence else ''}" for x in b.lines] or ["  - (empty)"]
        return "\n".join(lines)
    raise TypeError(f"no markdown rendering for {type(b).__name__}")


def render_markdown(report: Report, stem: str) -> tuple[str, dict[str, bytes]]:
    """The report as markdown and its plots as ``{file name: PNG bytes}`` (``<stem>-<plot>.png``)."""
    files: dict[str, bytes] = {}
    parts = [f"# {_m(report.title)}"]
    for s in report.sections:
        parts.append(f"## {_m(s.title)}")
        parts += [_md_block(b, stem, files) for b in s.blocks]
    return "\n\n".join(parts) + "\n", files
