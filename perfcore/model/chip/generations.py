"""The ridge point across generations: arithmetic has outgrown bandwidth.

For two devices at one precision, the growth of the compute peak, of memory
bandwidth and of the ridge point (their ratio). When peak grows faster than
bandwidth the ridge rises, and an op compute-bound on the old part can be
memory-bound on the new one without a line of code changing.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.model.chip.roofline import ridge_point, roofs
from perfcore.model.chip.specs import Device


def device_ridge(device: Device, precision: str) -> float | None:
    """The device's ridge point (FLOP/byte) at `precision`; None where a figure is unpublished."""
    roof = roofs(device, precision)
    return None if roof is None else ridge_point(*roof)


@dataclass(frozen=True)
class Growth:
    """How much `new` outgrows `old` at one precision, as ratios new / old."""

    old: Device
    new: Device
    precision: str
    arithmetic: float
    bandwidth: float

    @property
    def ridge(self) -> float:
        """Growth of the ridge point: arithmetic growth over bandwidth growth."""
        return self.arithmetic / self.bandwidth


def growth(old: Device, new: Device, precision: str) -> Growth | None:
    """Peak, bandwidth and ridge growth from `old` to `new`; None where unpublished."""
    if device_ridge(old, precision) is None or device_ridge(new, precision) is None:
        return None
    arithmetic = new.peak_flops(precision) / old.peak_flops(precision)
    return Growth(old, new, precision, arithmetic, new.memory_bytes_per_s / old.memory_bytes_per_s)
