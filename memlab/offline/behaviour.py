"""The offline model's behaviour profile: how reliably each of its mechanisms does its job.

Every comparison played offline is produced by one fixed set of stand-in behaviours. The profile
names the behaviours a design's conclusion can hinge on and makes each one a knob, so a
comparison can be replayed with the stand-in behaving otherwise (``memlab sensitivity``) or with
the behaviour measured from a recorded run (``memlab profile``). A knob is a probability (or, for
the answerer, a threshold) that acts **inside the mechanism it names**, as a decision drawn per
item from a hash of (seed, knob, item text): reruns, workers and record/replay see the same
choices, and no record is edited after the fact.

The default profile is the stand-in as built: it reproduces the records written before the
profile existed (tests/test_behaviour_identity.py). A profile other than the default is part of
the model's identity: its hash joins the model id (``offline-1+<source>+profile-<hash>``), so every
call record and manifest says which behaviour produced it. docs/sensitivity.md lists the knobs.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

PROBABILITY = {"ge": 0.0, "le": 1.0}


class Extraction(BaseModel):
    """The extraction roles (ExtractFacts, ExtractFromTranscript): which statements become facts."""

    model_config = ConfigDict(extra="forbid")
    user_recall: float = Field(1.0, **PROBABILITY, description="Share of the facts the extraction filter finds in a "
                               "user turn that are extracted.")
    assistant_recall: float = Field(0.0, **PROBABILITY, description="Share of the assertions in an assistant turn that "
                                    "are extracted (as built the stand-in extracts none).")
    tool_recall: float = Field(1.0, **PROBABILITY, description="Share of the value lines of a tool observation that are "
                               "extracted.")
    corruption: float = Field(0.0, **PROBABILITY, description="Share of the extracted facts carrying a value whose "
                              "value is altered (a number shifted, a date moved, a name garbled).")


class Reconcile(BaseModel):
    """The slot rule deciding ADD / UPDATE / DELETE (ReconcileMemory, and the agent's choice of
    update_fact / delete_fact)."""

    model_config = ConfigDict(extra="forbid")
    update: float = Field(1.0, **PROBABILITY, description="Share of changed values recognised as UPDATE (the rest are "
                          "added beside the stale value).")
    delete: float = Field(1.0, **PROBABILITY, description="Share of retractions carried out as DELETE (the rest are "
                          "ignored: the retracted value stays).")


class Summariser(BaseModel):
    """The extractive summariser (Summarize, SummarizeWithEntities): what a summary keeps.

    ``None`` keeps the stand-in's own rule: a conversation summary (dated lines) keeps every
    statement the extraction filter finds, and a working-memory fold (undated step lines) keeps
    nothing — the README's "evidence survival 0.00 in every compressing cell". A number makes the
    summariser read both kinds of lines and keep each item with that probability."""

    model_config = ConfigDict(extra="forbid")
    keep_values: float | None = Field(None, **PROBABILITY, description="Share of the statements (user facts) in the "
                                      "folded steps that the summary keeps; null: as built.")
    keep_tool_observations: float | None = Field(None, **PROBABILITY, description="Share of the value lines of tool "
                                                 "observations in the folded steps that the summary keeps; null: as built.")


class Agent(BaseModel):
    """The agent's memory-tool policy (AgentStep)."""

    model_config = ConfigDict(extra="forbid")
    store_user_facts: float = Field(1.0, **PROBABILITY, description="Probability that a store_fact / update_fact / "
                                    "log_time the policy should make for a user statement is made (was "
                                    "`options.tool_reliability`).")
    store_tool_observations: float = Field(0.0, **PROBABILITY, description="Probability that a value line of a tool "
                                           "observation is stored through store_fact (as built: never).")


class Answerer(BaseModel):
    """The extractive answerer (AnswerFromMemory)."""

    model_config = ConfigDict(extra="forbid")
    abstain_below: float = Field(0.6, **PROBABILITY, description="Cosine between the question and the chosen line below "
                                 "which the answerer abstains when they share no topic word.")


class BehaviourProfile(BaseModel):
    """Every knob of the offline model, grouped by the mechanism it acts in."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    extraction: Extraction = Field(default_factory=Extraction)
    reconcile: Reconcile = Field(default_factory=Reconcile)
    summariser: Summariser = Field(default_factory=Summariser)
    agent: Agent = Field(default_factory=Agent)
    answerer: Answerer = Field(default_factory=Answerer)

    def knob(self, name: str) -> float | None:
        group, field = _split(name)
        return getattr(getattr(self, group), field)

    def knobs(self) -> dict[str, float | None]:
        """Dotted knob name → value, in table order."""
        return {k.name: self.knob(k.name) for k in KNOBS}

    def changed(self) -> dict[str, float | None]:
        """The knobs that differ from the default."""
        return {n: v for n, v in self.knobs().items() if v != KNOB_BY_NAME[n].default}

    @property
    def is_default(self) -> bool:
        return not self.changed()

    def digest(self) -> str:
        """8 hex digits of the sha256 over every knob's value: the profile's part of the model id."""
        payload = json.dumps(self.knobs(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode()).hexdigest()[:8]

    def with_knobs(self, values: dict[str, float | None]) -> BehaviourProfile:
        """A copy with the given dotted knobs set (validated like a file)."""
        data = self.model_dump()
        for name, value in values.items():
            group, field = _split(check_knob(name))
            data[group][field] = value
        return parse_profile(data, "profile")


@dataclass(frozen=True)
class Knob:
    """One knob: where it acts, so a sweep knows which units it can change."""

    name: str
    default: float | None
    description: str
    roles: frozenset[str]
    """Signatures (role names) of the calls the knob acts in."""
    tools: frozenset[str] = frozenset()
    """For AgentStep: the knob acts only in a call offered one of these tools (empty: any call)."""
    turn_roles: frozenset[str] = frozenset()
    """The knob acts only on items from turns of these roles (empty: any): a unit whose
    conversations have no such turn is never changed by it."""


_ROLES = {
    "extraction": frozenset({"ExtractFacts", "ExtractFromTranscript"}),
    "reconcile": frozenset({"ReconcileMemory", "AgentStep"}),
    "summariser": frozenset({"Summarize", "SummarizeWithEntities"}),
    "agent": frozenset({"AgentStep"}),
    "answerer": frozenset({"AnswerFromMemory"}),
}
_TOOLS = {"reconcile": frozenset({"update_fact", "delete_fact"}), "agent": frozenset({"store_fact", "update_fact", "log_time"})}
_TURN_ROLES = {"extraction.assistant_recall": frozenset({"assistant"}), "extraction.tool_recall": frozenset({"tool"}),
               "summariser.keep_tool_observations": frozenset({"tool"}), "agent.store_tool_observations": frozenset({"tool"})}


def _knobs() -> tuple[Knob, ...]:
    out = []
    for group, info in BehaviourProfile.model_fields.items():
        for field, f in info.annotation.model_fields.items():  # type: ignore[union-attr]
            name = f"{group}.{field}"
            tools = frozenset({"store_fact"}) if name == "agent.store_tool_observations" else _TOOLS.get(group, frozenset())
            out.append(Knob(name, f.default, f.description or "", _ROLES[group], tools, _TURN_ROLES.get(name, frozenset())))
    return tuple(out)


KNOBS: tuple[Knob, ...] = _knobs()
KNOB_BY_NAME: dict[str, Knob] = {k.name: k for k in KNOBS}
DEFAULT = BehaviourProfile()


def _split(name: str) -> tuple[str, str]:
    group, _, field = name.partition(".")
    return group, field


def check_knob(name: str) -> str:
    """``name`` if it is a knob; else a ``ValueError`` with the close matches."""
    if name in KNOB_BY_NAME:
        return name
    close = difflib.get_close_matches(name, list(KNOB_BY_NAME), n=2, cutoff=0.5)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise ValueError(f"unknown behaviour knob {name!r}.{hint} Knobs: {', '.join(KNOB_BY_NAME)}")


class ProfileError(ValueError):
    """A behaviour profile that cannot be used; the message names the file (and line) and the field."""

    def __init__(self, message: str, key: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.key = key
        """The offending entry's path in the mapping (group, knob), to find its line in a file."""


def _did_you_mean(where: str, data: Any) -> None:
    """Name an unknown group or knob with its close matches (pydantic would only say 'extra')."""
    if not isinstance(data, dict):
        raise ProfileError(f"{where}: a behaviour profile is a mapping of groups "
                           f"({', '.join(BehaviourProfile.model_fields)}), got {type(data).__name__}")
    groups = BehaviourProfile.model_fields
    for group, body in data.items():
        if group not in groups:
            close = difflib.get_close_matches(str(group), [*groups, *KNOB_BY_NAME], n=1, cutoff=0.5)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ProfileError(f"{where}: unknown group {group!r}.{hint} Groups: {', '.join(groups)}", (str(group),))
        if not isinstance(body, dict):
            raise ProfileError(f"{where}: {group}: a mapping of knobs, got {json.dumps(body, default=str)}", (group,))
        fields = groups[group].annotation.model_fields  # type: ignore[union-attr]
        for field in body:
            if field not in fields:
                close = difflib.get_close_matches(str(field), list(fields), n=1, cutoff=0.5)
                hint = f" Did you mean {group}.{close[0]}?" if close else ""
                raise ProfileError(f"{where}: unknown knob {group}.{field}.{hint} "
                                   f"Knobs of {group}: {', '.join(f'{group}.{f}' for f in fields)}", (group, str(field)))


def parse_profile(data: Any, where: str = "profile") -> BehaviourProfile:
    """A profile from a mapping (groups of knobs; dotted keys ``agent.store_user_facts: 0.7`` are
    accepted too); a profile file is read by :mod:`memlab.llm.profile_file` (the stand-in reads no file). A top-level ``about:`` mapping (what ``memlab profile`` writes: the source run,
    intervals) is description, not behaviour: it is skipped and never hashed."""
    if data is None:
        return DEFAULT
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "about"}
        nested: dict[str, Any] = {}
        for key, value in data.items():
            if isinstance(key, str) and "." in key:
                group, field = _split(check_knob_or_raise(where, key))
                nested.setdefault(group, {})[field] = value
            elif isinstance(value, dict) and isinstance(nested.get(key), dict):
                nested[key].update(value)
            else:
                nested[key] = value
        data = nested
    _did_you_mean(where, data)
    try:
        return BehaviourProfile.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']} (got {e.get('input')!r})"
                             for e in exc.errors())
        raise ProfileError(f"{where}: invalid behaviour profile: {problems}",
                           tuple(str(x) for x in exc.errors()[0]["loc"])) from None


def check_knob_or_raise(where: str, name: str) -> str:
    try:
        return check_knob(name)
    except ValueError as exc:
        raise ProfileError(f"{where}: {exc}", (name,)) from None


def chance(seed: int, knob: str, item: str) -> float:
    """A number in [0, 1) drawn from (seed, knob, item): the same item gets the same draw in every
    run, process and replay; two knobs draw independently."""
    return int(hashlib.sha256(f"{seed}\0{knob}\0{item}".encode()).hexdigest()[:8], 16) / 2**32


def keeps(probability: float, seed: int, knob: str, item: str) -> bool:
    """Whether the mechanism does its job for ``item``: always at 1, never at 0, else a draw."""
    if probability >= 1.0:
        return True
    if probability <= 0.0:
        return False
    return chance(seed, knob, item) < probability


@dataclass(frozen=True)
class Behaviour:
    """A profile with the seed its draws use: what a mechanism is handed."""

    profile: BehaviourProfile = DEFAULT
    seed: int = 0

    def keeps(self, knob: str, item: str) -> bool:
        value = self.profile.knob(knob)
        return True if value is None else keeps(value, self.seed, knob, item)


AS_BUILT = Behaviour()
