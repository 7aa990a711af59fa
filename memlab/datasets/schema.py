"""JSON Schema of the native dataset format, generated from the pydantic models.

``datasets/schema.json`` is committed for editors and external tools; regenerate it with
``memlab datasets schema`` (or ``python -m memlab.datasets.schema``) after changing
:mod:`memlab.datasets.models`. A test asserts the committed file is up to date.
"""

from __future__ import annotations

import json
from pathlib import Path

from memlab.datasets.models import Dataset

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "datasets" / "schema.json"
SCHEMA_ID = "https://github.com/memlab/memlab/datasets/schema.json"


def schema() -> dict:
    s = Dataset.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "memlab dataset", **{k: v for k, v in s.items() if k != "title"}}


def schema_text() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def write_schema(path: str | Path | None = None) -> Path:
    """Write the schema (default ``datasets/schema.json``), atomically, and return the path."""
    from memlab.atomic import write_text_atomic

    path = Path(path) if path else SCHEMA_PATH
    if path.suffix.lower() != ".json":
        raise ValueError(f"{path}: the schema is JSON; name the file .json")
    write_text_atomic(path, schema_text())
    return path


if __name__ == "__main__":
    print(f"wrote {write_schema()}")
