"""The reply budget: the offline model stops where an endpoint would, at the call's ``max_tokens``.

An endpoint never returns more completion tokens than ``max_tokens``. The offline roles are
extractive: given a 42 MB turn, the answerer quoted it whole (9.6M completion tokens, a 254 MB
``probes.jsonl`` for one probe). So every reply — its output fields as they are rendered and its
tool calls — is held to the budget: the longest string anywhere in it is cut (at a token
boundary) until the reply fits, then list items are dropped from the end. The reply then ends
like a truncated completion (``finish_reason: length``). Replies within the budget, which is
every reply on the shipped datasets, are untouched. (Summaries and entity memories already fit
their budget by dropping whole sentences, :mod:`memlab.offline.summary`.)
"""

from __future__ import annotations

import copy
import json
from typing import Any

from memlab.offline.prompt import render_chat_adapter_output
from memlab.tokens import count_tokens, truncate_tokens

_CHARS_PER_TOKEN_MAX = 128
"""The longest cl100k token is 128 bytes, so no token is longer than 128 characters: a string longer
than ``(max_tokens + 1) * 128`` characters holds more than ``max_tokens`` tokens and keeps at most
that prefix — it is cut there before anything is tokenised (a 42 MB turn is never encoded whole)."""


def reply_tokens(outputs: dict[str, Any], tool_calls: list[tuple[str, dict[str, Any]]], fields: list[str]) -> int:
    """Completion tokens of a reply as the offline model renders and counts it."""
    text = render_chat_adapter_output(outputs, [f for f in fields if f in outputs] or list(outputs))
    return count_tokens(text) + sum(count_tokens(name) + count_tokens(json.dumps(args, ensure_ascii=False)) + 3
                                    for name, args in tool_calls)


def _reply_chars(outputs: dict[str, Any], tool_calls: list[tuple[str, dict[str, Any]]], fields: list[str]) -> int:
    """Characters of the reply as rendered, tool calls included: an upper bound of its tokens (less 3 per call)."""
    text = render_chat_adapter_output(outputs, [f for f in fields if f in outputs] or list(outputs))
    return len(text) + sum(len(name) + len(json.dumps(args, ensure_ascii=False)) + 3 for name, args in tool_calls)


def fit(outputs: dict[str, Any], tool_calls: list[tuple[str, dict[str, Any]]], fields: list[str],
        max_tokens: int | None) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]], bool]:
    """``(outputs, tool_calls, cut)`` within ``max_tokens`` completion tokens (None: no budget)."""
    if max_tokens is None:
        return outputs, tool_calls, False
    limit = (max_tokens + 1) * _CHARS_PER_TOKEN_MAX
    if not _any_longer(outputs, limit) and not any(_any_longer(args, limit) for _, args in tool_calls):
        if _reply_chars(outputs, tool_calls, fields) <= max_tokens:
            return outputs, tool_calls, False  # a token is at least one character: nothing to count
        total = reply_tokens(outputs, tool_calls, fields)
        if total <= max_tokens:
            return outputs, tool_calls, False
    outputs, calls = copy.deepcopy(outputs), [[name, copy.deepcopy(args)] for name, args in tool_calls]
    _cut_longer([outputs, [args for _, args in calls]], limit)  # what lies beyond cannot be kept anyway
    total = reply_tokens(outputs, [(n, a) for n, a in calls], fields)
    for _ in range(256):  # each pass shortens the longest string or drops an item: a bounded loop
        over = total - max_tokens
        if over <= 0:
            break
        found = _longest_string([outputs, [args for _, args in calls]])
        if found is not None and found[2]:
            holder, key, text = found
            keep = max(0, count_tokens(text) - over - 1)  # the reply's other tokens are left as they are
            holder[key] = truncate_tokens(text[: (keep + 1) * _CHARS_PER_TOKEN_MAX], keep)
        elif not _drop_last_item([outputs, calls]):
            break  # nothing left to cut: only the field markers remain
        total = reply_tokens(outputs, [(n, a) for n, a in calls], fields)
    return outputs, [(n, a) for n, a in calls], True


def _any_longer(node: Any, limit: int) -> bool:
    if isinstance(node, str):
        return len(node) > limit
    if isinstance(node, dict):
        return any(_any_longer(v, limit) for v in node.values())
    if isinstance(node, (list, tuple)):
        return any(_any_longer(v, limit) for v in node)
    return False


def _cut_longer(node: Any, limit: int) -> None:
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in list(items):
        if isinstance(value, str) and len(value) > limit:
            node[key] = value[:limit]
        elif isinstance(value, (dict, list)):
            _cut_longer(value, limit)


def _longest_string(node: Any) -> tuple[Any, Any, str] | None:
    """(container, key, value) of the longest string inside ``node`` (dicts and lists, any depth)."""
    best: tuple[Any, Any, str] | None = None
    stack = [node]
    while stack:
        current = stack.pop()
        items = current.items() if isinstance(current, dict) else enumerate(current) if isinstance(current, list) else ()
        for key, value in items:
            if isinstance(value, str):
                if best is None or len(value) > len(best[2]):
                    best = (current, key, value)
            elif isinstance(value, (dict, list)):
                stack.append(value)
    return best


def _drop_last_item(node: Any) -> bool:
    """Remove the last element of the last non-empty list under ``node`` (a reply's facts, calls)."""
    lists: list[list[Any]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            lists.append(current)
            stack.extend(v for v in current if isinstance(v, (dict, list)))
        elif isinstance(current, dict):
            stack.extend(v for v in current.values() if isinstance(v, (dict, list)))
    for candidate in lists[1:]:  # the outermost list is the container of outputs and calls themselves
        if candidate:
            candidate.pop()
            return True
    return False
