"""The episodes slot: episodic memory of finished tasks (seed 000's RecordEpisode / RecallEpisodes).

An invocation is *task-like* when the agent used tools in it (a tool turn) or it ran for at least
``min_steps`` steps. At its end an episode — goal, key steps, outcome, lessons — is written:

- ``capture: post_pass``: one ``RecordEpisode`` call over the invocation's transcript (purpose
  ``extract``), like the post-pass fact extractor;
- ``capture: agent_tool``: only when the agent calls ``record_episode`` (the agent decides).

Episodes live in their own store namespace (``<namespace>#episodes``), embedded by
``goal + outcome``, so fact retrieval never mixes them in. At each invocation start the ``k`` most
similar episodes are injected ("Relevant past episodes"); the agent may also call
``recall_episodes(query)`` mid-invocation. Every episode cites the turns of its invocation."""

from __future__ import annotations

from typing import Any, Literal
from pydantic import Field
from memlab.memory.item import MemoryEvent, MemoryItem, Op
from memlab.strategies.base import ContextLine, ContextSection
from memlab.strategies.slots import Component, Needs, Params, component
from memlab.strategies.state import Invocation, Query, StrategyState
from memlab.strategies.tools import MemoryTool, object_schema


class _EpisodicParams(Params):
    capture: Literal["post_pass", "agent_tool"] = "post_pass"
    """Who writes episodes: a RecordEpisode pass at each task-like invocation's end, or the agent's record_episode tool."""
    min_steps: int = Field(default=4, ge=1)
    """An invocation without tool turns is task-like from this many steps."""
    k: int = Field(default=2, ge=0)
    """Episodes recalled at invocation start."""


def episode_text(goal: str, steps: list[str], outcome: str, lessons: str) -> str:
    parts = [f"Goal: {goal.strip()}"]
    if steps:
        parts.append("Steps: " + "; ".join(s.strip() for s in steps if s.strip()))
    parts.append(f"Outcome: {outcome.strip()}")
    if lessons.strip():
        parts.append(f"Lessons: {lessons.strip()}")
    return " | ".join(parts)


@component("episodes", "episodic")
class EpisodicMemory(Component):
    """Task-like invocations recorded as episodes (post-pass or agent tool), recalled by similarity."""

    Params = _EpisodicParams
    context_order = 25
    offered_tools = {
        "record_episode": "Record the task you just finished as an episode: goal, key steps, outcome, lessons.",
        "recall_episodes": "Find past episodes similar to a query (have I solved this kind of problem before?).",
    }

    @classmethod
    def needs_for(cls, spec: dict[str, Any]) -> tuple[Needs, ...]:
        if spec.get("capture") == "agent_tool":  # recorded only when the agent calls record_episode
            return (Needs("agent", why="episodes captured by 'agent_tool' need an agent slot"),)
        return ()

    def space(self, state: StrategyState) -> str:
        return f"{state.namespace}#episodes"

    def begin_unit(self, state: StrategyState) -> None:
        if state.store is not None:
            state.store.reset(self.space(state))

    def on_invocation_end(self, invocation: Invocation, state: StrategyState) -> None:
        if self.params.capture != "post_pass" or not _task_like(invocation, self.params.min_steps):
            return
        from memlab.roles.program import RoleFailure

        from memlab.strategies.extractor.base import speaker_label

        transcript = "\n".join(f"[{e.turn.id}] {speaker_label(e)}: {e.turn.text}" for e in invocation.events)
        try:
            out = self.env.roles.record_episode(transcript=transcript)
        except RoleFailure as exc:
            self.failed("episode recording call failed; no episode", exc)
            return
        steps = [str(s) for s in out.get("key_steps") or []]
        self._write(state, episode_text(str(out.get("goal") or ""), steps, str(out.get("outcome") or ""),
                                        str(out.get("lessons") or "")), invocation.turn_ids, "post-pass RecordEpisode")

    def _write(self, state: StrategyState, text: str, turn_ids: list[str], reason: str) -> str:
        when = state.now
        item = MemoryItem(id=state.ids(), namespace=self.space(state), text=text, kind="episode",
                          metadata={"date": when.date().isoformat()}, source_turn_ids=list(turn_ids),
                          created_at=when, updated_at=when)
        state.store.add([item], self.env.embedder.embed([text]))
        state.emit(MemoryEvent(op=Op.ADD, item_id=item.id, namespace=item.namespace, kind="episode", text=text,
                               source_turn_ids=item.source_turn_ids, reason=reason, store=state.store.name))
        return item.id

    def recall(self, state: StrategyState, query: Query, k: int) -> list:
        if k <= 0 or state.store is None:
            return []
        return state.store.search(self.space(state), embedding=query.embedding(), k=k)

    def context_sections(self, query: Query, state: StrategyState) -> list[ContextSection]:
        hits = self.recall(state, query, self.params.k)
        lines = [ContextLine(f"[{h.item.metadata.get('date', '')}] {h.item.text}", list(h.item.source_turn_ids),
                             kind="episode", score=h.score) for h in hits]
        return [ContextSection("Relevant past episodes", lines)] if lines else []

    def tools(self, state: StrategyState) -> list[MemoryTool]:
        def recall_episodes(args: dict) -> str:
            q = str(args.get("query") or "").strip()
            if not q:
                raise ValueError("recall_episodes needs a 'query'")
            hits = self.recall(state, Query(q, state.now, self.env.embedder), max(self.params.k, 3))
            return "\n".join(f"- {h.item.text}" for h in hits) or "(no similar episodes)"

        def record_episode(args: dict) -> str:
            goal, outcome = str(args.get("goal") or "").strip(), str(args.get("outcome") or "").strip()
            if not goal or not outcome:
                raise ValueError("record_episode needs 'goal' and 'outcome'")
            steps = args.get("key_steps") or []
            steps = [str(s) for s in steps] if isinstance(steps, list) else [str(steps)]
            inv = state.invocation
            item_id = self._write(state, episode_text(goal, steps, outcome, str(args.get("lessons") or "")),
                                  inv.turn_ids if inv else [], "agent tool: record_episode")
            return f"recorded episode {item_id}"

        tools = [MemoryTool("recall_episodes", self.offered_tools["recall_episodes"],
                            object_schema(query=("string", "the problem or task to look for")), recall_episodes)]
        if self.params.capture == "agent_tool":
            schema = object_schema(["goal", "outcome"], goal=("string", "what the user wanted"),
                                   outcome=("string", "how it ended"), lessons=("string", "what to reuse next time"))
            schema["properties"]["key_steps"] = {"type": "array", "items": {"type": "string"}, "description": "the key steps"}
            tools.append(MemoryTool("record_episode", self.offered_tools["record_episode"], schema, record_episode,
                                    writes=True))
        return tools


def _task_like(invocation: Invocation, min_steps: int) -> bool:
    return any(e.turn.role == "tool" for e in invocation.events) or len(invocation.events) >= min_steps
