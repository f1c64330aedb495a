"""The collectives of one training step for a layout, each placed by perfcore.model.llm.parallel,
and the part of each that no compute can hide.

TP with sequence parallelism: per layer forward 2 all-gathers + 2 reduce-scatters of the
micro-batch's activations (the bytes of 2 all-reduces); backward the same; full
recomputation once more. CP (ring attention): each layer's K and V chunk passed cp - 1 times
forward, K, V and their gradients backward. EP: an all-to-all to dispatch and one to combine
per MoE layer, forward and backward. PP: one activation forward and one gradient back per
micro-batch and model chunk (1/t of it: scattered over the TP group). DP over dp x cp ranks:
ZeRO-0 all-reduces the gradients once; ZeRO-1 reduce-scatters them once and all-gathers the
weights; ZeRO-2 reduce-scatters after every micro-batch's backward (sharded gradients cannot
accumulate); ZeRO-3 also gathers the weights forward and backward every micro-batch.

One overlap rule (docs/plans.md, "What overlaps"): a collective costs max(0, its time - the
compute it runs beside) — TP and EP beside the layers' GEMMs, CP beside attention, PP's
steady-state sends beside the step (its warm-up and cool-down sends exposed), DP's gradient
reduce beside the backward passes it follows (its last bucket exposed), ZeRO's weight gathers
beside the forward (and backward) passes that need them.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.model.llm import parallel
from perfcore.model.llm.parallel import TP_COMM_FACTOR
from perfcore.model.plans.layout import stage_layers
from perfcore.model.plans.train_cost import ACT_BYTES, REDUCE_BYTES, WEIGHT_BYTES

# Parameters per gradient bucket: Megatron's DDP default (at least 40M; ddp_bucket_size).
# The last bucket's reduce starts when the backward has ended, so nothing hides it.
BUCKET_PARAMS = 40e6


@dataclass(frozen=True)
class Windows:
    """Seconds of the step's compute each collective can run beside (one GPU)."""

    compute: float  # the whole step's math
    gemms: float  # the layers' GEMMs (TP's and EP's neighbours)
    attention: float  # the attention core (CP's ring passes)
    forward: float  # every forward pass (ZeRO-3's forward gathers)
    m: int  # micro-batches

    @property
    def backward(self) -> float:
        """Every backward pass (recomputation included)."""
        return self.compute - self.forward


def exposed(comm_s: float, window_s: float) -> float:
    """What of `comm_s` cannot run beside `window_s` of compute: max(0, comm - window)."""
    return max(0.0, comm_s - window_s)


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


def pp_hop_seconds(t, layout) -> float:
    """One send between neighbouring stages: a micro-batch's activations (or gradient) / t."""
    act = layout.micro_batch * t.seq / layout.cp * t.model.hidden * ACT_BYTES / layout.tp
    return hop_seconds(t, act, layout.pp, layout.tp * layout.cp * layout.dp)


def pp_sends(t, layout, m: int) -> tuple[float, float]:
    """(seconds of the warm-up and cool-down sends, of all the step's sends) on one GPU: 2 per
    micro-batch and chunk, 2 (p - 1) of them at the pipeline's edges."""
    if layout.pp < 2:
        return 0.0, 0.0
    hop = pp_hop_seconds(t, layout)
    return 2 * (layout.pp - 1) * hop, 2 * m * layout.interleave * hop


def pp_exposed(sends: tuple[float, float], window_s: float) -> float:
    """The exposed part of the step's sends (pp_sends).

    1F1B's warm-up takes the first micro-batch through p - 1 sends to the last stage and its
    cool-down the last gradient back through p - 1, with nothing to compute meanwhile; every
    other send runs beside a forward or backward (batched isend/irecv; Megatron's
    --overlap-p2p-comm), so it costs only what the step's compute cannot cover.
    """
    edges, every = sends
    return edges + exposed(every - edges, window_s)


def dp_parts(t, layout, m: int, params: tuple[float, float]) -> dict[str, float]:
    """Seconds of the step's DP collectives on one GPU by the pass they follow or feed:
    gradient reduces after the last backward ("last") or every backward ("backward"), weight
    gathers before the first forward ("first") or every forward ("forward"), and the last
    gradient bucket's reduce ("bucket")."""
    ranks = layout.dp * layout.cp
    dense, experts = params
    groups = ((dense / layout.tp, ranks), (experts / (layout.tp * layout.ep), ranks // layout.ep))
    out = dict.fromkeys(("last", "backward", "first", "forward", "bucket"), 0.0)
    for local, n in groups:
        if n < 2 or not local:
            continue
        reduce = "all-reduce" if layout.zero == 0 else "reduce-scatter"
        rs = seconds(t, reduce, local * REDUCE_BYTES, n, stride=layout.tp)
        ag = seconds(t, "all-gather", local * WEIGHT_BYTES, n, stride=layout.tp)
        bucket = min(local, BUCKET_PARAMS) * REDUCE_BYTES
        out["bucket"] = max(out["bucket"], seconds(t, reduce, bucket, n, stride=layout.tp))
        if layout.zero < 2:
            out["last"] += rs
        else:
            out["backward"] += m * (rs + ag * (layout.zero == 3))
        if layout.zero == 3:
            out["forward"] += m * ag
        elif layout.zero:
            out["first"] += ag
    return out


def dp_exposed(parts: dict[str, float], w: Windows) -> float:
    """The DP time no pass hides: gradient reduces beside the backward passes they follow
    (at least the last bucket's), weight gathers beside the forward passes that need them."""
    grads = exposed(parts["last"], w.backward / w.m) + exposed(parts["backward"], w.backward)
    grads = max(grads, parts["bucket"])
    return grads + exposed(parts["first"], w.forward / w.m) + exposed(parts["forward"], w.forward)


def comm_seconds(t, layout, w: Windows) -> tuple[dict[str, float], dict[str, float]]:
    """Every collective of the step, seconds on one GPU: (what is left exposed, the whole),
    each by part (tp, cp, ep, pp_p2p, dp)."""
    dp = dp_parts(t, layout, w.m, t.stage_params(layout.pp))
    tp, cp, ep = (f(t, layout, w.m) for f in (tp_seconds, cp_seconds, ep_seconds))
    sends = pp_sends(t, layout, w.m)
    whole = {"tp": tp, "cp": cp, "ep": ep, "pp_p2p": sends[1]}
    whole["dp"] = sum(v for k, v in dp.items() if k != "bucket")
    left = {
        "tp": exposed(tp, w.gemms),
        "cp": exposed(cp, w.attention),
        "ep": exposed(ep, w.gemms),
        "pp_p2p": pp_exposed(sends, w.compute),
        "dp": dp_exposed(dp, w),
    }
    return left, whole
