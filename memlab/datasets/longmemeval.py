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
* recognised by structure (:func:`matches`: records with ``question_id`` and
  ``haystack_sessions``), whatever the key order; the published order is ``question_id,
  question_type, question, answer, question_date, haystack_dates, haystack_session_ids,
  haystack_sessions, answer_session_ids``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memlab.datasets.loaders import ConversionError, Format, convert_records, first_record, not_recognised, records
from memlab.datasets.models import Conversation, Dataset, GoldAnswer, Probe, Session, Turn
from memlab.datasets.problems import DatasetError
from memlab.datasets.source import read_source

QUESTION_TYPES = {"single-session-user": "single_hop", "single-session-assistant": "single_hop",
                  "single-session-preference": "preference", "multi-session": "multi_session",
                  "knowledge-update": "knowledge_update", "temporal-reasoning": "temporal"}
_DATE_FORMATS = ["%Y/%m/%d (%a) %H:%M", "%Y/%m/%d %H:%M", "%Y/%m/%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"]


def matches(data: Any) -> bool:
    """A list of questions (or one question) whose first has ``question_id`` and ``haystack_sessions``."""
    rec = first_record(data)
    return rec is not None and "question_id" in rec and "haystack_sessions" in rec


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


def convert(data: Any, file_name: str) -> tuple[Dataset, list[str]]:
    """Convert parsed LongMemEval data; return the dataset and the repairs made (every bad question raises, together)."""
    repairs: list[str] = []
    convs = convert_records(records(data), lambda item, i: _convert_item(item, i, repairs), "LongMemEval question")
    ds = Dataset(name=f"longmemeval-{Path(file_name).stem}", description=f"LongMemEval converted from {file_name}",
                 conversations=convs, meta={"source_format": "longmemeval", "source_file": file_name, "repairs": len(repairs)})
    return ds, repairs


def load_with_report(path: str | Path) -> tuple[Dataset, list[str]]:
    """Read and convert a LongMemEval file; return the dataset and the list of repairs made."""
    source = read_source(path)
    if not matches(source.data):
        raise not_recognised(source.file, source.data)
    try:
        return convert(source.data, Path(path).name)
    except ConversionError as exc:
        raise DatasetError(exc.problems(source)) from None


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


FORMAT = Format("longmemeval", "LongMemEval", "list of questions with question_id and haystack_sessions",
                                matches, convert)
