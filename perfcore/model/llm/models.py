"""Transformer shapes: one frozen Model per row of data/models.csv.

A Model holds a published architecture (from its config.json or paper) and derives the
rest: parameters from the shapes (embeddings, lm_head unless tied, per layer q/k/v/o,
MLP or experts + router + shared experts, norms) and the KV cache per architecture
(K and V for each KV head; a windowed layer keeps at most its window of tokens).
Counts are plain numbers of parameters; bytes are SI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
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
BILLIONS = {
    "published_params_b": "published_params",
    "published_active_params_b": "published_active_params",
}
COLUMN = {field: column for column, field in BILLIONS.items()}
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


class ShapeProblems(ValueError):
    """Shapes that contradict each other: (column, value got, what was expected) each."""

    def __init__(self, problems: list[tuple[str, str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{c}: got {got}; expected {exp}" for c, got, exp in problems))


SCHEMA = Schema(REQUIRED_COLUMNS, OPTIONAL_COLUMNS, "model", ModelError)


@dataclass(frozen=True, kw_only=True)
class Model:
    """One decoder-only transformer's published shapes; derived counts are methods."""

    name: str
    family: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int  # dense MLP width (per expert for MoE unless moe_intermediate given)
    gated_mlp: bool  # SwiGLU/GeGLU: 3 matrices; else 2 (up, down)
    vocab: int
    tied_embeddings: bool
    experts: int = 1  # 1 for dense
    experts_per_token: int = 1  # 1 for dense
    moe_intermediate: int | None = None  # expert MLP width when it differs from intermediate
    shared_experts: int = 0  # always-on experts, each `intermediate` wide
    max_context: int
    sliding_window: int | None = None  # tokens a windowed layer keeps
    window_layers: int = 0  # how many of the layers are windowed (0 = none)
    attention_bias: bool = False  # q/k/v biases (Qwen2)
    published_params: float  # total parameters the publisher states (a count)
    published_active_params: float | None = None  # MoE: active per token, as published
    source: str = ""
    notes: str = ""

    def __post_init__(self) -> None:
        """ShapeProblems when shapes contradict each other (a frozen value is valid or absent)."""
        problems = shape_problems(self)
        if problems:
            raise ShapeProblems(problems)

    @property
    def is_moe(self) -> bool:
        """True for a mixture of experts (more than one expert)."""
        return self.experts > 1

    @property
    def mlp_matrices(self) -> int:
        """Weight matrices of one MLP: 3 gated (gate, up, down), else 2 (up, down)."""
        return 3 if self.gated_mlp else 2

    @property
    def expert_width(self) -> int:
        """Intermediate width of one routed expert's MLP."""
        return self.moe_intermediate or self.intermediate

    def attention_params(self) -> int:
        """Parameters of one layer's attention: q and o (heads), k and v (KV heads), biases."""
        q_o = 2 * self.hidden * self.heads * self.head_dim
        k_v = 2 * self.hidden * self.kv_heads * self.head_dim
        bias = (self.heads + 2 * self.kv_heads) * self.head_dim if self.attention_bias else 0
        return q_o + k_v + bias

    def mlp_params(self, experts: int) -> int:
        """Parameters of one layer's MLP with `experts` routed experts, router and shared ones."""
        routed = experts * self.mlp_matrices * self.hidden * self.expert_width
        router = self.hidden * self.experts if self.is_moe else 0
        shared = self.shared_experts * self.mlp_matrices * self.hidden * self.intermediate
        return routed + router + shared

    def layer_params(self, experts: int) -> int:
        """Parameters of one layer: attention, MLP with `experts` experts, two RMS/LayerNorms."""
        return self.attention_params() + self.mlp_params(experts) + 2 * self.hidden

    def embedding_params(self) -> int:
        """Token embeddings plus the lm_head unless the two are tied."""
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    def params(self) -> int:
        """Total parameters from the shapes: embeddings, every layer, the final norm."""
        return self.embedding_params() + self.layers * self.layer_params(self.experts) + self.hidden

    def active_params(self) -> int:
        """Parameters one token uses: as params() with experts_per_token of the routed experts."""
        layers = self.layers * self.layer_params(self.experts_per_token)
        return self.embedding_params() + layers + self.hidden

    def kv_tokens(self, context: int) -> int:
        """Token slots the cache holds over all layers for one sequence of `context` tokens."""
        windowed = min(context, self.sliding_window or context)
        return self.window_layers * windowed + (self.layers - self.window_layers) * context

    def kv_cache_bytes(self, bytes_per_element: float, context: int) -> float:
        """Bytes of K and V one sequence of `context` tokens keeps (window rule per layer)."""
        per_slot = 2 * self.kv_heads * self.head_dim * bytes_per_element
        return per_slot * self.kv_tokens(context)

    def kv_bytes_per_token(self, bytes_per_element: float, context: int) -> float:
        """KV-cache bytes per token of context, for one sequence at `context` tokens."""
        return self.kv_cache_bytes(bytes_per_element, context) / context

    def kv_rule(self) -> str:
        """Which KV-cache rule applies, in words ("GQA, 8 KV heads; 21 of 42 layers ...")."""
        if self.kv_heads == self.heads:
            heads = "MHA"
        elif self.kv_heads == 1:
            heads = "MQA"
        else:
            heads = f"GQA, {self.kv_heads} KV heads"
        if not self.window_layers:
            return heads
        which = (
            "every layer keeps"
            if self.window_layers == self.layers
            else f"{self.window_layers} of {self.layers} layers keep"
        )
        return f"{heads}; {which} a {self.sliding_window:,}-token window"


def shape_problems(m: Model) -> list[tuple[str, str, str]]:
    """(CSV column, its cell, what was expected) for each shape that contradicts another."""
    checks = [
        ("kv_heads", m.heads % m.kv_heads == 0, f"a divisor of heads ({m.heads})"),
        ("experts_per_token", m.experts_per_token <= m.experts, f"at most experts ({m.experts})"),
        ("window_layers", m.window_layers <= m.layers, f"at most layers ({m.layers})"),
        (
            "window_layers",
            bool(m.window_layers) == bool(m.sliding_window),
            "0 without a sliding_window, more than 0 with one",
        ),
        ("moe_intermediate", m.is_moe or m.moe_intermediate is None, "empty for a dense model"),
        ("shared_experts", m.is_moe or not m.shared_experts, "0 for a dense model"),
        (
            "published_active_params",
            m.published_active_params is None or m.is_moe,
            "empty for a dense model (active = total)",
        ),
        (
            "published_active_params",
            m.published_active_params is None or m.published_active_params <= m.published_params,
            f"at most published_params_b ({_cell(m, 'published_params')})",
        ),
    ]
    return [(COLUMN.get(f, f), repr(_cell(m, f)), exp) for f, ok, exp in checks if not ok]


def _cell(m: Model, field: str) -> str:
    """A field of `m` as its CSV cell would hold it (parameter counts in billions)."""
    value = getattr(m, field)
    return f"{value / 1e9:g}" if field in COLUMN else str(value)


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
