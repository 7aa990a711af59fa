"""The hot-path gate (ShouldRemember): is there anything durable in this message at all?

It is deliberately *not* the extraction filter run early: a gate exists to be cheaper than
extraction, so it reads surface cues of the whole message in one pass over its words (no
sentence segmentation, no lemmas, no embeddings) and errs towards keeping. Cues, each a general
marker of durable information:

* self-reference (I, my, we...) or a named person/place (a capitalised word not at a sentence start);
* concrete values: digits, dates, number words;
* preference verbs and standing-request adverbials ("prefer", "always", "from now on");
* change markers ("now", "moved", "no longer"), which make a known value stale.

A message that is only a question, only small talk, or meta-language aimed at the assistant's
rules (injection) is not kept. Kind: ``preference`` when a preference cue is present, ``event``
when a time expression is, else ``fact``. Importance grows with the number of cue types.
"""

from __future__ import annotations

import re

from memlab.offline import lexicon as lx

_WORD = re.compile(r"[a-z']+|\d+")
_PROPER = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
_TIME = re.compile(r"\b(?:yesterday|tomorrow|today|ago|last|next|since|until|"
                   + "|".join(lx.MONTHS + lx.WEEKDAYS) + r")\b|\d{4}|\d{1,2}[/:-]\d{1,2}")


def gate(message: str, speaker: str) -> dict[str, object]:
    low = message.lower()
    ws = _WORD.findall(low.replace("’", "'"))
    role = speaker.split(":", 1)[0].strip().lower()
    questions_only = all(part.strip().endswith("?") or not part.strip() for part in re.split(r"(?<=[.!?])\s+", message))
    chatter = all(w in lx.INTERJECTIONS or w in lx.FUNCTION_WORDS for w in ws)
    injected = any(cue in low for cue in lx.INJECTION_CUES)
    if role in ("assistant", "system") or not ws or questions_only or chatter or injected:
        return {"remember": False, "kind": "none", "importance": 0.0}
    preference = any(w in lx.PREFERENCE_VERBS for w in ws) or any(c in low for c in lx.DURABLE_CUES)
    cues = [
        any(w in lx.FIRST_PERSON or w.startswith(("i'", "we'")) for w in ws) or bool(_PROPER.search(message)),
        any(w.isdigit() or w in lx.NUMBER_WORDS for w in ws),
        preference,
        bool(_TIME.search(low)),
        any(w in lx.CHANGE_CUES for w in ws) or "no longer" in low,
    ]
    score = sum(cues) / 3
    kind = "preference" if preference else "event" if cues[3] else "fact"
    return {"remember": score > 0, "kind": kind if score > 0 else "none", "importance": round(min(1.0, score), 2)}
