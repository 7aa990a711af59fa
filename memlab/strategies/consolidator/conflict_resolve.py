"""Opportunistic learning with conflict detection and fact history (seed 003, ``son_of_andrew``).

- extractor ``opportunistic``: after each exchange, the user's message is matched against the
  seed's learning patterns (names, preferences, projects, schedules); when any matches, one
  ``AnalyzeForLearning`` call (purpose ``extract``) turns the exchange into facts, each with a
  category and a confidence (high / medium / low).
- consolidator ``conflict_resolve``: the seed's ``detect_conflicts`` — stored facts with cosine
  ≥ ``similarity_threshold`` (0.5) are checked for a conflict, classified as ``temporal`` (was
  vs is), ``negation`` (is vs is not), ``status_change`` (former vs current, no longer, now) or
  ``general_contradiction`` (the SameFact role says they are about the same thing) — then
  resolved by confidence exactly as ``_handle_learning_conflict``: high + temporal / negation /
  status change → **update** (the old fact is INVALIDATEd — kept with ``invalid_at`` and
  ``superseded_by`` — and the new one ADDed with ``valid_from`` and ``replaces``); high +
  general → a ``conflict`` record; medium + temporal / status change → a ``potential_update``
  record, other medium conflicts → a ``conflict`` record; low → queued for confirmation (NOOP,
  nothing stored). Without a conflict: high and medium are stored (medium flagged for review),
  low is queued.
- retriever ``fact_history``: vector top-k over *current* facts (invalidated ones are never
  retrieved as current), each followed by the versions it replaced with their validity
  intervals, so a question about the past can be answered from what was believed then;
  :meth:`FactHistory.as_of` (and the ``facts_as_of`` tool) lists the facts valid at a date.
  Searches go through the seed's cache (5-minute TTL, dataset time, keyed on the normalised
  question; not invalidated by writes, as in the seed)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal
from pydantic import Field
import memlab.strategies.extractor.model  # noqa: F401  (declares the "extractor" slot)
from memlab.memory.item import MemoryEvent, MemoryItem, Op, ScoredItem
from memlab.roles.program import RoleFailure
from memlab.strategies.consolidator.base import Consolidator
from memlab.strategies.slots import Params, component
from memlab.strategies.state import Candidate, StrategyState


ConflictType = Literal["temporal", "negation", "status_change", "general_contradiction"]


_PAST = re.compile(r"\b(?:was|were|used to|had been)\b", re.I)


_PRESENT = re.compile(r"\b(?:is|are|am|'s|'re|'m)\b", re.I)


_NEGATION = re.compile(r"\b(?:not|never|no longer|no)\b|n't\b", re.I)


_STATUS = re.compile(r"\b(?:former|formerly|ex|previous|previously|current|currently|now|new|no longer|anymore)\b", re.I)


_WORD = re.compile(r"[a-z0-9]+")


_MARKERS = frozenset("was were used to had been is are am s re m not never no longer n t former formerly ex previous "
                     "previously current currently now new anymore doesn don isn wasn aren weren didn".split())


def _norm(text: str) -> str:
    return text.strip().lower()


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _MARKERS and len(w) > 2}


def conflict_type(new: str, old: str) -> ConflictType | None:
    """The seed's rule classes, on two facts about the same thing (most content words shared)."""
    a, b = _content(new), _content(old)
    if not a or not b or len(a & b) < 0.5 * min(len(a), len(b)):
        return None
    if bool(_NEGATION.search(new)) != bool(_NEGATION.search(old)):
        return "negation"
    if set(m.lower() for m in _STATUS.findall(new)) != set(m.lower() for m in _STATUS.findall(old)):
        return "status_change"
    if bool(_PAST.search(new)) != bool(_PAST.search(old)) and (_PRESENT.search(new) or _PRESENT.search(old)):
        return "temporal"
    return None


@component("consolidator", "conflict_resolve")
class ConflictResolve(Consolidator):
    """Conflicts classified by type and resolved by confidence; superseded facts invalidated, kept as history."""

    class Params(Params):
        similarity_threshold: float = Field(default=0.5, ge=-1.0, le=1.0)
        """Stored facts at least this similar are checked for a conflict (seed 003: 0.5)."""
        k: int = Field(default=5, ge=1)
        """How many similar facts are checked."""
        check_general: bool = True
        """Ask the SameFact role about similar facts no rule class covers (general contradictions)."""

    def begin_unit(self, state: StrategyState) -> None:
        self.queue: list[dict[str, str]] = []
        """Facts waiting for the user's confirmation (the seed's learning summary)."""
        self._texts: Counter[str] | None = None
        self._texts_at: tuple[str, int] | None = None

    def _stored(self, state: StrategyState) -> Counter[str]:
        """Normalised texts of the namespace's current facts. Kept between candidates (listing every
        fact for every candidate was quadratic in a conversation's length) and rebuilt from the store
        whenever someone else wrote to the namespace — told by the store's ``revision`` where it
        has one; a store without it is listed every time, as before."""
        revision = getattr(state.store, "revision", None)
        at = (state.namespace, revision(state.namespace)) if revision is not None else None
        if at is None or self._texts is None or self._texts_at != at:
            self._texts = Counter(_norm(it.text) for it in state.store.list(state.namespace, where={"kind": "fact"},
                                                                              include_invalid=False) if it.valid)
            self._texts_at = at
        return self._texts

    def _wrote(self, state: StrategyState, added: str | None = None, invalidated: str | None = None) -> None:
        """Our own write: the index follows it (when it was current), then is current again."""
        if self._texts is None or self._texts_at is None:
            return
        revision = getattr(state.store, "revision", None)
        if added is not None:
            self._texts[_norm(added)] += 1
        if invalidated is not None:
            self._texts[_norm(invalidated)] -= 1
            if self._texts[_norm(invalidated)] <= 0:
                del self._texts[_norm(invalidated)]
        self._texts_at = (state.namespace, revision(state.namespace))

    def detect(self, state: StrategyState, cand: Candidate, vec) -> list[tuple[ScoredItem, ConflictType]]:
        hits = [h for h in state.store.search(state.namespace, embedding=vec, k=self.params.k, where={"kind": "fact"})
                if h.score >= self.params.similarity_threshold and h.item.text.strip().lower() != cand.text.strip().lower()]
        out: list[tuple[ScoredItem, ConflictType]] = []
        for h in hits:
            kind = conflict_type(cand.text, h.item.text)
            if kind is None and self.params.check_general:
                try:
                    if self.env.roles.same_fact(existing=h.item.text, new=cand.text).get("same"):
                        kind = "general_contradiction"
                except RoleFailure as exc:
                    self.failed("same-fact check failed; no general contradiction assumed", exc)
            if kind is not None:
                out.append((h, kind))
        return out

    def apply(self, state: StrategyState, cand: Candidate, vec) -> None:
        confidence = str(cand.metadata.get("confidence") or "high")
        if _norm(cand.text) in self._stored(state):
            self._noop(state, cand, None, "already stored")
            return
        conflicts = self.detect(state, cand, vec)
        if conflicts:
            (hit, kind) = conflicts[0]
            old = hit.item
            if confidence == "high" and kind != "general_contradiction":
                self.supersede(state, cand, vec, old, kind)
            elif confidence == "high" or (confidence == "medium" and kind not in ("temporal", "status_change")):
                label = "CONFLICT_DETECTED" if confidence == "high" else "CONFLICT_NOTED"
                self._record(state, cand, vec, "conflict", f"{label}: {cand.text} (conflicts with: {old.text})",
                             f"{kind} conflict, {confidence} confidence: kept as a conflict")
            elif confidence == "medium":
                self._record(state, cand, vec, "potential_update", f"POTENTIAL_UPDATE: {cand.text} (may replace: {old.text})",
                             f"{kind} conflict, medium confidence: potential update")
            else:
                self.queue.append({"fact": cand.text, "conflicting_fact": old.text, "conflict_type": kind})
                self._noop(state, cand, old.id, f"{kind} conflict, low confidence: queued for confirmation")
            return
        if confidence == "low":
            self.queue.append({"fact": cand.text})
            self._noop(state, cand, None, "low confidence: queued for confirmation")
            return
        cand.metadata = {**cand.metadata, "valid_from": state.now.isoformat(), "review": confidence == "medium"}
        self._add(state, cand, vec, f"{confidence} confidence, no conflict: stored" + (" (tracked for review)"
                                                                                      if confidence == "medium" else ""))
        self._wrote(state, added=cand.text if cand.kind == "fact" else None)

    def _record(self, state, cand: Candidate, vec, kind: str, text: str, reason: str) -> None:
        self._add(state, Candidate(text, kind, cand.source_turn_ids, metadata=dict(cand.metadata), origin=cand.origin),
                  self.env.embedder.embed([text])[0], reason)
        self._wrote(state, added=text if kind == "fact" else None)

    def supersede(self, state: StrategyState, cand: Candidate, vec, old: MemoryItem, kind: str) -> None:
        """The seed's update_fact: store the new fact, mark the old one replaced (kept, not current)."""
        store, ns, now = state.store, state.namespace, state.now
        new = MemoryItem(id=state.ids(), namespace=ns, text=cand.text, kind="fact",
                         metadata={"date": now.date().isoformat(), **cand.metadata, "valid_from": now.isoformat(),
                                   "replaces": old.id},
                         source_turn_ids=list(cand.source_turn_ids), created_at=now, updated_at=now)
        store.update(old.model_copy(update={"valid": False, "updated_at": now, "metadata": {
            **old.metadata, "invalid_at": now.isoformat(), "superseded_by": new.id}}))
        state.emit(MemoryEvent(op=Op.INVALIDATE, item_id=old.id, namespace=ns, kind=old.kind, text=old.text,
                               previous_text=old.text, source_turn_ids=list(cand.source_turn_ids),
                               reason=f"{kind} conflict, high confidence: replaced by {new.id}", store=store.name))
        store.add([new], vec[None, :])
        self._wrote(state, added=new.text, invalidated=old.text if old.kind == "fact" and old.valid else None)
        state.emit(MemoryEvent(op=Op.ADD, item_id=new.id, namespace=ns, kind="fact", text=new.text, previous_text=old.text,
                               source_turn_ids=new.source_turn_ids, reason=f"{kind} conflict auto-resolved: update",
                               store=store.name))
