"""Auditing a judge: how often does it accept known-wrong answers and reject known-right ones?

A judged score is only as good as its judge, and judges differ a lot (the same LoCoMo answers
score 91% under one prompt and 35% under a strict one). ``judge_audit(run_dir)`` re-judges a run's
answers, under both shipped prompts, together with answers whose verdict is known because they
are *planted*, built deterministically from each probe:

- known-wrong: ``swap`` (the gold answer of another probe of the same category), ``stale`` (the
  superseded value of a knowledge-update probe), ``hedge`` ("Maybe <gold> or <another value>");
- known-right: ``reworded`` ("It was <gold>."), ``date_format`` (a date gold written another way).

It reports per prompt the false-accept rate (wrong plants judged correct) and false-reject rate
(right plants judged wrong) per plant type, the agreement between the two prompts, the agreement
with the model-free string metrics (normalised containment, as ``answer_correct`` scores without
a judge, and ``answer_f1`` ≥ ``F1_ACCEPT``), and with ``repeats`` > 1 the judge's variance: the
share of items whose verdict changed across repeats. Nothing in the run folder is changed except
the two files the audit writes, ``judge_audit.csv`` and ``judge_audit.json``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from memlab.judging.batch import build_judge, judge_all
from memlab.judging.prompts import JUDGE_PROMPTS, judge_inputs, prompt_hash
from memlab.scoring import canonical_tokens, gold_present, token_f1

F1_ACCEPT = 0.5
"""An answer counts as accepted by the F1 metric when its best token F1 against a gold form reaches this."""
WRONG_PLANTS = ("swap", "stale", "hedge")
RIGHT_PLANTS = ("reworded", "date_format")
RUN = "run"
"""The kind of the run's own answers (their truth is unknown: used for agreement and variance only)."""
_MONTH_NAME = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.I)
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass
class AuditResult:
    """``table``: one row per prompt × kind; ``items``: every judged item with its verdicts;
    ``summary``: the headline rates per prompt and the agreements (what ``judge_audit.json`` holds)."""

    table: pd.DataFrame
    items: pd.DataFrame
    summary: dict[str, Any]


def _first_forms(gold: list[list[str]], gold_match: str) -> str:
    parts = [forms[0] for forms in gold if forms]
    return " and ".join(parts) if gold_match == "all" else parts[0]


def reformat_date(text: str) -> str | None:
    """``text`` written as another date format when it is a plain date ("2024-03-03" → "March 3, 2024",
    "3 March 2024" → "2024-03-03", "March 3" → "3 March"); None when it is not one."""
    from dateutil import parser

    text = text.strip()
    if not (_ISO_DATE.match(text) or (_MONTH_NAME.search(text) and re.search(r"\d", text))) or len(text.split()) > 3:
        return None
    try:
        when = parser.parse(text, default=parser.parse("1900-01-01"))
    except (ValueError, OverflowError):
        return None
    has_year = bool(re.search(r"\b\d{4}\b", text))
    if _ISO_DATE.match(text):
        return when.strftime("%B ") + str(when.day) + when.strftime(", %Y")
    if has_year:
        return when.strftime("%Y-%m-%d")
    day_first = re.match(r"^\d", text) is not None
    return when.strftime("%B ") + str(when.day) if day_first else f"{when.day} " + when.strftime("%B")


def _disjoint(a: str, gold: list[list[str]]) -> bool:
    """``a`` shares no value token with any gold form (so it is a different answer, not a near-copy)."""
    said = set(canonical_tokens(a))
    return not gold_present(a, gold, "any") and not any(said & set(canonical_tokens(f)) for forms in gold for f in forms)


def plants(probes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The planted answers for each distinct answerable probe, with the verdict each should get."""
    out: list[dict[str, Any]] = []
    by_category: dict[str, list[dict[str, Any]]] = {}
    for p in probes:
        by_category.setdefault(p["category"], []).append(p)
    for group in by_category.values():
        group.sort(key=lambda p: (p["dataset"], p["probe_id"]))
        for i, p in enumerate(group):
            gold, match = p["gold"], p.get("gold_match") or "any"
            text = _first_forms(gold, match)
            others = [group[(i + k) % len(group)] for k in range(1, len(group))]
            swap = next((t for t in (_first_forms(o["gold"], o.get("gold_match") or "any") for o in others)
                         if _disjoint(t, gold)), None)
            stale = next((s for s in p.get("superseded") or [] if _disjoint(s, gold)), None)

            def add(kind: str, response: str, expect: bool) -> None:
                out.append({**p, "kind": kind, "response": response, "expect": expect})

            if swap:
                add("swap", swap, False)
            if stale:
                add("stale", stale, False)
            if stale or swap:
                add("hedge", f"Maybe {text} or {stale or swap}.", False)
            add("reworded", f"It was {text}.", True)
            for forms in gold[:1] if match != "all" else []:
                reformatted = next((r for r in map(reformat_date, forms) if r), None)
                if reformatted:
                    add("date_format", reformatted, True)
    return out


def _items(run_dir: Path) -> list[dict[str, Any]]:
    """The run's answers and the plants built from its answerable probes: the probe records of the
    final attempts, read as the judge pass reads them (:func:`memlab.judging.recorded.final_attempts`),
    not through the analysis package (which sits above judging)."""
    from memlab.judging.recorded import final_attempts
    from memlab.runfolder.recorder import read_jsonl

    final = final_attempts(run_dir)
    records = [r for r in read_jsonl(run_dir / "probes.jsonl") if r.get("attempt") in final]
    if not records:
        raise ValueError(f"{run_dir}: no probes were answered: nothing to audit")
    answerable = [r for r in records if r.get("gold") and any(r["gold"]) and not r.get("abstain")]
    keep = ("dataset", "probe_id", "category", "question", "gold", "gold_match", "superseded")
    distinct = {(r["dataset"], r["probe_id"]): {k: r.get(k) for k in keep} for r in answerable}
    answered: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in answerable:
        if r.get("answer") is not None and not r.get("error"):
            answered.setdefault((r["dataset"], r["probe_id"], r["answer"]),
                                {**distinct[(r["dataset"], r["probe_id"])], "kind": RUN, "response": r["answer"], "expect": None})
    return [*answered.values(), *plants(list(distinct.values()))]


def judge_audit(run_dir: str | Path, judge: Any = None, *, repeats: int = 1, workers: int = 1, write: bool = True) -> AuditResult:
    """Audit ``judge`` (a ModelSpec or its dict; None: the run's own judge, else the offline judge) on
    ``run_dir``'s answers and planted ones, under both prompts, ``repeats`` times each."""
    from memlab.judging.rejudge import source_judge_spec
    from memlab.llm.base import ModelSpec
    from memlab.runfolder.records import read_manifest

    run_dir = Path(run_dir)
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    manifest = read_manifest(run_dir / "manifest.json", " (is this a memlab run folder?)")
    spec = judge if isinstance(judge, ModelSpec) else ModelSpec.model_validate(judge or source_judge_spec(manifest) or {})
    spec.register_secrets()  # before the first call can fail and quote the key
    items = _items(run_dir)
    model = build_judge(spec)
    frame = pd.DataFrame(items)
    frame["containment"] = [gold_present(it["response"], it["gold"], it.get("gold_match") or "any") for it in items]
    frame["f1"] = [max(token_f1(it["response"], f) for forms in it["gold"] for f in forms) for it in items]
    calls_made = tokens = failed_calls = 0
    for prompt in JUDGE_PROMPTS:
        inputs = [judge_inputs(prompt, it["question"], it["gold"], it.get("gold_match") or "any",
                               it.get("superseded") or [], it["response"]) for it in items]
        runs = []
        for _ in range(repeats):
            verdicts, made = judge_all(model, prompt, inputs, workers=workers, temperature=spec.temperature)
            runs.append([None if "error" in v else bool(v.get("correct")) for v in verdicts])
            calls_made += len(made)
            failed_calls += sum(1 for c in made if not c.ok)
            tokens += sum(c.prompt_tokens + c.completion_tokens for c in made)
        frame[f"{prompt}_correct"] = runs[0]
        frame[f"{prompt}_changed"] = [len({r[i] for r in runs if r[i] is not None}) > 1 for i in range(len(items))]
    table = _table(frame, repeats)
    summary = _summary(frame, table, spec, repeats, calls_made, tokens, run_dir)
    summary["judge_failed_calls"] = failed_calls
    if write:
        table.to_csv(run_dir / "judge_audit.csv", index=False)
        payload = {**summary, "table": table.to_dict("records"),
                   "items": frame.drop(columns=["question"]).to_dict("records")}
        (run_dir / "judge_audit.json").write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str),
                                                 encoding="utf-8")
    return AuditResult(table, frame, summary)


def _rate(values: pd.Series) -> float | None:
    values = values.dropna()
    return None if values.empty else round(float(values.astype(float).mean()), 4)


def _table(frame: pd.DataFrame, repeats: int) -> pd.DataFrame:
    rows = []
    for prompt in JUDGE_PROMPTS:
        for kind in (RUN, *WRONG_PLANTS, *RIGHT_PLANTS):
            sub = frame[frame["kind"] == kind]
            if sub.empty:
                continue
            accepted = sub[f"{prompt}_correct"]
            expect = None if kind == RUN else kind in RIGHT_PLANTS
            rows.append({
                "prompt": prompt, "kind": kind,
                "expected": "unknown" if expect is None else "right" if expect else "wrong",
                "n": len(sub), "judge_errors": int(accepted.isna().sum()),
                "judge_accepts": _rate(accepted),
                "false_accept": _rate(accepted) if expect is False else None,
                "false_reject": _rate(1 - accepted.dropna().astype(float)) if expect else None,
                "containment_accepts": _rate(sub["containment"]),
                "f1_accepts": _rate(sub["f1"] >= F1_ACCEPT),
                "changed_across_repeats": _rate(sub[f"{prompt}_changed"]) if repeats > 1 else None,
            })
    return pd.DataFrame(rows)


def _agreement(a: pd.Series, b: pd.Series) -> float | None:
    both = pd.DataFrame({"a": a, "b": b}).dropna()
    return None if both.empty else round(float((both["a"].astype(bool) == both["b"].astype(bool)).mean()), 4)


def _summary(frame: pd.DataFrame, table: pd.DataFrame, spec: Any, repeats: int, calls_made: int, tokens: int,
             run_dir: Path) -> dict[str, Any]:
    from memlab.redact import redact

    wrong, right = frame["kind"].isin(WRONG_PLANTS), frame["kind"].isin(RIGHT_PLANTS)
    per_prompt = {}
    for prompt in JUDGE_PROMPTS:
        verdict = frame[f"{prompt}_correct"]
        per_prompt[prompt] = {
            "prompt_hash": prompt_hash(prompt),
            "false_accept": _rate(verdict[wrong]),
            "false_reject": _rate(1 - verdict[right].dropna().astype(float)),
            "agreement_with_containment": _agreement(verdict, frame["containment"]),
            "agreement_with_f1": _agreement(verdict, frame["f1"] >= F1_ACCEPT),
            "run_answers_accepted": _rate(verdict[frame["kind"] == RUN]),
            "variance": _rate(frame[f"{prompt}_changed"]) if repeats > 1 else None,
        }
    cache = getattr(spec, "cache", None)
    return {
        "run": str(run_dir), "judge": redact(spec.model_dump(mode="json")), "repeats": repeats,
        "temperature": spec.temperature,
        "cache_mode": cache.mode if cache is not None else "off",
        "items": {kind: int((frame["kind"] == kind).sum()) for kind in (RUN, *WRONG_PLANTS, *RIGHT_PLANTS)},
        "prompts": per_prompt,
        "prompt_agreement": _agreement(*(frame[f"{p}_correct"] for p in JUDGE_PROMPTS)),
        "prompt_agreement_run_answers": _agreement(*(frame.loc[frame["kind"] == RUN, f"{p}_correct"] for p in JUDGE_PROMPTS)),
        "string_metrics": {"containment_false_accept": _rate(frame.loc[wrong, "containment"]),
                           "containment_false_reject": _rate(~frame.loc[right, "containment"].astype(bool)),
                           "f1_false_accept": _rate(frame.loc[wrong, "f1"] >= F1_ACCEPT),
                           "f1_false_reject": _rate(frame.loc[right, "f1"] < F1_ACCEPT)},
        "judge_calls": calls_made, "judge_tokens": tokens,
        "notes": ("variance needs repeats > 1 and a judge that samples (temperature > 0); a replayed cache "
                  "answers every repeat alike"),
    }
