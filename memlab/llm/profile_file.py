"""A behaviour-profile file: what ``model: {provider: offline, profile: FILE}`` and ``memlab profile`` read and write.

The offline stand-in itself reads no file (the evaluation firewall, tests/test_firewall.py): its
profile (:mod:`memlab.offline.behaviour`) is validated from a mapping, and this module turns a file
into that mapping, naming the file and line of whatever is wrong in it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlab.offline.behaviour import DEFAULT, BehaviourProfile, ProfileError, parse_profile


def load_profile(source: str | Path | dict[str, Any] | BehaviourProfile | None) -> BehaviourProfile:
    """The profile a model spec names: a file (YAML or JSON), an inline mapping, or None (default)."""
    if source is None or isinstance(source, BehaviourProfile):
        return source or DEFAULT
    if isinstance(source, dict):
        return parse_profile(source, "model.profile")
    import yaml

    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(f"model.profile: no such file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}: cannot read the behaviour profile ({exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ProfileError(f"{path}: not valid YAML: {exc}") from None
    try:
        return parse_profile(data, str(path))
    except ProfileError as exc:
        line = _line_of(text, exc.key)
        if line is None:
            raise
        raise ProfileError(str(exc).replace(f"{path}: ", f"{path}:{line}: ", 1), exc.key) from None


def _line_of(text: str, key: tuple[str, ...]) -> int | None:
    """The 1-based line of the entry at ``key`` (a group, or a group's knob, or a dotted key) in a YAML text."""
    import yaml

    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return None
    line = None
    for part in key:
        if not isinstance(node, yaml.MappingNode):
            break
        match = next(((k, v) for k, v in node.value if str(k.value) == part), None)
        if match is None:
            break
        line, node = match[0].start_mark.line + 1, match[1]
    return line
