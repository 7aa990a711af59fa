"""Did a response decline to answer? Refusal detection written as general patterns.

A refusal is recognised by who declines and how, not by single words: the speaker (I / we),
an impersonal "there is no ..." or "it is not ...", or "you haven't told me". A sentence that
merely contains such words about someone else ("she is not sure", "I don't know Porto well,
but ...") is not a refusal, and text in quotation marks is ignored (a quoted "I don't know" is
reported speech). The patterns are general English refusal shapes, written from the language,
never tuned on evaluation data; ``docs/metrics.md`` lists them.
"""

from __future__ import annotations

import re

_ME = r"(?:i|we)"
_NEG = r"(?:do\s*n[o']?t|don't|dont|did\s*n[o']?t|didn't|really\s+don't|honestly\s+don't)"
_CANT = r"(?:can\s*not|can't|cant|couldn't|could\s+not|am\s+unable\s+to|'m\s+unable\s+to|am\s+not\s+able\s+to|'m\s+not\s+able\s+to)"
_INFO = (r"(?:information|info|record|records|mention|details?|data|memory|memories|notes?|evidence|indication|"
         r"knowledge|context)")
_WH = r"(?:what|which|who|whom|whose|where|when|why|how|if|whether|that|about|of|for\s+sure|for\s+certain|yet)"
_END = r"(?=\s*(?:$|[.,;:!?)]|\b" + _WH + r"\b|\b(?:the\s+answer|anything|any)\b))"
_THAT = r"(?:it|this|that|which|the\s+answer|(?:this|that|the|such)\s+(?:information|detail|fact))"
_TO_ME = (r"(?=\s*(?:$|[.,;:!?)]|\b(?:me|us|a|an|the|your|any|anything|it|that|this|which|what|who|where|when|how|"
          r"about|yet|if|whether|one)\b))")
_NO_SAY = r"(?:told|tell|mentioned|mention|said|say|shared|share|specified|given|provided|chosen|choose|decided|decide|picked|pick|settled)"

_REFUSAL = re.compile(
    "|".join([
        # I don't know / I don't remember / I'm not sure / I'm not certain — with nothing or a wh-clause after.
        rf"\b{_ME}\s+{_NEG}\s+(?:know|remember|recall|have\s+(?:that|this|any|enough|the))(?:\s+(?:for\s+sure|exactly))?{_END}",
        rf"\b{_ME}\s+{_NEG}\s+have\s+(?:(?:any|enough|that|this|the|such|a)\s+)?{_INFO}",
        rf"\b(?:i'm|i\s+am|we're|we\s+are)\s+(?:not|un)\s*(?:sure|certain|aware){_END}",
        r"^\s*(?:not\s+sure|unsure|no\s+idea|no\s+clue|unknown|idk|dunno|n/?a|none|unanswerable)\s*(?:[.!]|$)",
        rf"\b{_ME}\s+(?:have|'ve|'ve\s+got|have\s+got)\s+no\s+(?:idea|clue|way\s+(?:of|to)\s+know(?:ing)?|{_INFO})",
        rf"\b{_ME}\s+{_CANT}\s+(?:tell|say|find|recall|remember|determine|answer|know|see|confirm|work\s+out)\b",
        rf"\b(?:there\s+is|there's|there\s+are|there\s+was|there\s+were|i\s+see|i\s+found|i\s+find)\s+no\s+{_INFO}\b",
        rf"\bno\s+{_INFO}\s+(?:about|on|of|regarding|concerning|as\s+to)\b",
        r"\b(?:can't|cannot|can\s+not|impossible\s+to|unable\s+to)\s+(?:be\s+)?(?:tell|told|determined?|say|said)\s+(?:from|based\s+on|with)\b",
        rf"\byou\s+(?:have\s+not|haven't|never|didn't|did\s+not|hasn't|have\s+never|'ve\s+never)\s+(?:yet\s+)?{_NO_SAY}{_TO_ME}",
        rf"\b{_THAT}\s+(?:isn't|is\s+not|wasn't|was\s+not|hasn't\s+been|has\s+not\s+been|was\s+never|has\s+never\s+been|"
        rf"is\s+never|'s\s+not|hasn't|has\s+not)\s+(?:yet\s+)?(?:been\s+)?(?:mentioned|specified|stated|recorded|shared|given|"
        rf"decided|chosen|clear|known|available|said|discussed|come\s+up)\b",
        rf"\bnot\s+(?:enough|sufficient)\s+{_INFO}\b",
        r"\bcannot\s+be\s+(?:determined|answered|known)\b",
    ]),
    re.MULTILINE,
)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)")


def is_abstention(text: str | None) -> bool:
    """True when ``text`` declines to answer; an empty response counts as declining."""
    t = str(text or "").replace("’", "'").replace("‘", "'").lower().strip()
    if not t:
        return True
    t = _QUOTED.sub(" ", t)
    return bool(_REFUSAL.search(t))
