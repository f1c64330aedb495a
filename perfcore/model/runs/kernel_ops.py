"""A model's ops priced from kernels: each Workloads op's expected time, and from what.

An op of a phase (perfcore.model.llm.phases.Priced: its roofline time over its runs) is a
kernel: projections, the MLP and the LM head matmuls (a matvec where at most 16 tokens pass
through: decode), attention the fused kernel, norms, residuals and the optimizer elementwise,
the embedding a copy (a gather). Its expected time is perfcore.model.chip.kernels.expected of
its bound per run at its size per run, from the device's curves where given, else the published
runs' efficiency (train for compute-bound ops, decode for memory-bound ones), said as such.
"""

from __future__ import annotations

from perfcore.model.chip import kernel_kinds, kernels
from perfcore.model.llm.phases import Priced
from perfcore.model.runs.efficiency import Efficiency, kernel_fallback

KERNEL_OF = {
    "projection": "matmul",
    "mlp": "matmul",
    "lm_head": "matmul",
    "attention": "attention",
    "norm": "elementwise",
    "residual": "elementwise",
    "optimizer": "elementwise",
    "embedding": "copy",
}
DTYPE_OF = {
    "fp32": "float32",
    "tf32": "float32",
    "bf16": "bfloat16",
    "fp16": "float16",
    "fp8": "float8_e4m3fn",
    "int8": "int8",
}


def kernel_kind(pr: Priced, dtype_bytes: float) -> str:
    """The kernel kind of a Workloads op; a weight matmul's tokens are FLOPs ÷ (2 · weights)."""
    kind = KERNEL_OF.get(pr.op.kind, "elementwise")
    if kind != "matmul" or not pr.op.weights:
        return kind
    tokens = pr.op.cost.flops * dtype_bytes / (2 * pr.op.weights)
    return kernel_kinds.matmul_kind(round(tokens), kernel_kinds.SKINNY + 1)


def expected_op(
    pr: Priced,
    precision: str,
    dtype_bytes: float,
    curves: kernels.Curves | None,
    table: dict[str, Efficiency],
) -> kernels.Expected:
    """A Workloads op's expected time over all its runs (seconds), and the efficiency used."""
    kind = kernel_kind(pr, dtype_bytes)
    per_run = pr.time_s / max(pr.op.count, 1e-12)
    size = pr.op.cost.flops if kernel_kinds.SIZE_UNIT[kind] == "flops" else pr.op.cost.bytes
    fallback = kernel_fallback(table, pr.bound == "compute")
    one = kernels.expected(per_run, kind, DTYPE_OF.get(precision, ""), size, curves, fallback)
    return kernels.Expected(one.seconds * pr.op.count, pr.time_s, one.efficiency)
