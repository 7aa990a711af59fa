"""The items each behaviour knob is measured on, read from a run's records and its datasets.

An item is one decision a knob governs, as the model that produced the run made it, scored 1 (the
mechanism did its job: the fact was extracted, the change recognised, the value kept…) or 0, with
the user it belongs to (the cluster of its interval). What counts as a statement is read **the
stand-in's way**, from the datasets, never from the model under measurement: the extraction
filter's facts of each turn (a user's assertions, a tool observation's value lines, an
assistant's assertions), and the slot rule run over a user's own statements in order says which
of them are new, which change a value stated before and which retract one. So a profile says how
the measured model behaves *on the statements the stand-in's mechanisms act on*, which is what a
knob moves (docs/sensitivity.md says what that leaves out).

* extraction / agent recall — a new fact of a turn the model was shown is stored when a memory
  operation citing that turn carries it (its values, or most of its other words);
* extraction corruption — of the stored facts that carry a value, the share whose memories citing
  the turn all lack it;
* reconcile — a change (retraction) whose old value was stored intact and which the model acted on:
  an UPDATE (DELETE) citing the turn, or not;
* summariser — a fact of a turn a working-memory fold (a compression) or a conversation summary (a
  memory of kind ``summary``) stands for: kept when the first such summary carries it;
* answerer — per probe, the cosine its abstention is decided on and whether the model abstained.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memlab.analysis.results import RunResults, load_run
from memlab.offline import lexicon as lx
from memlab.offline.attribution import parse_speaker
from memlab.offline.slots import analyse, reconcile
from memlab.offline.statements import assistant_statements, extract, tool_facts
from memlab.offline.text import content_lemmas, words
from memlab.scoring.abstention import is_abstention
from memlab.scoring.matching import contains

EXTRACTION_ROLES = frozenset({"ExtractFacts", "ExtractFromTranscript"})
STORED_OPS = frozenset({"ADD", "UPDATE"})
NOT_FACTS = frozenset({"episode", "summary"})
"""Memory kinds that are not facts a turn stated (episodes, rolling summaries)."""
COVERAGE = 0.5
"""Share of a fact's topic words a memory must carry to be that fact (when it does not carry its values)."""
Cluster = tuple[str, str]


@dataclass(frozen=True)
class Outcome:
    """One decision: ``outcome`` 1 when the mechanism did its job, 0 when not."""

    knob: str
    cluster: Cluster
    outcome: float
    strategy: str
    ref: str


@dataclass(frozen=True)
class Abstention:
    """One probe for the answerer's threshold: the cosine the stand-in would compare with it, and
    whether the model abstained."""

    cluster: Cluster
    support: float
    abstained: bool
    strategy: str
    ref: str


@dataclass
class Fact:
    """A statement of one turn, read the stand-in's way."""

    text: str
    turn: str
    role: str
    kind: str
    """``new`` | ``update`` | ``retract`` | ``known`` (by the slot rule over the user's own statements)."""
    old_turn: str | None = None
    old_text: str | None = None
    """For a change or a retraction: the earlier statement it changes or retracts."""
    values: tuple[str, ...] = ()
    topic: frozenset[str] = frozenset()
    speaker: str = ""


@dataclass
class Turn:
    dataset: str
    ns: str
    conversation_id: str
    id: str
    role: str
    label: str
    date: str
    text: str
    facts: list[Fact] = field(default_factory=list)


def _label(conv: Any, turn: Any) -> str:
    """The speaker label the stand-in sees (``user: Ida``, ``tool: orders``, ``assistant: Agent``)."""
    if turn.role == "tool":
        return f"tool: {turn.tool_name or 'tool'}"
    speaker = turn.speaker or conv.speakers.get(turn.role, turn.role)
    return f"{turn.role}: {speaker}" if speaker and speaker != turn.role else turn.role


@functools.lru_cache(maxsize=1 << 16)
def topic(text: str, speaker: str) -> frozenset[str]:
    """The content words that say *what* a statement is about: not its values, not the speaker's or
    tool's name, not a change cue ("now", "no longer"), not the "reported" of a tool line. Memoised: a
    function of its arguments alone, asked of every memory again for every fact it might carry."""
    values = analyse(text).values
    drop = ({w for v in values for w in words(v)} | {w.lower() for w in words(speaker)} | content_lemmas(speaker)
            | {"report"} | set(lx.CHANGE_CUES) | set(lx.RETRACTION_VERBS))
    return frozenset(w for w in content_lemmas(text) if w not in drop and not any(c.isdigit() for c in w))


def read_turns(datasets: list[Any]) -> dict[Cluster, list[Turn]]:
    """Every user's turns in order (threads in dataset order), each with its facts read the stand-in's way."""
    out: dict[Cluster, list[Turn]] = defaultdict(list)
    for ds in datasets:
        for conv in ds.conversations:
            for session, turn in conv.turns():
                when = (turn.timestamp or session.timestamp).date().isoformat()
                out[(ds.name, conv.ns)].append(Turn(ds.name, conv.ns, conv.id, turn.id, turn.role, _label(conv, turn),
                                                    when, turn.text))
    for turns in out.values():
        _read_facts(turns)
    return dict(out)


def _read_facts(turns: list[Turn]) -> None:
    """Each turn's facts; a user's are classified by the slot rule against what the user said before."""
    said: list[tuple[str, str]] = []  # (fact, turn) the user has stated and not retracted, oldest first
    seen: set[str] = set()  # every statement so far: a repeated one is nothing new to store
    for t in turns:
        role, name = parse_speaker(t.label)
        if role == "tool":
            texts = tool_facts(t.text, name)
        elif role == "assistant":
            texts = assistant_statements(t.text, name, t.date)
        elif role == "user":
            texts = extract(t.text, t.label, t.date)
        else:
            texts = []
        for text in texts:
            values = tuple(sorted(v for v in analyse(text).values if contains(text, v)))  # as a memory can carry them
            fact = Fact(text, t.id, role, "new", values=values, topic=topic(text, name), speaker=name)
            if role != "user" and text.strip().lower() in seen:
                fact.kind = "known"  # a tool or assistant repeating itself: the slot rule reads only users
            elif role == "user" and said:
                verdict = reconcile(text, [f for f, _ in said], [0.0] * len(said))
                target = int(verdict["target"])  # type: ignore[arg-type]
                kind = {"UPDATE": "update", "DELETE": "retract", "NOOP": "known"}.get(str(verdict["action"]), "new")
                fact.kind = kind
                if target >= 0:
                    fact.old_turn = said[target][1]
                    old = fact.old_text = said[target][0]
                    said = [s for s in said if s[0] != old] if kind in ("update", "retract") else said
            if role == "user" and fact.kind in ("new", "update"):
                said.append((text, t.id))
            seen.add(text.strip().lower())
            t.facts.append(fact)


def _covers(memory: str, fact: Fact) -> bool:
    """The memory is about what the fact is about: the two topics overlap by at least ``COVERAGE`` (Jaccard)."""
    other = topic(memory, fact.speaker)
    return bool(fact.topic) and len(fact.topic & other) / len(fact.topic | other) >= COVERAGE


def carries(memory: str, fact: Fact) -> bool:
    """The memory states this fact: its values (a fact with values), or most of its topic words."""
    if memory.strip() == fact.text.strip():
        return True
    if fact.values:
        return all(contains(memory, v) for v in fact.values)
    return _covers(memory, fact)


def altered(memory: str, fact: Fact) -> bool:
    """The memory is this fact with its values changed: about the same thing, without its values."""
    return bool(fact.values) and not carries(memory, fact) and _covers(memory, fact)


class RunItems:
    """A finished run read into knob items (see the module docstring)."""

    def __init__(self, run_dir: Path, strategies: list[str] | None = None) -> None:
        self.res: RunResults = load_run(run_dir)
        self.manifest = self.res.manifest
        known = self.res.strategies
        if strategies:
            unknown = [s for s in strategies if s not in known]
            if unknown:
                raise ValueError(f"{run_dir}: no strategy {', '.join(map(repr, unknown))} in this run; it has {', '.join(known)}")
        self.strategies = strategies or known
        self.turns = read_turns(self._datasets(run_dir))
        self.by_turn = {(c[0], c[1], t.id): t for c, turns in self.turns.items() for t in turns}
        self.units: set[tuple[str, str, str]] = {(s, d, ns) for (s, d, ns), r in self.res.unit_ends.items()
                                                 if r.get("status") == "ok" and s in self.strategies}
        self._roles()
        self._ops()

    def _datasets(self, run_dir: Path) -> list[Any]:
        from memlab.datasets.io import dataset_hash
        from memlab.datasets.threads import load_for_run

        cfg = self.manifest.get("config") or {}
        out = []
        for d in self.manifest.get("datasets") or []:
            try:
                [(_, ds)] = load_for_run([d["path"]], cfg.get("threads") or "as_is", cfg.get("limit_conversations"))
            except (OSError, ValueError) as exc:
                raise ValueError(f"{run_dir}: cannot read its dataset {d.get('path')} ({exc}); run `memlab profile` "
                                 "from the folder the run was started in") from None
            if dataset_hash(ds) != d.get("hash"):
                raise ValueError(f"{run_dir}: dataset {d['path']} changed since the run (hash {dataset_hash(ds)} != "
                                 f"{d.get('hash')}); its records no longer describe it")
            out.append(ds)
        return out

    def _roles(self) -> None:
        """Per strategy: the roles its calls reached, the tools its agent was offered, and the turns an
        ExtractFacts call was made for (a per-turn extractor is shown only some turns)."""
        from memlab.harness.sensitivity import offered_tools

        self.signatures: dict[str, set[str]] = defaultdict(set)
        self.agent_tools: dict[str, set[str]] = defaultdict(set)
        self.extract_calls: set[tuple[str, str, str, str]] = set()
        tools = {spec["name"]: offered_tools(spec) for spec in self.manifest.get("strategies") or []}
        final = self.res.final_attempts
        for rec in _jsonl(self.res.path / "calls.jsonl"):
            if rec.get("attempt") not in final or rec.get("strategy") not in self.strategies:
                continue
            sig = rec.get("signature") or ""
            self.signatures[rec["strategy"]].add(sig)
            if sig == "AgentStep":  # a role call's record does not list the tools: its components say
                self.agent_tools[rec["strategy"]].update(tools.get(rec["strategy"], set()) | set(rec.get("tools_offered") or ()))
            if sig == "ExtractFacts" and rec.get("turn_id"):
                ns = self.res.namespaces.get((str(rec["dataset"]), str(rec.get("conversation_id"))), "")
                self.extract_calls.add((rec["strategy"], rec["dataset"], ns, rec["turn_id"]))

    def _ops(self) -> None:
        """Memory operations of fact kinds, per (strategy, dataset, namespace) and cited turn."""
        self.cited: dict[tuple[str, str, str, str], list[tuple[str, str]]] = defaultdict(list)
        self.summary_ops: dict[tuple[str, str, str], list[tuple[str, str, list[str]]]] = defaultdict(list)
        ops = self.res.memory_ops
        if ops.empty:
            return
        for rec in ops.to_dict("records"):
            if rec.get("strategy") not in self.strategies:
                continue
            ns = self.res.namespaces.get((str(rec["dataset"]), str(rec.get("conversation_id"))), "")
            if rec.get("kind") == "summary":
                self.summary_ops[(rec["strategy"], rec["dataset"], ns)].append(
                    (str(rec["op"]), str(rec.get("text") or ""), list(rec.get("source_turn_ids") or [])))
            if rec.get("kind") in NOT_FACTS:
                continue
            for turn in rec.get("source_turn_ids") or []:
                self.cited[(rec["strategy"], rec["dataset"], ns, turn)].append((str(rec["op"]), str(rec.get("text") or "")))

    # -- what each strategy can tell -------------------------------------------------------------
    def extracts(self, s: str) -> bool:
        return bool(self.signatures[s] & EXTRACTION_ROLES) and "store_fact" not in self.agent_tools[s]

    def agent_writes(self, s: str) -> bool:
        return "store_fact" in self.agent_tools[s] and not self.signatures[s] & EXTRACTION_ROLES

    def reconciles(self, s: str) -> bool:
        return "ReconcileMemory" in self.signatures[s] or bool(self.agent_tools[s] & {"update_fact", "delete_fact"})

    def answers(self, s: str) -> bool:
        return "AnswerFromMemory" in self.signatures[s] and "SearchBeforeAnswering" not in self.signatures[s]

    def _shown(self, s: str, d: str, ns: str, turn: str) -> bool:
        """Was the turn shown to the extractor (a per-turn extractor is called for some turns only)?"""
        return "ExtractFromTranscript" in self.signatures[s] or (s, d, ns, turn) in self.extract_calls

    def _stored(self, s: str, d: str, ns: str, fact: Fact) -> list[str]:
        """Texts of the memories citing the fact's turn that are that fact (carry it, or are it altered)."""
        return [text for op, text in self.cited.get((s, d, ns, fact.turn), [])
                if op in STORED_OPS and (carries(text, fact) or altered(text, fact))]

    # -- the items --------------------------------------------------------------------------------
    def outcomes(self) -> Iterator[Outcome]:
        for s, d, ns in sorted(self.units):
            turns = self.turns.get((d, ns), [])
            for t in turns:
                for fact in t.facts:
                    yield from self._fact_outcomes(s, d, ns, fact)
            yield from self._summary_outcomes(s, d, ns)

    def _fact_outcomes(self, s: str, d: str, ns: str, fact: Fact) -> Iterator[Outcome]:
        cluster, ref = (d, ns), f"{fact.turn}: {fact.text}"
        if fact.kind == "new" and fact.role in ("user", "tool", "assistant"):
            if self.extracts(s) and self._shown(s, d, ns, fact.turn):
                stored = self._stored(s, d, ns, fact)
                yield Outcome(f"extraction.{fact.role}_recall", cluster, float(bool(stored)), s, ref)
                if stored and fact.values:
                    yield Outcome("extraction.corruption", cluster, float(not any(carries(m, fact) for m in stored)), s, ref)
            elif self.agent_writes(s) and fact.role in ("user", "tool"):
                knob = "agent.store_user_facts" if fact.role == "user" else "agent.store_tool_observations"
                yield Outcome(knob, cluster, float(bool(self._stored(s, d, ns, fact))), s, ref)
        if fact.kind in ("update", "retract") and fact.old_turn and self.reconciles(s):
            old = self.by_turn.get((d, ns, fact.old_turn))
            old_facts = [f for f in (old.facts if old else []) if f.text == fact.old_text]
            if not any(carries(m, f) for f in old_facts for m in self._stored(s, d, ns, f)):
                return  # the old value never reached memory intact: nothing to recognise it against
            acted = self.cited.get((s, d, ns, fact.turn), [])
            if fact.kind == "update":
                on_it = [op for op, text in acted if op in STORED_OPS and carries(text, fact)]
                if on_it:
                    yield Outcome("reconcile.update", cluster, float("UPDATE" in on_it), s, ref)
            else:  # a retraction not carried out is ignored (NOOP) or stored beside the old value
                on_it = [op for op, text in acted if op in ("DELETE", "NOOP", *STORED_OPS) and carries(text, fact)]
                if on_it:
                    yield Outcome("reconcile.delete", cluster, float("DELETE" in on_it), s, ref)

    def _summaries(self, s: str, d: str, ns: str) -> Iterator[tuple[str, str, list[str]]]:
        """(kind, summary text, turns it stands for) of the unit, in order: working-memory folds
        (``compressions``) and conversation summaries (memories of kind ``summary``)."""
        final = self.res.final_attempts
        comps = self.res.compressions
        if not comps.empty:
            rows = comps[(comps["strategy"] == s) & (comps["dataset"] == d) & comps["attempt"].isin(final)]
            for rec in rows.to_dict("records"):
                if rec.get("ok", True) and self.res.namespaces.get((str(d), str(rec.get("conversation_id"))), "") == ns:
                    yield "fold", str(rec.get("summary") or ""), list(rec.get("folded_turn_ids") or [])
        for op, text, turns in self.summary_ops.get((s, d, ns), []):
            if op in STORED_OPS:
                yield "summary", text, turns

    def _summary_outcomes(self, s: str, d: str, ns: str) -> Iterator[Outcome]:
        seen: set[tuple[str, str]] = set()
        for kind, text, turns in self._summaries(s, d, ns):
            for turn_id in turns:
                if (kind, turn_id) in seen:
                    continue  # the first summary of each kind that reads a turn decides what survives of it
                seen.add((kind, turn_id))
                turn = self.by_turn.get((d, ns, turn_id))
                for fact in (turn.facts if turn else []):
                    if fact.role in ("user", "tool") and fact.kind in ("new", "update"):
                        knob = "summariser.keep_values" if fact.role == "user" else "summariser.keep_tool_observations"
                        yield Outcome(knob, (d, ns), float(carries(text, fact)), s, f"{kind} {turn_id}: {fact.text}")

    def abstentions(self, sim: Any) -> Iterator[Abstention]:
        """Per answered probe of a strategy that answers from its context: the abstention support the
        stand-in's answerer computes for that context and question, and whether the model abstained."""
        from memlab.offline.answer import abstention_support

        probes = self.res.probes_recorded  # the contexts as shown (a lean read-back leaves them out); no scores needed
        if probes.empty:
            return
        for rec in probes.to_dict("records"):
            s = rec.get("strategy")
            if s not in self.strategies or not self.answers(s) or rec.get("error") or rec.get("answer") is None:
                continue
            support = abstention_support(str(rec.get("context") or ""), str(rec.get("question") or ""), sim)
            if support is None:
                continue
            ns = self.res.namespaces.get((str(rec["dataset"]), str(rec["conversation_id"])), str(rec["conversation_id"]))
            yield Abstention((str(rec["dataset"]), ns), support, is_abstention(str(rec["answer"])), s, str(rec["probe_id"]))


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)
