"""The design report's document model: sections of tables, plots, facts and failed-probe cases.

:mod:`memlab.analysis.html_report` reads run folders into these blocks; :mod:`memlab.analysis.report_render`
writes them as HTML or markdown. Plain frozen dataclasses, so the two sides meet only here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass(frozen=True)
class Plot:
    name: str
    """File-name stem of the PNG in the markdown variant."""
    title: str
    png: bytes


@dataclass(frozen=True)
class Facts:
    """Label → value pairs (a definition list)."""

    pairs: list[tuple[str, str]]


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Caution:
    """A one-line caution shown beside the numbers it concerns (e.g. offline answer metrics)."""

    text: str


@dataclass(frozen=True)
class Heading:
    """A sub-heading inside a section."""

    text: str


@dataclass(frozen=True)
class Details:
    """A folded block of preformatted text (resolved components, package versions)."""

    summary: str
    text: str


@dataclass(frozen=True)
class ContextLine:
    section: str
    text: str
    evidence: bool
    """The line was derived from one of the probe's evidence turns."""
    sources: list[str]


@dataclass(frozen=True)
class ProbeCase:
    """One failed probe, with what the strategy was given to answer it."""

    strategy: str
    dataset: str
    conversation_id: str
    probe_id: str
    category: str
    question: str
    gold: str
    answer: str
    judge: str
    """The LLM judge's verdict when the run had a judge ('' otherwise)."""
    reasons: list[str]
    evidence: list[str]
    missing_evidence: list[str]
    lines: list[ContextLine]
    context_lines: int = 0
    """Lines the probe's context held (``lines`` shows at most MAX_CONTEXT_LINES of them, then a note)."""
    explanations: list[tuple[str, str]] = field(default_factory=list)
    """(metric, why it scored what it did) for every metric that explains itself and applies:
    which gold form was found in which line, or the nearest line on a miss (memlab.scoring.explain)."""


@dataclass
class Section:
    id: str
    title: str
    blocks: list[Any] = field(default_factory=list)


@dataclass
class Report:
    title: str
    sections: list[Section]

    @property
    def plots(self) -> list[Plot]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Plot)]
