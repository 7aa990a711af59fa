"""ragas's LLM metrics as a pass over recorded answers, through memlab's model layer.

ragas's LLM metrics (``ContextRecall``, ``Faithfulness``, ``AnswerCorrectness`` from
``ragas.metrics.collections``) ask an LLM for structured output: statements, verdicts,
classifications. Here that LLM is :class:`MemlabRagasLLM`, a ragas ``InstructorBaseRagasLLM``
whose every request is a memlab :class:`~memlab.llm.types.ChatRequest` sent through the judge's
memlab model — so each call is recorded in ``calls.jsonl`` (purpose ``ragas``, scoped to its
probe, phase ``judge``), served from the record/replay cache (``--cache-mode replay-strict`` makes
no request), paced by the endpoint's rate limiter, booked against the run's budget, and counted
in the cost table and the estimate like every other call.

The request is ragas's own prompt (its instruction, the JSON schema of the answer it expects and
its examples) as one user message with ``response_format: {type: json_object}``; the reply is
parsed into ragas's pydantic model. A reply that does not parse is rejected (dropped from the
cache) and asked again, up to three times, as memlab's roles do.

Like the judge, the pass runs after a run's units (:meth:`memlab.harness.runner.Runner._judge_pass`)
and in ``memlab rejudge`` — never inside the unit loop — and writes ``ragas_llm`` into each
answered probe of a final attempt: every metric's value, None where it failed, the reasons under
``errors`` (secrets redacted). The analysis side only reads those values
(:mod:`memlab.analysis.ragas_metrics`).
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import time
from pathlib import Path
from typing import Any

from memlab.judging.batch import build_judge, run_scoped
from memlab.judging.recorded import final_attempts, probe_scope, write_jsonl, write_pass
from memlab.llm import calls
from memlab.llm.types import CallRecord, ChatRequest, EndpointDown, ModelError
from memlab.redact import redact_text

LLM_METRICS = ("ragas_llm_context_recall", "ragas_faithfulness", "ragas_answer_correctness")
"""The keys of a probe's ``ragas_llm`` (the metrics :mod:`memlab.analysis.ragas_metrics` reads)."""
PURPOSE = "ragas"
MAX_TOKENS = 1024
"""Output cap of a ragas request (ragas's own default for its LLMs): the NLI step lists a verdict
with a reason for every statement of an answer."""
PARSE_ATTEMPTS = 3


class RagasOutputError(RuntimeError):
    """The model's reply to a ragas prompt did not parse into the structure ragas asked for."""


@functools.cache
def ragas_problem() -> str | None:
    """Why ragas's LLM metrics cannot run here (None: they can)."""
    os.environ["RAGAS_DO_NOT_TRACK"] = "true"
    try:
        from ragas.llms.base import InstructorBaseRagasLLM  # noqa: F401
        from ragas.metrics.collections import AnswerCorrectness, ContextRecall, Faithfulness  # noqa: F401
    except ImportError as exc:
        return f"ragas could not be imported ({type(exc).__name__}: {exc})"
    return None


def ragas_wanted(spec: Any, metrics: list[str] | None) -> bool:
    """Whether a run with judge ``spec`` and headline ``metrics`` scores ragas's LLM metrics: an
    OpenAI-compatible judge (the offline judge cannot answer ragas's prompts), ``metrics:`` absent
    or naming one of them, and ragas installed (a config that names one without it was refused)."""
    if spec is None or getattr(spec, "provider", None) != "openai":
        return False
    if metrics is not None and not set(metrics) & set(LLM_METRICS):
        return False
    return ragas_problem() is None


def reference_text(gold: list[list[str]], gold_match: str) -> str:
    """The gold answer as one text for the LLM metrics (the form memlab's own judge is shown)."""
    if gold_match == "all":
        return " and ".join(forms[0] for forms in gold if forms)
    return " | ".join(form for forms in gold for form in forms)


def probe_contexts(probe: dict[str, Any]) -> list[str]:
    """The recorded context lines of a probe (one per injected memory or message)."""
    items = probe.get("context_items")
    if items:
        return [item["text"] for item in items if item.get("text")]
    return [line for line in (probe.get("context") or "").splitlines() if line.strip() and not line.startswith("## ")]


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


def _json_text(text: str) -> str:
    """The JSON object in a reply (a code fence or text around it removed)."""
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        return fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if 0 <= start < end else text


def structured_call(model: Any, prompt: str, response_model: type, *, temperature: float | None) -> Any:
    """Ask ``model`` for ``response_model`` with ragas's ``prompt``; one call record for the logical call
    (its parse retries included), like a memlab role's. Raises ModelError or :class:`RagasOutputError`."""
    request = ChatRequest(messages=[{"role": "user", "content": prompt}], purpose=PURPOSE,
                          signature=f"ragas.{response_model.__name__}", temperature=temperature, max_tokens=MAX_TOKENS,
                          params={"response_format": {"type": "json_object"}})
    record = CallRecord(call_id=calls.new_call_id(), purpose=PURPOSE, signature=request.signature, model=model.model_id,
                        attempts=0)
    t0 = time.perf_counter()
    last_error = "no attempt made"
    try:
        for _ in range(PARSE_ATTEMPTS):
            try:
                resp = model.complete(request)
            except ModelError as exc:
                record.attempts += getattr(exc, "attempts", 1)
                last_error = f"{type(exc).__name__}: {exc}"
                raise
            record.attempts += resp.attempts
            record.prompt_tokens += resp.usage.prompt_tokens
            record.completion_tokens += resp.usage.completion_tokens
            record.cached_tokens += resp.usage.cached_tokens
            record.token_source, record.cached, record.model = resp.usage.source, resp.cached, resp.model
            try:
                return response_model.model_validate_json(_json_text(resp.text))
            except ValueError as exc:  # pydantic's ValidationError is a ValueError
                last_error = f"malformed output: {str(exc)[:300]}"
                model.reject(request)  # never replay a reply that does not parse
        raise RagasOutputError(f"{request.signature} failed: {last_error}")
    except BaseException:
        record.ok, record.error = False, redact_text(last_error)
        raise
    finally:
        record.latency_s = time.perf_counter() - t0
        calls.emit(record)


def memlab_ragas_llm(model: Any, temperature: float | None) -> Any:
    """ragas's LLM interface over a memlab chat model (ragas imported here, on first use)."""
    from ragas.llms.base import InstructorBaseRagasLLM

    class MemlabRagasLLM(InstructorBaseRagasLLM):
        """Every ragas request through memlab's model layer (see the module docstring)."""

        def generate(self, prompt: str, response_model: Any) -> Any:
            return structured_call(model, prompt, response_model, temperature=temperature)

        async def agenerate(self, prompt: str, response_model: Any) -> Any:
            # in a thread (the model call blocks); asyncio.to_thread carries the call's scope and sink along
            return await asyncio.to_thread(structured_call, model, prompt, response_model, temperature=temperature)

    return MemlabRagasLLM()


def score_probe(llm: Any, probe: dict[str, Any]) -> dict[str, Any]:
    """Each LLM metric's value for one recorded probe (None where it failed, with the reason under
    ``errors``). The metrics run one after another, so a probe's calls are made in a fixed order.
    A fault that stops every later call (endpoint down, budget reached) is raised."""
    from ragas.metrics.collections import AnswerCorrectness, ContextRecall, Faithfulness

    from memlab.embeddings.ragas import ragas_embeddings

    question, answer = probe["question"], probe["answer"]
    reference = reference_text(probe["gold"], probe.get("gold_match") or "any")
    ctx = probe_contexts(probe) or [""]
    jobs = {
        "ragas_llm_context_recall": lambda: ContextRecall(llm=llm).ascore(
            user_input=question, retrieved_contexts=ctx, reference=reference),
        "ragas_faithfulness": lambda: Faithfulness(llm=llm).ascore(user_input=question, response=answer, retrieved_contexts=ctx),
        "ragas_answer_correctness": lambda: AnswerCorrectness(llm=llm, embeddings=ragas_embeddings()).ascore(
            user_input=question, response=answer, reference=reference),
    }

    async def every() -> dict[str, Any]:
        out: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for name, job in jobs.items():
            try:
                value = (await job()).value
            except EndpointDown:
                raise
            except Exception as exc:
                out[name] = None
                errors[name] = redact_text(f"{type(exc).__name__}: {exc}")[:500]
                continue
            out[name] = None if value is None or value != value else float(value)  # NaN: ragas found nothing to score
        if errors:
            out["errors"] = errors
        return out

    return asyncio.run(every())


def _pending(probe: dict[str, Any], redo: bool) -> bool:
    values = probe.get("ragas_llm")
    return redo or not isinstance(values, dict) or bool(values.get("errors"))


def ragas_recorded(src: Path, dest: Path, spec: Any, *, workers: int = 1, redo: bool = True, budget: Any = None,
                   model: Any = None) -> list[dict[str, Any]]:
    """Score ragas's LLM metrics on ``src``'s recorded answers (final attempts, answered probes with a
    gold answer) with the judge ``spec`` (or ``model``, a memlab chat model) and write ``dest``'s
    ``probes.jsonl`` (``ragas_llm`` filled) and ``calls.jsonl`` (the calls, purpose ``ragas``).
    ``redo``: every answer (``memlab rejudge``); otherwise only those without values or with a
    failed metric (a run's pass and its resume). ``dest`` may be ``src``. A fault that stops every
    later call is raised after what was scored is written. Returns the values written."""
    from memlab.runfolder.recorder import read_jsonl

    probes = read_jsonl(src / "probes.jsonl")
    final = final_attempts(src)
    todo = [i for i, p in enumerate(probes) if p.get("answer") is not None and p.get("gold")
            and p.get("attempt") in final and _pending(p, redo)]
    model = model if model is not None else build_judge(spec, budget)
    llm = memlab_ragas_llm(model, getattr(spec, "temperature", 0.0))
    values, made, stop = run_scoped(lambda p: score_probe(llm, p), [probes[i] for i in todo],
                                    [probe_scope(probes[i]) for i in todo], workers=workers)
    scored = [(i, v) for i, v in zip(todo, values, strict=True) if v is not None]
    write_pass(src, dest, probes, "ragas_llm", scored, made, purpose=PURPOSE, final=final)
    if stop is not None:
        raise stop
    return [v for _, v in scored]


def has_ragas_values(run_dir: Path) -> bool:
    """Whether some answered probe of ``run_dir``'s final attempts holds ragas LLM values (the run scored them)."""
    from memlab.runfolder.recorder import read_jsonl

    final = final_attempts(run_dir)
    return any(p.get("attempt") in final and isinstance(p.get("ragas_llm"), dict) for p in read_jsonl(run_dir / "probes.jsonl"))


def clear_recorded(run_dir: Path) -> int:
    """Drop the ragas LLM values and calls of ``run_dir``'s final attempts (a re-judged copy whose new
    judge does not score them: the old values were another judge's). Returns the probes cleared."""
    from memlab.runfolder.recorder import read_jsonl

    final = final_attempts(run_dir)
    probes = read_jsonl(run_dir / "probes.jsonl")
    cleared = 0
    for p in probes:
        if p.get("attempt") in final and p.get("ragas_llm") is not None:
            p["ragas_llm"] = None
            cleared += 1
    if not cleared:
        return 0
    write_jsonl(run_dir / "probes.jsonl", probes)
    write_jsonl(run_dir / "calls.jsonl", [c for c in read_jsonl(run_dir / "calls.jsonl")
                                          if c.get("purpose") != PURPOSE or c.get("attempt") not in final])
    return cleared

