"""What a serving expected figure adds to its bound: the kernel boundaries of every forward pass.

A forward pass runs its kernels one after another on one stream, and each boundary costs a
fixed time however little the kernel moves (the launch, which CUDA graphs shorten but do not
remove, then the kernel's ramp-up and its stragglers' tail, while no weights are read):
KERNEL_S a kernel, KERNELS_PER_LAYER kernels a layer plus its TP all-reduces (two a layer at
t > 1). The bound leaves this out (nothing forces a boundary: one megakernel has none); the
expected figure adds it before the efficiency divides (docs/plans.md, "Expected figures").
"""

from __future__ import annotations

# The layer's ops in phases.model_ops (norm, Q, K, V, attention, O, add, norm, gate+up,
# activation, down, add) with Q, K and V as one fused QKV GEMM, as TensorRT-LLM, vLLM and
# LMDeploy all run it: 12 - 2 = 10 kernels.
KERNELS_PER_LAYER = 10
TP_ALLREDUCES_PER_LAYER = 2  # after attention and after the MLP (Megatron's TP, Shoeybi 2019)
# Spector et al. 2025, "Look Ma, No Bubbles!" (Hazy Research blog, 2025-05-27): Llama-3.2-1B
# (16 layers, 1.24e9 BF16 parameters) decoding one sequence on an H100 SXM (3.35 TB/s): vLLM
# and SGLang use at most 50 % of the memory bandwidth, a megakernel without kernel boundaries
# 78 % (and CUDA graphs leave ~1.3 µs of launch per kernel). The boundaries' share of the step,
# weights' time x (1/0.50 - 1/0.78), over its 16 x KERNELS_PER_LAYER kernels: 3.3 µs a kernel.
SOURCE_WEIGHTS_S = 1.24e9 * 2 / 3.35e12
KERNEL_S = SOURCE_WEIGHTS_S * (1 / 0.50 - 1 / 0.78) / (16 * KERNELS_PER_LAYER)


def kernels_per_pass(model, tp: int) -> int:
    """Kernels one forward pass launches: KERNELS_PER_LAYER a layer, plus its all-reduces."""
    per_layer = KERNELS_PER_LAYER + (TP_ALLREDUCES_PER_LAYER if tp > 1 else 0)
    return model.layers * per_layer


def pass_s(model, tp: int) -> float:
    """Seconds one forward pass (a prefill or a decode step) spends at kernel boundaries."""
    return kernels_per_pass(model, tp) * KERNEL_S


def plan_s(plan) -> tuple[float, float]:
    """(TTFT, TPOT) seconds of kernel boundaries a serving plan adds to its bounds: TTFT one prefill
    pass; TPOT one decode step plus its share of the prefill passes it takes in (batch / O
    prompts a step, run k = max(1, batch // O) to a pass, as serve_plan.prefill_per_request)."""
    s = plan.serving
    one = pass_s(s.model, plan.tp)
    k = max(1, plan.batch // s.output_tokens)
    return one, one + plan.batch / s.output_tokens * one / k
