"""When to compress: trigger objects, kept apart from what compresses (the summariser).

A trigger looks at a growing list of entries — conversation messages for a summarising history,
an agent's steps for working memory — and says when to fold the older ones into a summary:

- ``never``: never compress.
- ``every_n_steps(n)``: at steps n, 2n, 3n, … (steps counted since the list started).
- ``token_threshold(max_tokens)``: on the step whose entry makes the list exceed ``max_tokens``;
  the compressor then guarantees the list is at most ``max_tokens`` after compressing.
- ``agent_driven``: only when the agent asks (its ``compress_memory`` tool).

Triggers are a registry (:data:`TRIGGERS`): a plugin adds one with :func:`trigger` on a
:class:`Trigger` subclass whose ``Params`` (a :class:`TriggerParams`) has ``type: Literal[<name>]``,
and a config names it like a built-in one — the spec's union is built from the registry
(:data:`TriggerSpec`).

:class:`Compressor` owns the list, the summary and the accounting: every compression is a
:class:`~memlab.strategies.base.CompressionEvent` with the trigger, step, tokens before/after and
the turn ids folded in, which is what evidence survival is scored from.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from memlab.registry import Registry, RegistryError
from memlab.strategies.base import CompressionEvent
from memlab.tokens import count_tokens, truncate_tokens


def _check_trigger(name: str, cls: Any) -> None:
    """A trigger is a :class:`Trigger` whose spec (``Params``) names it in its ``type`` field."""
    if not (isinstance(cls, type) and issubclass(cls, Trigger)):
        raise RegistryError(f"compression trigger {name!r}: {cls!r} is not a Trigger subclass")
    field = cls.Params.model_fields.get("type") if issubclass(cls.Params, TriggerParams) else None
    if field is None or field.default != name:
        raise RegistryError(f"compression trigger {name!r}: its Params must be a TriggerParams subclass with "
                            f"`type: Literal[{name!r}] = {name!r}` (the discriminator a config names it by)")


TRIGGERS: Registry[type[Trigger]] = Registry("compression trigger", stamp="type_name", check=_check_trigger)


class TriggerParams(BaseModel):
    """A trigger's typed spec: its ``type`` (the discriminator) and its parameters. Built once, when
    a config is validated, and handed to :func:`make_trigger` as the object it is."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    validations: ClassVar[Counter] = Counter()
    """How many times each trigger spec class was validated (built from data): once per trigger
    a config names, however many conversations it compresses (tests/test_resolve_once.py)."""

    def model_post_init(self, _context: Any) -> None:
        TriggerParams.validations[type(self).__name__] += 1

    def knobs(self) -> dict[str, Any]:
        """The parameters without the ``type``."""
        return self.model_dump(exclude={"type"})


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
        params = ",".join(f"{k}={v}" for k, v in self.params.knobs().items())
        return f"{self.type_name}({params})" if params else self.type_name


def trigger(name: str) -> Any:
    """Class decorator: register a :class:`Trigger` under ``name`` (a plugin's as well as memlab's)."""
    return TRIGGERS.register(name)


class NeverSpec(TriggerParams):
    type: Literal["never"] = "never"


class EveryNStepsSpec(TriggerParams):
    type: Literal["every_n_steps"] = "every_n_steps"
    n: int = Field(default=10, ge=1)


class TokenThresholdSpec(TriggerParams):
    type: Literal["token_threshold"] = "token_threshold"
    max_tokens: int = Field(default=2000, ge=16)


class AgentDrivenSpec(TriggerParams):
    type: Literal["agent_driven"] = "agent_driven"


@trigger("never")
class Never(Trigger):
    """Never compress: the list only grows."""

    Params = NeverSpec

    def fires(self, *, steps: int, tokens: int, requested: bool) -> bool:
        return False


@trigger("every_n_steps")
class EveryNSteps(Trigger):
    """Compress at steps n, 2n, 3n, … of the list."""

    Params = EveryNStepsSpec

    def fires(self, *, steps: int, tokens: int, requested: bool) -> bool:
        return steps > 0 and steps % self.params.n == 0


@trigger("token_threshold")
class TokenThreshold(Trigger):
    """Compress on the step that takes the list over max_tokens; never leave it above after compressing."""

    Params = TokenThresholdSpec

    def __init__(self, params: TriggerParams) -> None:
        super().__init__(params)
        self.max_tokens = self.params.max_tokens

    def fires(self, *, steps: int, tokens: int, requested: bool) -> bool:
        return tokens > self.params.max_tokens


@trigger("agent_driven")
class AgentDriven(Trigger):
    """Compress only when the agent calls its compress_memory tool."""

    Params = AgentDrivenSpec

    def fires(self, *, steps: int, tokens: int, requested: bool) -> bool:
        return requested


TriggerSpec = TRIGGERS.tagged(TriggerParams, none="never")
"""A trigger as a config names it, typed: the union of the registered triggers' specs, discriminated
by ``type`` (a bare name and None — ``never`` — are short forms). Built from :data:`TRIGGERS` when a
value is validated, so a plugin's trigger resolves like a built-in one."""

_ADAPTER = TypeAdapter(TriggerSpec)


def resolve_trigger(spec: dict[str, Any] | str | TriggerParams | None) -> TriggerParams:
    """A trigger spec (a mapping, a bare name or None) validated into its typed spec object."""
    if isinstance(spec, TriggerParams):
        return spec
    try:
        return _ADAPTER.validate_python(spec)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(params)'}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"trigger: {problems}") from None


def make_trigger(spec: TriggerParams | dict[str, Any] | str | None) -> Trigger:
    """The trigger object for a typed spec (no validation: the spec was validated when the config was;
    a mapping or a name from a direct caller is validated here)."""
    if not isinstance(spec, TriggerParams):
        spec = resolve_trigger(spec)
    return TRIGGERS.get(spec.type)(spec)


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
        except RoleFailure as exc:  # the component that owns this list records the failure
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
