"""The judge prompts memlab ships, their hashes, and the judge's inputs for one probe record.

Scores move with the judge prompt (the same LoCoMo answers score far apart under a lenient and a
strict prompt), so a judged number is only comparable with another judged under the same
prompt. Each prompt is a DSPy signature in :mod:`memlab.roles.signatures`; its hash — sha256 of
the exact instruction text and the signature's fields (names, types, descriptions) — goes into
every probe's judge record and the run manifest, so two runs say whether they were judged alike.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import dspy

from memlab.roles import signatures as sig

JUDGE_PROMPTS: dict[str, type[dspy.Signature]] = {"lenient": sig.JudgeAnswerLenient, "strict": sig.JudgeAnswerStrict}
from memlab.judging.defaults import DEFAULT_JUDGE_PROMPT  # noqa: E402  (re-exported)
"""memlab judges strictly unless told otherwise: a lenient judge accepts hedges and stale values."""
NO_GOLD = "(none: the right response is to say it is unknown)"


def check_prompt_name(name: str) -> str:
    if name not in JUDGE_PROMPTS:
        raise ValueError(f"unknown judge prompt {name!r}; one of: {', '.join(JUDGE_PROMPTS)}")
    return name


def prompt_text(name: str) -> dict[str, Any]:
    """What the hash covers: the instruction and every field, as the signature defines them."""
    signature = JUDGE_PROMPTS[check_prompt_name(name)]

    def fields(group: dict[str, Any]) -> list[dict[str, str]]:
        return [{"name": k, "type": getattr(f.annotation, "__name__", str(f.annotation)),
                 "desc": str((f.json_schema_extra or {}).get("desc", ""))} for k, f in group.items()]

    return {"instructions": signature.instructions, "inputs": fields(signature.input_fields),
            "outputs": fields(signature.output_fields)}


def prompt_hash(name: str) -> str:
    return hashlib.sha256(json.dumps(prompt_text(name), sort_keys=True).encode()).hexdigest()


def judge_role(model: Any, prompt: str = DEFAULT_JUDGE_PROMPT, *, temperature: float | None = None) -> Any:
    """The judge as a memlab Role over ``model`` with the named prompt.

    ``temperature`` is set on the DSPy predictor, because the request's temperature is what the
    model layer sends: a judge audited for variance must really sample."""
    from memlab.roles.program import Role

    role = Role(JUDGE_PROMPTS[check_prompt_name(prompt)], model, "judge")
    if temperature:
        role.predict.update_config(temperature=temperature)
    return role


def gold_field(gold: list[list[str]], gold_match: str = "any") -> str:
    """A probe's gold answers as the judge's ``gold`` input: forms joined by ' | ', required parts by ' & '."""
    if not any(gold):
        return NO_GOLD
    if gold_match == "all":
        return " & ".join(" | ".join(forms) for forms in gold if forms)
    return " | ".join(f for forms in gold for f in forms)


def judge_inputs(prompt: str, question: str, gold: list[list[str]], gold_match: str, superseded: list[str],
                 response: str) -> dict[str, str]:
    """The judge's inputs for one probe; only the strict prompt is shown the superseded values."""
    inputs = {"question": question, "gold": gold_field(gold, gold_match), "response": response}
    if "superseded" in JUDGE_PROMPTS[check_prompt_name(prompt)].input_fields:
        inputs["superseded"] = " | ".join(superseded)
    return inputs


def judge_record(role: Any, prompt: str, inputs: dict[str, str]) -> dict[str, Any]:
    """Run the judge once; the probe's ``judge`` record (verdict or error, prompt and its hash)."""
    from memlab.redact import redact_text
    from memlab.roles.program import RoleFailure

    try:
        verdict: dict[str, Any] = dict(role(**inputs).items())
    except RoleFailure as exc:
        verdict = {"error": redact_text(str(exc))}
    return {**verdict, "prompt": prompt, "prompt_hash": prompt_hash(prompt)}


def judge_manifest(spec: Any, prompt: str) -> dict[str, Any] | None:
    """The manifest's ``judge`` entry: which model judged, with which prompt (None: no judge)."""
    if spec is None:
        return None
    return {"model": spec.model_dump(mode="json"), "prompt": prompt, "prompt_hash": prompt_hash(prompt)}
