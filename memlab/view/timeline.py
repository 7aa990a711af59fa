"""A user's memory timeline: the turns of every thread with the memory operations each caused, the
store as it stood after any turn, and for a probe where its evidence was written, updated or lost.

Everything comes from one unit's records (strategy × dataset × user): its ``turns`` in the order
they were played and its ``memory_ops`` (ADD / UPDATE / DELETE / NOOP with the item, its text, the
text it replaced and its source turns). The store as of a turn is the operations up to that turn
replayed in order — what a long-term store held, not the working context. Turn text and dates come
from the dataset file when it still has the run's hash (the run records ids only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memlab.scoring import any_gold_form
from memlab.view.run import ViewedRun

PAGE_TURNS = 200
"""Turns per timeline page (a LoCoMo user has ~600, each with its operations)."""
MAX_EVENTS = 40
"""Operations listed for a probe's evidence (a summary that cites it may be rewritten at every turn)."""
MAX_ITEMS = 500
"""Store items listed as of a turn (the count is always given)."""
CLIP = 300


def _clip(text: Any, n: int = CLIP) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


@dataclass
class _Item:
    item_id: str
    kind: str
    text: str
    sources: list[str]
    since: str
    updated: str | None = None
    from_evidence: bool = False


@dataclass
class Replay:
    """The unit's operations in play order, with the position of the turn each belongs to."""

    turns: list[dict[str, Any]]
    ops: list[tuple[float, dict[str, Any]]]
    position: dict[tuple[str, str], int] = field(default_factory=dict)

    @classmethod
    def of(cls, turns: list[dict[str, Any]], ops: list[dict[str, Any]]) -> Replay:
        position = {(str(t.get("conversation_id")), str(t.get("turn_id"))): i for i, t in enumerate(turns)}
        first: dict[str, int] = {}
        last: dict[str, int] = {}
        for i, t in enumerate(turns):
            c = str(t.get("conversation_id"))
            first.setdefault(c, i)
            last[c] = i
        placed = []
        for op in ops:
            c = str(op.get("conversation_id"))
            phase = op.get("phase") or "turn"
            if phase == "conversation_start":
                pos = first.get(c, 0) - 0.5
            elif phase == "conversation_end" or (c, str(op.get("turn_id"))) not in position:
                pos = last.get(c, len(turns)) + 0.5
            else:
                pos = float(position[(c, str(op.get("turn_id")))])
            placed.append((pos, op))
        placed.sort(key=lambda x: x[0])  # stable: operations of one turn keep their order
        return cls(turns, placed, position)

    def store(self, upto: float, evidence: set[str]) -> dict[str, _Item]:
        """The items alive after position ``upto`` (replaying ADD / UPDATE / DELETE)."""
        items: dict[str, _Item] = {}
        for pos, op in self.ops:
            if pos > upto:
                break
            _apply(items, op, self._where(pos), evidence)
        return items

    def _where(self, pos: float) -> str:
        i = min(max(int(round(pos)), 0), len(self.turns) - 1) if self.turns else -1
        return str(self.turns[i].get("turn_id")) if i >= 0 else ""


def _apply(items: dict[str, _Item], op: dict[str, Any], where: str, evidence: set[str]) -> None:
    kind, item_id = str(op.get("op") or "").upper(), str(op.get("item_id") or f"seq-{op.get('seq')}")
    sources = [str(s) for s in op.get("source_turn_ids") or []]
    if kind == "ADD":
        items[item_id] = _Item(item_id, str(op.get("kind") or ""), str(op.get("text") or ""), sources, where,
                               from_evidence=bool(evidence & set(sources)))
    elif kind == "UPDATE":
        old = items.get(item_id)
        if old is None:
            items[item_id] = _Item(item_id, str(op.get("kind") or ""), str(op.get("text") or ""), sources, where,
                                   from_evidence=bool(evidence & set(sources)))
        else:
            old.text, old.updated = str(op.get("text") or old.text), where
            old.sources = sources or old.sources
            old.from_evidence = old.from_evidence or bool(evidence & set(sources))
    elif kind == "DELETE":
        items.pop(item_id, None)


def _op_row(op: dict[str, Any]) -> dict[str, Any]:
    return {"seq": op.get("seq"), "op": str(op.get("op") or ""), "item_id": op.get("item_id"), "kind": op.get("kind"),
            "text": _clip(op.get("text")), "previous_text": _clip(op.get("previous_text")) if op.get("previous_text") else None,
            "sources": [str(s) for s in (op.get("source_turn_ids") or [])][:20], "reason": _clip(op.get("reason"), 200),
            "store": op.get("store"), "phase": op.get("phase") or "turn"}


def timeline(run: ViewedRun, strategy: str, dataset: str, user: str, *, turn: str | None = None,
             conversation: str | None = None, probe: str | None = None, page: int | None = None) -> dict[str, Any]:
    """The timeline page of one user's memory under one strategy (see the module docstring)."""
    attempt = run.unit_attempt(strategy, dataset, user)
    if attempt is None:
        raise KeyError(f"no finished unit for {strategy} · {dataset} · user {user} in {run.label}")
    turns = run.records("turns", run.turns_at.get(attempt, _EMPTY))
    ops = run.records("memory_ops", run.ops_at.get(attempt, _EMPTY))
    ops.sort(key=lambda o: o.get("seq") if isinstance(o.get("seq"), int) else 0)
    replay = Replay.of(turns, ops)
    threads = run.threads_of(strategy, dataset, user)
    thread_no = {c: i + 1 for i, c in enumerate(threads)}
    texts = run.text_of(dataset, user)
    text = {(str(r.conversation_id), str(r.turn_id)): r for r in texts.itertuples(index=False)} if not texts.empty else {}

    probe_info = _probe(run, strategy, dataset, conversation, probe) if probe else None
    story = _evidence_story(replay, probe_info)  # places the evidence and the probe in the play order
    evidence = set(probe_info["evidence"]) if probe_info else set()
    focus = None
    if turn is not None:
        focus = _find(replay.position, turn, conversation, threads)
    elif probe_info and probe_info["evidence_at"]:
        focus = probe_info["evidence_at"][0]
    n_pages = max(1, -(-len(turns) // PAGE_TURNS))
    if page is None:
        page = (focus // PAGE_TURNS) if focus is not None else 0
    page = min(max(int(page), 0), n_pages - 1)
    lo, hi = page * PAGE_TURNS, min(len(turns), (page + 1) * PAGE_TURNS)

    by_pos: dict[float, list[dict[str, Any]]] = {}
    for pos, op in replay.ops:
        by_pos.setdefault(pos, []).append(op)
    out_threads: list[dict[str, Any]] = []
    for i in range(lo, hi):
        t = turns[i]
        c = str(t.get("conversation_id"))
        if not out_threads or out_threads[-1]["conversation_id"] != c:
            out_threads.append({"conversation_id": c, "thread": thread_no.get(c), "turns": [],
                                "start_ops": [_op_row(o) for o in by_pos.get(i - 0.5, [])] if i == 0 or
                                str(turns[i - 1].get("conversation_id")) != c else []})
        tx = text.get((c, str(t.get("turn_id"))))
        row = {"i": i, "turn_id": t.get("turn_id"), "session_id": t.get("session_id"), "role": t.get("role"),
               "calls": t.get("calls"), "tokens": (t.get("prompt_tokens") or 0) + (t.get("completion_tokens") or 0),
               "ops": [_op_row(o) for o in by_pos.get(float(i), [])], "evidence": str(t.get("turn_id")) in evidence}
        if tx is not None:
            row.update(text=_clip(tx.text), at=tx.at, speaker=tx.speaker, chars=len(str(tx.text)))
        out_threads[-1]["turns"].append(row)
        if i + 1 == len(turns) or str(turns[i + 1].get("conversation_id")) != c:
            out_threads[-1]["end_ops"] = [_op_row(o) for o in by_pos.get(i + 0.5, [])]

    asof = focus if focus is not None else len(turns) - 1
    if probe_info and turn is None and probe_info.get("asked_at") is not None:
        asof = probe_info["asked_at"]
    store = replay.store(float(asof), evidence)
    gold = probe_info["gold"] if probe_info else []
    items = sorted(store.values(), key=lambda it: (not it.from_evidence, it.kind, it.item_id))
    store_rows = [{"item_id": it.item_id, "kind": it.kind, "text": _clip(it.text), "sources": it.sources[:20],
                   "since": it.since, "updated": it.updated, "evidence": it.from_evidence,
                   "gold": bool(gold) and any_gold_form(it.text, gold)} for it in items[:MAX_ITEMS]]
    counts: dict[str, int] = {}
    for _, op in replay.ops:
        k = str(op.get("op") or "").upper()
        counts[k] = counts.get(k, 0) + 1
    return {"run": run.label, "strategy": strategy, "dataset": dataset, "user": user, "threads": out_threads,
            "page": page, "pages": n_pages, "turns": len(turns), "op_counts": counts, "focus": focus,
            "asof": {"i": asof, "turn_id": replay.turns[asof].get("turn_id") if 0 <= asof < len(turns) else None},
            "store": {"items": store_rows, "count": len(store)}, "probe": story,
            "text_notes": run.text_notes}


_EMPTY: Any = []


def _find(position: dict[tuple[str, str], int], turn: str, conversation: str | None, threads: list[str]) -> int | None:
    if conversation is not None and (conversation, turn) in position:
        return position[(conversation, turn)]
    for c in threads:
        if (c, turn) in position:
            return position[(c, turn)]
    return None


def _probe(run: ViewedRun, strategy: str, dataset: str, conversation: str | None, probe: str) -> dict[str, Any] | None:
    rows = run.rows_of(dataset, conversation or "", probe)
    rows = rows[rows["strategy"] == strategy] if not rows.empty else rows
    if rows.empty:
        return None
    row = rows.iloc[0]
    return {"probe_id": probe, "conversation_id": conversation, "question": str(row.get("question") or ""),
            "evidence": [str(e) for e in (row.get("evidence") if isinstance(row.get("evidence"), list) else [])],
            "after_turn": str(row.get("after_turn")), "gold": row.get("gold") if isinstance(row.get("gold"), list) else []}


def _evidence_story(replay: Replay, info: dict[str, Any] | None) -> dict[str, Any] | None:
    """Where the probe's evidence went: the operations that wrote, updated or deleted items derived
    from an evidence turn, and what of it the store held when the probe was asked."""
    if info is None:
        return None
    evidence = set(info["evidence"])
    conv = info["conversation_id"]
    threads = list(dict.fromkeys(str(t.get("conversation_id")) for t in replay.turns))
    info["evidence_at"] = sorted(p for e in evidence if (p := _find(replay.position, e, conv, threads)) is not None)
    asked = replay.position.get((str(conv), info["after_turn"]))
    info["asked_at"] = asked
    derived: set[str] = set()
    events = []
    for pos, op in replay.ops:
        sources = {str(s) for s in op.get("source_turn_ids") or []}
        item = str(op.get("item_id") or "")
        kind = str(op.get("op") or "").upper()
        if sources & evidence or item in derived:
            if kind in ("ADD", "UPDATE") and sources & evidence:
                derived.add(item)
            what = {"ADD": "written", "UPDATE": "updated", "DELETE": "lost", "NOOP": "not stored"}.get(kind, kind.lower())
            events.append({"i": pos, "turn_id": replay._where(pos), "what": what, "op": kind, "item_id": item,
                           "text": _clip(op.get("text"), 300),
                           "gold": bool(info["gold"]) and any_gold_form(str(op.get("text") or ""), info["gold"]),
                           "after_probe": asked is not None and pos > asked})
    total = len(events)
    if total > MAX_EVENTS:  # a summary rewritten at every turn: its first and last rewrites, every ADD / DELETE / NOOP
        updates = [e for e in events if e["op"] == "UPDATE"]
        keep = {id(e) for e in updates[:5] + updates[-5:]}
        keep |= {id(e) for e in [e for e in events if e["op"] != "UPDATE"][: MAX_EVENTS - len(keep)]}
        events = [e for e in events if id(e) in keep]
    at_probe = replay.store(float(asked), evidence) if asked is not None else {}
    kept = [it for it in at_probe.values() if it.from_evidence]
    carrying = [it for it in kept if info["gold"] and any_gold_form(it.text, info["gold"])]
    if not events:
        verdict = "no memory operation cites an evidence turn: the evidence was never written to long-term memory"
    elif not kept:
        verdict = "written, but no item derived from the evidence was in the store when the probe was asked"
    elif not carrying:
        verdict = (f"{len(kept)} item(s) derived from the evidence in the store when asked, none carrying a gold form")
    else:
        verdict = f"{len(carrying)} item(s) in the store when asked carry a gold form"
    return {**{k: info[k] for k in ("probe_id", "question", "evidence", "evidence_at", "asked_at")}, "events": events,
            "verdict": verdict, "kept": len(kept), "carrying": len(carrying), "events_total": total}

