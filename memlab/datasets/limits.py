"""How long one turn may be.

A turn is one message of a conversation. A 42 MB "turn" validated, and a run then carried it into
every context, every model call and every record (a 254 MB ``probes.jsonl`` for one probe). No
conversation memlab evaluates has turns anywhere near that: LoCoMo's and LongMemEval's longest are
a few kilobytes. So:

* above :data:`TURN_WARN_BYTES` (100 KiB of UTF-8) ``memlab validate`` warns — legal, but a turn
  that size fills a context window on its own;
* above :data:`TURN_MAX_BYTES` (1 MiB) the turn is a problem: the file does not validate and no
  run loads it (every format, native or converted).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memlab.datasets.models import Dataset
from memlab.datasets.problems import Problem

TURN_WARN_BYTES = 100 * 1024
TURN_MAX_BYTES = 1024 * 1024


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB"


def oversized_turns(ds: Dataset, file: str, line_for: Callable[[tuple[Any, ...]], int | None] | None,
                    above: int) -> list[Problem]:
    """A problem for every turn whose text is more than ``above`` bytes of UTF-8. ``line_for`` maps a
    native data path to its line (None for a converted benchmark file, whose paths differ)."""
    out = []
    for ci, conv in enumerate(ds.conversations):
        for si, session in enumerate(conv.sessions):
            for ti, turn in enumerate(session.turns):
                if len(turn.text) * 4 <= above:  # at most 4 bytes a character: no need to encode it
                    continue
                n = len(turn.text.encode("utf-8", "surrogatepass"))
                if n <= above:
                    continue
                loc = ("conversations", ci, "sessions", si, "turns", ti, "text")
                what = (f"turn {turn.id!r} of conversation {conv.id!r} is {_size(n)} of text, above "
                        + (f"the limit of {_size(TURN_MAX_BYTES)} per turn: no model reads a message that long; "
                           "split or shorten it" if above >= TURN_MAX_BYTES else
                           f"{_size(TURN_WARN_BYTES)}: it fills a context window on its own"))
                out.append(Problem(file, f"conversations[{ci}].sessions[{si}].turns[{ti}].text",
                                   line_for(loc) if line_for else None, what))
    return out
