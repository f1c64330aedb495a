"""The collectives of one training step for a layout, each placed by perfcore.model.llm.parallel.

TP with sequence parallelism: per layer forward 2 all-gathers + 2 reduce-scatters of the
micro-batch's activations (the bytes of 2 all-reduces); backward the same; full
recomputation once more. CP (ring attention): each layer's K and V chunk passed cp - 1 times
forward, K, V and their gradients backward. EP: an all-to-all to dispatch and one to combine
per MoE layer, forward and backward. PP: one activation forward and one gradient back per
micro-batch and model chunk (1/t of it: scattered over the TP group). DP: the gradient
reduce over dp x cp ranks (ZeRO 1/2: reduce-scatter + all-gather of weights; ZeRO-3: weights
gathered forward and backward and gradients reduce-scattered every micro-batch).
"""

from __future__ import annotations

from perfcore.model.llm import parallel
from perfcore.model.llm.parallel import TP_COMM_FACTOR
from perfcore.model.plans.layout import stage_layers
from perfcore.model.plans.train_cost import ACT_BYTES, GRAD_BYTES, WEIGHT_BYTES, forward


def seconds(t, collective: str, n_bytes: float, ranks: int, stride: int = 1) -> float:
    """parallel.seconds on the training's device, once per distinct collective."""
    key = (collective, n_bytes, ranks, stride)
    return t.once(key, lambda: parallel.seconds(t.device, collective, n_bytes, ranks, stride))


def hop_seconds(t, n_bytes: float, ranks: int, stride: int = 1) -> float:
    """parallel.hop_seconds on the training's device, once per distinct hop."""
    key = ("hop", n_bytes, ranks, stride)
    return t.once(key, lambda: parallel.hop_seconds(t.device, n_bytes, ranks, stride))


def tp_seconds(t, layout, m: int) -> float:
    """All TP collectives of the step on one GPU."""
    if layout.tp < 2:
        return 0.0
    buffer = layout.micro_batch * t.seq / layout.cp * t.model.hidden * ACT_BYTES
    pair = sum(seconds(t, c, buffer, layout.tp) for c in ("all-gather", "reduce-scatter"))
    per_layer = 2 * pair * TP_COMM_FACTOR[layout.recompute]
    return m * stage_layers(t.model.layers, layout.pp) * per_layer


def cp_seconds(t, layout, m: int) -> float:
    """Ring-attention KV passes of the step on one GPU (forward 1, backward 2, recompute +1)."""
    c = layout.cp
    if c < 2:
        return 0.0
    kv_heads = max(t.model.kv_heads / layout.tp, 1.0)
    chunk = layout.micro_batch * t.seq / c * 2 * kv_heads * t.model.head_dim * ACT_BYTES
    passes = 3 + (layout.recompute != "none")
    hop = hop_seconds(t, chunk, c, stride=layout.tp)
    return m * stage_layers(t.model.layers, layout.pp) * passes * (c - 1) * hop


def ep_seconds(t, layout, m: int) -> float:
    """MoE dispatch and combine all-to-alls of the step on one GPU (x2 forward, x2 backward)."""
    if layout.ep < 2:
        return 0.0
    tokens = layout.micro_batch * t.seq / (layout.cp * layout.tp)
    buffer = tokens * t.model.experts_per_token * t.model.hidden * ACT_BYTES
    one = seconds(t, "all-to-all", buffer, layout.ep, stride=layout.tp * layout.cp)
    calls = 4 + 2 * (layout.recompute == "full")
    return m * stage_layers(t.model.layers, layout.pp) * calls * one


def pp_seconds(t, layout, m: int) -> float:
    """Sends between stages of the step on one GPU: 2 per micro-batch and model chunk."""
    if layout.pp < 2:
        return 0.0
    act = layout.micro_batch * t.seq / layout.cp * t.model.hidden * ACT_BYTES / layout.tp
    stride = layout.tp * layout.cp * layout.dp
    return 2 * m * layout.interleave * hop_seconds(t, act, layout.pp, stride)


def dp_seconds(t, layout, m: int, params: tuple[float, float]) -> float:
    """The gradient reduce (and ZeRO's weight gathers) of the step on one GPU."""
    ranks = layout.dp * layout.cp
    dense, experts = params
    groups = ((dense / layout.tp, ranks), (experts / (layout.tp * layout.ep), ranks // layout.ep))
    total = 0.0
    for local, n in groups:
        if n < 2 or not local:
            continue
        grads, weights = local * GRAD_BYTES, local * WEIGHT_BYTES
        if layout.zero == 0:
            total += seconds(t, "all-reduce", grads, n, stride=layout.tp)
            continue
        rs = seconds(t, "reduce-scatter", grads, n, stride=layout.tp)
        ag = seconds(t, "all-gather", weights, n, stride=layout.tp)
        total += m * (rs + 2 * ag) if layout.zero == 3 else rs + ag
    return total


def comm_seconds(t, layout, m: int, compute_s: float) -> dict[str, float]:
    """Every communication time of the step, and the gradient reduce left exposed."""
    dp = dp_seconds(t, layout, m, t.stage_params(layout.pp))
    f = t.once(("forward",), lambda: forward(t.model, t.seq))
    attention = compute_s * f.attention / f.total  # CP's passes hide behind attention's math
    backward = compute_s / m * 2 / 3  # the last micro-batch's backward hides the reduce
    window = compute_s if layout.zero == 3 else backward
    cp = cp_seconds(t, layout, m)
    return {
        "tp": tp_seconds(t, layout, m),
        "cp": max(0.0, cp - attention),
        "ep": ep_seconds(t, layout, m),
        "pp_p2p": pp_seconds(t, layout, m),
        "dp": dp,
        "dp_exposed": max(0.0, dp - window),
    }
