"""ragas metrics as memlab metrics, so memlab's numbers can be read next to the ones the RAG
community reports.

Every ragas metric here is a memlab :class:`~memlab.analysis.metrics.Metric` (registered in ``METRICS``,
with direction and aggregation, selectable in a config's ``metrics:``), scored per probe from the
probe record like memlab's own metrics:

* question = the probe's question, answer = the strategy's answer, contexts = the injected context
  lines (``context_items``), reference = the gold answer, reference contexts = the evidence turns'
  text (``evidence_texts``, recorded by the runner).
* The **non-LLM** metrics (context recall and precision by string similarity, string presence,
  exact match, ROUGE-L, semantic similarity on memlab's local MiniLM embeddings) are scored when
  a run is read, like every other metric: they need no model and no network. They are ragas's
  definitions computed without importing ragas (see "what ragas defines" below; the tests hold them
  to ragas's own objects bit for bit).
* The **LLM** metrics (LLM context recall, faithfulness, answer correctness) need a judge model.
  They are scored by a pass over the recorded answers after the units, through memlab's model
  layer (:mod:`memlab.judging.ragas_pass`: recorded, cached, rate-limited, budgeted), only when
  ``judge:`` is an OpenAI-compatible endpoint, and stored in the probe record (``ragas_llm``), so
  reading a run never calls a model. This module only reads those values.

ragas is an optional dependency (``memlab[ragas]``). Without it the ragas metrics score None (not
applicable), and a config or report that names one fails with the install hint.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from memlab.runfolder.probe_record import ProbeEvent
from memlab.scoring.metric_registry import Value, metric

INSTALL_HINT = "it needs ragas: pip install 'memlab[ragas]'"
LLM_METRICS = ("ragas_llm_context_recall", "ragas_faithfulness", "ragas_answer_correctness")
"""The LLM metrics' names: the keys :mod:`memlab.judging.ragas_pass` writes into ``ragas_llm``."""


# --- what ragas defines -------------------------------------------------------------------------
#
# The non-LLM metrics are ragas's definitions, computed here without importing ragas: importing it
# pulls in LangChain, ``datasets``, the OpenAI types and scipy (~3-4.5 CPU s), and every process that
# reads a run back paid it (a CI run had ~25 such processes: the view's index builders, the gates,
# notebook kernels). What ragas computes for these metrics is a handful of lines over three
# libraries memlab calls directly, with ragas's parameters:
#
# * context recall / precision: ``1 - rapidfuzz.distance.Levenshtein.normalized_distance`` per
#   (context line, evidence text) pair (NonLLMStringSimilarity), thresholds 0.5, aggregated as below;
# * exact match ``reference == response``, string presence ``reference in response``;
# * ROUGE-L F1 by ``rouge_score.rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)``;
# * semantic similarity: the cosine of the two texts' vectors (memlab's MiniLM) by ragas's arithmetic.
#
# tests/test_ragas_metrics.py and tests/test_readback_speed.py score the same inputs through
# ragas's own objects (tests/support/ragas_reference.py) and require the same values bit for bit,
# so a ragas release that changes a definition fails the suite instead of drifting silently. The
# LLM metrics (:mod:`memlab.judging.ragas_pass`) are ragas's objects and import ragas.

CONTEXT_RECALL_THRESHOLD = 0.5
"""NonLLMContextRecall's ``threshold``: an evidence text is recalled by a line more than this similar."""
CONTEXT_PRECISION_THRESHOLD = 0.5
"""NonLLMContextPrecisionWithReference's ``threshold``: a line at least this similar to an evidence text is relevant."""


@functools.cache
def _problem() -> str | None:
    """Why the ragas metrics cannot be scored here, or None: ragas must be installed (its metrics are
    scored only where the definitions they name can be checked), and the libraries that compute them
    present (rapidfuzz, rouge_score with NLTK). ragas, rouge_score and NLTK are found, not imported:
    ROUGE's import pulls in NLTK and scipy.stats (~2 CPU s), which only a read-back that scores an
    answer needs (:func:`_rouge`). Cached either way: a missing library costs one lookup per process."""
    import importlib.util

    for name in ("ragas", "rapidfuzz", "rouge_score", "nltk"):
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError) as exc:
            return f"{name} could not be imported ({type(exc).__name__}: {exc})"
        if not found:
            return f"{name} could not be imported (ModuleNotFoundError: No module named {name!r})"
    return None


def ragas_problem() -> str | None:
    """Why the ragas metrics cannot be scored here (None: they can)."""
    return _problem()


def require_ragas() -> None:
    """Raise ``ValueError`` with the install hint when ragas is unusable (a ragas metric was asked for)."""
    problem = ragas_problem()
    if problem is not None:
        raise ValueError(f"{INSTALL_HINT} ({problem})")


@functools.cache
def _rouge() -> Any:
    """ragas RougeScore's scorer (ROUGE-L, Porter-stemmed tokens): built once per process, where ragas
    builds one per pair (it holds no state between calls)."""
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


_answer_embedder: Any = None
"""The embedder the answers are scored with (:func:`answer_embedder`)."""


def answer_embedder() -> Any:
    """memlab's local MiniLM embedder for the answers and gold answers (no download, cached vectors):
    the one :func:`use_embedding_cache` set, else the process's shared one."""
    global _answer_embedder
    if _answer_embedder is None:
        from memlab.embeddings import shared_embedder

        _answer_embedder = shared_embedder()
    return _answer_embedder


def use_embedding_cache(path: str | os.PathLike | None) -> Any:
    """Score with a cache of answer vectors beside the embedding cache at ``path`` (a run's
    ``embedding_cache``), when that file exists: a LoCoMo-sized run's answers and gold answers are a
    few thousand texts, and a second reading of the run then embeds none of them. Returns the
    embedder, whose ``save()`` keeps the new vectors; None (no file) leaves the in-memory cache in
    place.

    The answers' cache is its own file (:func:`answer_cache_path`), not the run's: that one holds every
    text the runs embedded (~300 MB after the M suite's run), and reading it whole to find a few
    thousand answers was a quarter of that run's read-back memory (docs/scale.md); rewriting it after
    each read was most of the rest of the time scoring took. The vectors are the same model's."""
    global _answer_embedder
    from memlab.embeddings import shared_embedder

    if not path or not os.path.exists(path):
        return None
    _answer_embedder = shared_embedder(answer_cache_path(path))
    return _answer_embedder


def answer_cache_path(path: str | os.PathLike) -> str:
    """Where the answer vectors of runs whose embedding cache is ``path`` are kept: beside it,
    ``NAME.answers.npz``."""
    from pathlib import Path

    p = Path(path)
    return str(p.with_name(f"{p.stem}.answers{p.suffix or '.npz'}"))


# --- per-probe inputs ---------------------------------------------------------------------------

def references(gold: Sequence[Sequence[str]], gold_match: str) -> list[str]:
    """The reference strings a ragas answer metric compares the answer with. ragas takes one
    reference; memlab's gold has aliases (``any``: each alias is a candidate and the best one
    counts) or several parts (``all``: the parts' first forms, joined, are the one reference)."""
    if gold_match == "all":
        return [", ".join(forms[0] for forms in gold if forms)]
    return [form for forms in gold for form in forms]


def contexts(p: ProbeEvent) -> list[str]:
    """The injected context lines (one per memory or message), else the context text's lines."""
    items = p.context_items
    if items:
        return [item["text"] for item in items if item.get("text")]
    return [line for line in p.context.splitlines() if line.strip() and not line.startswith("## ")]


GRID = 2.0 ** -20


def on_grid(value: float) -> float:
    """``value`` rounded to a multiple of 2^-20 (~1e-6). memlab promises that serial and parallel
    runs give the same metrics to the last digit, but a parallel run records its probes in another
    order, and a float sum depends on the order of its terms: 0.2569810 + ... differed in the 17th
    digit. Multiples of 2^-20 in [0, 1] add up exactly in float64 in any order, so means and
    bootstrap means do not move."""
    return round(value / GRID) * GRID


# --- the non-LLM metrics ------------------------------------------------------------------------
#
# Scored in bulk when a run is read (:func:`prepare`, the metrics' ``prepare`` hook): a run of 2,000
# probes × 12 strategies holds ~24,000 (context, evidence) and (answer, gold) pairs, and a full
# history's context is ~600 lines, so pair by pair through ragas's objects the context metrics
# alone took minutes. The values are ragas's own, to the last bit:
#
# * context recall and precision compare every (context line, evidence text) pair by ragas's
#   Levenshtein similarity (``1 - rapidfuzz.distance.Levenshtein.normalized_distance``, the
#   function ragas's NonLLMStringSimilarity calls); here one ``rapidfuzz.process.cdist`` call
#   computes the matrix for every distinct context against all the evidence texts of its probes
#   (the same per-pair values), and ragas's aggregation (best match per evidence text above the
#   threshold; rank-weighted precision over lines at or above it) is applied to its columns with
#   the same Python arithmetic (tests/test_ragas_metrics.py compares both with ragas's objects);
# * the answer metrics are still ragas's objects, but every distinct answer and gold text is
#   embedded in one call first (a text's vector does not depend on its batch), and all pairs are
#   scored in one event loop instead of one per pair.

_CONTEXTS: dict[tuple[int, int, int, int], tuple[float, float]] = {}
"""Context scores by :func:`context_key` — hashes, not the texts: keyed by the lines themselves, the
cache kept every distinct context of a run alive after its records were dropped (a lean read-back of
the 12-user M run, ~105k-token histories, peaked at 2.7 GB)."""
_ANSWERS: dict[tuple[str, tuple[str, ...]], dict[str, float]] = {}
_CACHE_MAX = 200_000
"""Entries kept per cache (cleared when full): a scorer process reads one or a few runs."""


_LONG = 2_000
"""Characters above which a text's pairs are scored one by one (:func:`_similarity`)."""


def _similarity(lines: Sequence[str], refs: Sequence[str]) -> Any:
    """``sim[i, j]`` = ragas's Levenshtein similarity of context line i and evidence text j where it
    is at least the lower of the two metrics' thresholds, else 0.

    The metrics only compare a similarity with their threshold (:func:`_from_matrix`), so a pair
    below both thresholds may read as 0 without changing a score; ``score_cutoff`` lets rapidfuzz stop
    such a pair early (at once when the lengths alone rule it out: a distance is at least the length
    difference). A pair with a long text is scored on its own: the one-pair function strips the
    common prefix and suffix first, which ``cdist``'s cached scorer does not — a 1 MB turn quoted in
    a context line against the same turn as evidence took 31 s in ``cdist`` and takes 1 ms alone.
    Both give the exact normalised distance, so the values are the same."""
    import numpy as np
    from rapidfuzz import distance, process

    floor = min(CONTEXT_RECALL_THRESHOLD, CONTEXT_PRECISION_THRESHOLD)
    cutoff = min(1.0, 1.0 - floor + 1e-9)  # a pair within 1e-9 of the threshold is still computed exactly
    scorer = distance.Levenshtein.normalized_distance
    long_rows = [i for i, x in enumerate(lines) if len(x) > _LONG]
    long_cols = [j for j, x in enumerate(refs) if len(x) > _LONG]
    short_lines = [x if len(x) <= _LONG else "" for x in lines]
    short_refs = [x if len(x) <= _LONG else "" for x in refs]
    workers = -1 if len(lines) * len(refs) >= 20_000 else 1  # pairs are independent: threads change no value
    dist = process.cdist(short_lines, short_refs, scorer=scorer, dtype=np.float64, workers=workers, score_cutoff=cutoff)
    for i in long_rows:
        dist[i, :] = [scorer(lines[i], ref, score_cutoff=cutoff) for ref in refs]
    for j in long_cols:
        dist[:, j] = [scorer(line, refs[j], score_cutoff=cutoff) for line in lines]
    return 1 - dist


def _from_matrix(sim: Any) -> tuple[float, float]:
    """(recall, precision) from the similarity of every context line (rows, in context order) to
    every evidence text (columns), aggregated exactly as ragas's NonLLMContextRecall and
    NonLLMContextPrecisionWithReference do (their thresholds, their Python arithmetic)."""
    import numpy as np

    best = sim.max(axis=0).tolist()  # per evidence text, its most similar line
    found = [1 if score > CONTEXT_RECALL_THRESHOLD else 0 for score in best]
    recall = sum(found) / len(found) if found else float("nan")
    verdicts = (sim.max(axis=1) >= CONTEXT_PRECISION_THRESHOLD).astype(np.int64)  # per line, relevant or not
    terms = (np.cumsum(verdicts) / np.arange(1, len(verdicts) + 1)) * verdicts  # precision@i where line i is relevant
    precision = sum(terms.tolist()) / (int(verdicts.sum()) + 1e-10)
    return float(recall), float(precision)


def context_key(retrieved: tuple[str, ...], evidence: tuple[str, ...]) -> tuple[int, int, int, int]:
    """The cache key of a (context lines, evidence texts) pair: the tuples' hashes and lengths.

    Not the texts (kept as keys, they held every distinct context of a run alive after its records
    were dropped) and not a digest of the bytes (a 1,900-line context is hashed several times per
    probe; Python's string hashes are cached on the strings, so this costs a pass over the lines, not
    over the characters). Two different contexts share a key with odds of about 2^-64 per pair."""
    return hash(retrieved), len(retrieved), hash(evidence), len(evidence)


def _context_scores(retrieved: tuple[str, ...], evidence: tuple[str, ...]) -> tuple[float, float]:
    """(recall, precision) of the context lines against the evidence texts, by ragas's rules."""
    if not retrieved:
        return 0.0, 0.0  # nothing injected: no evidence recalled, no line relevant
    key = context_key(retrieved, evidence)
    got = _CONTEXTS.get(key)
    if got is None:
        got = _from_matrix(_similarity(retrieved, evidence))
        _remember(_CONTEXTS, key, got)
    return got


def _remember(cache: dict, key: Any, value: Any) -> None:
    if len(cache) >= _CACHE_MAX:
        cache.clear()
    cache[key] = value


def _prepare_contexts(records: Sequence[ProbeEvent]) -> None:
    """Every record's context scores, one similarity matrix per distinct context."""
    groups: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for p in records:
        evidence = tuple(p.evidence_texts)
        retrieved = tuple(contexts(p))
        if evidence and retrieved and p.answerable and context_key(retrieved, evidence) not in _CONTEXTS:
            groups.setdefault(retrieved, set()).add(evidence)
    for retrieved, evidences in groups.items():
        lines = list(dict.fromkeys(retrieved))
        row = {line: i for i, line in enumerate(lines)}
        refs = list(dict.fromkeys(e for ev in evidences for e in ev))
        col = {e: j for j, e in enumerate(refs)}
        sim = _similarity(lines, refs)[[row[line] for line in retrieved]]  # rows back in context order
        for ev in evidences:
            _remember(_CONTEXTS, context_key(retrieved, ev), _from_matrix(sim[:, [col[e] for e in ev]]))


def _cosine(a: Any, b: Any) -> float:
    """ragas SemanticSimilarity's arithmetic on two vectors, step by step (float64 from the float32
    vectors, as ragas's ``np.array(embed_text(...))`` of a Python list gives; each normalised, then
    the dot product): the same operations in the same order, so the same bits."""
    import numpy as np

    embedding_1, embedding_2 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    embedding_1_normalized = embedding_1 / np.linalg.norm(embedding_1, keepdims=True)
    embedding_2_normalized = embedding_2 / np.linalg.norm(embedding_2, keepdims=True)
    return float((embedding_1_normalized @ embedding_2_normalized.T).flatten().item())


def _score_answer(answer: str, refs: tuple[str, ...], vectors: dict[str, Any]) -> dict[str, float]:
    """Each answer metric's best value over the candidate references (``vectors``: each text's embedding)."""
    rouge = _rouge()
    return {
        "string_presence": max(float(ref in answer) for ref in refs),
        "exact_match": max(float(ref == answer) for ref in refs),
        "rouge": max(float(rouge.score(ref, answer)["rougeL"].fmeasure) for ref in refs),
        "semantic_similarity": max(_cosine(vectors[ref], vectors[answer]) for ref in refs),
    }


def _vectors(texts: Sequence[str], *, many: bool) -> dict[str, Any]:
    """Each distinct text's vector; ``many``: computed by :meth:`embed_many` first (a run's few thousand
    answers and gold answers, on the embedder's workers), then read from its cache."""
    texts = list(dict.fromkeys(texts))
    emb = answer_embedder()
    if many:
        emb.embed_many(texts)
    return dict(zip(texts, emb.embed(texts), strict=True))


def _answer_scores(answer: str, refs: tuple[str, ...]) -> dict[str, float]:
    """Each answer metric's best value over the candidate references, by ragas's definitions."""
    key = (answer, refs)
    got = _ANSWERS.get(key)
    if got is None:
        got = _score_answer(answer, refs, _vectors([answer, *refs], many=False))
        _remember(_ANSWERS, key, got)
    return got


def _answer_key(p: ProbeEvent) -> tuple[str, tuple[str, ...]] | None:
    if not p.answerable or p.error or not p.answer:
        return None
    refs = tuple(r for r in references(p.gold, p.match) if r)
    return (p.answer, refs) if refs else None


def _prepare_answers(records: Sequence[ProbeEvent]) -> None:
    """Every record's answer scores, the distinct texts embedded in one call."""
    todo = list(dict.fromkeys(k for p in records if (k := _answer_key(p)) is not None and k not in _ANSWERS))
    if not todo:
        return
    vectors = _vectors([t for answer, refs in todo for t in (answer, *refs)], many=True)
    for answer, refs in todo:
        _remember(_ANSWERS, (answer, refs), _score_answer(answer, refs, vectors))


def prepare(records: Sequence[ProbeEvent]) -> None:
    """The non-LLM ragas metrics' bulk scoring (see above); nothing when ragas is missing."""
    if ragas_problem() is None and records:
        _prepare_contexts(records)
        _prepare_answers(records)


def _context_metric(index: int) -> Any:
    def fn(p: ProbeEvent) -> Value:
        evidence = tuple(p.evidence_texts)
        if not evidence or not p.answerable or ragas_problem() is not None:
            return None
        return on_grid(_context_scores(tuple(contexts(p)), evidence)[index])
    return fn


def _answer_metric(key: str) -> Any:
    def fn(p: ProbeEvent) -> Value:
        if not p.answerable or ragas_problem() is not None:
            return None
        if p.error or not p.answer:
            return 0.0
        pair = _answer_key(p)
        return on_grid(_answer_scores(*pair)[key]) if pair else None
    return fn


def _llm_metric(key: str) -> Any:
    def fn(p: ProbeEvent) -> Value:
        values = p.ragas_llm or {}
        value = values.get(key)
        return None if value is None else on_grid(float(value))
    return fn


_NON_LLM = (
    ("ragas_context_recall", _context_metric(0),
     "ragas NonLLMContextRecall: share of evidence turns with a context line similar to them (Levenshtein > 0.5)"),
    ("ragas_context_precision", _context_metric(1),
     "ragas NonLLMContextPrecisionWithReference: rank-weighted share of context lines similar to an evidence turn"),
    ("ragas_string_presence", _answer_metric("string_presence"),
     "ragas StringPresence: a gold answer is a verbatim (case-sensitive) substring of the answer"),
    ("ragas_exact_match", _answer_metric("exact_match"), "ragas ExactMatch: the answer is exactly a gold answer"),
    ("ragas_rouge", _answer_metric("rouge"), "ragas RougeScore: ROUGE-L F1 of the answer against the gold answer"),
    ("ragas_semantic_similarity", _answer_metric("semantic_similarity"),
     "ragas SemanticSimilarity: cosine of answer and gold answer on the local MiniLM embeddings"),
)
_LLM = (
    ("ragas_llm_context_recall", "ragas ContextRecall (LLM judge): share of the gold answer's statements "
     "attributable to the context"),
    ("ragas_faithfulness", "ragas Faithfulness (LLM judge): share of the answer's claims supported by the context"),
    ("ragas_answer_correctness", "ragas AnswerCorrectness (LLM judge): factual F1 of answer vs gold, "
     "blended with semantic similarity"),
)
_ON_ANSWER = {"ragas_string_presence", "ragas_exact_match", "ragas_rouge", "ragas_semantic_similarity",
              "ragas_faithfulness", "ragas_answer_correctness"}
"""The ragas metrics that score the answer (marked and not gated by default with the offline answerer)."""
for _name, _fn, _description in _NON_LLM:
    metric(_name, _description, higher_is_better=True, requires=require_ragas, scores_answer=_name in _ON_ANSWER,
           prepare=prepare, explains=False)(_fn)
for _name, _description in _LLM:
    metric(_name, _description + "; needs an OpenAI-compatible `judge:`", higher_is_better=True,
           requires=require_ragas, scores_answer=_name in _ON_ANSWER, explains=False)(_llm_metric(_name))
