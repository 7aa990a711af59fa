"""A stand-in that answers ragas's LLM-metric prompts, so an estimate can count their calls offline.

ragas's LLM metrics are chains: the statements an answer makes decide how long the verdict
prompt is. To count those calls' tokens without a model, the estimate's dry run runs the real
ragas pass (:mod:`memlab.judging.ragas_pass`: ragas's own prompts, with the run's own questions,
answers and contexts) against this stand-in, which replies in the shape ragas's examples show
(indented JSON, one short reason per statement) by simple rules:

* statements: the answer's sentences;
* a statement is supported (verdict, attribution, true positive) when most of its words appear in
  the context or the other side.

Its verdicts are not a judge's and are never scored: a run with the offline judge scores no ragas
LLM metric. It only makes the dry run's ragas calls as long as a real judge's would roughly be.
It recognises a prompt by the title of the JSON schema ragas puts into it.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from memlab.llm.types import ChatRequest, ChatResponse, ModelError, Usage
from memlab.tokens import count_message_tokens, count_tokens

_INPUT = re.compile(r"Now perform the same with the following input\s*input:\s*(\{.*\})\s*Output:\s*$", re.S)
_WORD = re.compile(r"[a-z0-9]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
STOP = frozenset("a an the of to in on at for and or is was are were be been it its this that with by as from "
                 "i you he she we they my your his her our their".split())
SUPPORTED = "The context states this information explicitly, so the statement can be attributed to it."
UNSUPPORTED = "The context does not mention this information, so the statement cannot be attributed to it."


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOP}


def _supported(statement: str, context: str) -> bool:
    words = _words(statement)
    return bool(words) and len(words & _words(context)) >= 0.6 * len(words)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


class RagasStandIn:
    """A chat model for ragas's structured prompts only (see the module docstring)."""

    model_id = "offline-ragas-standin-1"
    """Priced as the offline stand-in (free): it never reaches an endpoint."""

    def describe(self) -> dict[str, Any]:
        return {"provider": "offline", "model": self.model_id, "heuristic": True,
                "note": "answers ragas's LLM-metric prompts by rule, for estimates only (memlab/cost/ragas_standin.py)"}

    def reject(self, request: ChatRequest) -> None:
        """Nothing is cached."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        t0 = time.perf_counter()
        prompt = str(request.messages[-1].get("content") or "")
        found = _INPUT.search(prompt)
        if found is None:
            raise ModelError("ragas stand-in: not a ragas prompt (no input block)")
        data = json.loads(found.group(1))
        title = self._title(prompt)
        if title == "StatementGeneratorOutput":
            out: dict[str, Any] = {"statements": _sentences(data.get("answer") or "")}
        elif title == "NLIStatementOutput":
            context = data.get("context") or ""
            out = {"statements": [{"statement": s, "reason": SUPPORTED if ok else UNSUPPORTED, "verdict": int(ok)}
                                  for s in data.get("statements") or [] for ok in [_supported(s, context)]]}
        elif title == "ContextRecallOutput":
            context = data.get("context") or ""
            out = {"classifications": [{"statement": s, "reason": SUPPORTED if ok else UNSUPPORTED, "attributed": int(ok)}
                                       for s in _sentences(data.get("answer") or "") for ok in [_supported(s, context)]]}
        elif title == "ClassificationWithReason":
            answer, truth = data.get("answer") or [], data.get("ground_truth") or []
            joined_truth, joined_answer = " ".join(truth), " ".join(answer)
            out = {"TP": [{"statement": s, "reason": "The ground truth supports this statement directly."}
                          for s in answer if _supported(s, joined_truth)],
                   "FP": [{"statement": s, "reason": "The ground truth does not support this statement."}
                          for s in answer if not _supported(s, joined_truth)],
                   "FN": [{"statement": s, "reason": "The answer does not mention this ground-truth statement."}
                          for s in truth if not _supported(s, joined_answer)]}
        else:
            raise ModelError(f"ragas stand-in: unknown output schema {title!r}")
        text = json.dumps(out, indent=4, ensure_ascii=False)
        usage = Usage(prompt_tokens=count_message_tokens(request.messages), completion_tokens=count_tokens(text))
        return ChatResponse(text=text, usage=usage, model=self.model_id, latency_s=time.perf_counter() - t0)

    @staticmethod
    def _title(prompt: str) -> str | None:
        """The title of the output schema ragas embeds in its prompt (the last top-level ``"title"``)."""
        head = prompt.split("--------EXAMPLES", 1)[0]
        titles = re.findall(r'"title": "(\w+)", "type": "object"\}Do not use', head)
        return titles[-1] if titles else None
