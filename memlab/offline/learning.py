"""The offline learning analysis (AnalyzeForLearning, seed 003): facts with a confidence level.

Facts are the extraction filter's durable statements of the user's message (``statements.extract``).
Confidence reads the speaker's commitment from hedges, a closed class of epistemic markers, not
topics:

* ``low`` when the statement is reported or doubted: "I think", "maybe", "perhaps", "probably",
  "might", "not sure", "mentioned", "heard", "apparently";
* ``medium`` when it describes a habit or tendency rather than a fact: "usually", "tend to",
  "often", "sometimes", "mostly", "generally";
* ``high`` otherwise (a plain assertion).

The category is the first of the triggered pattern categories (the extractor's regexes decided
what the message is about), else ``general``.
"""

from __future__ import annotations

from memlab.offline.statements import extract
from memlab.offline.text import has_phrase

LOW = ("i think", "i guess", "maybe", "perhaps", "probably", "might", "not sure", "mentioned", "heard", "apparently",
       "i believe", "seems")
MEDIUM = ("usually", "tend to", "often", "sometimes", "mostly", "generally", "typically")
CATEGORIES = {"names": "people", "people": "people", "preferences": "preferences", "projects": "projects",
              "schedules": "schedules"}


def confidence(sentence: str) -> str:
    if has_phrase(sentence, LOW):
        return "low"
    if has_phrase(sentence, MEDIUM):
        return "medium"
    return "high"


def analyze(user_input: str, speaker: str, triggered: list[str]) -> list[dict[str, str]]:
    category = next((CATEGORIES[t] for t in triggered if t in CATEGORIES), "general")
    return [{"fact": fact, "category": category, "confidence": confidence(user_input), "reasoning": "offline: hedges"}
            for fact in extract(user_input, speaker)]
