"""The LoCoMo-shaped conversation generator (benchmarks/locomo_like.py): seeded and reproducible,
LoCoMo's file format and shape, and the variety filler lacks (new entities, dates and topics
every session)."""

from __future__ import annotations

import json
from collections import Counter

from benchmarks import locomo_like


def test_same_arguments_give_the_same_file_and_another_seed_another(tmp_path):
    a = locomo_like.write(tmp_path / "a.json", conversations=2, sessions=6, probes=40, seed=7).read_bytes()
    b = locomo_like.write(tmp_path / "b.json", conversations=2, sessions=6, probes=40, seed=7).read_bytes()
    c = locomo_like.write(tmp_path / "c.json", conversations=2, sessions=6, probes=40, seed=8).read_bytes()
    assert a == b and a != c


def test_locomo_size_and_shape_read_by_memlabs_locomo_loader(tmp_path):
    from memlab.datasets.locomo import load_with_report

    path = locomo_like.write(tmp_path / "locomo_like.json")
    ds, repairs = load_with_report(path)
    assert repairs == [], "written exactly in LoCoMo's format: nothing to repair"
    turns = sum(len(c.turns()) for c in ds.conversations)
    sessions = sum(len(c.sessions) for c in ds.conversations)
    assert len(ds.conversations) == 10 and 230 <= sessions <= 320 and 5000 <= turns <= 7000  # LoCoMo: 272, 5,882
    probes = [p for c in ds.conversations for p in c.probes]
    assert 1900 <= len(probes) <= 2000  # LoCoMo: 1,986
    cats = Counter(p.original_category for p in probes)
    assert set(cats) == {"1:multi-hop", "2:temporal", "3:open-domain", "4:single-hop", "5:adversarial"}
    assert cats["4:single-hop"] > cats["5:adversarial"] > cats["2:temporal"] > cats["3:open-domain"]
    ids = {t.id for c in ds.conversations for _, t in c.turns()}
    assert all(e in ids for p in probes for e in p.evidence) and all(p.evidence for p in probes if not p.abstain)
    assert any(t.meta.get("blip_caption") for c in ds.conversations for _, t in c.turns()), "shared photos, as in LoCoMo"


def test_every_session_brings_new_entities_dates_and_topics():
    data = locomo_like.generate(conversations=1, sessions=120, probes=0, seed=1)
    shape = locomo_like.describe(data)
    assert shape["new entities per session"] >= 5 and shape["per session: dates mentioned"] >= 2
    assert shape["per session: distinct topics"] >= 3
    sessions = [v for k, v in data[0]["conversation"].items() if k.startswith("session_") and isinstance(v, list)]
    turns = [t["text"] for s in sessions for t in s]
    import random

    from memlab.datasets.scale import chitchat_session

    rng = random.Random(0)
    filler = [t for _ in sessions for _, t in chitchat_session(rng)]  # the length scaler's filler, as many sessions
    assert len(set(turns)) / len(turns) > 2 * len(set(filler)) / len(filler), "far fewer repeated turns than filler"
    assert len({w for t in turns for w in t.split()}) > 1.5 * len({w for t in filler for w in t.split()})
    late = {w for s in sessions[100:] for t in s for w in t["text"].split() if w[:1].isupper()}
    early = {w for s in sessions[:20] for t in s for w in t["text"].split() if w[:1].isupper()}
    assert len(late - early) > 100, "names keep coming that the start of the conversation never used"
    assert json.dumps(data)  # plain JSON
