"""Keyword relevance for stores without a full-text index: a BM25 index kept per namespace.

Why this design:

* **A kept library.** Scoring is ``bm25s`` (Lucene's BM25 variant, k1=1.2, b=0.75) over
  English-stemmed terms (``PyStemmer``'s Snowball stemmer, so "running" matches "run"),
  after memlab's tokenizer drops punctuation and a stopword list.
* **Tokenised once.** A document is analysed when it is written (add/update), not on every
  query; queries used to re-tokenise the whole namespace (15.7 ms at ~600 items).
* **Rebuilt lazily.** BM25's statistics (document frequencies, average length) change with
  every document, and ``bm25s`` precomputes per-term scores from them, so it cannot add a
  document in place. The index keeps each namespace's term ids and rebuilds the ``bm25s``
  matrix from them (no re-tokenising, no vocabulary pass) on the first query after the
  namespace changed; a namespace that did not change is never rebuilt.
* **Statistics over the whole namespace.** Every stored item of the namespace counts,
  invalidated and expired ones included, and filters (``where``, validity) are applied to
  the ranked hits afterwards. So a filter never changes another item's score, and scores do
  not drift with the clock as items expire.
* **Deterministic order.** Hits come ranked by score desc, ``created_at`` asc, ``id`` asc
  (the rule in :mod:`memlab.memory.stores.base`); documents are laid out by id before each
  build, so scores do not depend on insertion order either.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
STOPWORDS = frozenset(
    "a an the and or but if of at by for with about against between into through during before after above below "
    "to from up down in out on off over under again further then once here there when where why how all any both "
    "each few more most other some such no nor not only own same so than too very s t can will just don should now "
    "i me my myself we our ours you your yours he him his she her hers it its they them their what which who whom "
    "this that these those am is are was were be been being have has had having do does did doing would could "
    "im i'm i've i'd i'll you're it's that's".split()
)
K1 = 1.2
B = 0.75


def tokens(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Lower-cased word tokens, stopwords removed (unstemmed: Postgres stems them itself)."""
    toks = _TOKEN.findall(text.lower())
    return toks if keep_stopwords else [t for t in toks if t not in STOPWORDS]


@dataclass
class _Namespace:
    """One namespace's analysed documents and, when current, its built ``bm25s`` index."""

    vocab: dict[str, int] = field(default_factory=dict)
    docs: dict[str, tuple[list[int], datetime]] = field(default_factory=dict)
    built: Any = None
    """(bm25s.BM25, ids in build order, rank of each doc by (created_at, id)) or None when stale."""


class KeywordIndex:
    """BM25 over stemmed terms, one lazily rebuilt ``bm25s`` index per namespace. Thread-safe."""

    def __init__(self) -> None:
        import Stemmer  # PyStemmer; imported here so importing memlab stays light

        self._stemmer = Stemmer.Stemmer("english")
        self._spaces: dict[str, _Namespace] = {}
        self._lock = threading.Lock()

    def _terms(self, text: str) -> list[str]:
        return list(self._stemmer.stemWords(tokens(text)))

    def put(self, namespace: str, item_id: str, text: str, created_at: datetime) -> None:
        """Add or replace one document."""
        with self._lock:
            space = self._spaces.setdefault(namespace, _Namespace())
            ids = [space.vocab.setdefault(t, len(space.vocab)) for t in self._terms(text)]
            space.docs[item_id] = (ids, created_at)
            space.built = None

    def load(self, namespace: str, docs: Iterable[tuple[str, str, datetime]]) -> None:
        """Replace a namespace's documents with ``(id, text, created_at)`` triples."""
        with self._lock:
            self._spaces.pop(namespace, None)
        for item_id, text, created_at in docs:
            self.put(namespace, item_id, text, created_at)
        with self._lock:
            self._spaces.setdefault(namespace, _Namespace())

    def loaded(self, namespace: str) -> bool:
        return namespace in self._spaces

    def remove(self, namespace: str, ids: Sequence[str]) -> None:
        with self._lock:
            space = self._spaces.get(namespace)
            if space is None:
                return
            for item_id in ids:
                if space.docs.pop(item_id, None) is not None:
                    space.built = None

    def drop(self, namespace: str | None = None) -> None:
        """Forget a namespace (or all of them)."""
        with self._lock:
            if namespace is None:
                self._spaces.clear()
            else:
                self._spaces.pop(namespace, None)

    def ranked(self, namespace: str, query: str) -> list[tuple[str, float]]:
        """``(id, score)`` of every document matching at least one query term, best first."""
        with self._lock:
            space = self._spaces.get(namespace)
            if space is None or not space.docs:
                return []
            term_ids = [space.vocab[t] for t in dict.fromkeys(self._terms(query)) if t in space.vocab]
            if not term_ids:
                return []
            if space.built is None:
                space.built = _build(space)
            bm25, order, tie_rank = space.built
            scores = np.asarray(bm25.get_scores_from_ids(term_ids), dtype=np.float64)
        hit = np.flatnonzero(scores > 0)
        ranked = hit[np.lexsort((tie_rank[hit], -scores[hit]))]
        return [(order[i], float(scores[i])) for i in ranked]


def _build(space: _Namespace) -> tuple[Any, list[str], np.ndarray]:
    import bm25s

    order = sorted(space.docs)  # layout by id: the build never depends on insertion order
    corpus = [space.docs[i][0] for i in order]
    bm25 = bm25s.BM25(k1=K1, b=B, method="lucene")
    bm25.index((corpus, dict(space.vocab)), create_empty_token=False, show_progress=False)
    by_age = sorted(range(len(order)), key=lambda j: (space.docs[order[j]][1], order[j]))
    tie_rank = np.empty(len(order), dtype=np.int64)
    tie_rank[by_age] = np.arange(len(order))
    return bm25, order, tie_rank
