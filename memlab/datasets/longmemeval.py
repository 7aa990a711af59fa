"""LongMemEval (``longmemeval_s.json``, ``_m``, ``_oracle``) → memlab's native Dataset.

Each file is a JSON list of questions ``{question_id, question_type, question, answer,
question_date, haystack_dates, haystack_session_ids, haystack_sessions, answer_session_ids}``;
every haystack session is a list of ``{role, content, has_answer?}`` turns.

Mapping (documented in ``datasets/README.md``):

* each question has its own haystack, so **one question → one conversation** (``id`` =
  ``namespace`` = ``question_id``) with one probe asked after the last turn, ``asked_at`` =
  ``question_date``.
* sessions keep their ids and dates (``"2023/05/20 (Sat) 02:21"``); they are sorted by date
  (``_oracle`` is not sorted), duplicate session ids get a suffix. Turn ids are
  ``<session_id>:<n>``.
* evidence = the turns flagged ``has_answer``; for an answer session without flags, all its turns.
* question types: single-session-user / single-session-assistant → ``single_hop``,
  single-session-preference → ``preference``, multi-session → ``multi_session``,
  knowledge-update → ``knowledge_update`` (LongMemEval does not list stale values, so
  ``superseded`` stays empty), temporal-reasoning → ``temporal``. Ids ending in ``_abs`` are
  abstention questions → ``abstention`` with ``abstain: true`` and no gold (LongMemEval's
  "answer" for them is an explanation). ``original_category`` keeps the question type (plus
  ``_abs``).
* integer answers become strings; every repair is reported by ``load_with_report``.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memlab.datasets.loaders import FORMATS, json_list_head
from memlab.datasets.models import Conversation, Dataset, GoldAnswer, Probe, Session, Turn

log = logging.getLogger(__name__)

QUESTION_TYPES = {"single-session-user": "single_hop", "single-session-assistant": "single_hop",
                  "single-session-preference": "preference", "multi-session": "multi_session",
                  "knowledge-update": "knowledge_update", "temporal-reasoning": "temporal"}
_DATE_FORMATS = ["%Y/%m/%d (%a) %H:%M", "%Y/%m/%d %H:%M", "%Y/%m/%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"]


def sniff(path: Path) -> bool:
    head = json_list_head(path)
    return head is not None and '"question_id"' in head and ('"haystack_sessions"' in head or '"question_type"' in head)


def parse_date(text: Any) -> datetime | None:
    t = " ".join(str(text or "").split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(t, fmt)
        except ValueError:
            pass
    m = re.match(r"(\d{4})[/-](\d{1,2})[/-](\d{1,2})(?:\D+(\d{1,2}):(\d{2}))?", t)
    if m:
        y, mo, d, h, mi = m.groups()
        return datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0))
    return None


def load_with_report(path: str | Path) -> tuple[Dataset, list[str]]:
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = [data]
    repairs: list[str] = []
    convs = [_convert_item(item, i, repairs) for i, item in enumerate(data)]
    ds = Dataset(name=f"longmemeval-{path.stem}", description=f"LongMemEval converted from {path.name}",
                 conversations=convs, meta={"source_format": "longmemeval", "source_file": path.name, "repairs": len(repairs)})
    return ds, repairs


def convert(path: str | Path) -> Dataset:
    ds, repairs = load_with_report(path)
    if repairs:
        log.warning("%s: %d repair(s) while converting LongMemEval (see dataset.meta / load_with_report)", path, len(repairs))
        for r in repairs:
            log.debug("%s: %s", path, r)
    return ds


def _convert_item(item: dict, index: int, repairs: list[str]) -> Conversation:
    qid = str(item.get("question_id") or f"q{index}")
    qtype = str(item.get("question_type") or "")
    sessions_raw = item.get("haystack_sessions") or []
    ids = list(item.get("haystack_session_ids") or [])
    dates = list(item.get("haystack_dates") or [])
    if len(ids) != len(sessions_raw):
        repairs.append(f"{qid}: {len(ids)} session ids for {len(sessions_raw)} sessions; missing ids generated")
        ids = (ids + [f"session_{k + 1}" for k in range(len(sessions_raw))])[: len(sessions_raw)]
    if len(dates) != len(sessions_raw):
        repairs.append(f"{qid}: {len(dates)} dates for {len(sessions_raw)} sessions; missing dates filled")
        dates = (dates + [None] * len(sessions_raw))[: len(sessions_raw)]
    answer_sessions = {str(s) for s in item.get("answer_session_ids") or []}
    parsed: list[tuple[datetime, int, str, list]] = []
    prev: datetime | None = None
    for k, (sid, d, turns) in enumerate(zip(ids, dates, sessions_raw)):
        ts = parse_date(d)
        if ts is None:
            ts = prev + timedelta(hours=1) if prev else datetime(2023, 1, 1)
            repairs.append(f"{qid}: session {sid} has an unparseable date {d!r}; using {ts.isoformat()}")
        prev = ts
        parsed.append((ts, k, str(sid), turns or []))
    order = sorted(parsed, key=lambda x: (x[0], x[1]))
    if [p[1] for p in order] != [p[1] for p in parsed]:
        repairs.append(f"{qid}: haystack sessions were not in date order; sorted")
    sessions: list[Session] = []
    seen_sessions: set[str] = set()
    evidence: list[str] = []
    for ts, k, sid, turns in order:
        if not turns:
            repairs.append(f"{qid}: session {sid} is empty; skipped")
            continue
        orig_sid = sid
        if sid in seen_sessions:
            sid = f"{sid}#{k + 1}"
            repairs.append(f"{qid}: duplicate session id {orig_sid!r} renamed {sid!r}")
        seen_sessions.add(sid)
        out_turns: list[Turn] = []
        flagged: list[str] = []
        for j, t in enumerate(turns):
            role = str(t.get("role") or "user")
            if role not in ("user", "assistant", "tool", "system"):
                repairs.append(f"{qid}: unknown role {role!r} in {sid}; treated as user")
                role = "user"
            text = str(t.get("content") or "").strip() or "(empty)"
            tid = f"{sid}:{j + 1}"
            out_turns.append(Turn(id=tid, role=role, text=text))
            if t.get("has_answer"):
                flagged.append(tid)
        if orig_sid in answer_sessions and not flagged:
            flagged = [t.id for t in out_turns]
            repairs.append(f"{qid}: answer session {orig_sid} has no has_answer turns; all its turns used as evidence")
        evidence.extend(flagged)
        sessions.append(Session(id=sid, timestamp=ts, turns=out_turns))
    if not sessions:
        raise ValueError(f"LongMemEval question {qid} has no haystack sessions")
    abstain = qid.endswith("_abs")
    category = "abstention" if abstain else QUESTION_TYPES.get(qtype)
    if category is None:
        repairs.append(f"{qid}: unknown question_type {qtype!r}; treated as single_hop")
        category = "single_hop"
    answer = item.get("answer")
    gold: list[GoldAnswer] = []
    if not abstain:
        if answer is None or str(answer).strip() == "":
            repairs.append(f"{qid}: no answer; marked abstain")
            abstain, category = True, "abstention"
        else:
            if not isinstance(answer, str):
                repairs.append(f"{qid}: non-string answer {answer!r} converted to text")
            gold = [GoldAnswer(text=str(answer).strip())]
    asked = parse_date(item.get("question_date"))
    last_ts = sessions[-1].timestamp
    if asked is not None and asked < last_ts:
        repairs.append(f"{qid}: question_date {asked.isoformat()} is before the last session; using the last session's date")
        asked = last_ts
    probe = Probe(id=f"{qid}-q", after_turn=sessions[-1].turns[-1].id, question=str(item.get("question") or "").strip() or "?",
                  category=category, gold=gold, evidence=evidence, abstain=abstain,
                  original_category=qtype + ("_abs" if abstain and qid.endswith("_abs") else ""), asked_at=asked)
    return Conversation(id=qid, namespace=qid, speakers={"user": "user", "assistant": "assistant"}, sessions=sessions,
                        probes=[probe], meta={"source": "longmemeval", "question_type": qtype})


FORMATS["longmemeval"] = (sniff, convert)
