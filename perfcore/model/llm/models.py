"""data/models.csv: one frozen Model (model.py) per row, every problem of a file at once.

The columns are a model's published shapes (its config.json or paper) and its published
parameter counts in billions; a row whose shapes contradict each other is refused naming
the column, its cell and what was expected.
"""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO

from perfcore.errors import FileProblems
from perfcore.model.chip.csvrows import (
    Expected,
    Schema,
    at,
    boolean,
    load_from,
    parse_table,
    positive,
    whole,
)
from perfcore.model.llm.model import BILLIONS, Model, ShapeProblems

DEFAULT_PATH = Path(__file__).resolve().parents[3] / "data" / "models.csv"

REQUIRED_COLUMNS = (
    "name",
    "family",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "intermediate",
    "gated_mlp",
    "vocab",
    "tied_embeddings",
    "max_context",
    "published_params_b",
    "source",
)
# Optional: an empty cell or a missing column means a dense model without windows or biases.
OPTIONAL_COLUMNS = (
    "experts",
    "experts_per_token",
    "moe_intermediate",
    "shared_experts",
    "sliding_window",
    "window_layers",
    "attention_bias",
    "published_active_params_b",
    "notes",
)
SHAPE_MAX = 2**24  # past this a shape is a typo (the longest published context is 10M)
SHAPE = f"a whole number from 1 to {SHAPE_MAX:,}"
OPTIONAL_SHAPE = {
    "experts": SHAPE + ", or empty for a dense model (1)",
    "experts_per_token": SHAPE + ", or empty for a dense model (1)",
    "moe_intermediate": SHAPE + ", or empty when experts are `intermediate` wide",
    "sliding_window": SHAPE + ", or empty for no windowed layers",
}
COUNTS = {
    "shared_experts": "a whole number from 0, or empty for none",
    "window_layers": "a whole number from 0 (how many layers are windowed), or empty for none",
}
BOOLEAN = "true or false (also yes/no, 1/0)"
BILLION = "a positive number of billions of parameters, as published (6.74 for 6.74B)"
NONEMPTY = {
    "name": "a model name (every row needs one)",
    "family": "the model family (every row needs one)",
    "source": "the config.json or paper the row's shapes come from (every row cites one)",
}


class ModelError(FileProblems):
    """A models file that cannot be loaded; the message lists every problem found."""


SCHEMA = Schema(REQUIRED_COLUMNS, OPTIONAL_COLUMNS, "model", ModelError)


def load_models(path: str | Path | BinaryIO | None = None) -> dict[str, Model]:
    """Models keyed by name, in file order, from a models CSV path or open binary file."""
    return load_from(path, DEFAULT_PATH, load_models_bytes)


def load_models_bytes(data: bytes, label: str) -> dict[str, Model]:
    """Models keyed by name, in file order; ModelError lists every problem, named by `label`."""
    clean, problems, row_problems = parse_table(data, label, SCHEMA, _convert)
    models = {} if problems else _build(clean, label, row_problems)
    problems += row_problems
    if problems:
        raise ModelError(label, problems)
    return models


def _build(clean: list[tuple[int, dict]], label: str, problems: list[str]) -> dict[str, Model]:
    """Models of the clean rows; appends to `problems` the shapes that contradict each other."""
    models = {}
    for n, fields in clean:
        fields = {k: v for k, v in fields.items() if k != "extra"}
        try:
            models[fields["name"]] = Model(**fields)
        except ShapeProblems as err:
            problems += [
                f"{at(label, n, c)}: got {got}; expected {e}" for c, got, e in err.problems
            ]
    return models


def _convert(column: str, raw: str) -> dict:
    """{Model field: value} for one known cell (nothing when an optional cell is empty)."""
    text = raw.strip()
    if column in NONEMPTY and not text:
        raise Expected(NONEMPTY[column])
    if column in NONEMPTY or column == "notes":
        return {column: text}
    if not text and column in REQUIRED_COLUMNS:
        raise Expected(_expected(column) + " (every model needs one)")
    return {} if not text else {_field(column): _value(column, text)}


def _expected(column: str) -> str:
    """What a cell of `column` must hold, as the messages say it."""
    if column in BILLIONS:
        return BILLION
    if column in ("gated_mlp", "tied_embeddings", "attention_bias"):
        return BOOLEAN
    return COUNTS.get(column) or OPTIONAL_SHAPE.get(column) or SHAPE


def _field(column: str) -> str:
    """The Model field a column fills."""
    return BILLIONS.get(column, column)


def _value(column: str, text: str) -> int | float | bool:
    """A non-empty cell of `column` converted; Expected says what belongs there."""
    expected = _expected(column)
    if column in BILLIONS:
        count = float(positive(text, column, expected) * Decimal(10**9))
        if not math.isfinite(count):
            raise Expected(expected + " (this one is out of range)")
        return count
    if expected == BOOLEAN:
        return boolean(text, expected)
    return whole(text, column, expected, lo=0 if column in COUNTS else 1, hi=SHAPE_MAX)
