"""The judge prompt a run uses when its config names none: a constant kept apart from the prompts
themselves (:mod:`memlab.judging.prompts` imports DSPy), so a run config can name it cheaply."""

from __future__ import annotations

DEFAULT_JUDGE_PROMPT = "strict"
"""``judge_prompt:`` of a run config when it gives none (docs/judging.md: strict vs lenient)."""
