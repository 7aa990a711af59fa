"""Reading a run back fast without changing a number (issue 22): ragas's context metrics from one
similarity matrix per distinct context, metrics scored in bulk, canonical tokens read line by
line, metric tables computed once, the design report's drill-down capped (and saying so).
Timings are in benchmarks/realistic_bench.py (``--parts readback``); here only sameness."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from memlab.runfolder.probe_record import ProbeRow

ROOT = Path(__file__).resolve().parents[1]


def _ragas_pairwise(retrieved: list[str], evidence: list[str]) -> tuple[float, float]:
    """Context recall and precision through ragas's own metric objects, pair by pair."""
    from tests.support import ragas_reference

    return ragas_reference.context_scores(retrieved, evidence)


def test_vectorised_context_metrics_are_ragas_bit_for_bit():
    from memlab.analysis import ragas_metrics as rm

    if rm.ragas_problem():
        pytest.fail(f"ragas is part of the dev install: {rm.ragas_problem()}")
    rng = random.Random(5)
    words = "Anna moved to Lisbon in May 2023 with her dog Rex and she works at the bakery".split()

    def text() -> str:
        return " ".join(rng.choices(words, k=rng.randint(0, 14)))

    for case in range(180):
        lines = [text() for _ in range(rng.randint(1, 25))]
        if case >= 150:  # lines and evidence of very different lengths, where the similarity's cutoff stops early
            lines += [" ".join([text()] * rng.randint(5, 60)) for _ in range(rng.randint(1, 4))]
        lines += rng.sample(lines, min(3, len(lines)))  # repeated lines keep their places
        evidence = [rng.choice(lines) if rng.random() < 0.4 else text() for _ in range(rng.randint(1, 4))]
        rm._CONTEXTS.clear()
        want = _ragas_pairwise(lines, evidence)
        assert rm._context_scores(tuple(lines), tuple(evidence)) == want
        rm._CONTEXTS.clear()
        probe = {"context_items": [{"text": x} for x in lines], "evidence_texts": evidence, "gold": [["x"]]}
        rm.prepare([ProbeRow.from_row(probe).event])  # the bulk path: one matrix for the context, columns per probe
        assert rm._CONTEXTS[rm.context_key(tuple(x for x in lines if x), tuple(evidence))] == _ragas_pairwise(
            [x for x in lines if x], evidence)


def test_bulk_scoring_gives_each_probes_own_scores():
    from memlab.analysis.metrics import score_probe, score_values
    from memlab.analysis import ragas_metrics as rm

    lines = [{"text": f"[2024-01-0{i % 9 + 1}] Ana: line {i} about Lisbon", "source_turn_ids": [f"t{i}"]} for i in range(40)]
    records = []
    for i in range(30):
        items = lines if i % 3 == 0 else lines[i % 7: i % 7 + 6]
        records.append({"context_items": items, "context": "\n".join(x["text"] for x in items),
                        "context_source_turn_ids": [t for x in items for t in x["source_turn_ids"]],
                        "evidence": [f"t{i}"], "evidence_texts": [lines[i]["text"]], "gold": [["Lisbon"], ["line"]][: 1 + i % 2],
                        "gold_match": "any", "answer": ["Lisbon", "I don't know", f"line {i}"][i % 3], "abstain": False})
    rm._CONTEXTS.clear(), rm._ANSWERS.clear()
    rows = [ProbeRow.from_row(r) for r in records]
    one_by_one = [{name: score.value for name, score in score_probe(r).items()} for r in rows]
    rm._CONTEXTS.clear(), rm._ANSWERS.clear()
    assert score_values(rows) == one_by_one


def _reference_canonical(text: str) -> list[str]:
    """The former reading: the whole text tokenised at once, then the original loops (verbatim)."""
    import unicodedata

    from memlab.scoring import values as v

    t = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    tokens = [tok for tok in v._raw_tokens(t) if tok not in v._ARTICLES]
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] not in v._SMALL and tokens[i] not in v._TENS and tokens[i] not in v._SCALES:
            out.append(tokens[i])
            i += 1
            continue
        total = current = 0
        j = end = i
        while j < len(tokens):
            tok = tokens[j]
            below_hundred = current % 100
            if tok in v._SMALL and (below_hundred == 0 or (below_hundred >= 20 and below_hundred % 10 == 0)):
                current += v._SMALL[tok]
            elif tok in v._TENS and below_hundred == 0:
                current += v._TENS[tok]
            elif tok == "hundred" and below_hundred == current:
                current = (current or 1) * 100
            elif tok in v._SCALES and tok != "hundred":
                total += (current or 1) * v._SCALES[tok]
                current = 0
            elif tok == "and" and j > i and j + 1 < len(tokens) and (tokens[j + 1] in v._SMALL or tokens[j + 1] in v._TENS):
                j += 1
                continue
            else:
                break
            j += 1
            end = j
        out.append(str(total + current))
        i = end
    units: list[str] = []
    for tok in out:
        if units and units[-1].replace(".", "", 1).isdigit() and tok in v._UNIT_OF:
            tok = v._UNIT_OF[tok]
        units.append(tok)
    return units


def test_canonical_tokens_read_by_line_equal_the_whole_text():
    from memlab.scoring.values import canonical_tokens

    rng = random.Random(11)
    pieces = ["8", "May", "2023", "of", "5th", "March", ",", "twenty", "one", "hundred", "and", "km", "kilometres", "1,200",
              "05/08/2023", "the", "Anna", "%", "007", "jan", "[2023-05-08]", "## Recent", "- ", "٣", "hours"]
    seps = [" ", "\n", "\n\n", "\n  ", "\n[", "\n-", "\n## ", ", ", "\u2028"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) + rng.choice(seps) for _ in range(rng.randint(1, 25)))
        assert canonical_tokens(text) == _reference_canonical(text), repr(text)
    assert canonical_tokens("ran 8\nMay 2023 and 3\n[2024-01-02] x") == ["ran", "2023", "m05", "d08", "and", "3",
                                                                        "2024", "m01", "d02", "x"]


def test_drill_down_shows_evidence_lines_first_and_says_what_it_left_out():
    from memlab.analysis import html_report as h

    items = [{"section": "Conversation history", "text": f"line {i}", "source_turn_ids": [f"t{i}"]} for i in range(600)]
    probe = {"dataset": "d", "conversation_id": "c", "probe_id": "p", "category": "single_hop", "question": "q?",
             "gold": [["x"]], "gold_match": "any", "answer": "y", "evidence": ["t5", "t590"], "context_items": items,
             "context_source_turn_ids": [f"t{i}" for i in range(600)], "answer_correct": 0.0}
    case = h._case("full_context", probe)
    assert case.context_lines == 600 and len(case.lines) == h.MAX_CONTEXT_LINES + 1
    assert [x.text for x in case.lines if x.evidence] == ["line 5", "line 590"]
    assert re.match(r"… 540 more context lines not shown", case.lines[-1].text)
    from memlab.analysis.report_render import _html_case

    html = _html_case(case)
    assert "injected context (600 lines, 2 from evidence turns)" in html and "540 more context lines" in html
    short = h._case("s", {**probe, "context_items": items[:10]})
    assert len(short.lines) == 10 and short.context_lines == 10


@pytest.mark.slow
def test_tables_are_the_same_however_often_and_in_whatever_order_they_are_asked(tmp_path):
    """Metric-table rows are kept per cell: the summary after the full table equals the summary of
    a fresh load, and the report's CSVs equal a second writing of them."""
    from memlab.harness.config import RunConfig
    from memlab.analysis.report import write_report
    from memlab.analysis.results import load_run
    from memlab.harness.runner import Runner

    cfg = RunConfig.model_validate({
        "name": "t", "datasets": [str(ROOT / "datasets" / "starter.yaml")], "output_dir": str(tmp_path),
        "embedding_cache": str(tmp_path / "emb.npz"), "strategies": [{"name": "no_memory"}, {"name": "full_context"}]})
    run = Runner(cfg, progress=False).run()
    alone = load_run(run).summary()
    res = load_run(run)
    full = res.metrics_table()
    assert res.summary().to_csv() == alone.to_csv()
    assert res.metrics_table().to_csv() == full.to_csv() == load_run(run).metrics_table().to_csv()
    write_report(res, quiet=True)
    first = {p.name: p.read_bytes() for p in run.glob("*.csv")}
    write_report(run, quiet=True)
    assert {p.name: p.read_bytes() for p in run.glob("*.csv")} == first and len(first) >= 4


@pytest.mark.slow
def test_embed_many_gives_the_vectors_embed_gives():
    from memlab.embeddings import CachedEmbedder, shared_embedder

    rng = random.Random(2)
    words = "the cat sat on a mat in Lisbon with Anna yesterday after work".split()
    texts = [" ".join(rng.choices(words, k=rng.randint(1, 9))) + f" {i}" for i in range(300)]
    one, many = CachedEmbedder(shared_embedder().inner), CachedEmbedder(shared_embedder().inner)
    many.embed_many(texts + texts[:10], workers=3)
    assert many.misses == 300
    assert np.array_equal(one.embed(texts), many.embed(texts)) and many.misses == 300, "all from the cache, bit for bit"


def test_reading_a_run_keeps_answer_vectors_in_its_embedding_cache(tmp_path):
    """The answers and gold answers embedded while scoring go to a cache file beside the run's
    embedding cache, so the next reading of the run embeds none of them; the run's own cache (every
    text the runs embedded: hundreds of MB at real length) is neither read whole nor rewritten."""
    import json

    from memlab.embeddings import CachedEmbedder, shared_embedder
    from memlab.analysis.results import RunResults

    cache = tmp_path / "emb.npz"
    emb = CachedEmbedder(shared_embedder().inner, cache)  # a cache file, as a run leaves one
    emb.embed(["seed text"])
    emb.save()
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"format_version": 2, "run_id": "r", "config": {"embedding_cache": str(cache)},
                                                   "strategies": [{"name": "s"}]}))
    rec = {"run_id": "r", "attempt": "a", "strategy": "s", "dataset": "d", "namespace": "n", "conversation_id": "c",
           "probe_id": "p", "category": "single_hop", "question": "Where?", "gold": [["Porto city"]], "gold_match": "any",
           "evidence": ["t1"], "evidence_texts": ["Anna moved to Porto city"], "context": "x", "context_items": [{"text": "x"}],
           "answer": "She lives in Porto city now", "abstain": False}
    (run / "probes.jsonl").write_text(json.dumps(rec) + "\n")
    (run / "units.jsonl").write_text(json.dumps({"event": "end", "status": "ok", "attempt": "a", "strategy": "s",
                                                 "dataset": "d", "namespace": "n"}) + "\n")
    res = RunResults(run, json.loads((run / "manifest.json").read_text()))
    assert res.probes["ragas_semantic_similarity"].notna().all()
    from memlab.analysis.ragas_metrics import answer_cache_path

    before = cache.stat().st_mtime_ns, cache.read_bytes()
    fresh = CachedEmbedder(shared_embedder().inner, answer_cache_path(cache))
    assert answer_cache_path(cache) == str(tmp_path / "emb.answers.npz")
    fresh.embed(["She lives in Porto city now", "Porto city"])
    assert fresh.misses == 0, "both were saved to the answers' cache by the first reading"
    assert (cache.stat().st_mtime_ns, cache.read_bytes()) == before, "the run's own cache is left as it was"
