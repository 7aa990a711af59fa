"""LoCoMo (``locomo10.json``) → memlab's native :class:`~memlab.datasets.models.Dataset`.

The file is a JSON list of samples ``{sample_id, conversation, qa, ...}``. ``conversation`` holds
``speaker_a``, ``speaker_b``, ``session_N`` (turns ``{speaker, dia_id, text}``, some with
``blip_caption``/``img_url`` for a shared image) and ``session_N_date_time`` such as
``"1:56 pm on 8 May, 2023"``. ``qa`` items are ``{question, answer, evidence, category}``.

Mapping (documented in ``datasets/README.md``):

* one sample → one conversation (``id`` = ``namespace`` = ``sample_id``); ``speakers`` maps
  ``speaker_a``/``speaker_b`` to their names.
* both speakers are humans talking to each other, and questions ask about either one, so by
  default **both become ``role: user`` turns with ``speaker`` set to the name** (``roles="user"``).
  ``roles="assistant"`` maps speaker_b to ``role: assistant`` instead, for strategies that only
  model a user and an assistant.
* a turn's ``blip_caption`` is appended to its text as ``[shared image: <caption>]`` (and kept in
  ``meta``), because LoCoMo questions sometimes ask about the images.
* only ``session_N`` keys present are read; a date key without a session is ignored, a session
  without a date gets the previous session's date + 1 day; timestamps are kept monotonic.
* categories: 1 multi-hop → ``multi_session``, 2 temporal → ``temporal``, 3 open-domain →
  ``open_domain``, 4 single-hop → ``single_hop``, 5 adversarial → ``abstention`` with
  ``abstain: true`` (the ``adversarial_answer`` is a trap, not a gold answer, so it is dropped).
  ``original_category`` keeps e.g. ``"1:multi-hop"``.
* every probe is asked after the last turn of the conversation.
* lenient parsing, each fix reported: evidence strings like ``"D8:6; D9:17"`` are split,
  ``"D:11:26"`` becomes ``"D11:26"``, zero-padded ids like ``"D30:05"`` become ``"D30:5"``,
  evidence ids not in the conversation are dropped, integer answers become strings, duplicate
  dia_ids get a suffix.
* recognised by structure (:func:`matches`): the published file orders each sample's keys
  ``qa, conversation, event_summary, observation, session_summary, sample_id``, so nothing may
  depend on key order. ``event_summary``, ``observation`` and ``session_summary`` are
  annotations derived from the conversation and are not read.

``load_with_report(path)`` returns ``(dataset, repairs)``; loading through ``load_dataset`` logs the
repairs (warning with a count, debug for each) and stores ``meta.repairs`` = their number.
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

CATEGORIES = {1: ("multi_session", "multi-hop"), 2: ("temporal", "temporal"), 3: ("open_domain", "open-domain"),
              4: ("single_hop", "single-hop"), 5: ("abstention", "adversarial")}
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.I)
_DATE_FORMATS = ["%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y", "%I:%M%p on %d %B, %Y",
                 "%d %B, %Y", "%d %B %Y", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d"]


def matches(data: Any) -> bool:
    """A list of samples (or one sample) whose first has a ``conversation`` object and ``qa`` or ``sample_id``."""
    rec = first_record(data)
    return rec is not None and isinstance(rec.get("conversation"), dict) and ("qa" in rec or "sample_id" in rec)


def parse_datetime(text: str) -> datetime | None:
    """Parse LoCoMo's "1:56 pm on 8 May, 2023" (and a few variants); None when hopeless."""
    t = " ".join(str(text).replace("\u202f", " ").split())
    t = re.sub(r"(\d)(am|pm)\b", r"\1 \2", t, flags=re.I)
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(t, fmt)
        except ValueError:
            pass
    m = re.search(r"(\d{1,2}):(\d{2})\s*(am|pm)?.*?(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", t, re.I)
    if m:
        try:
            d = datetime.strptime(f"{m.group(4)} {m.group(5)[:3]} {m.group(6)}", "%d %b %Y")
        except ValueError:
            return None
        hour = int(m.group(1)) % 12 + (12 if (m.group(3) or "").lower() == "pm" else 0)
        return d.replace(hour=hour, minute=int(m.group(2)))
    return None


def parse_evidence(raw: Any) -> tuple[list[str], bool]:
    """Normalise an evidence field to dia ids; the flag says whether anything had to be repaired."""
    items = raw if isinstance(raw, list) else [raw] if raw not in (None, "") else []
    out: list[str] = []
    repaired = False
    for item in items:
        s = str(item)
        found = [f"D{int(a)}:{int(b)}" for a, b in _EVIDENCE.findall(s)]
        if found != [s.strip()]:
            repaired = True
        out.extend(found)
    return list(dict.fromkeys(out)), repaired


def convert(data: Any, file_name: str, roles: str = "user") -> tuple[Dataset, list[str]]:
    """Convert parsed LoCoMo data; return the dataset and the repairs made (every bad sample raises, together)."""
    repairs: list[str] = []
    convs = convert_records(records(data), lambda s, i: _convert_sample(s, i, repairs, roles), "LoCoMo sample")
    stem = Path(file_name).stem
    ds = Dataset(name=f"locomo-{stem}", description=f"LoCoMo converted from {file_name}", conversations=convs,
                 meta={"source_format": "locomo", "source_file": file_name, "repairs": len(repairs), "roles": roles})
    return ds, repairs


def load_with_report(path: str | Path, roles: str = "user") -> tuple[Dataset, list[str]]:
    """Read and convert a LoCoMo file; return the dataset and the list of repairs made."""
    source = read_source(path)
    if not matches(source.data):
        raise not_recognised(source.file, source.data)
    try:
        return convert(source.data, Path(path).name, roles)
    except ConversionError as exc:
        raise DatasetError(exc.problems(source)) from None


def _convert_sample(sample: dict, index: int, repairs: list[str], roles: str) -> Conversation:
    sid = str(sample.get("sample_id") or f"sample-{index}")
    conv = sample.get("conversation") or {}
    a, b = conv.get("speaker_a", "A"), conv.get("speaker_b", "B")
    nums = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.match(k)))
    date_only = sorted(int(k.split("_")[1]) for k in conv if re.match(r"^session_\d+_date_time$", k)
                       and int(k.split("_")[1]) not in nums)
    for n in date_only:
        repairs.append(f"{sid}: session_{n}_date_time has no session_{n}; ignored")
    sessions: list[Session] = []
    seen: set[str] = set()
    prev_ts: datetime | None = None
    for n in nums:
        raw_turns = conv.get(f"session_{n}") or []
        if not raw_turns:
            repairs.append(f"{sid}: session_{n} is empty; skipped")
            continue
        raw_date = conv.get(f"session_{n}_date_time")
        ts = parse_datetime(raw_date) if raw_date else None
        if ts is None:
            ts = (prev_ts + timedelta(days=1)) if prev_ts else datetime(2000, 1, 1)
            repairs.append(f"{sid}: session_{n} has {'no' if not raw_date else 'an unparseable'} date "
                           f"({raw_date!r}); using {ts.isoformat()}")
        if prev_ts and ts < prev_ts:
            repairs.append(f"{sid}: session_{n} date {ts.isoformat()} is before the previous session's; clamped")
            ts = prev_ts
        prev_ts = ts
        turns: list[Turn] = []
        for k, t in enumerate(raw_turns):
            tid = str(t.get("dia_id") or f"D{n}:{k + 1}")
            if tid in seen:
                new = f"{tid}#{k + 1}"
                repairs.append(f"{sid}: duplicate dia_id {tid!r} renamed {new!r}")
                tid = new
            seen.add(tid)
            text = str(t.get("text") or "").strip()
            meta: dict[str, Any] = {}
            cap = t.get("blip_caption")
            if cap:
                text = f"{text} [shared image: {cap}]".strip()
                meta["blip_caption"] = str(cap)
            if t.get("img_url"):
                url = t["img_url"]
                meta["img_url"] = str(url[0] if isinstance(url, list) and url else url)
            if not text:
                text = "(no text)"
                repairs.append(f"{sid}: turn {tid} has no text")
            speaker = str(t.get("speaker") or "")
            role = "assistant" if roles == "assistant" and speaker == b else "user"
            turns.append(Turn(id=tid, role=role, text=text, speaker=speaker or None, meta=meta))
        sessions.append(Session(id=f"session_{n}", timestamp=ts, turns=turns))
    if not sessions:
        raise ValueError(f"LoCoMo sample {sid} has no sessions")
    last = sessions[-1].turns[-1].id
    ids = {_canonical_id(t): t for t in seen}  # evidence "D30:05" must find dia_id "D30:5" and the other way round
    probes = [p for i, qa in enumerate(sample.get("qa") or []) if (p := _convert_qa(sid, i, qa, ids, last, repairs))]
    return Conversation(id=sid, namespace=sid, speakers={"speaker_a": a, "speaker_b": b}, sessions=sessions, probes=probes,
                        meta={"source": "locomo"})


def _canonical_id(dia_id: str) -> str:
    m = _EVIDENCE.fullmatch(dia_id.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else dia_id


def _convert_qa(sid: str, i: int, qa: dict, turn_ids: dict[str, str], last: str, repairs: list[str]) -> Probe | None:
    pid = f"{sid}-q{i + 1:03d}"
    question = str(qa.get("question") or "").strip()
    if not question:
        repairs.append(f"{pid}: empty question; skipped")
        return None
    try:
        cat_num = int(qa.get("category"))
    except (TypeError, ValueError):
        repairs.append(f"{pid}: unknown category {qa.get('category')!r}; treated as single-hop")
        cat_num = 4
    category, label = CATEGORIES.get(cat_num, ("single_hop", f"unknown-{cat_num}"))
    evidence, fixed = parse_evidence(qa.get("evidence"))
    if fixed:
        repairs.append(f"{pid}: malformed evidence {qa.get('evidence')!r} parsed as {evidence}")
    missing = [e for e in evidence if e not in turn_ids]
    if missing:
        repairs.append(f"{pid}: evidence {missing} not in the conversation; dropped")
    evidence = [turn_ids[e] for e in evidence if e in turn_ids]
    abstain = cat_num == 5
    gold: list[GoldAnswer] = []
    if not abstain:
        answer = qa.get("answer")
        if answer is None or str(answer).strip() == "":
            repairs.append(f"{pid}: no answer for a category-{cat_num} question; marked abstain")
            abstain = True
        else:
            if not isinstance(answer, str):
                repairs.append(f"{pid}: non-string answer {answer!r} converted to text")
            gold = [GoldAnswer(text=str(answer).strip())]
    return Probe(id=pid, after_turn=last, question=question, category=category, gold=gold, evidence=evidence,
                 abstain=abstain, original_category=f"{cat_num}:{label}")


FORMAT = Format("locomo", "LoCoMo", "list of samples with sample_id, conversation and qa", matches, convert)
