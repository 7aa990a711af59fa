"""ragas's own metric objects, as the reference memlab's non-LLM ragas metrics are held to.

memlab computes those metrics without importing ragas (memlab/analysis/ragas_metrics.py, "what ragas
defines"); the tests score the same inputs through the objects here and require the same values bit
for bit. This module imports ragas: it is for tests only.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any


@functools.cache
def objects() -> SimpleNamespace:
    """ragas's metric objects (its defaults; semantic similarity over memlab's local embeddings)."""
    os.environ["RAGAS_DO_NOT_TRACK"] = "true"
    from ragas.dataset_schema import SingleTurnSample
    from ragas.metrics._context_precision import NonLLMContextPrecisionWithReference
    from ragas.metrics._context_recall import NonLLMContextRecall
    from ragas.metrics._string import NonLLMStringSimilarity
    from ragas.metrics.collections import ExactMatch, RougeScore, SemanticSimilarity, StringPresence

    from memlab.embeddings.ragas import ragas_embeddings

    class Direct:
        """A single-turn metric called without ragas's public ``single_turn_ascore`` wrapper (a
        LangChain callback group and a usage event per call): the scoring is ragas's own."""

        async def single_turn_ascore(self, sample: Any, callbacks: Any = None, timeout: float | None = None) -> float:
            return await self._single_turn_ascore(sample, callbacks or [])  # type: ignore[attr-defined]

    class PairSimilarity(Direct, NonLLMStringSimilarity):
        pass

    class ContextRecall(Direct, NonLLMContextRecall):
        pass

    class ContextPrecision(Direct, NonLLMContextPrecisionWithReference):
        pass

    similarity = PairSimilarity()
    return SimpleNamespace(
        SingleTurnSample=SingleTurnSample,
        context_recall=ContextRecall(_distance_measure=similarity),
        context_precision=ContextPrecision(distance_measure=similarity),
        exact_match=ExactMatch(), string_presence=StringPresence(), rouge=RougeScore(),
        semantic_similarity=SemanticSimilarity(embeddings=ragas_embeddings()),
        defaults=SimpleNamespace(recall_threshold=NonLLMContextRecall().threshold,
                                 precision_threshold=NonLLMContextPrecisionWithReference().threshold,
                                 rouge_type=RougeScore().rouge_type, rouge_mode=RougeScore().mode),
    )


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a ragas coroutine from synchronous code, also inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def context_scores(retrieved: Sequence[str], evidence: Sequence[str]) -> tuple[float, float]:
    """(recall, precision) through ragas's NonLLMContextRecall and NonLLMContextPrecisionWithReference."""
    r = objects()
    sample = r.SingleTurnSample(retrieved_contexts=list(retrieved), reference_contexts=list(evidence))

    async def both() -> tuple[float, float]:
        return (float(await r.context_recall.single_turn_ascore(sample)),
                float(await r.context_precision.single_turn_ascore(sample)))

    return run(both())


def answer_scores(answer: str, refs: Sequence[str]) -> dict[str, float]:
    """Each answer metric's best value over the references, through ragas's objects."""
    r = objects()

    async def every() -> dict[str, float]:
        out = {}
        for name in ("string_presence", "exact_match", "rouge", "semantic_similarity"):
            m = getattr(r, name)
            out[name] = max([float((await m.ascore(reference=ref, response=answer)).value) for ref in refs])
        return out

    return run(every())
