"""One training step priced for a layout: time by what it waits on, memory per GPU, MFU.

step = compute + optimizer + PP bubble + what of each collective (TP, CP, EP, PP sends, DP and
ZeRO) no compute hides (train_comm's one overlap rule). Compute is the hardware FLOPs at the
device's peak (a bound: no kernel is slower than its roofline); every collective is placed
and priced by perfcore.model.llm.parallel. Memory: the fuller of the first stage (the most
micro-batches in flight) and the last (its logits), within the capacity less RESERVE_BYTES.
Conventions and what is left out: docs/plans.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from perfcore.errors import NotPublished
from perfcore.model.chip.specs import Device
from perfcore.model.llm.model import Model
from perfcore.model.plans import train_cost as tc
from perfcore.model.plans.layout import (
    Layout,
    LayoutError,
    bubble_stages,
    checked,
    micro_batches,
    stage_layers,
)
from perfcore.model.plans.train_comm import Windows, comm_seconds

TRAIN_PRECISIONS = ("bf16", "fp16", "fp8")
SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True)
class Training:
    """What to train: a model on `gpus` GPUs, global_batch_tokens per step of `seq` tokens."""

    model: Model
    device: Device
    gpus: int
    seq: int
    global_batch_tokens: int
    precision: str = "bf16"
    tokens: float | None = None  # the whole run, for days, GPU-hours and energy
    fused_attention: bool = True  # FlashAttention: no s x s scores kept (train_cost)
    grad_accum: str = "fp32"  # main gradients in fp32 (Megatron's default) or "bf16"
    dropout: bool = False  # dropout masks kept (Megatron's GPT default); Llama, MPT train without
    attention_kernel: str = "fused"  # train_cost.ATTENTION_KERNELS: what the expected figure
    # prices the attention core at (the bound prices every kernel at the peak)
    memo: dict = field(default_factory=dict, compare=False, repr=False)  # see once()

    def __post_init__(self) -> None:
        """LayoutError naming the setting that cannot be trained."""
        if self.precision not in TRAIN_PRECISIONS:
            raise LayoutError(
                "precision", self.precision, f"is not one of {', '.join(TRAIN_PRECISIONS)}"
            )
        if self.device.peak_flops(self.precision) is None:
            raise LayoutError(
                "precision", self.precision, f"has no published peak on {self.device.name}"
            )
        if self.grad_accum not in tc.GRAD_BYTES:
            raise LayoutError(
                "grad_accum", self.grad_accum, f"is not one of {', '.join(tc.GRAD_BYTES)}"
            )
        if self.attention_kernel not in tc.ATTENTION_KERNELS:
            raise LayoutError(
                "attention_kernel",
                self.attention_kernel,
                f"is not one of {', '.join(tc.ATTENTION_KERNELS)}",
            )
        if self.global_batch_tokens % self.seq:
            raise LayoutError(
                "global_batch_tokens",
                self.global_batch_tokens,
                f"is not a whole number of {self.seq:,}-token sequences",
            )

    def once(self, key: tuple, compute: Callable[[], float]):
        """compute() the first time `key` is asked for; its value after (a search asks for
        the same collectives and shares thousands of times; this training's memo only)."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def stage_params(self, pp: int) -> tuple[float, float]:
        """train_cost.stage_params of this model at pp stages."""
        return self.once(("stage", pp), lambda: tc.stage_params(self.model, pp))

    @property
    def sequences(self) -> int:
        """Sequences per step."""
        return self.global_batch_tokens // self.seq

    @property
    def peak_flops_per_s(self) -> float:
        """The device's dense peak at the training precision."""
        return self.device.peak_flops(self.precision)


@dataclass(frozen=True)
class TrainPlan:
    """A priced layout: seconds by part, bytes per GPU by part, derived rates."""

    training: Training = field(repr=False)
    layout: Layout
    time_s_by: dict  # compute, optimizer, tp, cp, ep, pp_bubble, pp_p2p, dp (exposed)
    dp_s: float  # the gradient reduce had nothing overlapped it
    memory_bytes: dict  # weights, gradients, optimizer, activations
    hidden_s_by: dict = field(default_factory=dict)  # what the overlap rule hides, by part
    bf16_s: float = 0.0  # what FP8's non-GEMM math adds at the BF16 peak (bf16_seconds)
    elementwise_s: float = 0.0  # the memory-bound math between the GEMMs (elementwise_seconds)
    attention_s: float = 0.0  # the attention core's seconds at its peak (attention_seconds)

    @property
    def step_s(self) -> float:
        """Seconds per step, the gradient reduce overlapped with the backward (the bound)."""
        return sum(self.time_s_by.values())

    @property
    def step_no_overlap_s(self) -> float:
        """Seconds per step with the gradient reduce after the backward."""
        return self.step_s - self.time_s_by["dp"] + self.dp_s

    @property
    def hidden_s(self) -> float:
        """Seconds of communication the overlap rule hides behind compute (all parts)."""
        return sum(self.hidden_s_by.values())

    @property
    def step_serial_s(self) -> float:
        """Seconds per step with every collective after the compute it could hide behind."""
        return self.step_s + self.hidden_s

    @property
    def tokens_per_s(self) -> float:
        """Training tokens per second, all GPUs."""
        return self.training.global_batch_tokens / self.step_s

    @property
    def mfu(self) -> float:
        """Model FLOPs (6N + attention per token) over peak x GPUs x step time."""
        t = self.training
        per_token = t.once(("model flops",), lambda: tc.model_flops_per_token(t.model, t.seq))
        flops = per_token * t.global_batch_tokens
        return flops / (t.peak_flops_per_s * t.gpus * self.step_s)

    @property
    def memory_total(self) -> float:
        """Bytes per GPU, all parts."""
        return sum(self.memory_bytes.values())

    @property
    def fits(self) -> bool | None:
        """Whether each GPU holds it beside the reserve; None where the capacity is unpublished."""
        return fits(self.training, self.memory_total)


def fits(t: Training, total_bytes: float) -> bool | None:
    """Whether a GPU of t holds total_bytes beside RESERVE_BYTES; None where its capacity is
    unpublished."""
    cap = t.device.memory_bytes
    return None if cap is None else total_bytes <= cap - tc.RESERVE_BYTES


def memory(t: Training, layout: Layout) -> dict[str, float]:
    """Bytes per GPU: weights, gradients, Adam states (ZeRO-split) and activations (the
    fuller of the first stage's in-flight micro-batches and the last's one plus its logits)."""
    dense, experts = t.stage_params(layout.pp)
    shards, grad = layout.dp * layout.cp, tc.GRAD_BYTES[t.grad_accum]
    parts = tc.state_bytes(dense / layout.tp, layout.zero, shards, grad)
    sharded_experts = tc.state_bytes(
        experts / (layout.tp * layout.ep), layout.zero, shards // layout.ep, grad
    )
    out = {k: parts[k] + sharded_experts[k] for k in parts}
    key = ("gathered", layout.tp, layout.ep, layout.zero == 3 and shards > 1)
    for k, v in t.once(key, lambda: tc.gathered_bytes(t.model, layout)).items():
        out[k] += v
    m = micro_batches(layout, t.sequences)
    per_layer = tc.activation_bytes_per_layer(t.model, layout, t.seq, t.fused_attention, t.dropout)
    stage = per_layer * stage_layers(t.model.layers, layout.pp)
    last = stage + tc.logits_bytes(t.model, layout, t.seq)
    out["activations"] = max(stage * tc.in_flight(layout, m), last)
    return out


def stage_flops(t: Training, recompute: str, pp: int) -> tc.Forward:
    """train_cost.stage_flops of this training (memoised)."""
    return t.once(("flops", recompute, pp), lambda: tc.stage_flops(t.model, t.seq, recompute, pp))


def compute_seconds(t: Training, layout: Layout) -> float:
    """Hardware FLOPs of the step on one GPU of the slowest stage at the device's peak."""
    per_token = stage_flops(t, layout.recompute, layout.pp).total
    return per_token * t.global_batch_tokens / t.gpus / t.peak_flops_per_s


def windows(t: Training, layout: Layout, compute_s: float, m: int) -> Windows:
    """The step's compute split by what each collective can run beside, seconds."""
    hw = stage_flops(t, layout.recompute, layout.pp)
    fwd = stage_flops(t, "none", layout.pp).total / 3
    share = compute_s / hw.total
    return Windows(compute_s, hw.layers * share, hw.attention * share, fwd * share, m)


def _past_bf16(t: Training) -> float:
    """The training peak over the BF16 peak: 2 for FP8 on a Hopper or a Blackwell, 1 at 16
    bits or where the BF16 peak is unpublished."""
    bf16 = t.device.peak_flops("bf16")
    return t.peak_flops_per_s / bf16 if t.precision == "fp8" and bf16 else 1.0


def bf16_seconds(t: Training, w: Windows) -> float:
    """Seconds an FP8 step's non-GEMM math (attention core, lm_head) adds at the BF16 peak,
    where Transformer Engine runs it (0 at 16 bits): (compute - GEMMs) x (FP8 / BF16 peak - 1)."""
    return (w.compute - w.gemms) * (_past_bf16(t) - 1)


def attention_seconds(t: Training, w: Windows) -> float:
    """The attention core's seconds at the peak it runs at: in an FP8 step the BF16 peak's
    (Transformer Engine, torchao's Float8 and llm-foundry's FP8 cast the linear layers alone;
    the core stays in 16 bits, as bf16_seconds prices it), else the training peak's."""
    return w.attention * _past_bf16(t)


def elementwise_seconds(t: Training, layout: Layout) -> float:
    """Seconds of the memory-bound math between the GEMMs on one GPU of the slowest stage:
    train_cost.elementwise_bytes at the memory bandwidth, split as the compute is (tokens over
    the GPUs, layers by the fullest stage); 0 where the bandwidth is unpublished."""
    bw = t.device.memory_bytes_per_s
    if bw is None:
        return 0.0
    key = ("elementwise", layout.recompute)
    fp8 = t.precision == "fp8"
    per_token = t.once(key, lambda: tc.elementwise_bytes(t.model, layout.recompute, fp8))
    imbalance = stage_layers(t.model.layers, layout.pp) * layout.pp / t.model.layers
    return per_token * imbalance * t.global_batch_tokens / t.gpus / bw


def optimizer_seconds(t: Training, layout: Layout) -> float:
    """Adam's update read and written once at the memory bandwidth (its states are streamed)."""
    dense, experts = t.stage_params(layout.pp)
    local = dense / layout.tp + experts / (layout.tp * layout.ep)
    if layout.zero >= 1:
        local /= layout.dp * layout.cp
    bw = t.device.memory_bytes_per_s
    if bw is None:
        raise NotPublished(t.device.name, ("memory_bytes_per_s",), "memory bandwidth")
    per_param = tc.WEIGHT_BYTES + tc.GRAD_BYTES[t.grad_accum] + tc.ADAM_BYTES
    return 2 * local * per_param / bw


def price_first_fitting(pairs: list[tuple[Training, Layout]]) -> TrainPlan:
    """The first (training, layout) of `pairs` that fits in memory, priced; the first one's
    plan when none does."""
    first = price(*pairs[0])
    plans = (price(t, lay) for t, lay in pairs[1:])
    return first if first.fits else next((p for p in plans if p.fits), first)


def price(t: Training, layout: Layout, mem: dict[str, float] | None = None) -> TrainPlan:
    """The step of `layout` (checked against the model, GPUs and batch) priced whole (mem: its
    memory(t, layout), where already known)."""
    checked(layout, t.model, t.gpus, t.seq, t.sequences)
    m = micro_batches(layout, t.sequences)
    compute = compute_seconds(t, layout)
    w = windows(t, layout, compute, m)
    left, whole = comm_seconds(t, layout, w)
    stages = bubble_stages(t.model.layers, layout.pp, layout.interleave)
    per_micro = (compute + left["tp"] + left["cp"] + left["ep"]) / m
    times = {
        "compute": compute,
        "optimizer": optimizer_seconds(t, layout),
        "tp": left["tp"],
        "cp": left["cp"],
        "ep": left["ep"],
        "pp_bubble": stages * per_micro,
        "pp_p2p": left["pp_p2p"],
        "dp": left["dp"],
    }
    hidden = {k: whole[k] - left[k] for k in whole}
    hidden["pp_bubble"] = stages * (hidden["tp"] + hidden["cp"] + hidden["ep"]) / m
    mem = memory(t, layout) if mem is None else mem
    extra = (bf16_seconds(t, w), elementwise_seconds(t, layout), attention_seconds(t, w))
    return TrainPlan(t, layout, times, whole["dp"], mem, hidden, *extra)


def run_totals(plan: TrainPlan) -> dict[str, float | None]:
    """With a token budget: days, GPU-hours and energy at TDP (None where unpublished)."""
    t = plan.training
    if t.tokens is None:
        return {}
    seconds = t.tokens / plan.tokens_per_s
    tdp = t.device.tdp_w
    energy = None if tdp is None else tdp * t.gpus * seconds / 3.6e6
    return {
        "train_days": seconds / SECONDS_PER_DAY,
        "gpu_hours": t.gpus * seconds / 3600,
        "energy_kwh": energy,
    }
