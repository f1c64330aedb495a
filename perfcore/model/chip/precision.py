"""Precision as a throughput knob: bytes per element and which peak each precision uses.

Dropping precision moves an operation twice on the roofline: fewer bytes raise its
intensity, and the narrower tensor path raises the flat roof. FP32 and FP64 run on
the vector units; TF32, BF16, FP16, FP8, INT8 and FP4 on the tensor/matrix units.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.model.chip import ops
from perfcore.model.chip.roofline import Limiter, attainable, ridge_point, roofs, t_lower
from perfcore.model.chip.specs import PRECISIONS, Device

BYTES_PER_ELEMENT = {
    "fp64": 8,
    "fp32": 4,
    "tf32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "fp4": 0.5,
}

# TF32 is stored as FP32 (4 bytes); it only changes the math path.
VECTOR_PRECISIONS = ("fp64", "fp32")

LABELS = {
    "fp64": "FP64 (vector)",
    "fp32": "FP32 (no tensor core)",
    "tf32": "TF32 tensor core",
    "bf16": "BF16 tensor core",
    "fp16": "FP16 tensor core",
    "fp8": "FP8 tensor core",
    "int8": "INT8 tensor core",
    "fp4": "FP4 tensor core",
}


def path(precision: str) -> str:
    """'vector' for the plain FP32/FP64 units, 'tensor' for the matrix units."""
    return "vector" if precision in VECTOR_PRECISIONS else "tensor"


@dataclass(frozen=True)
class PrecisionRow:
    """One matmul at one precision on one device."""

    precision: str
    bytes_per_element: float
    peak_flops_per_s: float
    ridge: float
    cost: ops.Cost
    attainable_flops_per_s: float
    limiter: Limiter
    time_floor_s: float

    @property
    def label(self) -> str:
        """Human label such as 'FP16 tensor core'."""
        return LABELS[self.precision]


def matmul_at(device: Device, precision: str, m: int, n: int, k: int) -> PrecisionRow | None:
    """The matmul's roofline row at `precision`; None where the device publishes no peak."""
    roof = roofs(device, precision)
    if roof is None:
        return None
    peak, bw = roof
    cost = ops.matmul(m, n, k, BYTES_PER_ELEMENT[precision])
    reach, limiter = attainable(cost.intensity, peak, bw)
    floor = t_lower(cost.flops, cost.bytes, peak, bw)
    bpe = BYTES_PER_ELEMENT[precision]
    return PrecisionRow(precision, bpe, peak, ridge_point(peak, bw), cost, reach, limiter, floor)


def matmul_sweep(device: Device, m: int, n: int, k: int) -> list[PrecisionRow]:
    """The matmul at every precision the device publishes, FP64 first."""
    rows = (matmul_at(device, p, m, n, k) for p in PRECISIONS)
    return [row for row in rows if row is not None]
