"""What a memory design *did*, per strategy: compressions, working memory, writes, lost facts, cost.

The recall metrics say whether the right context reached the answerer; these say how the design
got there — the quantities the two design axes (compression trigger × extraction mode) trade
against each other. All are computed from the run's records (final attempts only), never from
the strategy code:

``compressions_per_conv``   ok compressions (history or working memory) per conversation
``evidence_survival``       of probe evidence folded into a summary before the probe, the share
                            whose gold value is still in that summary (string match)
``wm_tokens_peak`` / ``wm_tokens_mean``  working-memory size after each turn (agents only)
``facts_per_invocation``    long-term fact writes (ADD + UPDATE, summaries excluded) per invocation
``stated_never_stored``     share of probe evidence turns that no stored memory cites, for
                            strategies with a long-term extractor
``duplicate_writes``        ADDs whose normalised text repeats an earlier ADD of the namespace
``tokens_<purpose>``        model tokens (prompt + completion) per conversation, by purpose
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

LIFECYCLE_COLUMNS = {
    "compressions_per_conv": "compressions per conversation",
    "evidence_survival": "folded evidence whose value survived (share)",
    "wm_tokens_peak": "peak working-memory tokens",
    "wm_tokens_mean": "mean working-memory tokens",
    "facts_per_invocation": "fact writes (ADD+UPDATE) per invocation",
    "stated_never_stored": "evidence turns no stored memory cites (share)",
    "duplicate_writes": "near-identical ADDs",
}
WRITES = ("ADD", "UPDATE")
NOT_FACTS = ("summary", "episode")
"""Memory kinds that are not long-term facts (conversation summaries, episodes)."""


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def lifecycle_table(res: Any, by: tuple[str, ...] = ("strategy",)) -> pd.DataFrame:
    """One row per strategy (or per ``by`` group, e.g. ``("strategy", "category")`` — then the
    probe-based columns are per category and the others repeat the strategy's value).

    Kept on a loaded run (its records do not change) and copied out: a report asks for it more
    than once."""
    frames = getattr(res, "_frames", None)
    key = ("lifecycle", tuple(by))
    if isinstance(frames, dict) and key in frames:
        return frames[key].copy()
    out = _lifecycle_table(res, by)
    if isinstance(frames, dict):
        frames[key] = out.copy()
    return out


def _lifecycle_table(res: Any, by: tuple[str, ...]) -> pd.DataFrame:
    probes, turns, ops, calls, comps = res.probes, res.turns, res.memory_ops, res.calls, res.compressions
    strategies = sorted(set(probes.get("strategy", pd.Series(dtype=str))) | set(turns.get("strategy", pd.Series(dtype=str))))
    rows: dict[str, dict[str, Any]] = {}
    for s in strategies:
        t = turns[turns["strategy"] == s] if not turns.empty else turns
        convs = max(t[["dataset", "conversation_id"]].drop_duplicates().shape[0], 1) if not t.empty else 1
        invocations = max(t[["dataset", "conversation_id", "invocation"]].drop_duplicates().shape[0], 1) if not t.empty else 1
        c = comps[(comps["strategy"] == s) & comps.get("ok", True)] if not comps.empty else comps
        o = ops[ops["strategy"] == s] if not ops.empty else ops
        facts = o[o["op"].isin(WRITES) & (~o["kind"].isin(NOT_FACTS))] if not o.empty else o
        wm = t["working_memory_tokens"].dropna() if "working_memory_tokens" in t else pd.Series(dtype=float)
        adds = o[(o["op"] == "ADD") & (~o["kind"].isin(NOT_FACTS))] if not o.empty else o
        dup = 0
        if not adds.empty:
            dup = int(adds.assign(n=adds["text"].map(_norm)).duplicated(["namespace", "n"]).sum())
        row = {
            "compressions_per_conv": len(c) / convs,
            "wm_tokens_peak": float(wm.max()) if len(wm) else None,
            "wm_tokens_mean": float(wm.mean()) if len(wm) else None,
            "facts_per_invocation": len(facts) / invocations,
            "duplicate_writes": dup,
        }
        cl = calls[calls["strategy"] == s] if not calls.empty else calls
        if not cl.empty:
            per = (cl["prompt_tokens"] + cl["completion_tokens"]).groupby(cl["purpose"]).sum() / convs
            row.update({f"tokens_{p}": float(v) for p, v in per.items()})
        rows[s] = row
    base = pd.DataFrame.from_dict(rows, orient="index")
    extracting = {s for s, spec in (res.manifest.get("strategies_resolved") or {}).items() if spec.get("extractor")}
    per_probe = _probe_columns(probes, ops, extracting)
    if per_probe.empty:
        return base
    keys = list(by)
    grouped = per_probe.groupby(keys).agg(evidence_survival=("survived", "mean"),
                                          stated_never_stored=("unstored", "mean"))
    if keys == ["strategy"]:
        return base.join(grouped, how="left")
    return grouped.join(base, on="strategy", how="left")


def _probe_columns(probes: pd.DataFrame, ops: pd.DataFrame, extracting: set[str]) -> pd.DataFrame:
    """Per probe: survival (share of its folded evidence whose value survived) and the share of its
    evidence turns that no stored memory cites (None for strategies without long-term extraction;
    a strategy with an extractor that wrote nothing scores 1)."""
    if probes.empty:
        return pd.DataFrame()
    cited: dict[tuple[str, str, str], set[str]] = {}
    writers: set[str] = set(extracting)
    if not ops.empty:
        facts = ops[ops["op"].isin(WRITES) & (~ops["kind"].isin(NOT_FACTS))]
        writers |= set(facts["strategy"])
        for (s, d, cid), g in facts.groupby(["strategy", "dataset", "conversation_id"]):
            cited[(s, d, cid)] = {t for ids in g["source_turn_ids"] for t in ids}
    rows = []
    for p in probes.itertuples(index=False):
        surv = [x["survived"] for x in (getattr(p, "survival", None) or [])]
        evidence = list(getattr(p, "evidence", None) or [])
        unstored = None
        if p.strategy in writers and evidence:
            have = cited.get((p.strategy, p.dataset, p.conversation_id), set())
            unstored = sum(e not in have for e in evidence) / len(evidence)
        rows.append({"strategy": p.strategy, "category": p.category, "dataset": p.dataset,
                     "survived": (sum(surv) / len(surv)) if surv else None, "unstored": unstored})
    out = pd.DataFrame(rows)
    return out.astype({"survived": float, "unstored": float})
