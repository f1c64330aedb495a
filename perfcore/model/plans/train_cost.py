"""A training step's FLOPs and memory per GPU, in closed form (FLOPs, not MACs; bytes).

FLOPs per token forward: 2 per weight of the layers (experts: the routed ones only) and of
lm_head, plus attention 4 x heads x head_dim per (query, key) pair (causal: the pairs under
the mask). Model FLOPs (MFU) = 3 x forward = 6N + attention; recomputation adds the forward
of the layers again (full) or of the attention core (selective) to the hardware's FLOPs.
Memory (bytes): mixed-precision Adam, 2 bytes of weights + 4 of fp32 main gradients (2 with
bf16 accumulation) + 12 of fp32 master, momentum and variance per parameter (Rajbhandari et
al. 2020; Megatron's fp32 main grads) split by the ZeRO stage; activations per layer after
Korthikanti et al. 2022 (16-bit, sequence parallel with TP), attention fused by default
(FlashAttention keeps its output and log-sum-exp, not the s x s scores); the loss's fp32
logits on the last stage; RESERVE_BYTES that no layout can use.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.model.llm.workloads import layer_groups, pairs
from perfcore.model.plans.layout import Layout, stage_layers

WEIGHT_BYTES, ADAM_BYTES = 2, 12  # per parameter (ZeRO paper, K = 12)
# Gradient bytes per parameter held, by accumulation: Megatron keeps fp32 main grads with bf16
# ("bfloat16 requires gradient accumulation and all-reduce to be done in fp32",
# megatron/training/arguments.py); "bf16" is the option of accumulating in 16 bits.
GRAD_BYTES = {"fp32": 4, "bf16": 2}
# The attention kernel a step runs (Training.attention_kernel): the device generation's own
# fused kernel (cuDNN's or FlashAttention-3 on a Hopper, FlashAttention-2 on an Ampere), or
# one written for Ampere (FlashAttention-1/2, PyTorch SDPA's flash backend, Triton's), which
# a Hopper runs further from its peak (sample.attention_slowdown; docs/plans.md).
ATTENTION_KERNELS = ("fused", "flash2")
REDUCE_BYTES = 2  # gradient bytes on the DP wire: bf16, the least any framework sends
ACT_BYTES = 2  # 16-bit activations and TP/PP/CP traffic (FP8 runs the matmuls, not the wire)
LOGIT_BYTES = 4  # fp32 logits the fused cross-entropy keeps for its backward (Megatron)
LSE_BYTES = 4  # fp32 log-sum-exp per query and head FlashAttention keeps for its backward
# Bytes per GPU no layout can use: the CUDA context and kernels (~0.5-1 GiB), NCCL's buffers
# and communicators (~1-2 GiB at the sizes of these groups), the caching allocator's
# fragmentation (a few %). docs/plans.md, "Memory per GPU".
RESERVE_BYTES = 4 * 2**30


@dataclass(frozen=True)
class Forward:
    """Forward FLOPs per token of the whole model, split by what they are."""

    layers: float  # q/k/v/o, MLP or routed experts, router (2 per weight)
    attention: float  # QKᵀ and PV: 4 x heads x head_dim per pair
    head: float  # lm_head: 2 x vocab x hidden

    @property
    def total(self) -> float:
        """All forward FLOPs per token."""
        return self.layers + self.attention + self.head


def forward(model, seq: int, causal: bool = True) -> Forward:
    """Forward FLOPs per token over sequences of `seq` tokens (windowed layers see their window)."""
    per_layer = model.layer_params(model.experts_per_token) - 2 * model.hidden  # norms aside
    keys = sum(n * pairs(seq, seq, causal, w) for n, w in layer_groups(model)) / seq
    attention = 4 * model.heads * model.head_dim * keys
    return Forward(2 * model.layers * per_layer, attention, 2 * model.vocab * model.hidden)


def model_flops_per_token(model, seq: int, causal: bool = True) -> float:
    """MFU's numerator per token: 3 x forward (6N + attention), recomputation not counted."""
    return 3 * forward(model, seq, causal).total


def hardware_flops(model, seq: int, recompute: str, causal: bool = True) -> Forward:
    """FLOPs the GPUs run per token by part: 3 x forward plus what recomputation runs again
    (full: the layers and attention; selective: the attention core)."""
    f = forward(model, seq, causal)
    layers = (3 + (recompute == "full")) * f.layers
    attention = (3 + (recompute != "none")) * f.attention
    return Forward(layers, attention, 3 * f.head)


def hardware_flops_per_token(model, seq: int, recompute: str, causal: bool = True) -> float:
    """FLOPs the GPUs run per token: model FLOPs plus what recomputation runs again."""
    return hardware_flops(model, seq, recompute, causal).total


def stage_flops(model, seq: int, recompute: str, pp: int) -> Forward:
    """Hardware FLOPs per token of the slowest stage x pp by part: the layers' and attention's
    scaled by ceil(L/p) x p / L (1 when p divides L), lm_head's as it is (spread over the step)."""
    f = hardware_flops(model, seq, recompute)
    imbalance = stage_layers(model.layers, pp) * pp / model.layers
    return Forward(f.layers * imbalance, f.attention * imbalance, f.head)


# Bytes per element an FP8 GEMM's input costs to prepare: read at 16 bits, written in FP8 and
# in FP8 transposed for the weight gradient (Transformer Engine's fused cast-transpose).
FP8_CAST_BYTES = ACT_BYTES + 1 + 1


def elementwise_bytes(model, recompute: str, fp8: bool = False) -> float:
    """Bytes per token the layers' memory-bound math moves through HBM in one training step:
    the operators between the GEMMs, none of whose FLOPs the bound counts.

    Per layer, in elements of ACT_BYTES: forward, 2 norms (read h, write h) and 2 residual
    adds (read 2h, write h), the MLP's activation (read its up projection u, 2f gated or f,
    write f): 10h + u + f; backward, each reads its saved input(s) and output gradient and
    writes its input gradient: norms and adds 3h each, the activation f + 2u: 12h + f + 2u.
    Full recomputation runs the forward's again. FP8 adds FP8_CAST_BYTES per element of each
    GEMM's 16-bit input, forward (QKV h, O q, up h, down f) and backward (the output
    gradients: QKV q + 2k, O h, up u, down h). q = heads x head_dim, k = kv_heads x head_dim,
    f = experts_per_token x expert_width; RoPE, dropout and the embedding aside.
    Operators costed by their bytes at the memory bandwidth: Isaev et al. 2023 (Calculon);
    Ivanov et al. 2021 ("Data movement is all you need") measured a PyTorch BERT-large step's
    non-contraction operators at 39 % of its time for 0.2 % of its FLOPs.
    """
    h, d = model.hidden, model.head_dim
    q, k = model.heads * d, model.kv_heads * d
    f = model.experts_per_token * model.expert_width
    u = 2 * f if model.gated_mlp else f
    fwd, bwd = 10 * h + u + f, 12 * h + f + 2 * u
    per_layer = (fwd * (1 + (recompute == "full")) + bwd) * ACT_BYTES
    if fp8:
        per_layer += FP8_CAST_BYTES * ((2 * h + q + f) + (2 * h + q + 2 * k + u))
    return model.layers * per_layer


def megatron_flops_per_iteration(batch: int, seq: int, layers: int, hidden: int, vocab: int):
    """Narayanan et al. 2021, eq. 3 (GPT, full recomputation): 96 B s l h² (1 + s/6h + V/16lh)."""
    b, s, n, h, v = batch, seq, layers, hidden, vocab
    return 96 * b * s * n * h**2 * (1 + s / (6 * h) + v / (16 * n * h))


def stage_params(model, pp: int) -> tuple[float, float]:
    """(dense, routed-expert) parameters of the fullest pipeline stage, before any split.

    One stage holds everything at p = 1; otherwise the fullest holds ceil(L/p) layers and
    one vocabulary table (the first stage's embedding or the last's lm_head).
    """
    dense_layer = model.layer_params(0 if model.is_moe else 1)  # all but the routed experts
    expert_layer = model.layer_params(model.experts) - dense_layer
    layers = stage_layers(model.layers, pp)
    table = model.embedding_params() + model.hidden if pp == 1 else model.vocab * model.hidden
    return layers * dense_layer + table, layers * expert_layer


def bubble_fraction(pp: int, micro_batches: int, interleave: int = 1) -> float:
    """Share of a 1F1B step idle in the bubble: ((p-1)/v) / (m + (p-1)/v); 0 at p = 1."""
    idle = (pp - 1) / interleave
    return idle / (micro_batches + idle)


def state_bytes(
    params: float, zero: int, shards: int, grad_bytes: float = GRAD_BYTES["fp32"]
) -> dict[str, float]:
    """Weights, gradients and Adam states of `params` parameters, ZeRO-`zero` over `shards`,
    `grad_bytes` per gradient."""
    split = [1 / shards if zero >= stage else 1.0 for stage in (3, 2, 1)]
    sizes = (WEIGHT_BYTES, grad_bytes, ADAM_BYTES)
    w, g, o = (params * b * s for b, s in zip(sizes, split, strict=True))
    return {"weights": w, "gradients": g, "optimizer": o}


# Layers whose weights ZeRO-3 holds whole at once: the one computing and the one prefetched
# (PyTorch FSDP's forward and backward prefetch issue one unit ahead; DeepSpeed bounds the same
# with stage3_max_live_parameters).
GATHERED_LAYERS = 2


def gathered_bytes(model, layout: Layout) -> dict[str, float]:
    """What ZeRO-3 holds unsharded beside its shards, per GPU: GATHERED_LAYERS layers' 16-bit
    weights and the computed layer's gradient until its reduce-scatter sends it (REDUCE_BYTES),
    a layer's dense weights / t and its routed experts / (t x ep); nothing below ZeRO-3."""
    if layout.zero < 3 or layout.dp * layout.cp < 2:
        return {"weights": 0.0, "gradients": 0.0}
    dense = model.layer_params(0 if model.is_moe else 1)
    layer = dense / layout.tp + (model.layer_params(model.experts) - dense) / (
        layout.tp * layout.ep
    )
    return {"weights": GATHERED_LAYERS * layer * WEIGHT_BYTES, "gradients": layer * REDUCE_BYTES}


MASK_BYTES = 1  # a dropout mask per element (Korthikanti et al. 2022, section 4.1)


def kept_bytes_per_token(model, dropout: bool = False) -> float:
    """Bytes one layer keeps per token for its backward, the attention core aside (Korthikanti
    et al. 2022, section 4.1, tensor by tensor at the model's own widths, 16-bit): each norm's
    input (2 x 2h); attention's input, Q, K, V and the output projection's input
    (2 (h + 2 q + 2 kv), q = heads x head_dim, kv = kv_heads x head_dim); the MLP's input 2h
    and its up projection's outputs (gated: the gate's and the up's) and the activation's output,
    2 f each, for the MLP, each shared expert and each routed expert a token goes to (which
    keeps its own copy of the input, 2h); with dropout, a 1-byte mask after attention and after
    the MLP. GPT's layer (MHA, a 4h GELU MLP, dropout) keeps 34h, the paper's figure.
    """
    h = model.hidden
    q, kv = model.heads * model.head_dim, model.kv_heads * model.head_dim
    attention = ACT_BYTES * (h + 2 * q + 2 * kv)

    def mlp(width: int) -> float:
        return ACT_BYTES * model.mlp_matrices * width  # up outputs (1 or 2) + activation's

    routed = model.experts_per_token * (ACT_BYTES * h + mlp(model.expert_width))
    experts = routed if model.is_moe else mlp(model.intermediate)
    mlps = ACT_BYTES * h + experts + model.shared_experts * mlp(model.intermediate)
    masks = 2 * MASK_BYTES * h if dropout else 0
    return 2 * ACT_BYTES * h + attention + mlps + masks


def activation_bytes_per_layer(
    model, layout: Layout, seq: int, fused: bool = True, dropout: bool = False
) -> float:
    """Per layer and micro-batch, sequence parallel over t (Korthikanti et al. 2022).

    selective: kept_bytes_per_token x s b / t (34 s b h / t for GPT); full: the layer's input,
    2 s b h / t; none: selective's and the attention core's, fused (FlashAttention) the fp32
    log-sum-exp, 4 a s b / t, or unfused the softmax's output, 2 a s² b / t (with dropout also
    its mask and the masked output: 5 a s² b / t). With context parallelism each GPU keeps
    s / cp of the sequence (its scores: s / cp rows of s keys).
    """
    b, h, t, a = layout.micro_batch, model.hidden, layout.tp, model.heads
    s_local = seq / layout.cp
    if layout.recompute == "full":
        return ACT_BYTES * s_local * b * h / t
    kept = kept_bytes_per_token(model, dropout) * s_local * b / t
    if layout.recompute == "selective":
        return kept
    scores = (ACT_BYTES + (MASK_BYTES + ACT_BYTES) * dropout) * a * s_local * seq * b
    attention = LSE_BYTES * a * s_local * b if fused else scores
    return kept + attention / t


def logits_bytes(model, layout: Layout, seq: int) -> float:
    """The last stage's fp32 logits of one micro-batch, vocabulary split over t: s b V 4 / t."""
    return layout.micro_batch * seq / layout.cp * model.vocab * LOGIT_BYTES / layout.tp


def in_flight(layout: Layout, micro_batches: int) -> float:
    """Micro-batches whose activations the first stage holds at once under 1F1B.

    min(m, p); interleaved, x (1 + (p-1)/(p v)) (Korthikanti et al. 2022, section 4.2.3).
    """
    p, v = layout.pp, layout.interleave
    held = min(micro_batches, p)
    return held * (1 + (p - 1) / (p * v)) if v > 1 else held
