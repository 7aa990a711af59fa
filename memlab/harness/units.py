"""Units of work and how one is played.

A **unit** is one strategy × the conversations of one namespace of one dataset, in dataset
order: conversations that share a namespace share long-term memory (the second sees what the
first stored), so they are played in one unit, one after another, and a unit is the smallest
piece of work that can be run, retried or resumed on its own. Its store namespace is scoped to
the run (``<run uid>/<strategy>/<dataset>/<namespace>``), so two runs never touch each other's
memories, even on a shared server.

:class:`UnitPlayer` plays a unit and emits every record through a callback (the serial executor
writes them straight to the run folder; a worker process or Ray task returns them to the
single writer). Playing is deterministic: the same config and unit give the same records
whatever else runs beside it, except for timings and call ids.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel  # noqa: F401  (named in the Emit annotation string)

from memlab.datasets.models import Conversation, Dataset, Probe
from memlab.harness.gc_policy import unit_boundary
from memlab.llm import calls
from memlab.llm.types import CallRecord
from memlab.runfolder.probe_record import ProbeEvent, ProbeRow, ProbeScope
from memlab.runfolder.records import AgentStepRow, CallRow, CompressionRow, EvidenceSurvival, UnitEvent
from memlab.redact import redact, redact_text
from memlab.strategies.base import Answer, StepOutput, TurnEvent
from memlab.tokens import count_tokens

Emit = Callable[[str, "BaseModel | dict[str, Any]"], None]
TICK_EVERY = 25
"""Turns between progress-bar updates (one update per turn was a visible cost on cheap presets)."""


@dataclass(frozen=True)
class Unit:
    strategy: str
    dataset: str
    namespace: str
    conversation_ids: tuple[str, ...]
    turns: int

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.strategy, self.dataset, self.namespace)


def plan_units(strategies: list[str], datasets: list[Dataset]) -> list[Unit]:
    """Every strategy × namespace group of every dataset, in config and dataset order."""
    units = []
    for name in strategies:
        for ds in datasets:
            groups: dict[str, list[Conversation]] = {}
            for conv in ds.conversations:
                groups.setdefault(conv.ns, []).append(conv)
            for ns, convs in groups.items():
                units.append(Unit(name, ds.name, ns, tuple(c.id for c in convs), sum(len(c.turns()) for c in convs)))
    return units


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat()


class Workbench:
    """What playing units needs, built once per process: datasets, roles, embedder, strategies."""

    def __init__(self, config: Any, datasets: dict[str, Dataset], resolved: dict[str, dict[str, Any]], *,
                 run_dir: Path, run_uid: str, budget: Any = None) -> None:
        from memlab.embeddings import shared_embedder
        from memlab.llm.base import make_model
        from memlab.roles.program import MemoryRoles

        config.register_secrets()  # in every worker process too, before a model or a store is built
        self.config = config
        self.datasets = datasets
        self.resolved = resolved
        self.run_dir = Path(run_dir)
        self.run_uid = run_uid
        self.embedder = shared_embedder(config.embedding_cache)
        specs = config.role_specs()
        built: dict[str, Any] = {}

        def model_for(spec: Any) -> Any:
            key = spec.model_dump_json()
            if key not in built:
                built[key] = make_model(spec, embedder=self.embedder, budget=budget)
            return built[key]

        models = {"default": model_for(config.model), **{p: model_for(s) for p, s in specs.items()}}
        judge_spec = config.judge_spec()
        self.judge_model = model_for(judge_spec) if judge_spec else None
        self.roles = MemoryRoles(models, answering=config.answer_probes)
        self.strategies: dict[str, Any] = {}
        self._events: dict[tuple[str, str], list[TurnEvent]] = {}
        self._user_evidence: dict[tuple[str, str], set[str]] = {}

    def turn_events(self, dataset: str, conv: Conversation) -> list[TurnEvent]:
        """The conversation's events, built once for every strategy (they are immutable)."""
        key = (dataset, conv.id)
        if key not in self._events:
            self._events[key] = turn_events(conv, self.user_evidence(dataset, conv.ns))
        return self._events[key]

    def user_evidence(self, dataset: str, namespace: str) -> set[str]:
        """Every turn some probe of the user cites as evidence, in any of the user's threads (a turn
        of thread 1 can be the evidence of a probe in thread 3)."""
        key = (dataset, namespace)
        if key not in self._user_evidence:
            self._user_evidence[key] = {e for c in self.datasets[dataset].conversations if c.ns == namespace
                                        for p in c.probes for e in p.evidence}
        return self._user_evidence[key]

    def models_manifest(self) -> dict[str, Any]:
        """``default`` (the model of every role not overridden), per-role models, the judge."""
        roles = self.roles.describe()
        judge = self.judge_model.describe() if self.judge_model is not None else None
        default = self.roles.model.describe()
        return {"default": default, "roles": roles, "judge": judge,
                "heuristic": any(bool(r.get("heuristic")) for r in roles.values())}

    def strategy(self, name: str) -> Any:
        if name not in self.strategies:
            from memlab.strategies.types import ResolvedExternal
            from memlab.strategies.composed import ComposedStrategy
            from memlab.strategies.slots import BuildEnv

            spec = self.resolved[name]  # typed, validated once: a ResolvedStrategy, or another type's ResolvedExternal
            folder = self.run_dir / "stores" / name
            if isinstance(spec, ResolvedExternal):  # another type (memlab/external)
                from memlab.external.base import AdapterEnv, build_external

                env = AdapterEnv(name=name, roles=self.roles, embedder=self.embedder, work_dir=folder,
                                 seed=self.config.seed, models=self.roles.models,
                                 model_specs={"default": self.config.model, **self.config.role_specs()})
                self.strategies[name] = build_external(spec, env)
                return self.strategies[name]
            # the store's options are typed already (the run's store_options under the strategy's own)
            env = BuildEnv(roles=self.roles, embedder=self.embedder, strategy_name=name,
                           make_store=lambda store: store.build(folder), seed=self.config.seed)
            self.strategies[name] = ComposedStrategy(spec, env, namespace_prefix=f"{self.run_uid}/{name}/")
        return self.strategies[name]

    def close(self) -> None:
        for s in self.strategies.values():
            s.close()
        self.strategies.clear()


class UnitPlayer:
    """Plays one unit through its strategy and emits every record."""

    def __init__(self, bench: Workbench, emit: Emit, tick: Callable[[int], None] | None = None) -> None:
        self.bench = bench
        self.emit = emit
        self.tick = tick or (lambda n: None)
        self._said = HistoryClock()
        self._last_items: tuple[list[tuple[Any, str]], list[dict[str, Any]]] = ([], [])
        """The last probe's context lines (with section titles) and their items."""

    def play(self, unit: Unit, *, run_id: str, attempt: str | None = None) -> UnitEvent:
        """Play ``unit``; returns its end record (status ok or failed). Raises only for faults that
        must stop the whole run (an endpoint that is down, a full disk)."""
        attempt = attempt or uuid.uuid4().hex[:12]
        unit_boundary()
        ds = self.bench.datasets[unit.dataset]
        base = {"run_id": run_id, "attempt": attempt, "strategy": unit.strategy, "dataset": unit.dataset}
        unit_fields = {**base, "namespace": unit.namespace, "conversation_ids": list(unit.conversation_ids),
                       "conversation_id": unit.conversation_ids[0] if len(unit.conversation_ids) == 1 else None}
        self.emit("units", UnitEvent(event="start", at=now_iso(), **unit_fields))
        t0 = time.perf_counter()
        self._ticked = 0
        status, error, resolved, strategy = "ok", None, None, None
        self.sink = _CallSink(self.emit, base)
        try:
            with calls.call_scope(**base), calls.call_sink(self.sink):
                strategy = self.bench.strategy(unit.strategy)
                resolved = redact(strategy.describe())
                strategy.begin_unit(f"{unit.dataset}/{unit.namespace}")
                convs = {c.id: c for c in ds.conversations}
                texts: dict[str, str] = {}  # turn id → text, the user's turns played so far (every thread)
                self._said = HistoryClock()
                for thread, cid in enumerate(unit.conversation_ids, 1):
                    self._conversation(strategy, convs[cid], {**base, "conversation_id": cid}, texts,
                                       {"namespace": unit.namespace, "thread": thread})
        except Exception as exc:
            if _must_abort(exc):
                raise
            status, error = "failed", redact_text(f"{type(exc).__name__}: {exc}")
        finally:
            self._advance(unit.turns - self._ticked)
        report = getattr(strategy, "failure_report", None)  # the components' absorbed failures (composed strategies)
        end = UnitEvent(event="end", at=now_iso(), status=status, error=error, wall_s=round(time.perf_counter() - t0, 3),
                        resolved=resolved, component_failures=report() if report is not None else None, **unit_fields)
        self.emit("units", end)
        return end

    def _advance(self, n: int) -> None:
        self._ticked += n
        self.tick(n)

    def _conversation(self, strategy: Any, conv: Conversation, base: dict[str, Any], texts: dict[str, str],
                      where: dict[str, Any]) -> None:
        """Play one thread of the unit's user: ``texts`` holds the turns of the user's earlier threads
        and grows with this one's; ``where`` is the user (namespace) and the thread's number."""
        seq = Counter()
        tracker = SurvivalTracker()
        probes_after: dict[str, list[Probe]] = {}
        for probe in conv.probes:
            probes_after.setdefault(probe.after_turn, []).append(probe)
        where = {**where, "thread_turns": {t.id for s in conv.sessions for t in s.turns}}
        unticked = 0  # turns played but not yet reported to the progress bar (play() reports the rest)
        with calls.call_scope(conversation_id=conv.id):
            self._record_step(strategy.begin_conversation(conv.id), base, None, None, seq, tracker, "conversation_start")
            for event in self.bench.turn_events(base["dataset"], conv):
                turn = event.turn
                sink = self.sink
                calls0, prompt0, completion0, failed0 = sink.calls, sink.prompt_tokens, sink.completion_tokens, sink.failed_calls
                t0 = time.perf_counter()
                with calls.call_scope(turn_id=turn.id, phase="turn"):
                    out = strategy.observe(event)
                latency = time.perf_counter() - t0
                self._record_step(out, base, turn.id, event.invocation, seq, tracker, "turn")
                # a TurnRecord's fields in its order, as a plain row: every value is already of its
                # field's type, and building ~20,000 pydantic objects per LoCoMo-sized conversation
                # only to serialise them was a visible share of the harness (tests/test_record_fields.py
                # validates every row a run writes against TurnRecord)
                self.emit("turns", {
                    **base, "turn_id": turn.id, "session_id": event.session_id,
                    "role": turn.role, "invocation": event.invocation, "step": event.step,
                    "latency_s": round(latency, 5), "ops": dict(Counter(op.op.value for op in out.ops)) if out.ops else {},
                    "calls": sink.calls - calls0, "prompt_tokens": sink.prompt_tokens - prompt0,
                    "completion_tokens": sink.completion_tokens - completion0,
                    "failed_calls": sink.failed_calls - failed0, "compressions": len(out.compressions),
                    "agent_steps": len(out.agent_steps), "working_memory_tokens": out.working_memory_tokens})
                texts[turn.id] = turn.text
                self._said.add(turn.id, turn.text, where["thread"])
                for probe in probes_after.get(turn.id, []):
                    self._ask(strategy, probe, event, base, texts, tracker, where)
                unticked += 1
                if unticked == TICK_EVERY:
                    self._advance(unticked)
                    unticked = 0
            self._record_step(strategy.end_conversation(), base, None, None, seq, tracker, "conversation_end")

    def _record_step(self, out: StepOutput, base: dict[str, Any], turn_id: str | None, invocation: int | None,
                     seq: Counter, tracker: SurvivalTracker, phase: str) -> None:
        for op in out.ops:
            seq["op"] += 1
            # a MemoryOpRow's fields in its order (MemoryEvent's fields are its tail, in the same
            # order), as a plain row like the turn rows (tests/test_record_fields.py validates it)
            self.emit("memory_ops", {**base, "seq": seq["op"], "phase": phase, "turn_id": turn_id, **op.record()})
        for comp in out.compressions:
            self.emit("compressions", CompressionRow(**base, turn_id=turn_id, invocation=invocation, **comp.record()))
            tracker.add(comp, invocation)
        for step in out.agent_steps:
            self.emit("agent_steps", AgentStepRow(**base, turn_id=turn_id, **step.record()))

    def _ask(self, strategy: Any, probe: Probe, event: TurnEvent, base: dict[str, Any], texts: dict[str, str],
             tracker: SurvivalTracker, where: dict[str, Any]) -> None:
        now = probe.asked_at or event.timestamp
        gold = [g.forms() for g in probe.gold]
        with calls.call_scope(probe_id=probe.id, phase="probe"):
            try:
                result: Answer = strategy.answer(probe.question, now, evidence=list(probe.evidence))
            except Exception as exc:
                if _must_abort(exc):
                    raise
                raise RuntimeError(f"answering probe {probe.id!r} failed: {type(exc).__name__}: {exc}") from exc
            ctx = result.context
            text = ctx.text
            judge = None  # judged after the units, over the recorded answers (memlab.judging.rejudge.judge_recorded)
        evidence_texts = [texts[e] for e in probe.evidence if e in texts]
        ragas_llm = None  # ragas's LLM metrics too are a pass over the recorded answers (memlab.judging.ragas_pass)
        for step in result.agent_steps:
            self.emit("agent_steps", AgentStepRow(**base, probe_id=probe.id, **step.record()))
        sources = ctx.source_turn_ids()
        # the record as its scope plus the probe event, written flat (ProbeRecord's fields in its order)
        # without pydantic: a full-history context holds ~1,900 items, and validating and serialising
        # them for each of 50 probes was the largest per-probe cost (tests/test_record_fields.py
        # validates every row a run writes against ProbeRecord)
        scope = ProbeScope(**base, namespace=where["namespace"], thread=where["thread"])
        asked = ProbeEvent(
            probe_id=probe.id, after_turn=probe.after_turn, category=probe.category.value,
            original_category=probe.original_category, question=probe.question, gold=gold,
            gold_match=probe.gold_match, superseded=list(probe.superseded), forbidden=list(probe.forbidden),
            abstain=probe.abstain, evidence=list(probe.evidence), evidence_texts=evidence_texts,
            evidence_scope=evidence_scope(probe.evidence, where["thread_turns"]),
            **self._said.age(probe.evidence, where["thread"]), asked_at=now.isoformat(),
            context=text, context_tokens=count_tokens(text), context_lines=sum(len(sec.lines) for sec in ctx.sections),
            context_items=self._items(ctx), context_source_turn_ids=sorted(sources), answer=result.answer,
            answered=result.answered, error=result.error, judge=judge, ragas_llm=ragas_llm,
            retrieval_latency_s=round(ctx.retrieval_latency_s, 6), retrieval_total_s=round(ctx.retrieval_total_s, 6),
            answer_latency_s=round(result.latency_s, 5), agent_steps=len(result.agent_steps),
            survival=[s.model_dump() for s in tracker.survival(probe, event.invocation, sources, gold)])
        self.emit("probes", ProbeRow(scope, asked).row())

    def _items(self, ctx: Any) -> list[dict[str, Any]]:
        """The context's items (ContextItem rows), built once for a run of probes that got the same
        lines (the same ContextLine objects, which nothing mutates: a full history asked 50
        questions at one point). The last context's lines are held, so their ids cannot be reused
        meanwhile."""
        lines = [(line, s.title) for s in ctx.sections for line in s.lines]
        last_lines, last_items = self._last_items
        if lines and len(last_lines) == len(lines) and all(
                a is b and t == u for (a, t), (b, u) in zip(last_lines, lines)):
            return last_items
        items = ctx.items()
        self._last_items = (lines, items)
        return items


def evidence_scope(evidence: list[str], thread_turns: set[str]) -> str | None:
    """``thread`` (all evidence said in the probe's own thread), ``earlier_threads`` (all of it in
    the user's earlier threads: only long-term memory can carry it), ``mixed``, or None."""
    if not evidence:
        return None
    here = sum(e in thread_turns for e in evidence)
    return "thread" if here == len(evidence) else "earlier_threads" if here == 0 else "mixed"


def turn_events(conv: Conversation, evidence: set[str] | None = None) -> list[TurnEvent]:
    """The conversation's turns as strategy events, with invocation boundaries resolved.

    An invocation starts at each user message; the turns before the first user message (a system
    prompt, a greeting) form invocation 0. A turn ends its invocation when the next turn is a user
    message or there is no next turn. ``evidence``: the turns any probe of the user cites (default:
    this conversation's probes), whose text is the oracle's fact when a turn has no annotation."""
    flat = conv.turns()
    speakers = conv.speakers
    if evidence is None:
        evidence = {e for p in conv.probes for e in p.evidence}
    within: Counter = Counter()
    out: list[TurnEvent] = []
    invocation, step = 0, 0
    for i, (session, turn) in enumerate(flat):
        if turn.role == "user" and i > 0:
            invocation += 1
            step = 0
        nxt = flat[i + 1][1] if i + 1 < len(flat) else None
        # turns without their own time are a microsecond apart, so "most recent" is the turn order
        when = turn.timestamp or session.timestamp + timedelta(microseconds=within[session.id])
        within[session.id] += 1
        out.append(TurnEvent(conv.id, conv.ns, session.id, turn, when,
                             turn.speaker or speakers.get(turn.role, turn.role), invocation=invocation, step=step,
                             ends_invocation=nxt is None or nxt.role == "user",
                             oracle_facts=list(turn.facts) or ([turn.text] if turn.id in evidence else [])))
        step += 1
    return out


class HistoryClock:
    """Where each turn of a user's history was said — its thread and the tokens said before it (every thread) —
    so a probe can say how long ago its evidence was (the forgetting curve's x axis)."""

    def __init__(self) -> None:
        self.tokens = 0
        self.at: dict[str, tuple[int, int]] = {}  # turn id → (thread, tokens of the history before it)

    def add(self, turn_id: str, text: str, thread: int) -> None:
        self.at[turn_id] = (thread, self.tokens)
        self.tokens += count_tokens(text)

    def age(self, evidence: list[str], thread: int) -> dict[str, int | None]:
        """``evidence_age_tokens`` / ``_threads`` of a probe asked now, from its earliest evidence turn."""
        said = [self.at[e] for e in evidence if e in self.at]
        if not said:
            return {"evidence_age_tokens": None, "evidence_age_threads": None}
        first_thread, before = min(said, key=lambda x: x[1])
        return {"evidence_age_tokens": self.tokens - before, "evidence_age_threads": thread - first_thread}


class SurvivalTracker:
    """The latest summary per compressed component, to score evidence survival at probe time."""

    def __init__(self) -> None:
        self.latest: dict[str, tuple[Any, int | None]] = {}

    def add(self, comp: Any, invocation: int | None) -> None:
        if comp.ok:
            self.latest[comp.component] = (comp, invocation)

    def survival(self, probe: Probe, invocation: int, context_sources: set[str], gold: list[list[str]]) -> list[EvidenceSurvival]:
        from memlab.scoring import gold_present

        out = []
        evidence = set(probe.evidence)
        for component, (comp, inv) in sorted(self.latest.items()):
            if component == "working_memory" and inv != invocation:
                continue  # working memory lives for one invocation
            folded = sorted(evidence & set(comp.summary_source_turn_ids))
            if not folded or not gold:
                continue
            out.append(EvidenceSurvival(component=component, folded_evidence=folded,
                                        survived=gold_present(comp.summary, gold, probe.gold_match),
                                        in_context=set(folded) <= context_sources))
        return out


_CALL_ROW_FIELDS = tuple(CallRow.model_fields)
"""A call row's declared fields come first, in CallRow's order (then the CallRecord's others)."""
_CALL_SCOPE_FIELDS = ("conversation_id", "turn_id", "probe_id")
"""Taken from the call's scope (None outside one); ``phase`` too (``turn`` outside one)."""
_CALL_RECORD_REST = tuple(k for k in CallRecord.model_fields if k not in CallRow.model_fields)


class _CallSink:
    """Turns the model layer's call records into run records, and keeps running totals."""

    def __init__(self, emit: Emit, base: dict[str, Any]) -> None:
        self.emit = emit
        self.base = base
        self.calls = self.prompt_tokens = self.completion_tokens = self.failed_calls = 0

    def __call__(self, record: CallRecord) -> None:
        data = record.model_dump(mode="json")
        scope = data.get("scope") or {}
        base = self.base
        # CallRow's fields in its order, then the rest of the CallRecord's in its order: the unit's
        # fields (run, attempt, strategy, dataset) as the call's scope has them, the conversation,
        # turn, probe and phase from the scope, the call's own fields from the record. ``data`` is a
        # validated CallRecord's JSON dump and the scope fields are strings: the row is written as
        # built, not validated again (tests/test_record_fields.py keeps CallRow in step with
        # CallRecord and validates every row a run writes)
        row: dict[str, Any] = {}
        for k in _CALL_ROW_FIELDS:
            if k in base:
                row[k] = scope.get(k, base[k])
            elif k in _CALL_SCOPE_FIELDS:
                row[k] = scope.get(k)
            elif k == "phase":
                row[k] = scope.get("phase", "turn")
            elif k in data:
                row[k] = data[k]
        for k in _CALL_RECORD_REST:
            row[k] = data[k]
        if row.get("error"):
            row["error"] = redact_text(row["error"])
        self.emit("calls", row)
        self.calls += 1
        self.prompt_tokens += record.prompt_tokens
        self.completion_tokens += record.completion_tokens
        self.failed_calls += 0 if record.ok else 1


def _must_abort(exc: BaseException) -> bool:
    """Faults that no other unit can survive either: stop the run instead of failing unit after unit
    (an endpoint that is down, a full disk or quota, a read-only disk, a file-size limit)."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG):
        return True
    stops = ("EndpointDown", "BudgetExhausted")  # BudgetExhausted: memlab.cost.budget, the run's budget is reached
    return type(exc).__name__ in stops or any(type(c).__name__ in stops for c in _causes(exc))


def _causes(exc: BaseException) -> list[BaseException]:
    out = []
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
        out.append(exc)
        if len(out) > 10:
            break
    return out
