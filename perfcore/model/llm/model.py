"""Transformer shapes: one frozen Model per published architecture (data/models.csv rows).

A Model holds a published architecture (from its config.json or paper) and derives the
rest: parameters from the shapes (embeddings, lm_head unless tied, per layer q/k/v/o,
MLP or experts + router + shared experts, norms) and the KV cache per architecture
(K and V for each KV head; a windowed layer keeps at most its window of tokens).
Counts are plain numbers of parameters; bytes are SI.
"""

from __future__ import annotations

from dataclasses import dataclass

# Parameter counts are published in billions: CSV column -> Model field, and back.
BILLIONS = {
    "published_params_b": "published_params",
    "published_active_params_b": "published_active_params",
}
COLUMN = {field: column for column, field in BILLIONS.items()}


class ShapeProblems(ValueError):
    """Shapes that contradict each other: (column, value got, what was expected) each."""

    def __init__(self, problems: list[tuple[str, str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{c}: got {got}; expected {exp}" for c, got, exp in problems))


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
