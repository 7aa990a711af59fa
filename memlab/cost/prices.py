"""USD per token for a model: LiteLLM's offline price map, or a user's table.

Why LiteLLM's map: it is the price list the LLM tooling around memlab already keeps up to date
(~4,900 models with input, output and cached-input prices), and it is installed with DSPy. memlab
reads the map file LiteLLM itself loads when ``LITELLM_LOCAL_MODEL_COST_MAP=True``
(``litellm/model_prices_and_context_window_backup.json``) straight from the package folder,
without importing LiteLLM (an import costs seconds) and without any network access.

A user's table (``prices:`` in a config, ``--prices`` on the command line) overrides the map per
model, for a private deployment, a negotiated rate or a model the map does not know. It is YAML
or CSV, in USD per **million** tokens::

    # prices.yaml
    gpt-4o-mini: {input: 0.15, output: 0.60, cached_input: 0.075}
    my-vllm-model: {input: 0, output: 0}

    # prices.csv
    model,input,output,cached_input
    gpt-4o-mini,0.15,0.60,0.075

Cached input tokens (OpenAI's ``usage.prompt_tokens_details.cached_tokens``, a prefix the
provider served from its prompt cache) are part of the prompt tokens and billed at the cached
rate; without a cached rate they are billed as input.

This module imports nothing from memlab: the analysis side prices recorded calls with it.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    """One model's prices in USD per token."""

    input: float
    output: float
    cached_input: float | None = None
    """USD per cached input token (None: billed as input)."""
    max_output_tokens: int | None = None
    source: str = ""

    def cost(self, prompt_tokens: float, completion_tokens: float, cached_tokens: float = 0) -> float:
        """USD for a call (or a sum of calls): cached prompt tokens at the cached rate."""
        cached = min(max(cached_tokens, 0), prompt_tokens)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return (prompt_tokens - cached) * self.input + cached * cached_rate + completion_tokens * self.output

    def per_million(self) -> dict[str, float | None]:
        return {"input": self.input * MILLION, "output": self.output * MILLION,
                "cached_input": None if self.cached_input is None else self.cached_input * MILLION}


FREE = Price(0.0, 0.0, 0.0, None, "offline stand-in (no charge)")


def model_name(model_id: str | None) -> str | None:
    """The model name a price is looked up by, from a call record's ``model``: ``openai:gpt-4o-mini@http://…``
    → ``gpt-4o-mini``; None for the offline stand-in (``offline-1+…``), which costs nothing."""
    if not model_id:
        return None
    text = str(model_id)
    if text.startswith("offline") or text.startswith("heuristic"):
        return None
    if text.startswith("memlab/"):
        text = text[len("memlab/"):]
    if text.startswith("openai:"):  # OpenAIChatModel's id: openai:<name>[@<base url>]
        text = text[len("openai:"):].split("@", 1)[0]
    return text or None


def is_billable(row: dict[str, Any]) -> bool:
    """Whether a recorded call reached a paid endpoint: not replayed from a cache, not the offline
    stand-in, and sent at all (a call a budget refused is recorded with ``attempts: 0``)."""
    return not row.get("cached") and row.get("attempts", 1) != 0 and model_name(row.get("model")) is not None


# --- LiteLLM's map ----------------------------------------------------------------------------------

def _litellm_folder() -> Path | None:
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


@functools.cache
def litellm_map() -> tuple[dict[str, dict[str, Any]], str]:
    """LiteLLM's bundled price map and a label naming it (version and content hash); ({}, why) without LiteLLM."""
    folder = _litellm_folder()
    path = folder / "model_prices_and_context_window_backup.json" if folder else None
    if path is None or not path.is_file():
        return {}, "LiteLLM not installed (pip install dspy installs it): no built-in prices"
    raw = path.read_bytes()
    try:
        from importlib.metadata import version

        ver = version("litellm")
    except Exception:
        ver = "?"
    return json.loads(raw), f"litellm {ver} offline price map (sha256 {hashlib.sha256(raw).hexdigest()[:12]})"


def _from_litellm(entry: dict[str, Any], label: str) -> Price | None:
    inp, out = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not isinstance(inp, (int, float)) or not isinstance(out, (int, float)):
        return None
    cached = entry.get("cache_read_input_token_cost")
    max_out = entry.get("max_output_tokens") or entry.get("max_tokens")
    return Price(float(inp), float(out), float(cached) if isinstance(cached, (int, float)) else None,
                 int(max_out) if isinstance(max_out, (int, float)) else None, label)


def _candidates(name: str) -> list[str]:
    bare = name.split("/", 1)[1] if name.startswith(("openai/", "azure/")) else name
    return list(dict.fromkeys([name, name.lower(), bare, bare.lower(), f"openai/{bare}"]))


# --- a user's table ---------------------------------------------------------------------------------

class PriceTableError(ValueError):
    """A price table that cannot be read; the message names the file and the entry."""


def _number(value: Any, where: str, field: str, *, required: bool) -> float | None:
    if value is None or value == "":
        if required:
            raise PriceTableError(f"{where}: `{field}` is missing (USD per million tokens)")
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise PriceTableError(f"{where}: `{field}` must be a number (USD per million tokens), got {value!r}") from None
    if number < 0 or number != number:
        raise PriceTableError(f"{where}: `{field}` must be at least 0, got {value!r}")
    return number


def _entry(model: str, fields: dict[str, Any], where: str, source: str) -> Price:
    unknown = sorted(set(fields) - {"input", "output", "cached_input", "max_output_tokens"})
    if unknown:
        raise PriceTableError(f"{where}: unknown field(s) {unknown}; a price has input, output, cached_input "
                              "(USD per million tokens) and max_output_tokens")
    inp = _number(fields.get("input"), where, "input", required=True)
    out = _number(fields.get("output"), where, "output", required=True)
    cached = _number(fields.get("cached_input"), where, "cached_input", required=False)
    max_out = _number(fields.get("max_output_tokens"), where, "max_output_tokens", required=False)
    assert inp is not None and out is not None
    return Price(inp / MILLION, out / MILLION, None if cached is None else cached / MILLION,
                 None if max_out is None else int(max_out), source)


def load_price_table(path: str | Path) -> dict[str, Price]:
    """A user's price table (YAML mapping or CSV with a ``model`` column), USD per million tokens."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PriceTableError(f"{path}: price table not found") from None
    source = f"price table {path.name} (sha256 {hashlib.sha256(text.encode()).hexdigest()[:12]})"
    out: dict[str, Price] = {}
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(text.splitlines())
        if not reader.fieldnames or "model" not in reader.fieldnames:
            raise PriceTableError(f"{path}:1: a CSV price table needs a header with `model`, `input`, `output` "
                                  "(and optionally `cached_input`, `max_output_tokens`)")
        for line, row in enumerate(reader, 2):
            model = (row.pop("model") or "").strip()
            if not model:
                raise PriceTableError(f"{path}:{line}: `model` is empty")
            out[model] = _entry(model, {k: v for k, v in row.items() if k}, f"{path}:{line} ({model})", source)
        return out
    import yaml

    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise PriceTableError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise PriceTableError(f"{path}: a price table is a mapping of model → {{input, output, cached_input}}")
    for model, fields in data.items():
        if not isinstance(fields, dict):
            raise PriceTableError(f"{path}: {model}: expected {{input: …, output: …}} (USD per million tokens), got {fields!r}")
        out[str(model)] = _entry(str(model), fields, f"{path}: {model}", source)
    return out


# --- lookups ----------------------------------------------------------------------------------------

class PriceBook:
    """Prices by model name: a user's table first, then LiteLLM's map. Picklable (worker processes)."""

    def __init__(self, table: str | Path | dict[str, Price] | None = None, *, use_litellm: bool = True) -> None:
        self.table_path = str(table) if isinstance(table, (str, Path)) else None
        self.table = load_price_table(table) if isinstance(table, (str, Path)) else dict(table or {})
        self.use_litellm = use_litellm

    def get(self, model: str | None) -> Price | None:
        """The price of ``model`` (a name or a call record's model id); FREE for the offline stand-in;
        None when neither the table nor the map knows it."""
        name = model_name(model)
        if name is None:
            return FREE
        for candidate in _candidates(name):
            if candidate in self.table:
                return self.table[candidate]
        if self.use_litellm:
            prices, label = litellm_map()
            for candidate in _candidates(name):
                entry = prices.get(candidate)
                if isinstance(entry, dict):
                    found = _from_litellm(entry, label)
                    if found is not None:
                        return found
        return None

    def require(self, model: str, what: str) -> Price:
        price = self.get(model)
        if price is None:
            raise PriceTableError(f"no price known for model {model!r} ({what}): LiteLLM's map does not list it; "
                                  "give a price table (`prices:` in the config, or --prices FILE) with "
                                  f"{model}: {{input: …, output: …}} in USD per million tokens")
        return price

    def sources(self) -> list[str]:
        out = [f"price table {self.table_path}" if self.table_path else ""] if self.table else []
        if self.use_litellm:
            out.append(litellm_map()[1])
        return [s for s in out if s]


def cost_of_rows(rows: list[dict[str, Any]], book: PriceBook) -> tuple[float, list[str]]:
    """USD of the billable calls among ``rows`` (call records), and the models no price was found for."""
    total, unknown = 0.0, set()
    for row in rows:
        if not is_billable(row):
            continue
        price = book.get(row.get("model"))
        if price is None:
            unknown.add(model_name(row.get("model")) or "?")
            continue
        total += price.cost(row.get("prompt_tokens") or 0, row.get("completion_tokens") or 0, row.get("cached_tokens") or 0)
    return total, sorted(unknown)

