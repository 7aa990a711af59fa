"""One contract suite for every memory store backend.

Each test runs against ``in_memory`` (the reference), ``chroma`` (embedded, tmp dir),
``chroma_http`` (a real ``chroma run`` server started by scripts/chroma_server.sh for the
session) and ``postgres`` (the project's PostgreSQL + pgvector: the ``postgres`` fixture of
tests/conftest.py, ``$MEMLAB_PG_DSN`` or the server scripts/pg.sh started; each test gets its own
table; ``postgres_hnsw`` forces the HNSW path that the default store only uses for namespaces above
3000 rows). Without a server the postgres tests are skipped with the reason — and fail where one is
required (``scripts/test.sh`` starts it and requires it, as does any ``CI``).

Vectors are seeded random 384-d unit vectors; semantics only matter for keyword search,
which uses real text.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import traceback
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memlab.memory.item import MemoryItem
from memlab.memory.stores.base import MemoryStore, StoreError, make_store
from memlab.memory.stores.in_memory import InMemoryStore

ROOT = Path(__file__).resolve().parents[1]
DIM = 384
BACKENDS = [
    "in_memory",
    "chroma",
    "chroma_http",
    pytest.param("postgres", marks=pytest.mark.postgres),
    # the same store forced onto its HNSW path (default: namespaces <= 3000 rows are scanned exactly)
    pytest.param("postgres_hnsw", marks=pytest.mark.postgres),
]


# --------------------------------------------------------------------------- helpers


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


T0 = datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=timezone.utc)


def item(ns: str, text: str, i: int = 0, **kw: Any) -> MemoryItem:
    kw.setdefault("created_at", T0 + timedelta(seconds=i))
    kw.setdefault("updated_at", kw["created_at"])
    return MemoryItem(namespace=ns, text=text, **kw)


def ids(results: list[Any]) -> list[str]:
    return [r.item.id for r in results]


# --------------------------------------------------------------------------- servers


@pytest.fixture
def pg_dsn(postgres: str) -> str:
    """The project's PostgreSQL (the ``postgres`` fixture: skipped without one, failed where required)."""
    return postgres


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A private chroma server (own port and data dir) for the session, stopped at teardown."""
    port = free_port()
    env = dict(os.environ, MEMLAB_CHROMA_PORT=str(port), MEMLAB_CHROMA_DIR=str(tmp_path_factory.mktemp("chroma-srv")))
    script = str(ROOT / "scripts" / "chroma_server.sh")
    proc = subprocess.run(["bash", script, "start"], capture_output=True, text=True, timeout=120, env=env)
    if proc.returncode != 0:
        pytest.fail(f"scripts/chroma_server.sh start failed:\n{proc.stdout}\n{proc.stderr}", pytrace=False)
    try:
        yield "127.0.0.1", port
    finally:
        subprocess.run(["bash", script, "stop"], capture_output=True, text=True, timeout=60, env=env)


@pytest.fixture
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[str], MemoryStore]]:
    """Factory: a fresh, empty store of the given backend; everything is cleaned up afterwards."""
    created: list[tuple[str, Any]] = []

    def _make(backend: str) -> MemoryStore:
        tag = uuid.uuid4().hex[:12]
        if backend == "in_memory":
            store: Any = make_store("in_memory")
        elif backend == "chroma":
            store = make_store("chroma", path=str(tmp_path / f"chroma-{tag}"))
        elif backend == "chroma_http":
            host, port = request.getfixturevalue("chroma_server")
            store = make_store("chroma", host=host, port=port, collection=f"t-{tag}")
        elif backend in ("postgres", "postgres_hnsw"):
            store = make_store(
                "postgres", dsn=request.getfixturevalue("pg_dsn"), table=f"t_{tag}", pool_size=2,
                exact_below=0 if backend == "postgres_hnsw" else 3000,
            )
        else:  # pragma: no cover
            raise ValueError(backend)
        created.append((backend, store))
        return store

    yield _make
    for backend, store in created:
        try:
            if backend.startswith("postgres"):
                store.drop_table()
            elif backend == "chroma_http":
                store._client.delete_collection(store.collection_name)
        finally:
            store.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(backend: str, make: Callable[[str], MemoryStore]) -> MemoryStore:
    return make(backend)


# --------------------------------------------------------------------------- basics


def test_describe(store: MemoryStore) -> None:
    d = store.describe()  # type: ignore[attr-defined]
    assert d["backend"] == store.name


def test_roundtrip_all_fields(store: MemoryStore) -> None:
    rng = np.random.default_rng(1)
    a = item(
        "ns",
        "Alice prefers dark mode — ünïcode ✓ 'quoted' \"double\"",
        kind="preference",
        metadata={"source": "auto_extract", "confidence": 0.875, "tags": ["ui", "x"], "nested": {"a": [1, 2.5, None]},
                  "flag": True, "n": 3, "none": None},
        source_turn_ids=["conv1:t3", "conv1:t4"],
        created_at=datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc),
        updated_at=datetime(2024, 6, 7, 8, 9, 10, 111213, tzinfo=timezone.utc),
        expires_at=datetime(2099, 1, 1, tzinfo=timezone.utc),
        valid=False,
    )
    b = item("ns", "", 1)  # empty text, defaults
    store.add([a, b], unit(rng, 2))
    got = store.get("ns", [b.id, "missing", a.id])
    assert got == [b, a]
    assert got[1].metadata == a.metadata and got[1].source_turn_ids == a.source_turn_ids
    assert got[1].created_at == a.created_at and got[1].expires_at == a.expires_at and got[1].valid is False
    assert store.get("ns", []) == []
    assert store.get("other", [a.id]) == []


def test_update(store: MemoryStore) -> None:
    rng = np.random.default_rng(2)
    vecs = unit(rng, 3)
    items = [item("ns", f"text {i}", i, metadata={"topic": "old", "keep": "k"}) for i in range(3)]
    store.add(items, vecs)
    new_vec = unit(rng, 1)[0]
    changed = items[0].model_copy(update={"text": "changed text", "kind": "preference", "metadata": {"keep": "k"}})
    store.update(changed, new_vec)
    assert store.get("ns", [items[0].id]) == [changed]
    # the embedding moved: querying with the new vector finds it first with score ~1
    top = store.search("ns", embedding=new_vec, k=1)
    assert ids(top) == [items[0].id] and top[0].score == pytest.approx(1.0, abs=1e-4)
    # the removed metadata key no longer matches a filter on it
    assert items[0].id not in ids(store.search("ns", where={"topic": "old"}, k=10))
    assert items[0].id in ids(store.search("ns", where={"kind": "preference"}, k=10))
    # update without an embedding keeps the vector
    store.update(changed.model_copy(update={"text": "changed again"}))
    assert ids(store.search("ns", embedding=new_vec, k=1)) == [items[0].id]
    with pytest.raises(KeyError):
        store.update(item("ns", "nope"))
    with pytest.raises(KeyError):
        store.update(items[1].model_copy(update={"namespace": "elsewhere"}))


def test_invalidate(store: MemoryStore) -> None:
    rng = np.random.default_rng(3)
    vecs = unit(rng, 4)
    items = [item("ns", f"coffee fact {i}", i) for i in range(4)]
    store.add(items, vecs)
    store.update(items[1].model_copy(update={"valid": False}))
    for kw in ({"embedding": vecs[1]}, {"text": "coffee"}, {}):
        live = ids(store.search("ns", k=10, **kw))  # type: ignore[arg-type]
        assert items[1].id not in live and len(live) == 3, kw
        assert items[1].id in ids(store.search("ns", k=10, include_invalid=True, **kw))  # type: ignore[arg-type]
    assert len(store.list("ns")) == 4  # list includes invalid items by default
    assert items[1].id not in [i.id for i in store.list("ns", include_invalid=False)]
    assert store.count("ns") == 4


def test_delete(store: MemoryStore) -> None:
    rng = np.random.default_rng(4)
    vecs = unit(rng, 3)
    items = [item("ns", f"tea note {i}", i) for i in range(3)]
    store.add(items, vecs)
    assert store.delete("ns", [items[0].id, "missing", items[0].id]) == 1
    assert store.delete("ns", [items[0].id]) == 0
    assert store.delete("ns", []) == 0
    assert store.get("ns", [items[0].id]) == []
    assert items[0].id not in ids(store.search("ns", embedding=vecs[0], k=10))
    assert items[0].id not in ids(store.search("ns", text="tea", k=10))
    assert store.count("ns") == 2


def test_expiry(store: MemoryStore) -> None:
    rng = np.random.default_rng(5)
    vecs = unit(rng, 3)
    now = datetime.now(timezone.utc)
    expired = item("ns", "expired tea", 0, expires_at=now - timedelta(seconds=1))
    future = item("ns", "future tea", 1, expires_at=now + timedelta(days=1))
    plain = item("ns", "plain tea", 2)
    store.add([expired, future, plain], vecs)
    for kw in ({"embedding": vecs[0]}, {"text": "tea"}, {}):
        got = ids(store.search("ns", k=10, **kw))  # type: ignore[arg-type]
        assert expired.id not in got and {future.id, plain.id} <= set(got), kw
        assert expired.id in ids(store.search("ns", k=10, include_invalid=True, **kw))  # type: ignore[arg-type]
    assert expired.id in [i.id for i in store.list("ns")]
    assert expired.id not in [i.id for i in store.list("ns", include_invalid=False)]


def test_vector_topk_matches_exact_order(store: MemoryStore) -> None:
    rng = np.random.default_rng(6)
    vecs = unit(rng, 80)
    items = [item("ns", f"m{i}", i) for i in range(80)]
    store.add(items, vecs)
    ref = InMemoryStore()
    ref.add(items, vecs)
    for q in unit(rng, 5):
        got = store.search("ns", embedding=q, k=10)
        want = ref.search("ns", embedding=q, k=10)
        assert ids(got) == ids(want)
        assert [g.score for g in got] == pytest.approx([w.score for w in want], abs=1e-4)
    # a query vector need not be normalised; k larger than the namespace returns everything
    assert len(store.search("ns", embedding=vecs[0] * 7.0, k=500)) == 80
    assert ids(store.search("ns", embedding=vecs[3] * 7.0, k=1)) == [items[3].id]
    assert store.search("ns", embedding=vecs[0], k=0) == []


def test_items_without_embedding(store: MemoryStore) -> None:
    rng = np.random.default_rng(7)
    vecs = unit(rng, 2)
    with_vec = [item("ns", f"vec {i}", i) for i in range(2)]
    without = [item("ns", "no vector coffee", 5)]
    store.add(with_vec, vecs)
    store.add(without)
    assert set(ids(store.search("ns", embedding=vecs[0], k=10))) == {w.id for w in with_vec}
    assert ids(store.search("ns", text="coffee", k=10)) == [without[0].id]
    assert ids(store.search("ns", k=1)) == [without[0].id]
    assert store.count("ns") == 3


def test_where_filters(store: MemoryStore) -> None:
    rng = np.random.default_rng(8)
    n = 40
    vecs = unit(rng, n)
    items = [
        item(
            "ns",
            f"shared words doc {i}",
            i,
            kind=["fact", "preference", "episode"][i % 3],
            metadata={"tag": ["red", "green", "blue", "red-ish"][i % 4], "n": i % 5, "flag": i % 2 == 0,
                      **({"opt": "x"} if i % 7 == 0 else {})},
        )
        for i in range(n)
    ]
    store.add(items, vecs)
    ref = InMemoryStore()
    ref.add(items, vecs)
    q = unit(rng, 1)[0]
    filters: list[dict[str, Any]] = [
        {"tag": "red"},
        {"tag": ["red", "blue"]},
        {"kind": "preference"},
        {"kind": ["fact", "episode"], "tag": "green"},
        {"n": 3},
        {"n": [0, 4]},
        {"flag": True},
        {"opt": None},
        {"opt": "x", "kind": "fact"},
        {"tag": []},
        {"tag": "nonexistent"},
        {"missing_key": "v"},
    ]
    for f in filters:
        want_all = {i.id for i in ref.list("ns", where=f)}
        assert {i.id for i in store.list("ns", where=f)} == want_all, f
        assert set(ids(store.search("ns", where=f, k=100))) == want_all, f
        assert set(ids(store.search("ns", text="shared words", where=f, k=100))) == want_all, f
        got = store.search("ns", embedding=q, where=f, k=5)
        assert ids(got) == ids(ref.search("ns", embedding=q, where=f, k=5)), f


def test_keyword_search(store: MemoryStore) -> None:
    rng = np.random.default_rng(9)
    texts = [
        "The user's dog is named Rex and loves the beach",
        "User works at a bakery downtown",
        "User prefers tea over coffee in the morning",
        "Meeting with Bob moved to Friday",
    ]
    mine = [item("me", t, i) for i, t in enumerate(texts)]
    # another namespace is full of dog documents: must not leak or change the ranking
    others = [item("other", f"dog dog named dog {i} rex beach", i) for i in range(20)]
    store.add(mine, unit(rng, len(mine)))
    store.add(others, unit(rng, len(others)))
    got = store.search("me", text="What is the name of my dog?", k=3)
    assert got and got[0].item.id == mine[0].id
    assert all(r.item.namespace == "me" for r in got)
    assert all(r.score > 0 for r in got)
    got = store.search("me", text="coffee or tea", k=10)
    assert ids(got)[:1] == [mine[2].id]
    assert store.search("me", text="zebra xylophone", k=10) == []
    assert store.search("me", text="the of and", k=10) == []  # only stopwords


def test_keyword_search_follows_writes(store: MemoryStore) -> None:
    """The keyword index is kept, not rebuilt per query: it must follow every kind of write."""
    rng = np.random.default_rng(21)
    first = [item("ns", "user runs every morning", 0), item("ns", "user owns a cat named Tom", 1)]
    store.add(first, unit(rng, 2))
    assert ids(store.search("ns", text="running", k=5)) == [first[0].id]  # stemmed on every backend
    later = item("ns", "user started running marathons", 2)
    store.add([later], unit(rng, 1))
    assert set(ids(store.search("ns", text="running", k=5))) == {first[0].id, later.id}
    store.update(first[1].model_copy(update={"text": "user owns a dog named Tom"}))
    assert ids(store.search("ns", text="dog", k=5)) == [first[1].id]
    assert store.search("ns", text="cat", k=5) == []
    store.update(later.model_copy(update={"valid": False}))
    assert ids(store.search("ns", text="marathons", k=5)) == []
    assert ids(store.search("ns", text="marathons", k=5, include_invalid=True)) == [later.id]
    assert store.delete("ns", [first[0].id]) == 1
    assert ids(store.search("ns", text="morning", k=5)) == []
    store.reset("ns")
    assert store.search("ns", text="dog", k=5) == []
    store.add([item("ns", "dog again", 3)], unit(rng, 1))
    assert len(store.search("ns", text="dog", k=5)) == 1


def test_recency_and_list_order(store: MemoryStore) -> None:
    rng = np.random.default_rng(10)
    offsets = [5, 1, 9, 3, 7]
    items = [item("ns", f"event {o}", o) for o in offsets]
    store.add(items, unit(rng, len(items)))
    got = store.search("ns", k=3)
    assert [r.item.text for r in got] == ["event 9", "event 7", "event 5"]
    assert all(r.score == 0.0 for r in got)
    assert [i.text for i in store.list("ns")] == [f"event {o}" for o in sorted(offsets)]


def test_results_do_not_depend_on_insertion_order(backend: str, make: Callable[[str], MemoryStore]) -> None:
    """Exact ties (identical vectors, texts, timestamps) are ordered by the documented rule:
    score desc, created_at asc, id asc (recency: created_at desc, id asc), whatever order the
    rows were inserted in, and a tie at the k-th place is not left to the index."""
    rng = np.random.default_rng(18)
    groups = unit(rng, 4)  # every group of 3 items shares one vector, one text and one timestamp pattern
    texts = ["green tea every morning", "green tea and cake", "black coffee at night", "tea with Rex"]
    id_names = ["f3a1", "0b77", "Zed", "a", "b2", "B1", "c", "aa", "9", "e5", "_x", "m-1"]
    items = [
        item("ns", texts[j // 3], [0, 0, 5, 5][j // 3] + (j % 3 == 2), id=id_names[j], metadata={"g": j // 3})
        for j in range(12)
    ]
    vecs = np.stack([groups[j // 3] for j in range(12)])
    order_a = list(range(12))
    order_b = [int(i) for i in np.random.default_rng(19).permutation(12)]
    a, b = make(backend), make(backend)
    a.add([items[i] for i in order_a], vecs[order_a])
    for lo in range(0, 12, 5):  # the other one in several batches, in another order
        b.add([items[i] for i in order_b[lo : lo + 5]], vecs[order_b[lo : lo + 5]])
    ref = InMemoryStore()
    ref.add(items, vecs)

    def rule_ok(hits: list[Any]) -> bool:
        keys = [(-round(h.score, 5), h.item.created_at, h.item.id) for h in hits]
        return keys == sorted(keys)

    for g in range(4):
        for k in (1, 2, 4, 12):  # k=1, 2 cut through a group of 3 exact ties
            got_a = a.search("ns", embedding=groups[g], k=k)
            got_b = b.search("ns", embedding=groups[g], k=k)
            assert ids(got_a) == ids(got_b) == ids(ref.search("ns", embedding=groups[g], k=k)), (g, k)
            assert rule_ok(got_a), (g, k)
    for query in ("green tea", "tea", "coffee night"):
        for k in (1, 2, 5, 12):
            got_a, got_b = a.search("ns", text=query, k=k), b.search("ns", text=query, k=k)
            assert ids(got_a) == ids(got_b) and got_a and rule_ok(got_a), (query, k)
    for k in (1, 2, 4, 12):
        got_a, got_b = a.search("ns", k=k), b.search("ns", k=k)
        assert ids(got_a) == ids(got_b) == ids(ref.search("ns", k=k)), k
        want = sorted(items, key=lambda it: it.id)
        want.sort(key=lambda it: it.created_at, reverse=True)
        assert ids(got_a) == [it.id for it in want[:k]], k
    assert [i.id for i in a.list("ns")] == [i.id for i in b.list("ns")] == [
        it.id for it in sorted(items, key=lambda it: (it.created_at, it.id))
    ]
    # the ids given are the ids kept
    assert sorted(i.id for i in a.list("ns")) == sorted(id_names)


def test_nul_characters_are_stored_as_replacement(store: MemoryStore) -> None:
    """U+0000 (which PostgreSQL text cannot hold) is stored as U+FFFD by every backend."""
    rng = np.random.default_rng(20)
    raw = item(
        "ns", "tea\x00time with Rex", 0, id="nul-1", kind="pre\x00f",
        metadata={"k\x00": "v\x00", "nested": {"list": ["x\x00", 1]}, "plain": "ok"},
        source_turn_ids=["c1:t\x001"],
    )
    vec = unit(rng, 1)
    store.add([raw], vec)
    stored = store.get("ns", ["nul-1"])[0]
    assert stored.text == "tea\ufffdtime with Rex" and stored.kind == "pre\ufffdf"
    assert stored.metadata == {"k\ufffd": "v\ufffd", "nested": {"list": ["x\ufffd", 1]}, "plain": "ok"}
    assert stored.source_turn_ids == ["c1:t\ufffd1"]
    assert ids(store.search("ns", text="Rex", k=5)) == ["nul-1"]
    assert ids(store.search("ns", embedding=vec[0], k=5, where={"k\x00": "v\x00"})) == ["nul-1"]
    assert ids(store.search("ns", k=5, where={"kind": "pre\ufffdf"})) == ["nul-1"]
    store.update(stored.model_copy(update={"text": "tea\x00 again"}))
    assert store.get("ns", ["nul-1"])[0].text == "tea\ufffd again"
    assert store.get("ns", ["nul\x00"]) == [] and store.delete("ns", ["nul\x00"]) == 0
    assert store.search("n\x00s", k=5) == [] and store.list("n\x00s") == []
    for bad in (item("ns", "x", id="bad\x00id"), item("n\x00s", "x")):
        with pytest.raises(StoreError) as ei:
            store.add([bad], unit(rng, 1))
        assert store.name in str(ei.value) and "NUL" in str(ei.value)
    assert store.count("ns") == 1


def test_count_and_reset(store: MemoryStore) -> None:
    rng = np.random.default_rng(11)
    store.add([item("a", f"x{i}", i) for i in range(3)], unit(rng, 3))
    store.add([item("b", f"y{i}", i) for i in range(2)], unit(rng, 2))
    assert (store.count("a"), store.count("b"), store.count("c"), store.count()) == (3, 2, 0, 5)
    store.reset("a")
    assert (store.count("a"), store.count("b"), store.count()) == (0, 2, 2)
    assert store.search("a", k=10) == [] and len(store.search("b", k=10)) == 2
    store.reset()
    assert store.count() == 0
    store.add([item("a", "again", 0)], unit(rng, 1))  # usable after a full reset
    assert store.count("a") == 1


def test_idempotent_readd(store: MemoryStore) -> None:
    rng = np.random.default_rng(12)
    vecs = unit(rng, 5)
    items = [item("ns", f"fact {i}", i, metadata={"v": "1"}) for i in range(5)]
    store.add(items, vecs)
    store.add(items, vecs)  # a resumed run re-adds the same batch
    store.add(items[:2])  # and once without embeddings: vectors are kept
    assert store.count("ns") == 5 and store.count() == 5
    assert len(store.search("ns", embedding=vecs[0], k=10)) == 5
    assert ids(store.search("ns", embedding=vecs[1], k=1)) == [items[1].id]
    # a re-add carrying a changed version replaces it (the reference store's semantics)
    store.add([items[0].model_copy(update={"metadata": {"v": "2"}})], vecs[:1])
    assert store.get("ns", [items[0].id])[0].metadata == {"v": "2"}
    assert items[0].id not in ids(store.search("ns", where={"v": "1"}, k=10))
    assert store.count("ns") == 5


def test_filtered_topk_is_complete(store: MemoryStore) -> None:
    """A small namespace next to a big one still gets its full exact top-k (HNSW + filter)."""
    rng = np.random.default_rng(13)
    big_vecs = unit(rng, 1500)
    small_vecs = unit(rng, 25)
    store.add([item("big", f"b{i}", i) for i in range(1500)], big_vecs)
    small = [item("small", f"s{i}", i, kind="fact" if i % 5 else "rare") for i in range(25)]
    store.add(small, small_vecs)
    ref = InMemoryStore()
    ref.add(small, small_vecs)
    for q in unit(rng, 3):
        assert ids(store.search("small", embedding=q, k=10)) == ids(ref.search("small", embedding=q, k=10))
        rare = store.search("small", embedding=q, k=10, where={"kind": "rare"})
        assert ids(rare) == ids(ref.search("small", embedding=q, k=10, where={"kind": "rare"}))
        assert len(rare) == 5


# --------------------------------------------------------------------------- isolation

NAMESPACES = [
    "u1", "u10", "u100", "U1", "u1 ", " u1", "u", "",
    "a%", "a_b", "ab", "axb", "a%b", "%", "_", "a\\b", "a\\%",
    "o'brien", 'q"uote', "'; DROP TABLE x; --", "ü-名前-🙂", "ns/with/slashes", "ns.with.dots", "$ne", "{}",
]


def test_namespace_isolation(store: MemoryStore) -> None:
    """Identical ids, texts, embeddings and metadata in many look-alike namespaces never mix."""
    rng = np.random.default_rng(14)
    base_vecs = unit(rng, 4)
    texts = ["user likes green tea", "user lives in Paris", "dog named Rex", "works as a nurse"]

    def batch(ns: str) -> list[MemoryItem]:
        return [item(ns, texts[j], j, id=f"m{j}", kind="fact", metadata={"tag": "t", "j": j}) for j in range(4)]

    for ns in NAMESPACES:
        store.add(batch(ns), base_vecs)
    unique = item("u10", "only in u10: green tea ceremony", 9, id="only-u10", metadata={"tag": "t"})
    store.add([unique], unit(rng, 1))
    assert store.count() == 4 * len(NAMESPACES) + 1

    q = base_vecs[0]
    for ns in NAMESPACES:
        n_expect = 5 if ns == "u10" else 4
        paths = {
            "vector": [r.item for r in store.search(ns, embedding=q, k=50)],
            "vector+where": [r.item for r in store.search(ns, embedding=q, k=50, where={"tag": "t"})],
            "keyword": [r.item for r in store.search(ns, text="green tea Paris Rex nurse", k=50)],
            "recency": [r.item for r in store.search(ns, k=50)],
            "list": store.list(ns),
            "get": store.get(ns, ["m0", "m1", "m2", "m3", "only-u10"]),
        }
        for path, got in paths.items():
            assert all(it.namespace == ns for it in got), (ns, path)
            assert len(got) == n_expect, (ns, path, len(got))
        assert store.count(ns) == n_expect, ns

    # another namespace's id: not readable, deletable or updatable from here
    assert store.get("u1", ["only-u10"]) == []
    assert store.delete("u1", ["only-u10"]) == 0
    with pytest.raises(KeyError):
        store.update(unique.model_copy(update={"namespace": "u1"}))
    assert store.get("u10", ["only-u10"]) == [unique]

    # deleting a shared id in one namespace leaves the look-alikes alone
    assert store.delete("a%", ["m0"]) == 1
    for ns in ["a_b", "ab", "axb", "a%b", "%", "_", "a\\%"]:
        assert [i.id for i in store.get(ns, ["m0"])] == ["m0"], ns
    # updating a shared id in one namespace leaves the others alone
    store.update(batch("u1")[1].model_copy(update={"text": "user moved to Berlin"}))
    assert store.get("u10", ["m1"])[0].text == "user lives in Paris"
    assert store.search("u10", text="Berlin", k=5) == []
    # resetting a namespace leaves its prefixes/extensions alone
    store.reset("u1")
    assert store.count("u1") == 0
    assert (store.count("u10"), store.count("u100"), store.count("U1"), store.count("u1 ")) == (5, 4, 4, 4)
    assert store.count() == 4 * len(NAMESPACES) + 1 - 4 - 1


# --------------------------------------------------------------------------- backend specifics


@pytest.mark.slow
def test_chroma_single_writer_lock(tmp_path: Path) -> None:

    path = tmp_path / "locked"
    first = make_store("chroma", path=str(path))
    try:
        with pytest.raises(StoreError) as ei:
            make_store("chroma", path=str(path))
        msg = str(ei.value)
        assert str(path) in msg and f"already opened by pid {os.getpid()}" in msg
        assert "separate directory per concurrent run" in msg
        code = textwrap.dedent(
            f"""
            from memlab.memory.stores.base import StoreError, make_store
            try:
                make_store("chroma", path={str(path)!r})
            except StoreError as e:
                print("STOREERROR", e)
            else:
                print("OPENED")
            """
        )
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )
        assert "STOREERROR" in proc.stdout, proc.stdout + proc.stderr
        assert f"already opened by pid {os.getpid()}" in proc.stdout and str(path) in proc.stdout
    finally:
        first.close()
    again = make_store("chroma", path=str(path))  # released on close
    again.close()


def test_chroma_reopen_persists(tmp_path: Path) -> None:

    rng = np.random.default_rng(15)
    vecs = unit(rng, 3)
    items = [item("ns", f"persist {i}", i) for i in range(3)]
    s = make_store("chroma", path=str(tmp_path / "p"))
    s.add(items, vecs)
    s.close()
    s = make_store("chroma", path=str(tmp_path / "p"))
    try:
        assert s.get("ns", [i.id for i in items]) == items
        assert ids(s.search("ns", embedding=vecs[2], k=1)) == [items[2].id]
    finally:
        s.close()


def full_error_text(e: BaseException) -> str:
    """The messages a traceback of ``e`` would print: its own and every chained cause/context."""
    parts: list[str] = []
    seen: BaseException | None = e
    while seen is not None:
        parts.append("".join(traceback.format_exception_only(seen)))
        seen = seen.__cause__ or (None if seen.__suppress_context__ else seen.__context__)
    return "\n".join(parts)


def test_unreachable_servers_raise_store_error() -> None:
    port = free_port()  # bound then released: nothing listens there
    with pytest.raises(StoreError) as ei:
        make_store("postgres", dsn=f"postgresql://memlab:s3cr3t-pw@127.0.0.1:{port}/memlab", connect_timeout=2)
    msg = str(ei.value)
    assert "postgres" in msg and f"127.0.0.1:{port}" in msg and "s3cr3t-pw" not in msg
    assert "s3cr3t-pw" not in full_error_text(ei.value)
    with pytest.raises(StoreError) as ei:
        make_store("chroma", host="127.0.0.1", port=port)
    msg = str(ei.value)
    assert "chroma" in msg and f"127.0.0.1:{port}" in msg


@pytest.mark.parametrize(
    ("dsn", "address"),
    [
        ("postgresql://memlab:s3cr3t-pw@127.0.0.1:{port}/memlab", "127.0.0.1:{port}/memlab"),  # dead port
        ("postgresql://memlab:s3cr3t-pw@127.0.0.1:notaport/memlab", "127.0.0.1:notaport/memlab"),
        ("postgresql://memlab:s3cr3t-pw@[::1/memlab", "memlab"),  # unterminated IPv6 host
        ("postgresql://memlab:s3cr3t-pw@127.0.0.1:{port}/memlab?sslmode=bogus", "127.0.0.1:{port}/memlab"),
        ("host=127.0.0.1 port={port} dbname=memlab user=memlab password=s3cr3t-pw bogus_option=1",
         "127.0.0.1:{port}/memlab"),
        ("host=127.0.0.1 port={port} dbname=memlab user=memlab password='s3cr3t-pw", "127.0.0.1:{port}/memlab"),
    ],
)
def test_pg_errors_name_the_server_never_the_password(dsn: str, address: str) -> None:
    port = free_port()
    with pytest.raises(StoreError) as ei:
        make_store("postgres", dsn=dsn.format(port=port), connect_timeout=2)
    msg = str(ei.value)
    assert msg.startswith("postgres") and address.format(port=port) in msg and "user memlab" in msg, msg
    assert "s3cr3t-pw" not in full_error_text(ei.value)


@pytest.mark.postgres
def test_pg_errors_mid_run_name_the_server(pg_dsn: str) -> None:
    """A connection lost mid-run surfaces as a StoreError naming postgres, address and operation."""
    from psycopg.conninfo import conninfo_to_dict


    store = make_store("postgres", dsn=pg_dsn, table=f"t_lost_{uuid.uuid4().hex[:8]}", pool_size=1)
    try:
        with store._pool.connection() as conn:
            pid = conn.info.backend_pid
        import psycopg

        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(StoreError) as ei:
            store.search("ns", k=3)
        msg = str(ei.value)
        d = conninfo_to_dict(pg_dsn)
        assert msg.startswith(f"postgres at {d['host']}:{d['port']}/") and "search failed" in msg, msg
        password = str(d.get("password") or "")
        assert not password or password not in full_error_text(ei.value)
    finally:
        store.drop_table()
        store.close()


@pytest.mark.postgres
def test_pg_script_reuses_running_server(pg_dsn: str) -> None:
    if os.environ.get("MEMLAB_PG_DSN"):
        pytest.skip("testing an external server given by MEMLAB_PG_DSN")
    script = str(ROOT / "scripts" / "pg.sh")
    before = subprocess.run(["bash", script, "status"], capture_output=True, text=True, timeout=60)
    again = subprocess.run(["bash", script, "start"], capture_output=True, text=True, timeout=120)
    after = subprocess.run(["bash", script, "status"], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0
    assert before.returncode == 0 and after.returncode == 0
    assert before.stdout.split()[1] == after.stdout.split()[1]  # same pid=...: reused, not restarted
    dsn_file = subprocess.run(["bash", script, "dsn"], capture_output=True, text=True, timeout=60)
    assert dsn_file.stdout.strip() == pg_dsn


@pytest.mark.postgres
def test_pg_migrations_idempotent(pg_dsn: str) -> None:

    table = f"t_mig_{uuid.uuid4().hex[:8]}"
    a = make_store("postgres", dsn=pg_dsn, table=table, pool_size=1)
    b = make_store("postgres", dsn=pg_dsn, table=table, pool_size=1)  # re-open: migrations are no-ops
    try:
        a.add([item("ns", "x", 0)], unit(np.random.default_rng(16), 1))
        assert b.count("ns") == 1
        with b._pool.connection() as conn:
            versions = [
                r[0]
                for r in conn.execute(
                    "SELECT version FROM memlab_schema_migrations WHERE table_name = %s ORDER BY version", (table,)
                ).fetchall()
            ]
            indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", (table,))}
            iterative = conn.execute("SHOW hnsw.iterative_scan").fetchone()
        assert versions == [1, 2]
        assert {f"{table}_emb_hnsw", f"{table}_fts_idx", f"{table}_meta_idx", f"{table}_ns_idx"} <= indexes
        assert iterative is not None and iterative[0] == "relaxed_order"
        with pytest.raises(StoreError):
            make_store("postgres", dsn=pg_dsn, table="bad-name; drop")
    finally:
        a.drop_table()
        a.close()
        b.close()


@pytest.mark.postgres
def test_pg_hnsw_filtered_scan_is_complete(pg_dsn: str) -> None:
    """Force the planner onto the HNSW index with a selective namespace filter: the iterative
    scan must still return the namespace's full exact top-k (without it, ef_search candidates
    are filtered down to ~1 row)."""

    rng = np.random.default_rng(17)
    table = f"t_hnsw_{uuid.uuid4().hex[:8]}"
    loader = make_store("postgres", dsn=pg_dsn, table=table, pool_size=1, hnsw=False)  # bulk load, then build the index
    big_vecs, small_vecs = unit(rng, 3000), unit(rng, 30)
    loader.add([item("big", f"b{i}", i) for i in range(3000)], big_vecs)
    small = [item("small", f"s{i}", i) for i in range(30)]
    loader.add(small, small_vecs)
    loader.close()
    store = make_store("postgres", dsn=pg_dsn, table=table, pool_size=1, exact_below=0)  # migration 2 builds HNSW
    try:
        ref = InMemoryStore()
        ref.add(small, small_vecs)
        q = unit(rng, 1)[0]
        with store._pool.connection() as conn:  # pool_size=1: the session settings stick
            # leave the planner no way but the HNSW index: no btree on namespace, no seq scan
            for idx in ("ns_idx", "type_idx", "created_idx"):
                conn.execute(f'DROP INDEX "{table}_{idx}"')
            conn.execute(f'ALTER TABLE "{table}" DROP CONSTRAINT "{table}_pkey"')
            conn.execute(f'ANALYZE "{table}"')
            conn.execute("SET enable_seqscan = off")
            approx = (
                f'SELECT id FROM "{table}" WHERE namespace = %s AND embedding IS NOT NULL '
                "ORDER BY embedding <=> %s LIMIT 10"
            )
            plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + approx, ("small", q)).fetchall())
            assert f"{table}_emb_hnsw" in plan, plan
            assert len(conn.execute(approx, ("small", q)).fetchall()) == 10  # iterative scan: complete
            conn.execute("SET hnsw.iterative_scan = off")
            short = len(conn.execute(approx, ("small", q)).fetchall())
            conn.execute("SET hnsw.iterative_scan = relaxed_order")
        assert short < 10  # what the setting prevents
        got = store.search("small", embedding=q, k=10)
        assert ids(got) == ids(ref.search("small", embedding=q, k=10))
    finally:
        store.drop_table()
        store.close()
