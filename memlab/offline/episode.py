"""RecordEpisode, extractively: the goal is what the user asked, the key steps are the agent's
actions and the first line of what each tool returned, the outcome is the agent's last word.

No lessons are invented: an extractive model cannot generalise, so ``lessons`` stays empty
(documented weak spot: an LLM would write them)."""

from __future__ import annotations

from memlab.offline.statements import transcript_lines

MAX_STEPS = 8
"""Key steps kept: the first ones (what was tried first is what a later attempt should know)."""


def record_episode(transcript: str) -> dict[str, object]:
    lines = transcript_lines(transcript)
    goal = next((text for _, speaker, text in lines if speaker.startswith("user")), "")
    steps: list[str] = []
    for _, speaker, text in lines:
        first = text.strip().splitlines()[0] if text.strip() else ""
        if speaker.startswith("tool") and first:
            steps.append(f"{speaker.split(':', 1)[-1].strip() or 'tool'} returned: {first[:160]}")
        elif speaker.startswith("assistant") and "`" in first:  # an announced action ("Calling `kubectl ...`")
            steps.append(first[:160])
    outcome = next((text for _, speaker, text in reversed(lines) if speaker.startswith("assistant")), "")
    return {"goal": goal.strip()[:300], "key_steps": steps[:MAX_STEPS], "outcome": outcome.strip()[:300], "lessons": ""}
