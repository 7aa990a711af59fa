"""Rate-limited episodic capture (seed 001's ``episodic_capture``): cooldowns, a daily cap, a merge window.

After each exchange (an invocation's end) the recent conversation may become an **episodic
memory** — a summary of what happened, labelled with its date bucket — but only when:

* at least ``cooldown_turns`` user messages (``EPISODIC_COOLDOWN_TURNS``) and
  ``cooldown_minutes`` (``EPISODIC_COOLDOWN_MINUTES``, dataset time) have passed since the last
  capture, and fewer than ``max_per_day`` (``EPISODIC_MAX_PER_DAY``) were made that day;
* then the last ``window_n`` messages (``EPISODIC_WINDOW_N``) are summarised (the Summarize
  role, purpose ``summarize``);
* if the newest episode is younger than ``merge_window_hours`` (``EPISODIC_MERGE_WINDOW_HOURS``),
  the new summary is merged into it when its novelty (1 − cosine to that episode) is at least
  ``novelty_min`` (``EPISODIC_NOVELTY_MIN``) and skipped as nothing new otherwise; outside the
  window a new episode is created. Either way the cooldown restarts.

Episodes are kind ``episode`` in the strategy's own namespace, so a retriever over the namespace
(``weighted_rerank`` in the seed's ``memory_context``) returns semantic and episodic memories
together. The document names these knobs without values; the defaults are memlab's."""

from __future__ import annotations

from datetime import datetime
from pydantic import Field
import memlab.strategies.episodes.episodic  # noqa: F401  (declares the "episodes" slot)
from memlab.memory.item import MemoryEvent, MemoryItem, Op
from memlab.roles.program import RoleFailure
from memlab.strategies.base import TurnEvent
from memlab.strategies.slots import Component, Params, component
from memlab.strategies.state import Invocation, StrategyState


EPISODE_KIND = "episode"


def date_bucket(when: datetime) -> str:
    """'2024-01-05 morning': the day and its part (night < 6h ≤ morning < 12h ≤ afternoon < 18h ≤ evening)."""
    part = "night" if when.hour < 6 else "morning" if when.hour < 12 else "afternoon" if when.hour < 18 else "evening"
    return f"{when.date().isoformat()} {part}"


@component("episodes", "capped")
class CappedEpisodes(Component):
    """Episodes summarised after an exchange, limited by cooldowns and a daily cap, merged within a window."""

    class Params(Params):
        window_n: int = Field(default=10, ge=1)
        """Messages summarised into an episode (EPISODIC_WINDOW_N)."""
        cooldown_turns: int = Field(default=3, ge=0)
        """User messages between two captures (EPISODIC_COOLDOWN_TURNS)."""
        cooldown_minutes: float = Field(default=10.0, ge=0)
        """Minutes between two captures, in dataset time (EPISODIC_COOLDOWN_MINUTES)."""
        max_per_day: int = Field(default=5, ge=1)
        """Captures per calendar day (EPISODIC_MAX_PER_DAY)."""
        merge_window_hours: float = Field(default=6.0, ge=0)
        """A capture this close to the newest episode merges into it (EPISODIC_MERGE_WINDOW_HOURS)."""
        novelty_min: float = Field(default=0.2, ge=0.0, le=2.0)
        """Least novelty (1 − cosine to that episode) for a merge; less is skipped as nothing new (EPISODIC_NOVELTY_MIN)."""

    def begin_unit(self, state: StrategyState) -> None:
        self.messages: list[TurnEvent] = []
        self.user_turns_since = 10**9  # the first capture is not held back by a cooldown
        self.last_capture: datetime | None = None
        self.per_day: dict[str, int] = {}
        self.newest: MemoryItem | None = None

    def on_turn(self, event: TurnEvent, state: StrategyState) -> None:
        if event.turn.role in ("user", "assistant"):
            self.messages = (self.messages + [event])[-self.params.window_n:]
        if event.turn.role == "user":
            self.user_turns_since += 1

    def on_invocation_end(self, invocation: Invocation, state: StrategyState) -> None:
        p, now = self.params, state.now
        if not self.messages or now is None or self.user_turns_since < p.cooldown_turns:
            return
        if self.last_capture is not None and (now - self.last_capture).total_seconds() < p.cooldown_minutes * 60:
            return
        if self.per_day.get(now.date().isoformat(), 0) >= p.max_per_day:
            return
        try:
            res = self.env.roles.summarize(previous_summary="", messages="\n".join(e.line for e in self.messages))
        except RoleFailure as exc:
            self.failed("episode summary call failed; no episode", exc)
            return
        summary = str(res.get("summary") or "").strip()
        if not summary:
            return
        self.user_turns_since, self.last_capture = 0, now
        day = now.date().isoformat()
        self.per_day[day] = self.per_day.get(day, 0) + 1
        text = f"[{date_bucket(now)}] {summary}"
        turn_ids = [e.turn.id for e in self.messages]
        vec = self.env.embedder.embed([text])[0]
        old = self.newest
        if old is not None and (now - old.updated_at).total_seconds() < p.merge_window_hours * 3600:
            old_vec = self.env.embedder.embed([old.text])[0]
            novelty = 1.0 - float(vec @ old_vec / ((vec @ vec) ** 0.5 * (old_vec @ old_vec) ** 0.5 or 1.0))
            if novelty < p.novelty_min:
                state.emit(MemoryEvent(op=Op.NOOP, item_id=old.id, namespace=state.namespace, kind=EPISODE_KIND, text=text,
                                       source_turn_ids=turn_ids, reason=f"episode: novelty {novelty:.3f} < {p.novelty_min}",
                                       store=state.store.name))
                return
            merged = f"{old.text} {text}"
            new = old.model_copy(update={"text": merged, "updated_at": now,
                                         "source_turn_ids": sorted(set(old.source_turn_ids) | set(turn_ids))})
            state.store.update(new, self.env.embedder.embed([merged])[0])
            self.newest = new
            state.emit(MemoryEvent(op=Op.UPDATE, item_id=old.id, namespace=state.namespace, kind=EPISODE_KIND, text=merged,
                                   previous_text=old.text, source_turn_ids=new.source_turn_ids,
                                   reason=f"episode merged: within {p.merge_window_hours}h, novelty {novelty:.3f} ≥ {p.novelty_min}",
                                   store=state.store.name))
            return
        item = MemoryItem(id=state.ids(), namespace=state.namespace, text=text, kind=EPISODE_KIND,
                          metadata={"date": day, "bucket": date_bucket(now)}, source_turn_ids=turn_ids,
                          created_at=now, updated_at=now)
        state.store.add([item], vec[None, :])
        self.newest = item
        state.emit(MemoryEvent(op=Op.ADD, item_id=item.id, namespace=state.namespace, kind=EPISODE_KIND, text=text,
                               source_turn_ids=turn_ids, reason="episode created" + (
                                   f": outside the {p.merge_window_hours}h merge window" if old is not None else ""),
                               store=state.store.name))
