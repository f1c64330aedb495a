"""What a serving expected figure adds to its bound: what no real pass overlaps.

Two parts, each left out of the bound because nothing in physics forces it. Kernel
boundaries: a pass runs its kernels one after another on one stream, and each boundary costs
KERNEL_S however little the kernel moves (the launch, which CUDA graphs shorten but do not
remove, then the new kernel's ramp-up and the old one's stragglers, while no weights are
read); KERNELS_PER_LAYER kernels a layer plus its TP all-reduces (two a layer at t > 1).
No overlap within an op: the bound takes each op at max(t_math, t_memory) (t_lower); an op
whose loads and math do not overlap takes their sum (t_upper), min(t_math, t_memory) more.
The expected figure adds both before the efficiency divides (docs/plans.md, "Expected
figures").
"""

from __future__ import annotations

from perfcore.model.chip.roofline import t_lower, t_upper
from perfcore.model.llm import phases

# The layer's ops in phases.model_ops (norm, Q, K, V, attention, O, add, norm, gate+up,
# activation, down, add) with Q, K and V as one fused QKV GEMM, as TensorRT-LLM, vLLM and
# LMDeploy all run it: 12 - 2 = 10 kernels.
KERNELS_PER_LAYER = 10
TP_ALLREDUCES_PER_LAYER = 2  # after attention and after the MLP (Megatron's TP, Shoeybi 2019)
# Spector et al. 2025, "Look Ma, No Bubbles!" (Hazy Research blog, 2025-05-27): Llama-3.2-1B
# (16 layers, 1.24e9 BF16 parameters) decoding one sequence on an H100 SXM (3.35 TB/s): vLLM
# and SGLang use at most 50 % of the memory bandwidth, a megakernel without kernel boundaries
# 78 %. The boundaries' share of the step, weights' time x (1/0.50 - 1/0.78), over its
# 16 x KERNELS_PER_LAYER kernels: 3.3 µs a kernel.
SOURCE_WEIGHTS_S = 1.24e9 * 2 / 3.35e12
KERNEL_S = SOURCE_WEIGHTS_S * (1 / 0.50 - 1 / 0.78) / (16 * KERNELS_PER_LAYER)


def kernels_per_pass(model, tp: int) -> int:
    """Kernels one forward pass launches: KERNELS_PER_LAYER a layer, plus its all-reduces."""
    per_layer = KERNELS_PER_LAYER + (TP_ALLREDUCES_PER_LAYER if tp > 1 else 0)
    return model.layers * per_layer


def pass_s(model, tp: int) -> float:
    """Seconds one forward pass (a prefill or a decode step) spends at kernel boundaries."""
    return kernels_per_pass(model, tp) * KERNEL_S


def serial_s(phase: phases.Phase) -> float:
    """Seconds the bound's per-op max hides: sum of min(t_math, t_memory) over its ops, what
    they add when loads and math do not overlap (t_upper - t_lower, scaling-book roofline)."""
    peak, bw = phase.peak_flops_per_s, phase.bytes_per_s
    return sum(
        t_upper(p.op.flops, p.op.bytes, peak, bw) - t_lower(p.op.flops, p.op.bytes, peak, bw)
        for p in phase.ops
    )


def parts(model, phase: phases.Phase, tp: int) -> tuple[float, float]:
    """(kernel boundaries, no-overlap) seconds one pass adds to its bound."""
    return pass_s(model, tp), serial_s(phase)


def plan_parts(plan) -> tuple[tuple[float, float], tuple[float, float]]:
    """TTFT's and TPOT's (kernel boundaries, no-overlap) seconds: TTFT its prefill pass (a
    static batch's of all its prompts); TPOT its decode step plus, under continuous batching,
    its share of the prefills it takes in (batch / O prompts a step, in passes of the whole
    batch's prompts, as serve_plan.prefill_per_request)."""
    s, tp = plan.serving, plan.tp
    m, d, p, i, o = s.model, s.device, s.precisions, s.input_tokens, s.output_tokens
    prompts = parts(m, phases.prefill(m, d, plan.batch, i, p, tp=tp), tp)  # the batch's pass
    step = parts(m, phases.decode(m, d, plan.batch, round(i + o / 2), p, tp=tp), tp)
    if s.static:
        return prompts, step
    first = parts(m, phases.prefill(m, d, 1, i, p, tp=tp), tp)
    return first, (step[0] + prompts[0] / o, step[1] + prompts[1] / o)


def plan_s(plan) -> tuple[float, float]:
    """(TTFT, TPOT) seconds a serving plan adds to its bounds (plan_parts, summed)."""
    ttft, tpot = plan_parts(plan)
    return sum(ttft), sum(tpot)
