"""A whole transformer as named ops, one pass at a time: prefill, decode, train.

Each op is a perfcore.ops.Cost for ONE GPU of a tensor-parallel group of t, repeated
`count` times (once per layer), with its bytes split into weights, KV cache read, KV cache
written and activations. FLOPs, not MACs. Weights, activations and KV cache each have
their own precision; the math runs in the wider of weights and activations. Every
convention is written down in docs/workloads.md.
"""

from __future__ import annotations

from dataclasses import replace

from perfcore.model.chip import ops
from perfcore.model.llm.model import Model

# Kept importable from here, where older callers import them (the command line, serving).
from perfcore.model.llm.values import BITS as BITS
from perfcore.model.llm.values import DEFAULT as DEFAULT
from perfcore.model.llm.values import Op, Pass, Precisions

NORM_FLOPS = 4  # per element: square, sum, scale, multiply by the weight (RMSNorm)
SOFTMAX_FLOPS = 5  # per score: max, subtract, exp, sum, divide
ACT_FLOPS = 4  # per element for the activation function (SiLU, GELU), +1 for the gate multiply


def _linear(
    name: str,
    kind: str,
    tokens: float,
    d_in: float,
    d_out: float,
    p: Precisions,
    params: float,
    bias: float = 0.0,
    kv_out: bool = False,
) -> Op:
    """X(tokens x d_in) @ W(d_in x d_out) with its own weight, activation and KV precisions."""
    flops = ops.linear(1, d_in, d_out).flops * tokens  # 2 FLOPs per multiply-add
    weights = (d_in * d_out + bias) * p.w
    x_in, y_out = tokens * d_in * p.a, tokens * d_out * (p.kv_bytes_per_element if kv_out else p.a)
    cost = ops.Cost(flops, weights + x_in + y_out, name)
    kv_write = y_out if kv_out else 0.0
    return Op(name, kind, cost, 1, weights, 0.0, kv_write, params, 0.0 if kv_out else y_out)


def _pointwise(
    name: str, kind: str, n: float, n_in: int, flops: float, p: Precisions, params: float = 0.0
) -> Op:
    """An elementwise op over n elements of activations (norm weights count as weights)."""
    base = ops.elementwise(n, n_in, 1, flops, p.a, name)
    weights = params * p.w
    cost = ops.Cost(base.flops, base.bytes + weights, name)
    return Op(name, kind, cost, 1, weights, params=params, output=n * p.a)


def pairs(q: int, kv: int, causal: bool, window: int | None) -> float:
    """(query, key) pairs one sequence's attention scores: causal and windowed as asked."""
    w = kv if window is None else min(window, kv)
    if not causal:
        return q * w
    # Query i (1-based, the last q of kv positions) sees min(i + kv - q, w) keys.
    first = kv - q + 1
    full = max(0, min(kv, w) - first + 1)  # queries that see all their prefix (<= w keys)
    ramp = full * (first + first + full - 1) / 2
    return ramp + (q - full) * w


def kv_heads_per_gpu(model: Model, tp: int) -> float:
    """KV heads each GPU holds: split t ways, but never fewer than one (replicated past that)."""
    return max(model.kv_heads / tp, 1.0)


def attention_ops(model: Model, s: Pass, p: Precisions, window: int | None) -> list[Op]:
    """Scores, softmax and context over the KV cache; fused keeps the scores on chip."""
    heads, kv_heads, d = model.heads / s.tp, kv_heads_per_gpu(model, s.tp), model.head_dim
    w = s.kv if window is None else min(window, s.kv)
    q_bytes = s.tokens * heads * d * p.a
    kv_bytes = s.batch * w * 2 * kv_heads * d * (p.kv_bytes_per_element if s.cache else p.a)
    kv_read = kv_bytes if s.cache else 0.0
    if s.fused:  # FlashAttention: skips masked blocks, the scores never leave the chip
        n = s.batch * heads * pairs(s.q, s.kv, s.causal, window)
        cost = ops.Cost(4 * n * d + SOFTMAX_FLOPS * n, 2 * q_bytes + kv_bytes, "attention")
        return [Op("attention", "attention", cost, kv_read=kv_read, output=q_bytes)]
    n = s.batch * heads * s.q * s.kv  # unfused: the full (masked) q x kv score matrix
    scores, half_kv = n * p.a, kv_bytes / 2  # K for the scores, V for the context
    qk = ops.Cost(2 * n * d, q_bytes + half_kv + scores, "attention scores QKᵀ")
    softmax = ops.Cost(SOFTMAX_FLOPS * n, 2 * scores, "softmax")
    pv = ops.Cost(2 * n * d, scores + half_kv + q_bytes, "attention context PV")
    return [
        Op(qk.name, "attention", qk, kv_read=kv_read / 2, output=scores),
        Op(softmax.name, "attention", softmax, output=scores),
        Op(pv.name, "attention", pv, kv_read=kv_read / 2, output=q_bytes),
    ]


def _mlp(
    model: Model,
    tokens: float,
    p: Precisions,
    tp: int,
    inter: float,
    prefix: str,
    copies: float = 1.0,
    read: float = 1.0,
) -> list[Op]:
    """Up (gate + up when gated), activation, down: `copies` experts stored, `read` of them read."""
    h, i, gates = model.hidden, inter / tp, 2 if model.gated_mlp else 1
    up = _linear(
        f"{prefix} gate+up" if gates == 2 else f"{prefix} up",
        "mlp",
        tokens,
        h,
        gates * i,
        p,
        copies * gates * h * inter,
    )
    act = _pointwise(f"{prefix} activation", "mlp", tokens * i, gates, ACT_FLOPS + gates - 1, p)
    down = _linear(f"{prefix} down", "mlp", tokens, i, h, p, copies * inter * h)
    return [_read_weights(up, read), act, _read_weights(down, read)]


def _read_weights(op: Op, experts_read: float) -> Op:
    """op with its weight bytes scaled to the number of expert matrices actually read."""
    extra = op.weights * (experts_read - 1)
    cost = ops.Cost(op.cost.flops, op.cost.bytes + extra, op.name)
    return replace(op, cost=cost, weights=op.weights + extra)


def experts_touched(experts: int, per_token: int, tokens: float) -> float:
    """Expected distinct experts `tokens` routed tokens visit: E·(1 − (1 − k/E)^T)."""
    return experts * (1 - (1 - per_token / experts) ** tokens)


def mlp_ops(model: Model, s: Pass, p: Precisions) -> list[Op]:
    """A dense MLP, or a router plus the routed experts (and any shared experts)."""
    if not model.is_moe:
        return _mlp(model, s.tokens, p, s.tp, model.intermediate, "mlp")
    e, k, h = model.experts, model.experts_per_token, model.hidden
    router = _linear("router", "mlp", s.tokens, h, e, p, h * e)
    touched = experts_touched(e, k, s.tokens)
    routed = _mlp(model, s.tokens * k, p, s.tp, model.expert_width, "experts", e, touched)
    combine = _pointwise("experts combine", "mlp", s.tokens * h, k, k, p)
    width = model.intermediate * model.shared_experts  # each shared expert `intermediate` wide
    shared = _mlp(model, s.tokens, p, s.tp, width, "shared experts") if width else []
    return [router, *routed, combine, *shared]


def layer_ops(model: Model, s: Pass, p: Precisions, window: int | None = None) -> list[Op]:
    """One transformer layer's ops on one GPU, in execution order."""
    h, d, t = model.hidden, model.head_dim, s.tokens
    heads, kv_heads = model.heads / s.tp, kv_heads_per_gpu(model, s.tp)
    b = 1 if model.attention_bias else 0  # q/k/v biases: one per output feature
    q_params, kv_params = (h + b) * model.heads * d, (h + b) * model.kv_heads * d
    return [
        norm_op("attention norm", t * h, h, p),
        _linear("q proj", "projection", t, h, heads * d, p, q_params, b * heads * d),
        _linear(
            "k proj",
            "projection",
            t,
            h,
            kv_heads * d,
            p,
            kv_params,
            b * kv_heads * d,
            kv_out=s.cache,
        ),
        _linear(
            "v proj",
            "projection",
            t,
            h,
            kv_heads * d,
            p,
            kv_params,
            b * kv_heads * d,
            kv_out=s.cache,
        ),
        *attention_ops(model, s, p, window),
        _linear("o proj", "projection", t, heads * d, h, p, model.heads * d * h),
        ops_residual(t * h, p),
        norm_op("mlp norm", t * h, h, p),
        *mlp_ops(model, s, p),
        ops_residual(t * h, p),
    ]


def ops_residual(n: float, p: Precisions) -> Op:
    """x + f(x): ops.elementwise_add at the activation precision."""
    cost = ops.elementwise_add(n, p.a)
    return Op(
        "residual add", "residual", ops.Cost(cost.flops, cost.bytes, "residual add"), output=n * p.a
    )


def norm_op(name: str, n: float, hidden: int, p: Precisions) -> Op:
    """An RMSNorm over n elements with `hidden` weights."""
    return _pointwise(name, "norm", n, 1, NORM_FLOPS, p, hidden)


def layer_groups(model: Model) -> list[tuple[int, int | None]]:
    """(layers, window) groups: the windowed layers, then the full-attention ones."""
    groups = [
        (model.window_layers, model.sliding_window),
        (model.layers - model.window_layers, None),
    ]
    return [(n, w) for n, w in groups if n]


def embedding_op(model: Model, tokens: float, p: Precisions, tp: int) -> Op:
    """The embedding read: the whole table (vocab split over the TP group), once per pass.

    The standard accounting reads every weight once per pass; a gather touches only the
    pass's rows, so for a small batch this is an upper bound by the table's share. A tied
    table is the lm_head's weight and is counted there.
    """
    h = model.hidden
    params = 0.0 if model.tied_embeddings else model.vocab * h
    weights, out = params / tp * p.w, tokens * h * p.a
    cost = ops.Cost(0.0, weights + out, "embedding read")
    return Op("embedding read", "embedding", cost, 1, weights, params=params, output=out)


def head_ops(model: Model, rows: float, p: Precisions, tp: int) -> list[Op]:
    """Final norm and lm_head over `rows` positions (vocab split over the TP group)."""
    h = model.hidden
    head = _linear("lm_head", "lm_head", rows, h, model.vocab / tp, p, model.vocab * h)
    return [norm_op("final norm", rows * h, h, p), head]


def model_ops(model: Model, s: Pass, p: Precisions, head_rows: float) -> list[Op]:
    """The whole model as ops: embedding, every layer (grouped by window), final norm, lm_head."""
    mixed = model.window_layers != model.layers
    groups = [(n, _named(layer_ops(model, s, p, w), w, mixed)) for n, w in layer_groups(model)]
    layers = [replace(op, count=n) for n, layer in groups for op in layer]
    return [embedding_op(model, s.tokens, p, s.tp), *layers, *head_ops(model, head_rows, p, s.tp)]


def _named(layer: list[Op], window: int | None, mixed: bool) -> list[Op]:
    """The attention ops of windowed layers say so when the model mixes window and full layers."""
    if window is None or not mixed:
        return layer
    tag = f" (window {window:,})"
    return [replace(op, name=op.name + tag) if op.kind == "attention" else op for op in layer]
