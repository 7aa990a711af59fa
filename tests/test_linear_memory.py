"""The pieces that keep every preset's per-turn cost flat (issue 22), each checked on its own:
the in-memory store (read-only views, a per-namespace matrix, revisions) against a reference of
its former behaviour, the offline model's reply budget, the bounded conversation memory and
profile, the fact index of ``conflict_resolve``, the named graph input of ``agent_chat`` and the
TTL/FIFO cleanup that reads the namespace only when it could remove something."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memlab.memory.item import MemoryItem, ScoredItem, utcnow
from memlab.memory.stores.base import matches, newest_first, top_k
from memlab.memory.stores.in_memory import InMemoryStore
from tests.presets_support import build, conversation, play


class ReferenceStore:
    """The former InMemoryStore, reduced to what decides results: every read filters the items in
    Python, a vector search stacks the candidates' vectors in insertion order, results are copies."""

    def __init__(self) -> None:
        self.items: dict[str, dict[str, MemoryItem]] = {}
        self.vecs: dict[str, dict[str, np.ndarray]] = {}

    def add(self, items, embeddings=None):
        for i, it in enumerate(items):
            self.items.setdefault(it.namespace, {})[it.id] = it.model_copy(deep=True)
            if embeddings is not None:
                self.vecs.setdefault(it.namespace, {})[it.id] = _unit(embeddings[i])

    def update(self, it, embedding=None):
        self.items[it.namespace][it.id] = it.model_copy(deep=True)
        if embedding is not None:
            self.vecs.setdefault(it.namespace, {})[it.id] = _unit(embedding)

    def delete(self, ns, ids):
        n = 0
        for i in ids:
            n += self.items.get(ns, {}).pop(i, None) is not None
            self.vecs.get(ns, {}).pop(i, None)
        return n

    def _live(self, ns, where, include_invalid):
        now = utcnow()
        return [it for it in self.items.get(ns, {}).values()
                if (include_invalid or (it.valid and (it.expires_at is None or it.expires_at > now))) and matches(it, where)]

    def search(self, ns, *, embedding=None, k=10, where=None, include_invalid=False):
        cands = self._live(ns, where, include_invalid)
        if embedding is not None:
            vecs = self.vecs.get(ns, {})
            cands = [c for c in cands if c.id in vecs]
            if not cands:
                return []
            return top_k(cands, np.stack([vecs[c.id] for c in cands]) @ _unit(embedding), k)
        return [ScoredItem(item=c, score=0.0) for c in newest_first(cands)[:k]]

    def list(self, ns, *, where=None, include_invalid=True):
        return sorted(self._live(ns, where, include_invalid), key=lambda it: (it.created_at, it.id))


def _unit(v):
    v = np.asarray(v, dtype=np.float32)
    n = float(np.linalg.norm(v))
    return v / n if n else v


def _key(hits):
    return [(h.item.model_dump_json(), h.score) if isinstance(h, ScoredItem) else h.model_dump_json() for h in hits]


@pytest.mark.slow
def test_in_memory_store_gives_the_former_results_bit_for_bit():
    """Random adds, updates (kind and validity changes, new vectors), deletes (enough to compact the
    matrix) and reads: every search, listing and score equals the reference's, ties included."""
    rng, nrng = random.Random(3), np.random.default_rng(3)
    kinds = ["fact", "entity", "episode"]
    t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
    for trial in range(12):
        new, ref, ids = InMemoryStore(), ReferenceStore(), []
        for _ in range(600):
            op, ns = rng.random(), rng.choice(["a", "b"])
            if op < 0.5 or not ids:
                iid = f"i{rng.randint(0, 60 if trial % 2 else 400)}"
                it = MemoryItem(id=iid, namespace=ns, text=f"text {iid}", kind=rng.choice(kinds), metadata={"m": rng.randint(0, 2)},
                                created_at=t0 + timedelta(minutes=rng.randint(0, 30)), valid=rng.random() > 0.1,
                                expires_at=utcnow() + timedelta(days=rng.choice([-1, 1])) if rng.random() < 0.05 else None)
                emb = nrng.normal(size=(1, 16)).astype(np.float32) if rng.random() < 0.9 else None
                if emb is not None and rng.random() < 0.3:
                    emb = np.round(emb)  # equal vectors: ties broken by created_at, then id
                new.add([it], emb)
                ref.add([it], emb)
                ids.append((ns, iid))
            elif op < 0.65:
                ns, iid = rng.choice(ids)
                got = new.get(ns, [iid])
                if got:
                    changed = got[0].model_copy(update={"valid": rng.random() > 0.3, "kind": rng.choice(kinds)})
                    emb = nrng.normal(size=16).astype(np.float32) if rng.random() < 0.5 else None
                    new.update(changed, emb)
                    ref.update(changed, emb)
            elif op < 0.8:
                ns, iid = rng.choice(ids)
                assert new.delete(ns, [iid]) == ref.delete(ns, [iid])
            else:
                q = nrng.normal(size=16).astype(np.float32)
                where = rng.choice([None, {"kind": "fact"}, {"kind": ["fact", "entity"]}, {"m": 1}, {"kind": "episode", "m": [0, 2]}])
                inv, k = rng.random() < 0.3, rng.randint(1, 8)
                assert _key(new.search(ns, embedding=q, k=k, where=where, include_invalid=inv)) == \
                    _key(ref.search(ns, embedding=q, k=k, where=where, include_invalid=inv))
                assert _key(new.search(ns, k=k, where=where, include_invalid=inv)) == \
                    _key(ref.search(ns, k=k, where=where, include_invalid=inv))
                assert _key(new.list(ns, where=where, include_invalid=inv)) == _key(ref.list(ns, where=where, include_invalid=inv))


def test_store_hands_out_read_only_views_and_copies_what_it_is_given():
    store = InMemoryStore()
    mine = MemoryItem(id="x", namespace="n", text="Anna lives in Lisbon", metadata={"tags": ["a"]})
    store.add([mine], np.ones((1, 4), dtype=np.float32))
    mine.metadata["tags"].append("changed after the write")
    first, again = store.get("n", ["x"])[0], store.list("n")[0]
    assert first is again, "reads hand out the stored item itself, not a copy per call"
    assert first.metadata == {"tags": ["a"]}, "a write copies the caller's item"
    store.update(first.model_copy(update={"text": "Anna lives in Porto"}))
    assert first.text == "Anna lives in Lisbon", "an update replaces the stored item; a view already handed out stays as it was"
    assert store.get("n", ["x"])[0].text == "Anna lives in Porto"


def test_reads_do_not_scan_the_namespace_in_python():
    store = InMemoryStore()
    n = 2000
    store.add([MemoryItem(id=f"i{i}", namespace="n", text=f"t{i}", kind="fact" if i % 2 else "entity") for i in range(n)],
              np.random.default_rng(0).normal(size=(n, 8)).astype(np.float32))
    store.work.clear()
    store.search("n", embedding=np.ones(8, dtype=np.float32), k=5, where={"kind": "fact"})
    assert store.work["items_out"] == 5 and store.work["python_scanned"] == 0
    assert store.work["rows_scored"] == n // 2, "the exact search scores the kind's rows in numpy"
    store.work.clear()
    assert len(store.list("n", where={"kind": "entity"})) == n // 2
    assert store.work["python_scanned"] == n // 2, "a listing walks that kind's items only"


def test_revision_changes_with_every_write_and_only_then():
    store = InMemoryStore()
    assert store.revision("n") == 0
    store.add([MemoryItem(id="a", namespace="n", text="x")])
    r1 = store.revision("n")
    store.get("n", ["a"]), store.list("n"), store.search("n", k=3)
    assert store.revision("n") == r1 > 0
    store.update(MemoryItem(id="a", namespace="n", text="y"))
    r2 = store.revision("n")
    assert r2 != r1
    store.delete("n", ["missing"])
    assert store.revision("n") == r2, "deleting nothing changes nothing"
    store.delete("n", ["a"])
    assert store.revision("n") not in (r1, r2)
    store.add([MemoryItem(id="b", namespace="other", text="z")])
    assert store.revision("n") != store.revision("other")


# --------------------------------------------------------------------------- the offline model's reply budget

def test_summary_fit_keeps_the_newest_sentences_that_fit():
    from memlab.offline.summary import fit, render
    from memlab.tokens import count_tokens

    kept = [f"Fact number {i} is about the town of Place{i}." for i in range(200)]
    text = fit(kept, count_tokens, 300)
    assert count_tokens(text) <= 300 < count_tokens(render(kept))
    assert text.endswith(render(kept[-1:])) and render(kept[-2:]) in text, "the newest sentences are the ones kept"
    assert "Fact number 0 " not in text
    assert fit(kept[:3], count_tokens, 300) == render(kept[:3]), "within the budget nothing is dropped"
    assert fit(kept, count_tokens, None) == render(kept)


def test_entity_fit_drops_the_weakest_relationships_first():
    from memlab.offline.entities import fit

    nodes = [{"id": f"n{i}", "name": f"N{i}", "relationships": [
        {"targetId": f"t{j}", "relationship": "knows", "strength": round(0.5 + 0.001 * j, 4)} for j in range(30)]}
        for i in range(3)]
    size = lambda ns: sum(1 + len(n["relationships"]) for n in ns)  # noqa: E731
    out = fit(nodes, size, 60)
    assert size(out) <= 60
    kept = [r["strength"] for n in out for r in n["relationships"]]
    dropped = [r["strength"] for n in nodes for r in n["relationships"] if r["strength"] not in set(kept)]
    assert max(dropped) <= min(kept), "every dropped relationship is at most as strong as every kept one"
    assert fit(nodes, size, 10_000) is nodes


@pytest.mark.slow
def test_agent_chats_update_reply_fits_its_budget_on_a_long_conversation():
    """With the preset's reply budget (seed 002's 2,000 tokens) every SummarizeWithEntities reply
    of a 250-turn conversation fits it; without one, replies grow with the conversation."""
    from benchmarks import locomo_like
    from memlab.datasets.locomo import convert
    from memlab.llm import calls
    from tests.support.hash_embedder import HashEmbedder

    conv = convert(locomo_like.generate(conversations=1, sessions=12, probes=0, seed=4), "x.json")[0]
    data = conv.model_dump(mode="json")
    out = {}
    from memlab.llm.base import make_model

    for budget in (2000, None):
        recorded: list = []
        # no budget at all: neither the preset's nor the model spec's (the offline model keeps to its
        # spec's max_tokens, 512 by default, when a call sets none: memlab/offline/budget.py)
        s = build({"name": "a", "preset": "agent_chat", "extractor": {"type": "summary_entities", "max_tokens": budget}},
                  model=make_model({"provider": "offline", "max_tokens": None}), embedder=HashEmbedder())
        with calls.call_sink(recorded.append):
            play(s, data)
        out[budget] = [r.completion_tokens for r in recorded if r.signature == "SummarizeWithEntities"]
    assert max(out[2000]) <= 2000
    first, last = (sum(x) / len(x) for x in (out[None][:5], out[None][-5:]))
    assert last > 2 * first, f"unbudgeted replies grow ({first:.0f} → {last:.0f} tokens)"


def test_named_graph_input_changes_no_memory_only_the_prompt():
    """Only the nodes the new messages name can change in an update, so showing the model only
    those gives the same memory operations as showing it the whole graph, for fewer tokens."""
    from memlab.llm import calls

    texts = ["My sister Anna lives in Lisbon.", "Anna works at Siemens with Tom.", "Tom visited Porto last week.",
             "I had soup with Marta.", "Marta moved to Berlin.", "Anna and Marta met in Porto.", "Good night.",
             "Tom lives in Oslo now.", "Berlin was rainy.", "Anna plays chess."] * 4
    data = conversation([("2024-01-01T09:00:00", [m for t in texts for m in (("user", t), ("assistant", "I see."))])])
    ops, tokens = {}, {}
    for graph in ("named", "all"):
        recorded: list = []
        s = build({"name": "a", "preset": "agent_chat", "extractor": {"type": "summary_entities", "graph_input": graph}})
        with calls.call_sink(recorded.append):
            ops[graph] = [(o.op, o.item_id, o.text) for o in play(s, data)]
        tokens[graph] = sum(r.prompt_tokens for r in recorded)
    assert ops["named"] == ops["all"] and len(ops["all"]) > 10
    assert tokens["named"] < tokens["all"]


# --------------------------------------------------------------------------- bounded memories

def test_conversation_memory_keeps_the_newest_summaries_within_its_budget():
    from memlab.tokens import count_tokens

    texts = [f"I adopted a cat named Cat{i} in Town{i} yesterday." for i in range(60)]
    data = conversation([("2024-01-01T09:00:00", [m for t in texts for m in (("user", t), ("assistant", "Nice."))])])
    s = build({"name": "r", "preset": "react", "short_term": {"type": "invocation_summaries", "max_tokens": 200}})
    play(s, data)
    lines = s.component("short_term").summaries
    assert sum(count_tokens(x.text) for x in lines) <= 200 and len(lines) > 3
    assert "Cat59" in lines[-1].text and not any("Cat0 " in x.text for x in lines)
    assert s.component("short_term").tokens == sum(count_tokens(x.text) for x in lines)


def test_profile_keeps_the_five_most_recent_goals():
    from memlab.offline.profile import MAX_GOALS, sync

    profile: dict[str, str] = {}
    for i in range(8):
        profile.update(sync(f"I want to learn skill{i} this year.", profile))
    goals = profile["goals"].split("; ")
    assert len(goals) == MAX_GOALS == 5 and goals[-1].startswith("I want to learn skill7") and "skill2" not in profile["goals"]


def test_conflict_resolve_sees_facts_written_behind_its_back():
    """The fact-text index is rebuilt when the store's revision says someone else wrote, so an
    exact duplicate stored directly is still recognised (NOOP 'already stored')."""
    from memlab.memory.item import Op
    from memlab.strategies.state import Candidate

    s = build({"name": "soa", "preset": "son_of_andrew"})
    s.begin_unit("t/u")
    s.begin_conversation("c")
    st = s.state
    st.now = datetime(2024, 1, 1)
    consolidator = s.component("consolidator")
    vec = np.ones(384, dtype=np.float32)
    consolidator.apply(st, Candidate("I prefer tea in the morning", "fact", ["t1"], metadata={"confidence": "high"}), vec)
    s.store.add([MemoryItem(id="foreign", namespace=st.namespace, text="My dog is called Rex", kind="fact",
                            created_at=st.now, updated_at=st.now)], vec[None, :])
    consolidator.apply(st, Candidate("my dog is called rex", "fact", ["t2"], metadata={"confidence": "high"}), vec)
    consolidator.apply(st, Candidate("I prefer tea in the morning", "fact", ["t3"], metadata={"confidence": "high"}), vec)
    ops = st.take().ops
    assert [(o.op, o.reason) for o in ops[-2:]] == [(Op.NOOP, "already stored"), (Op.NOOP, "already stored")]


def test_ttl_fifo_reads_the_namespace_only_when_it_could_remove_something():
    from memlab.memory.item import Op

    texts = [f"My code is {i}{i}{i}. I live at number {i}." for i in range(40)]
    data = conversation([("2024-01-01T09:00:00", [m for t in texts for m in (("user", t), ("assistant", "Noted."))])])
    under = build({"name": "p", "preset": "agent_memory_pg", "store": {"type": "in_memory"}})
    play(under, data)
    assert under.store.count("test/c1") > 0
    assert under.store.work["python_scanned"] == 0, "under the cap, without a TTL, the cleanup never lists the namespace"
    capped = build({"name": "p", "preset": "agent_memory_pg", "store": {"type": "in_memory"}, "lifecycle": {"type": "ttl_fifo", "max_items": 3}})
    ops = play(capped, data)
    assert capped.store.count("test/c1") == 3 and any(o.op == Op.DELETE and "fifo cap" in o.reason for o in ops)


def test_offline_update_reply_fits_max_tokens_dropping_old_facts_and_weak_relationships():
    """The offline model honours a SummarizeWithEntities call's max_tokens: the summary keeps its
    newest sentences (up to half the budget when the entities need the rest) and the entities
    their strongest relationships."""
    from memlab.llm import calls
    from memlab.llm.base import make_model
    from memlab.roles.program import MemoryRoles
    from memlab.roles.signatures import EntityNode

    roles = MemoryRoles(make_model({"provider": "offline", "max_tokens": None}))  # "free": no spec budget either
    previous = " ".join(f"Anna visited Town{i} on day {i}." for i in range(80))
    graph = [EntityNode(id="anna", type="person", name="Anna", description="Anna is my sister.", properties={},
                        relationships=[{"targetId": f"town{j}", "relationship": "visited", "strength": round(0.5 + j / 1000, 4)}
                                       for j in range(80)])]
    kwargs = dict(previous_summary=previous, messages="[2024-05-01] user: Anna moved to Porto with Tom.", entity_memory=graph)
    recorded: list = []
    with calls.call_sink(recorded.append):
        free = roles.summarize_entities(**kwargs)
        tight = roles.summarize_entities(**kwargs, config={"max_tokens": 900})
    assert recorded[0].completion_tokens > 900 >= recorded[1].completion_tokens
    assert "Town79" in tight["conversation_memory"] and "Town0 " not in tight["conversation_memory"]
    anna = {n.id: n for n in tight["entities"]}["anna"]
    full = {n.id: n for n in free["entities"]}["anna"]
    assert 0 < len(anna.relationships) < len(full.relationships)
    weakest_kept = min(r.strength for r in anna.relationships)
    assert all(r.strength <= weakest_kept for r in full.relationships if r not in anna.relationships)
