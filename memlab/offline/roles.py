"""The roles the offline model answers, each one small function registered under its fields.

A role is identified by the input and output field names of its DSPy signature (what the
ChatAdapter system message lists), never by its instruction. Adding a role is one function with
a ``@role(inputs, outputs)`` decorator that maps the parsed input values to output values (and,
for tool-using roles, tool calls).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memlab.scoring import offline_judge as judge
from memlab.offline import agent, answer, gate, slots, statements, summary
from memlab.offline.behaviour import AS_BUILT, Behaviour
from memlab.offline.extraction import extract_turn
from memlab.offline.prompt import Prompt, PromptError
from memlab.offline.similarity import Similarity


@dataclass
class Env:
    """What a role may use besides its inputs."""

    sim: Similarity
    offered_tools: set[str] = field(default_factory=set)
    behaviour: Behaviour = AS_BUILT
    """The behaviour profile and its seed (memlab/offline/behaviour.py): how reliably each mechanism works."""
    max_tokens: int | None = None
    """The call's reply budget (``max_tokens`` of the request), when it gives one."""
    outputs: list[str] = field(default_factory=list)
    """The output fields the prompt asks for, in its order (how the reply will be rendered)."""


@dataclass
class Reply:
    outputs: dict[str, Any]
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


RoleFn = Callable[[dict[str, Any], Env], Reply]
ROLES: list[tuple[str, frozenset[str], frozenset[str], RoleFn]] = []


def role(name: str, inputs: str, outputs: str) -> Callable[[RoleFn], RoleFn]:
    def register(fn: RoleFn) -> RoleFn:
        ROLES.append((name, frozenset(inputs.split()), frozenset(outputs.split()), fn))
        return fn
    return register


def identify(prompt: Prompt) -> tuple[str, RoleFn]:
    """The registered role whose fields the prompt lists (extra optional fields such as ``tools`` allowed)."""
    have_in, have_out = set(prompt.inputs), set(prompt.outputs)
    fits = [(len(i) + len(o), name, fn) for name, i, o, fn in ROLES if i <= have_in and o <= have_out]
    if not fits:
        raise PromptError(f"the offline model has no role with inputs {sorted(have_in)} and outputs {sorted(have_out)}")
    _, name, fn = max(fits, key=lambda f: f[0])
    return name, fn


def _s(values: dict[str, Any], key: str) -> str:
    value = values.get(key)
    return "" if value is None else value if isinstance(value, str) else str(value)


@role("ExtractFacts", "message speaker context date", "facts")
def _extract(v: dict[str, Any], env: Env) -> Reply:
    return Reply({"facts": extract_turn(_s(v, "message"), _s(v, "speaker"), _s(v, "date"), _s(v, "context"), env.behaviour)})


@role("ExtractFromTranscript", "transcript date", "facts")
def _extract_transcript(v: dict[str, Any], env: Env) -> Reply:
    facts = []
    for turn_id, speaker, text in statements.transcript_lines(_s(v, "transcript")):
        facts += [{"text": f, "turn_ids": [turn_id]} for f in extract_turn(text, speaker, _s(v, "date"), "", env.behaviour)]
    return Reply({"facts": facts})


@role("ShouldRemember", "message speaker", "remember kind importance")
def _gate(v: dict[str, Any], env: Env) -> Reply:
    return Reply(gate.gate(_s(v, "message"), _s(v, "speaker")))


@role("ReconcileMemory", "new_fact existing", "action target merged")
def _reconcile(v: dict[str, Any], env: Env) -> Reply:
    existing = [str(x) for x in v.get("existing") or []] if isinstance(v.get("existing"), list) else []
    new = _s(v, "new_fact")
    cos = [float(c) for c in env.sim.cosine(new, existing)]
    return Reply(slots.reconcile(new, existing, cos, env.behaviour))


def _reply_tokens(outputs: dict[str, Any], key: str, env: Env):
    """Tokens of the reply as the offline model will render it, for a given text of output ``key``."""
    from memlab.offline.prompt import render_chat_adapter_output
    from memlab.tokens import count_tokens

    def tokens(text: str) -> int:
        out = {**outputs, key: text}
        return count_tokens(render_chat_adapter_output(out, [f for f in env.outputs if f in out] or list(out)))
    return tokens


@role("Summarize", "previous_summary messages", "summary")
def _summarize(v: dict[str, Any], env: Env) -> Reply:
    kept = summary.summary_sentences(_s(v, "previous_summary"), _s(v, "messages"), env.sim, env.behaviour)
    return Reply({"summary": summary.fit(kept, _reply_tokens({}, "summary", env), env.max_tokens)})


@role("AnswerFromMemory", "context question date", "answer")
def _answer(v: dict[str, Any], env: Env) -> Reply:
    return Reply({"answer": answer.answer(_s(v, "context"), _s(v, "question"), env.sim,
                                          env.behaviour.profile.answerer.abstain_below)})


@role("JudgeAnswerLenient", "question gold response", "correct abstained")
def _judge_lenient(v: dict[str, Any], env: Env) -> Reply:
    return Reply(judge.judge(_s(v, "gold"), _s(v, "response"), strict=False))


@role("JudgeAnswerStrict", "question gold superseded response", "correct abstained")
def _judge_strict(v: dict[str, Any], env: Env) -> Reply:
    return Reply(judge.judge(_s(v, "gold"), _s(v, "response"), strict=True, superseded=_s(v, "superseded")))


@role("AgentStep", "context working_memory memory_status", "next_thought")
def _agent(v: dict[str, Any], env: Env) -> Reply:
    thought, calls = agent.agent_step(_s(v, "context"), _s(v, "working_memory"), _s(v, "memory_status"),
                                      env.offered_tools, env.sim, reliability=env.behaviour.profile.agent.store_user_facts,
                                      seed=env.behaviour.seed, behaviour=env.behaviour)
    return Reply({"next_thought": thought}, calls)


@role("SearchBeforeAnswering", "context question findings", "next_thought")
def _search_before_answering(v: dict[str, Any], env: Env) -> Reply:
    thought, calls = agent.search_before_answering(_s(v, "question"), _s(v, "findings"), env.offered_tools)
    return Reply({"next_thought": thought}, calls)


@role("RecordEpisode", "transcript", "goal key_steps outcome lessons")
def _episode(v: dict[str, Any], env: Env) -> Reply:
    from memlab.offline import episode

    return Reply(episode.record_episode(_s(v, "transcript")))


@role("SummarizeWithEntities", "previous_summary messages entity_memory", "conversation_memory entities")
def _summarize_entities(v: dict[str, Any], env: Env) -> Reply:
    from memlab.offline import entities

    previous = _s(v, "previous_summary")
    previous = "" if previous.strip().lower() == "no previous conversation" else previous
    graph = v.get("entity_memory") if isinstance(v.get("entity_memory"), list) else []
    nodes = entities.update_graph(_s(v, "messages"), graph)
    kept = summary.summary_sentences(previous, _s(v, "messages"), env.sim, env.behaviour)
    if env.max_tokens is not None:
        # the reply fits the budget: the summary may keep up to half of it (more if the entities
        # need less); the entities drop their weakest relationships to fit the rest
        reserve = min(_reply_tokens({"entities": []}, "conversation_memory", env)(summary.render(kept)), env.max_tokens // 2)
        nodes = entities.fit(nodes, lambda ns: _reply_tokens({"entities": ns}, "conversation_memory", env)("") + reserve,
                             env.max_tokens)
    memory = summary.fit(kept, _reply_tokens({"entities": nodes}, "conversation_memory", env), env.max_tokens)
    return Reply({"conversation_memory": memory, "entities": nodes})


@role("ClassifyMemory", "recent_user_turns speaker", "should_create category summary importance")
def _classify_memory(v: dict[str, Any], env: Env) -> Reply:
    from memlab.offline import hotpath

    turns = [str(t) for t in v.get("recent_user_turns") or []] if isinstance(v.get("recent_user_turns"), list) else []
    return Reply(hotpath.classify(turns, _s(v, "speaker")))


@role("SameFact", "existing new", "same")
def _same_fact(v: dict[str, Any], env: Env) -> Reply:
    from memlab.offline import hotpath

    existing, new = _s(v, "existing"), _s(v, "new")
    return Reply({"same": hotpath.same_fact(existing, new, float(env.sim.cosine(new, [existing])[0]))})


@role("ComposeSummaries", "existing new", "summary")
def _compose(v: dict[str, Any], env: Env) -> Reply:
    from memlab.offline import hotpath

    existing, new = _s(v, "existing"), _s(v, "new")
    return Reply({"summary": hotpath.compose(existing, new, float(env.sim.cosine(new, [existing])[0]))})


@role("AnalyzeForLearning", "user_input response triggered_categories", "candidates")
def _analyze_learning(v: dict[str, Any], env: Env) -> Reply:
    from memlab.offline import learning

    triggered = [str(t) for t in v.get("triggered_categories") or []] if isinstance(v.get("triggered_categories"), list) else []
    return Reply({"candidates": learning.analyze(_s(v, "user_input"), "user", triggered)})


@role("SyncProfile", "memory profile", "updates")
def _sync_profile(v: dict[str, Any], env: Env) -> Reply:
    from memlab.offline import profile

    current = v.get("profile") if isinstance(v.get("profile"), dict) else {}
    return Reply({"updates": profile.sync(_s(v, "memory"), {str(k): str(x) for k, x in current.items()})})
