"""Memory, fit, generation and serving capacity of a model on t GPUs.

Memory per GPU: weights (1/t), KV cache (its KV heads split t ways), activations (the
largest op's working set in inference; every op's output in training, or only each
layer's input with recomputation) and, for training, gradients plus Adam's fp32 master
copy and two moments. Serving capacity: the sequences at context L whose KV cache fits
beside the weights; the throughput-latency curve runs from batch 1 to that limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from perfcore.model.chip.specs import Device
from perfcore.model.llm import phases
from perfcore.model.llm.parallel import ADAM_STATE_BYTES
from perfcore.model.llm.workloads import DEFAULT, Precisions, kv_heads_per_gpu

MAX_BATCH = 2**24  # where the crossover search stops: "never compute-bound" beyond it
GENERATE_SAMPLES = 65  # decode steps priced exactly up to this; evenly sampled beyond


@dataclass(frozen=True)
class Memory:
    """Bytes per GPU by what they hold, against one GPU's capacity."""

    weights: float
    kv_cache: float
    activations: float
    optimizer: float  # gradients + optimizer states (training only)
    capacity: float | None
    tp: int = 1

    @property
    def total(self) -> float:
        """Bytes one GPU must hold."""
        return self.weights + self.kv_cache + self.activations + self.optimizer

    @property
    def fits(self) -> bool | None:
        """Whether it fits on each GPU; None where the capacity is unpublished."""
        return None if self.capacity is None else self.total <= self.capacity

    @property
    def gpus_needed(self) -> int | None:
        """Smallest GPU count holding the whole (split evenly); None without a capacity."""
        if self.capacity is None:
            return None
        return max(1, math.ceil(self.total * self.tp / self.capacity))


def kv_bytes(model, batch: int, context: int, p: Precisions, tp: int = 1) -> float:
    """KV cache bytes on one GPU: batch sequences of `context` tokens, heads split t ways."""
    share = kv_heads_per_gpu(model, tp) / model.kv_heads
    return batch * model.kv_cache_bytes(p.kv_bytes_per_element, context) * share


def inference_memory(
    model, device: Device, phase: phases.Phase, batch: int, context: int, p: Precisions, tp: int = 1
) -> Memory:
    """Weights + KV cache at `context` + the largest op's working set, per GPU."""
    act = max(pr.op.activations for pr in phase.ops)
    weights = model.params() * p.w / tp
    return Memory(
        weights, kv_bytes(model, batch, context, p, tp), act, 0.0, device.memory_bytes, tp
    )


def train_memory(
    model,
    device: Device,
    batch: int,
    seq: int,
    p: Precisions,
    fused: bool,
    tp: int = 1,
    recompute: bool = False,
) -> Memory:
    """Weights, kept activations, gradients and Adam states per GPU (no ZeRO sharding)."""
    n = model.params() / tp
    if recompute:  # only each layer's input survives the forward pass
        act = model.layers * batch * seq * model.hidden * p.a
    else:
        forward = phases.train_ops(model, batch, seq, p, fused, tp, recompute=False)
        act = sum(op.output * op.count / phases.TRAIN_FACTOR for op in forward)
    return Memory(n * p.w, 0.0, act, n * (p.w + ADAM_STATE_BYTES), device.memory_bytes, tp)


def max_sequences(model, device: Device, context: int, p: Precisions, tp: int = 1) -> int | None:
    """Most sequences at `context` whose KV cache fits beside the weights on t GPUs."""
    if device.memory_bytes is None:
        return None
    free = device.memory_bytes - model.params() * p.w / tp
    return max(0, math.floor(free / kv_bytes(model, 1, context, p, tp)))


@dataclass(frozen=True)
class ServingPoint:
    """One batch size of decode at context L: each user's TPOT and the aggregate rate."""

    batch: int
    tpot_s: float
    tokens_per_s: float
    bound: str


def batches(limit: int) -> list[int]:
    """1, 2, 4, ... up to `limit`, and `limit` itself."""
    powers = [2**i for i in range(limit.bit_length()) if 2**i <= limit]
    return sorted({*powers, limit}) if limit >= 1 else []


def serving_curve(
    model, device: Device, context: int, p: Precisions = DEFAULT, fused: bool = True, tp: int = 1
) -> list[ServingPoint]:
    """Decode from batch 1 to the memory limit: TPOT against aggregate tokens/s."""
    limit = max_sequences(model, device, context, p, tp) or 0
    points = []
    for b in batches(limit):
        step = phases.decode(model, device, b, context, p, fused, tp)
        points.append(ServingPoint(b, step.time_s, b / step.time_s, step.bound))
    return points


def crossover_batch(
    model, device: Device, context: int, p: Precisions = DEFAULT, fused: bool = True, tp: int = 1
) -> int | None:
    """Smallest decode batch whose step intensity reaches the ridge; None if never (KV-bound)."""

    def compute_bound(b: int) -> bool:
        """Whether a decode step at batch b sits under the compute roof."""
        return phases.decode(model, device, b, context, p, fused, tp).bound == "compute"

    guess = _affine_guess(model, device, context, p, fused, tp)
    if guess is not None and compute_bound(guess) and (guess == 1 or not compute_bound(guess - 1)):
        return guess  # a dense step is affine in batch: two steps pin it, two more confirm it
    if not compute_bound(MAX_BATCH):
        return None
    lo, hi = 1, MAX_BATCH
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if compute_bound(mid) else (mid + 1, hi)
    return lo


def _affine_guess(model, device, context, p, fused, tp) -> int | None:
    """Where t_math = t_memory if FLOPs and bytes grow linearly with batch (dense models)."""
    one, two = (phases.decode(model, device, b, context, p, fused, tp) for b in (1, 2))
    df, db = two.flops - one.flops, two.bytes - one.bytes
    gain = df / one.peak_flops_per_s * one.bytes_per_s - db  # bytes/batch the math outgrows
    if gain <= 0:
        return None
    need = one.bytes - db - (one.flops - df) / one.peak_flops_per_s * one.bytes_per_s
    return min(MAX_BATCH, max(1, math.ceil(need / gain)))


@dataclass(frozen=True)
class Generation:
    """Prompt P then N output tokens for a batch: TTFT, TPOT over the context, total, rate."""

    batch: int
    output_tokens: int
    ttft_s: float
    tpot_first_s: float
    tpot_last_s: float
    phase: phases.Phase = field(repr=False)  # prefill plus every decode step, as one phase

    @property
    def total_s(self) -> float:
        """Seconds from the prompt arriving to the last token (sum of per-op times)."""
        return self.phase.time_s

    @property
    def tokens_per_s(self) -> float:
        """Output tokens per second, all sequences together."""
        return self.batch * self.output_tokens / self.total_s


def generate(
    model,
    device: Device,
    batch: int,
    prompt: int,
    output: int,
    p: Precisions = DEFAULT,
    fused: bool = True,
    tp: int = 1,
) -> Generation:
    """Prefill makes the first token; token i >= 2 is one decode step at context P + i - 1."""
    first = phases.prefill(model, device, batch, prompt, p, fused, tp)
    contexts = _decode_contexts(prompt, output)
    steps = [phases.decode(model, device, batch, c, p, fused, tp) for c in contexts]
    weight = (output - 1) / len(steps) if steps else 0.0  # each sampled step stands for this many
    whole = phases.combine("generate", [(first, 1.0)] + [(step, weight) for step in steps])
    tpot = (steps[0].time_s, steps[-1].time_s) if steps else (0.0, 0.0)
    return Generation(batch, output, first.time_s, *tpot, whole)


def _decode_contexts(prompt: int, output: int) -> list[int]:
    """Contexts of the decode steps, all of them or GENERATE_SAMPLES evenly spaced."""
    first, last = prompt + 1, prompt + output - 1
    if last < first:
        return []
    if last - first + 1 <= GENERATE_SAMPLES:
        return list(range(first, last + 1))
    step = (last - first) / (GENERATE_SAMPLES - 1)
    return [round(first + i * step) for i in range(GENERATE_SAMPLES)]
