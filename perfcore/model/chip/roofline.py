"""The roofline (Williams, Waterman & Patterson, CACM 2009).

attainable FLOP/s = min(peak FLOP/s, bandwidth x intensity). Two straight lines on a
log-log plot; whichever is lower limits the operation. The ridge point is the
intensity where they meet. Time floors follow the scaling-book vocabulary:
t_math = flops / peak, t_memory = bytes / bandwidth, t_lower = max, t_upper = sum.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from perfcore.model.chip.ops import Cost
from perfcore.model.chip.specs import Device

Limiter = Literal["compute", "memory"]


def intensity(flops: float, n_bytes: float) -> float:
    """Arithmetic intensity in FLOP/byte."""
    return flops / n_bytes


def ridge_point(peak_flops_per_s: float, bytes_per_s: float) -> float:
    """Intensity (FLOP/byte) where the memory roof meets the compute roof."""
    return peak_flops_per_s / bytes_per_s


def attainable(
    intensity: float, peak_flops_per_s: float, bytes_per_s: float
) -> tuple[float, Limiter]:
    """Attainable FLOP/s and the roof that limits it; a tie counts as compute."""
    memory_roof = bytes_per_s * intensity
    if memory_roof >= peak_flops_per_s:
        return peak_flops_per_s, "compute"
    return memory_roof, "memory"


def fraction_of_peak(intensity: float, peak_flops_per_s: float, bytes_per_s: float) -> float:
    """Attainable FLOP/s as a fraction of the compute peak, in (0, 1]."""
    return attainable(intensity, peak_flops_per_s, bytes_per_s)[0] / peak_flops_per_s


def t_math(flops: float, peak_flops_per_s: float) -> float:
    """Seconds the arithmetic alone takes at peak."""
    return flops / peak_flops_per_s


def t_memory(n_bytes: float, bytes_per_s: float) -> float:
    """Seconds the memory traffic alone takes at full bandwidth."""
    return n_bytes / bytes_per_s


def t_lower(flops: float, n_bytes: float, peak_flops_per_s: float, bytes_per_s: float) -> float:
    """Time floor in seconds: compute and memory perfectly overlapped."""
    return max(t_math(flops, peak_flops_per_s), t_memory(n_bytes, bytes_per_s))


def t_upper(flops: float, n_bytes: float, peak_flops_per_s: float, bytes_per_s: float) -> float:
    """Time in seconds with no overlap at all: compute then memory."""
    return t_math(flops, peak_flops_per_s) + t_memory(n_bytes, bytes_per_s)


@dataclass(frozen=True)
class Estimate:
    """One operation priced on one device at one precision: the roofline's verdict."""

    cost: Cost
    peak_flops_per_s: float
    bytes_per_s: float
    attainable_flops_per_s: float
    limiter: Limiter

    @property
    def intensity(self) -> float:
        """The operation's intensity, FLOP/byte."""
        return self.cost.intensity

    @property
    def ridge(self) -> float:
        """The device's ridge point at this precision, FLOP/byte."""
        return ridge_point(self.peak_flops_per_s, self.bytes_per_s)

    @property
    def time_floor_s(self) -> float:
        """t_lower: the fastest this operation can possibly run, seconds."""
        return t_lower(self.cost.flops, self.cost.bytes, self.peak_flops_per_s, self.bytes_per_s)

    @property
    def fraction_of_peak(self) -> float:
        """Attainable FLOP/s over the compute peak."""
        return self.attainable_flops_per_s / self.peak_flops_per_s


def estimate(
    peak_flops_per_s: float | None, bytes_per_s: float | None, cost: Cost
) -> Estimate | None:
    """The roofline verdict for `cost`; None when either roof is unpublished."""
    if peak_flops_per_s is None or bytes_per_s is None:
        return None
    reach, limiter = attainable(cost.intensity, peak_flops_per_s, bytes_per_s)
    return Estimate(cost, peak_flops_per_s, bytes_per_s, reach, limiter)


def roofs(device: Device, precision: str) -> tuple[float, float] | None:
    """(peak FLOP/s, memory bytes/s) of `device` at `precision`; None where one is unpublished."""
    peak, bw = device.peak_flops(precision), device.memory_bytes_per_s
    return None if peak is None or bw is None else (peak, bw)


def estimate_on(device: Device, precision: str, cost: Cost) -> Estimate | None:
    """The roofline verdict for `cost` on `device` at `precision`; None where a roof is missing."""
    roof = roofs(device, precision)
    return None if roof is None else estimate(*roof, cost)
