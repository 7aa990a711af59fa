"""When to compress: trigger objects, kept apart from what compresses (the summariser).

A trigger looks at a growing list of entries — conversation messages for a summarising history,
an agent's steps for working memory — and says when to fold the older ones into a summary:

- ``never``: never compress.
- ``every_n_steps(n)``: at steps n, 2n, 3n, … (steps counted since the list started).
- ``token_threshold(max_tokens)``: on the step whose entry makes the list exceed ``max_tokens``;
  the compressor then guarantees the list is at most ``max_tokens`` after compressing.
- ``agent_driven``: only when the agent asks (its ``compress_memory`` tool).

:class:`Compressor` owns the list, the summary and the accounting: every compression is a
:class:`~memlab.strategies.base.CompressionEvent` with the trigger, step, tokens before/after and
the turn ids folded in, which is what evidence survival is scored from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memlab.registry import Registry
from memlab.strategies.base import CompressionEvent
from memlab.tokens import count_tokens, truncate_tokens

TRIGGERS: Registry[type[Trigger]] = Registry("compression trigger")


class TriggerParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Trigger:
    """Decides, after each new entry, whether to compress."""

    type_name: ClassVar[str] = ""
    Params: ClassVar[type[TriggerParams]] = TriggerParams
    max_tokens: int | None = None

    def __init__(self, params: TriggerParams) -> None:
        self.params = params

    @classmethod
    def summary(cls) -> str:
        return (cls.__doc__ or "").strip().splitlines()[0]

    def fires(self, *, steps: int, tokens: int, requested: bool) -> bool:
        raise NotImplementedError

    def label(self) -> str:
        params = ",".join(f"{k}={v}" for k, v in self.params.model_dump().items())
        return f"{self.type_name}({params})" if params else self.type_name


def _trigger(name: str):
    def deco(cls):
        cls.type_name = name
        TRIGGERS.register(name, cls)
        return cls

    return deco


@_trigger("never")
class Never(Trigger):
    """Never compress: the list only grows."""

    def fires(self, *, steps: int, tokens: int, requested: bool) -> bool:
        return False


@_trigger("every_n_steps")
class EveryNSteps(Trigger):
    """Compress at steps n, 2n, 3n, … of the list."""

    class Params(TriggerParams):
        n: int = Field(default=10, ge=1)

    def fires(self, *, steps: int, tokens: int, requested: bool) -> bool:
        return steps > 0 and steps % self.params.n == 0


@_trigger("token_threshold")
class TokenThreshold(Trigger):
    """Compress on the step that takes the list over max_tokens; never leave it above after compressing."""

    class Params(TriggerParams):
        max_tokens: int = Field(default=2000, ge=16)

    def __init__(self, params: TriggerParams) -> None:
        super().__init__(params)
        self.max_tokens = self.params.max_tokens

    def fires(self, *, steps: int, tokens: int, requested: bool) -> bool:
        return tokens > self.params.max_tokens


@_trigger("agent_driven")
class AgentDriven(Trigger):
    """Compress only when the agent calls its compress_memory tool."""

    def fires(self, *, steps: int, tokens: int, requested: bool) -> bool:
        return requested


def resolve_trigger(spec: dict[str, Any] | str | None) -> dict[str, Any]:
    """A trigger spec with defaults filled in (``"never"`` is short for ``{type: never}``)."""
    if spec is None:
        spec = {"type": "never"}
    if isinstance(spec, str):
        spec = {"type": spec}
    spec = dict(spec)
    cls = TRIGGERS.get(str(spec.pop("type", "never")))
    try:
        params = cls.Params.model_validate(spec)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(params)'}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"trigger {cls.type_name!r}: {problems}") from None
    return {"type": cls.type_name, **params.model_dump()}


def make_trigger(spec: dict[str, Any] | str | None) -> Trigger:
    resolved = resolve_trigger(spec)
    cls = TRIGGERS.get(resolved.pop("type"))
    return cls(cls.Params.model_validate(resolved))


@dataclass
class Entry:
    """One element of a compressible list: a message or an agent step, with its provenance."""

    text: str
    turn_ids: list[str] = field(default_factory=list)
    tokens: int = 0

    def __post_init__(self) -> None:
        if not self.tokens:
            self.tokens = count_tokens(self.text)


class Compressor:
    """A list of entries plus a running summary of the entries folded out of it.

    ``summarize`` is a role (callable with ``previous_summary`` and ``messages``, returning
    ``{"summary": ...}``) — the summariser is separate from the trigger, so any trigger composes
    with any summariser. A failed summarisation keeps the entries and is recorded (``ok=False``).
    """

    def __init__(self, trigger: Trigger, keep_recent: int, summarize: Any, component: str) -> None:
        self.trigger = trigger
        self.keep_recent = keep_recent
        self.summarize = summarize
        self.component = component
        self.reset()

    def reset(self) -> None:
        self.entries: list[Entry] = []
        self.summary = ""
        self.summary_tokens = 0
        self.summary_sources: list[str] = []
        self.steps = 0
        self.failures = 0

    @property
    def tokens(self) -> int:
        return self.summary_tokens + sum(e.tokens for e in self.entries)

    def add(self, entry: Entry) -> None:
        self.entries.append(entry)
        self.steps += 1

    def maybe_compress(self, *, requested: bool = False) -> CompressionEvent | None:
        """Compress when the trigger fires for the current step (or the agent asked)."""
        if not self.trigger.fires(steps=self.steps, tokens=self.tokens, requested=requested):
            return None
        return self.compress(reason="agent asked" if requested else "trigger fired")

    def compress(self, reason: str = "") -> CompressionEvent | None:
        from memlab.roles.program import RoleFailure

        cap = self.trigger.max_tokens
        keep = min(self.keep_recent, len(self.entries))
        if cap is not None:  # leave at most half the budget to raw entries, so the summary has room
            while keep > 0 and sum(e.tokens for e in self.entries[-keep:]) > cap // 2:
                keep -= 1
        fold = self.entries[: len(self.entries) - keep]
        if not fold:
            return None
        before = self.tokens
        try:
            res = self.summarize(previous_summary=self.summary, messages="\n".join(e.text for e in fold))
            summary = str(res.get("summary") or "").strip()
        except RoleFailure as exc:
            self.failures += 1
            return CompressionEvent(self.component, self.trigger.label(), self.steps, before, before,
                                    [t for e in fold for t in e.turn_ids], self.summary, list(self.summary_sources),
                                    ok=False, reason=f"summariser failed: {exc}")
        kept = self.entries[len(self.entries) - keep:]
        if cap is not None:
            room = max(cap - sum(e.tokens for e in kept), 0)
            if count_tokens(summary) > room:
                summary = truncate_tokens(summary, room)
                reason += "; summary truncated to fit the token threshold"
        folded_ids = [t for e in fold for t in e.turn_ids]
        self.summary = summary
        self.summary_tokens = count_tokens(summary)
        self.summary_sources = sorted(set(self.summary_sources) | set(folded_ids))
        self.entries = kept
        return CompressionEvent(self.component, self.trigger.label(), self.steps, before, self.tokens, folded_ids,
                                summary, list(self.summary_sources), ok=True, reason=reason)
