"""Phases of a model on a device: prefill, decode, train, priced on the roofline.

Time two ways: the sum of per-op roofline times (each op bound on its own, t_lower) and
the single-roofline bound of the whole phase (t_lower of its total FLOPs and bytes).
Tensor-parallel all-reduces add their time to both (no overlap); in training they are 2x
the forward's (3x with full recomputation: parallel.TP_COMM_FACTOR), not the FLOP factor.
The compute roof is the device's peak at the precision the math runs in: the wider of
weights and activations.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from perfcore.errors import NotPublished
from perfcore.model.chip.ops import Cost, Param
from perfcore.model.chip.roofline import estimate, roofs, t_lower
from perfcore.model.chip.specs import Device
from perfcore.model.llm import parallel
from perfcore.model.llm.values import DEFAULT, Op, Pass, Precisions
from perfcore.model.llm.workloads import model_ops

PHASES = ("prefill", "decode", "generate", "train")
# The ranges of every number the command line and the pages take.
BATCH = Param("batch", 1, "sequences processed together", hi=2**20)
CONTEXT = Param(
    "context", 1024, "prompt length (prefill, generate, train) or context (decode)", hi=2**21
)
OUTPUT = Param("output_tokens", 256, "tokens generated after the prompt", hi=2**20)
TP = Param("tp", 1, "tensor-parallel GPUs", hi=1024)
DP = Param("dp", 1, "data-parallel replicas (training)", hi=2**16)
NUMBERS = (BATCH, CONTEXT, OUTPUT, TP, DP)

# Bits the math runs in -> the precisions whose peak applies, first published wins.
MATH_PRECISIONS = {16: ("bf16", "fp16"), 8: ("fp8", "int8"), 4: ("fp4",)}
ROOF_RULE = (
    "the math runs in the wider of the weight and activation precisions "
    "(16 bits: BF16, else FP16; 8: FP8, else INT8; 4: FP4): narrower weights "
    "are widened on load, they do not speed up the math"
)
TRAIN_FACTOR = 3  # forward + backward ≈ 3 x forward (the backward pass costs 2 x)
RECOMPUTE_FACTOR = 4  # with full activation recomputation the forward runs twice


def math_precision(device: Device, p: Precisions) -> str | None:
    """The precision whose peak bounds the math (see ROOF_RULE); None where none is published."""
    bits = max(p.weights, p.activations)
    return next((c for c in MATH_PRECISIONS[bits] if device.peak_flops(c) is not None), None)


def missing_peak(device: Device, p: Precisions) -> NotPublished:
    """What is missing when math_precision is None, and what the device does publish."""
    wanted = MATH_PRECISIONS[max(p.weights, p.activations)]
    published = ", ".join(device.published_precisions()) or "none"
    fields = tuple(f"{c}_flops_per_s" for c in wanted)
    return NotPublished(
        device.name, fields, f"{' or '.join(wanted)} peak", f"(it publishes: {published})"
    )


@dataclass(frozen=True)
class Priced:
    """One op on one device: its roofline time over all its runs, and what bounds it."""

    op: Op
    time_s: float
    bound: str  # "compute" or "memory"


@dataclass(frozen=True)
class Phase:
    """A phase's ops on one device: totals, both times, and communication."""

    name: str
    ops: tuple[Priced, ...]
    peak_flops_per_s: float
    bytes_per_s: float
    comm_s: float  # tensor-parallel all-reduces; 0 at t = 1
    precision: str  # the precision the math runs in (whose peak is the roof)

    @property
    def flops(self) -> float:
        """FLOPs of the phase on one GPU."""
        return sum(p.op.flops for p in self.ops)

    @property
    def bytes(self) -> float:
        """Bytes moved to and from device memory on one GPU."""
        return sum(p.op.bytes for p in self.ops)

    @property
    def intensity(self) -> float:
        """FLOP/byte of the whole phase."""
        return self.flops / self.bytes

    def part(self, name: str) -> float:
        """Bytes of one kind (weights, kv_read, kv_write, activations), all ops."""
        return sum(getattr(p.op, name) * p.op.count for p in self.ops)

    @property
    def compute_s(self) -> float:
        """Sum of per-op roofline times, seconds (communication not included)."""
        return sum(p.time_s for p in self.ops)

    @property
    def time_s(self) -> float:
        """Sum of per-op roofline times plus communication, seconds."""
        return self.compute_s + self.comm_s

    @property
    def time_bound_s(self) -> float:
        """Single-roofline bound of the whole phase plus communication, seconds."""
        floor = t_lower(self.flops, self.bytes, self.peak_flops_per_s, self.bytes_per_s)
        return floor + self.comm_s

    @property
    def bound(self) -> str:
        """'compute' or 'memory': which roof the phase as a whole sits under."""
        ridge = self.peak_flops_per_s / self.bytes_per_s
        return "compute" if self.intensity >= ridge else "memory"


def price(op: Op, peak: float, bw: float) -> Priced:
    """One op's roofline time (t_lower over all its runs) and limiter."""
    est = estimate(peak, bw, op.cost)
    return Priced(op, est.time_floor_s * op.count, est.limiter)


def priced(name: str, device: Device, p: Precisions, ops: list[Op], comm_s: float) -> Phase:
    """Price every op on `device`; NotPublished naming the missing figure when unpublished."""
    precision = math_precision(device, p)
    if precision is None:
        raise missing_peak(device, p)
    roof = roofs(device, precision)
    if roof is None:
        raise NotPublished(device.name, ("memory_bytes_per_s",), "memory bandwidth")
    peak, bw = roof
    return Phase(name, tuple(price(op, peak, bw) for op in ops), peak, bw, comm_s, precision)


def prefill(
    model,
    device: Device,
    batch: int,
    prompt: int,
    p: Precisions = DEFAULT,
    fused: bool = True,
    tp: int = 1,
) -> Phase:
    """`batch` prompts of `prompt` tokens in one pass; lm_head on the last position only."""
    s = Pass(batch, prompt, prompt, causal=True, fused=fused, tp=tp)
    comm = parallel.tp_seconds(model, device, s.tokens, tp)
    return priced("prefill", device, p, model_ops(model, s, p, batch), comm)


def decode(
    model,
    device: Device,
    batch: int,
    context: int,
    p: Precisions = DEFAULT,
    fused: bool = True,
    tp: int = 1,
) -> Phase:
    """One new token for each of `batch` sequences, each attending to `context` cached tokens."""
    s = Pass(batch, 1, context, causal=False, fused=fused, tp=tp)
    comm = parallel.tp_seconds(model, device, s.tokens, tp)
    return priced("decode", device, p, model_ops(model, s, p, batch), comm)


def train_ops(
    model, batch: int, seq: int, p: Precisions, fused: bool, tp: int, recompute: bool
) -> list[Op]:
    """Forward ops scaled to forward + backward (x3, x4 with recomputation), no KV cache."""
    s = Pass(batch, seq, seq, causal=True, cache=False, fused=fused, tp=tp)
    factor = RECOMPUTE_FACTOR if recompute else TRAIN_FACTOR
    forward = model_ops(model, s, p, s.tokens)  # the loss needs logits at every position
    scaled = [_scaled(op, factor) for op in forward]
    return [*scaled, parallel.optimizer_op(model, p, tp)]


def _scaled(op: Op, factor: int) -> Op:
    """op run `factor` times as often (forward + backward)."""
    return replace(op, count=op.count * factor)


def train(
    model,
    device: Device,
    batch: int,
    seq: int,
    p: Precisions = DEFAULT,
    fused: bool = True,
    tp: int = 1,
    dp: int = 1,
    recompute: bool = False,
) -> Phase:
    """One training step of batch x seq tokens per data-parallel replica, Adam update included."""
    factor = parallel.TP_COMM_FACTOR["full" if recompute else "none"]
    comm = factor * parallel.tp_seconds(model, device, batch * seq, tp)
    comm += parallel.dp_seconds(model, device, p, tp, dp)
    return priced("train", device, p, train_ops(model, batch, seq, p, fused, tp, recompute), comm)


def combine(name: str, weighted: list[tuple[Phase, float]]) -> Phase:
    """Phases run `weight` times each, as one phase (same device and precision)."""
    first = weighted[0][0]
    ops = tuple(
        Priced(replace(pr.op, count=pr.op.count * w), pr.time_s * w, pr.bound)
        for phase, w in weighted
        for pr in phase.ops
    )
    comm = sum(phase.comm_s * w for phase, w in weighted)
    return Phase(name, ops, first.peak_flops_per_s, first.bytes_per_s, comm, first.precision)


def by_name(phase: Phase) -> list[Priced]:
    """The phase's ops merged by name (every layer group together), in first-seen order."""
    merged: dict[str, list[Priced]] = {}
    for pr in phase.ops:
        merged.setdefault(pr.op.name, []).append(pr)
    return [_merge(group) for group in merged.values()]


def _merge(group: list[Priced]) -> Priced:
    """Several runs of one named op as one: FLOPs, bytes and time summed; the slower's bound."""
    flops = sum(pr.op.flops for pr in group)
    n_bytes = sum(pr.op.bytes for pr in group)
    parts = {
        k: sum(getattr(pr.op, k) * pr.op.count for pr in group)
        for k in ("weights", "kv_read", "kv_write", "output")
    }
    first = group[0].op
    op = replace(first, cost=Cost(flops, n_bytes, first.name), count=1, **parts)
    slowest = max(group, key=lambda pr: pr.time_s)
    return Priced(op, sum(pr.time_s for pr in group), slowest.bound)
