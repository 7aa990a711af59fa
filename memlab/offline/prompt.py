"""Reading a DSPy ChatAdapter prompt the way a real model would.

The offline model gets exactly the messages an LLM gets, so it must recover the role and its
inputs from them. The role is named by its *fields*: the system message lists
"Your input fields are: 1. `message` ..." and "Your output fields are: ...", which stay the same
when an optimiser rewrites the instruction, so the instruction wording is never read. The inputs
are the ``[[ ## field ## ]]`` sections of the last user message that has any (a parse-correction
turn that follows carries none); list and dict values are JSON there, as ChatAdapter writes them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_FIELD_LIST = re.compile(r"Your (input|output) fields are:\n((?:\d+\. `[^`]+`.*\n?)+)")
_FIELD_NAME = re.compile(r"^\d+\. `([^`]+)`", re.M)
_SECTION = re.compile(r"^\[\[ ## (\w+) ## \]\]\n", re.M)


class PromptError(ValueError):
    """The messages are not a ChatAdapter prompt the offline model can read."""


@dataclass(frozen=True)
class Prompt:
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    values: dict[str, Any]


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text") or "" for p in content if isinstance(p, dict))
    return content or ""


def _value(raw: str) -> Any:
    """A section's value: JSON when it parses as a list or object (how ChatAdapter writes them), else text."""
    raw = raw.strip()
    if raw[:1] in "[{":
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def read_prompt(messages: list[dict[str, Any]]) -> Prompt:
    system = next((_text(m.get("content")) for m in messages if m.get("role") == "system"), "")
    fields = {kind: tuple(_FIELD_NAME.findall(block)) for kind, block in _FIELD_LIST.findall(system)}
    if "output" not in fields:
        raise PromptError("no 'Your output fields are:' list in the system message: not a DSPy ChatAdapter prompt")
    for m in reversed(messages):
        body = _text(m.get("content"))
        if m.get("role") == "user" and _SECTION.search(body):
            break
    else:
        body = ""
    parts = _SECTION.split(body)
    values = {name: _value(re.split(r"\n\nRespond with the corresponding output fields", text)[0])
              for name, text in zip(parts[1::2], parts[2::2], strict=True)}
    return Prompt(fields.get("input", ()), fields["output"], values)


def render_chat_adapter_output(outputs: dict[str, Any], fields: list[str]) -> str:
    """Outputs written as DSPy's ChatAdapter expects a reply (``[[ ## field ## ]]`` sections), so the
    completion is parsed exactly like a real model's and its tokens are comparable."""
    parts = []
    for name in fields or list(outputs):
        value = outputs.get(name)
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"[[ ## {name} ## ]]\n{text}")
    parts.append("[[ ## completed ## ]]")
    return "\n\n".join(parts)
