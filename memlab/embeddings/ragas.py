"""memlab's local MiniLM embedder as a ragas embeddings object.

For ragas's own metric objects that embed: the LLM answer-correctness metric scored in the judging
pass (:mod:`memlab.judging.ragas_pass`), and the tests' ragas reference (tests/support/ragas_reference.py)
that memlab's read-back semantic similarity (computed without ragas, :mod:`memlab.analysis.ragas_metrics`)
is held to. Both embed with the process's shared embedder (no download, cached vectors). ragas is
imported on first use.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def ragas_embeddings() -> Any:
    """One ragas ``BaseRagasEmbedding`` over :func:`memlab.embeddings.shared_embedder` per process."""
    from ragas.embeddings.base import BaseRagasEmbedding

    from memlab.embeddings import shared_embedder

    class MemlabEmbeddings(BaseRagasEmbedding):
        """all-MiniLM-L6-v2 through :func:`memlab.embeddings.shared_embedder`, whose cache makes a
        text seen by a run (or an earlier probe) free to embed again."""

        def __init__(self) -> None:
            super().__init__()
            self.embedder = shared_embedder()

        def embed_text(self, text: str, **kwargs: Any) -> list[float]:
            return self.embedder.embed([text])[0].tolist()

        async def aembed_text(self, text: str, **kwargs: Any) -> list[float]:
            return self.embed_text(text)

    return MemlabEmbeddings()
