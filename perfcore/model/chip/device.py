"""One accelerator as a frozen Device: its published figures in SI units, None where a figure
is not published (never 0); the specs.csv column each numeric figure comes from, with its unit's
multiplier to SI; and a figure required by name (NotPublished where it is missing).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from perfcore.errors import NotPublished

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")
WHOLE_COLUMNS = ("compute_units", "scaleup_domain")
# column -> (Device field, multiplier to SI).
NUMERIC_SI = {
    "compute_units": ("compute_units", 1),
    "memory_gib": ("memory_bytes", 1024**3),
    "memory_bw_tbs": ("memory_bytes_per_s", 1e12),
    "l2_mib": ("l2_bytes", 1024**2),
    "smem_kb_per_unit": ("smem_bytes_per_unit", 1024),
    "regs_kb_per_unit": ("regs_bytes_per_unit", 1024),
    **{f"{p}_tflops": (f"{p}_flops_per_s", 1e12) for p in PRECISIONS if p != "int8"},
    "int8_tops": ("int8_flops_per_s", 1e12),
    "scaleup_gbs": ("scaleup_bytes_per_s", 1e9),
    "scaleout_gbs": ("scaleout_bytes_per_s", 1e9),
    "pcie_gbs": ("pcie_bytes_per_s", 1e9),
    "tdp_w": ("tdp_w", 1),
    "l2_bw_tbs_est": ("l2_bytes_per_s_est", 1e12),
    "smem_bw_tbs_est": ("smem_bytes_per_s_est", 1e12),
    "regs_bw_tbs_est": ("regs_bytes_per_s_est", 1e12),
    "scaleup_domain": ("scaleup_domain", 1),
}


@dataclass(frozen=True)
class Device:
    """One accelerator's published figures in SI units; None where unpublished."""

    name: str
    vendor: str
    year: int
    architecture: str = ""
    form_factor: str = ""
    compute_units: int | None = None
    memory_bytes: float | None = None
    memory_bytes_per_s: float | None = None
    l2_bytes: float | None = None
    smem_bytes_per_unit: float | None = None
    regs_bytes_per_unit: float | None = None
    fp64_flops_per_s: float | None = None
    fp32_flops_per_s: float | None = None
    tf32_flops_per_s: float | None = None
    bf16_flops_per_s: float | None = None
    fp16_flops_per_s: float | None = None
    fp8_flops_per_s: float | None = None
    int8_flops_per_s: float | None = None
    fp4_flops_per_s: float | None = None
    scaleup_bytes_per_s: float | None = None  # both directions, as marketed
    scaleout_bytes_per_s: float | None = None  # one direction
    pcie_bytes_per_s: float | None = None  # both directions, as marketed
    tdp_w: float | None = None
    l2_bytes_per_s_est: float | None = None
    smem_bytes_per_s_est: float | None = None
    regs_bytes_per_s_est: float | None = None
    scaleup_domain: int | None = None  # GPUs in one scale-up (NVLink, ICI...) domain
    source: str = ""
    notes: str = ""
    jax_device_kinds: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()

    def peak_flops(self, precision: str) -> float | None:
        """Dense peak FLOP/s (OP/s for int8) at `precision`; None where unpublished."""
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; expected one of {PRECISIONS}")
        return getattr(self, f"{precision}_flops_per_s")

    def published_precisions(self) -> tuple[str, ...]:
        """The precisions this device publishes a peak for, in PRECISIONS order."""
        return tuple(p for p in PRECISIONS if self.peak_flops(p) is not None)

    def replace(self, **changes) -> Device:
        """A copy with some figures changed (for what-if inputs)."""
        return dataclasses.replace(self, **changes)


# A Device figure in words, for a NotPublished that names it.
FIGURE_WORDS = {
    "memory_bytes_per_s": "memory bandwidth",
    "memory_bytes": "memory capacity",
    "compute_units": "compute-unit count",
    "pcie_bytes_per_s": "PCIe bandwidth",
    "scaleup_bytes_per_s": "scale-up bandwidth",
    "scaleout_bytes_per_s": "scale-out (network) bandwidth",
    **{f"{p}_flops_per_s": f"{p} peak" for p in PRECISIONS},
}


def require(device: Device, field: str, needed_for: str = "") -> float:
    """The device's figure `field`; NotPublished naming it where the cell is empty."""
    value = getattr(device, field)
    if value is None:
        raise NotPublished(device.name, (field,), FIGURE_WORDS.get(field, field), needed_for)
    return value


def is_positive_finite(value: float) -> bool:
    """True when value is a finite number above zero."""
    return math.isfinite(value) and value > 0


def column_value(device: Device, column: str) -> float | None:
    """A numeric figure of the device back in the CSV's human unit (TB/s, TFLOP/s, GB, ...)."""
    field, scale = NUMERIC_SI[column]
    value = getattr(device, field)
    return None if value is None else value / scale
