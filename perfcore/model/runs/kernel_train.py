"""A training plan's step expected from a device's measured kernels.

A plan's compute is a bound: its hardware FLOPs at the peak (perfcore.model.plans.train_plan).
With the device's kernel curves, one micro-batch on one GPU of the layout is priced as ops
(perfcore.model.llm.phases.train_ops at micro-batch x seq/CP tokens, TP-sharded, full
recomputation's extra forward included) and each op expected from the curves (kernel_ops); the
compute expected is the bound times Σ expected ÷ Σ FLOPs at the peak of those ops (so
memory-bound ops cost what their curve says, not their FLOPs). The pipeline bubble idles that
same compute and scales with it; the optimizer's update takes the optimizer op's own factor.
Communication stays at its exposed bound: the curves time kernels on one device, not links.
Where a kind has no curve, kernel_ops' published-runs fallback prices it, said as such.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.model.chip import kernels
from perfcore.model.llm import phases
from perfcore.model.llm.values import Precisions
from perfcore.model.plans.train_plan import TrainPlan
from perfcore.model.runs import kernel_ops
from perfcore.model.runs.efficiency import Efficiency

TRAIN_BITS = {"bf16": 16, "fp16": 16, "fp8": 8}  # the math's bits per training precision


@dataclass(frozen=True)
class KernelStep:
    """A plan's step expected from kernels, seconds, and the factors it rests on."""

    seconds: float
    compute_factor: float  # expected compute ÷ the compute bound
    optimizer_factor: float  # expected optimizer update ÷ its bound
    sources: frozenset  # kernels.MEASURED, NEAREST or PUBLISHED: where each op's figure came from
    derived_from: str


def expected_step(
    plan: TrainPlan, curves: kernels.Curves, table: dict[str, Efficiency]
) -> KernelStep:
    """The plan's step with its compute, bubble and optimizer from the curves (module doc)."""
    t, lay = plan.training, plan.layout
    bits = TRAIN_BITS[t.precision]
    p = Precisions(bits, bits, 16)
    tokens = max(t.seq // lay.cp, 1)
    ops = phases.train_ops(
        t.model, lay.micro_batch, tokens, p, t.fused_attention, lay.tp, lay.recompute == "full"
    )
    phase = phases.priced("train", t.device, p, ops, 0.0)
    one = [
        (pr, kernel_ops.expected_op(pr, phase.precision, p.w, curves, table)) for pr in phase.ops
    ]
    work = [(pr, e) for pr, e in one if pr.op.kind != "optimizer"]
    update = [(pr, e) for pr, e in one if pr.op.kind == "optimizer"]
    at_peak = sum(pr.op.flops for pr, _ in work) / phase.peak_flops_per_s
    compute_factor = sum(e.seconds for _, e in work) / at_peak
    optimizer_factor = sum(e.seconds for _, e in update) / sum(e.bound_s for _, e in update)
    parts = plan.time_s_by
    seconds = (
        plan.step_s
        + (parts["compute"] + parts["pp_bubble"]) * (compute_factor - 1)
        + parts["optimizer"] * (optimizer_factor - 1)
    )
    sources = frozenset(e.efficiency.source for _, e in one)
    said = (
        f"{curves.label}: compute at {1 / compute_factor:.2f} of its bound and the optimizer "
        f"at {1 / optimizer_factor:.2f}, at this layout's shapes (micro-batch "
        f"{lay.micro_batch} × {tokens:,} tokens, TP {lay.tp}); communication at its bound"
    )
    if kernels.PUBLISHED in sources:
        said += "; kinds without a curve at the published runs' efficiency"
    return KernelStep(seconds, compute_factor, optimizer_factor, sources, said)
