"""Measured points on a roofline: a record's FLOPs, bytes and seconds, never clamped.

A synchronized record with FLOPs and bytes is a point at intensity = FLOPs / bytes and
the record's FLOP/s at the median, with error bars from the fastest and slowest samples.
Against a device's spec roof a point may sit above it (a wrong FLOP count, the wrong
precision's roof): it is flagged, never moved. regime() names a size sweep's three regimes.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.measure.results import Record
from perfcore.model.chip import roofline
from perfcore.model.chip.specs import PRECISIONS, Device

# A call within this factor of an empty call's time is mostly launch overhead.
OVERHEAD_FACTOR = 2.0
# Achieved FLOP/s at or above this fraction of the roof counts as at the roof.
ROOF_FRACTION = 0.5


@dataclass(frozen=True)
class MeasuredPoint:
    """A measured operation to overlay on a roofline: its costs, seconds and rates per call."""

    label: str
    flops: float
    bytes: float
    seconds_median: float  # seconds per call at the median
    flops_per_s: float  # at the median time
    flops_per_s_lo: float  # at the slowest sample (lower error bar)
    flops_per_s_hi: float  # at the fastest sample (upper error bar)
    bytes_per_s: float  # at the median time
    precision: str
    method: str
    device: str
    backend: str

    @property
    def intensity(self) -> float:
        """Arithmetic intensity in FLOP/byte."""
        return roofline.intensity(self.flops, self.bytes)


def measured_point(record: Record) -> MeasuredPoint:
    """The roofline point of one synchronized record with FLOPs and bytes; never clamped.

    Every rate is the record's own (Record.rate): the median, slowest and fastest samples.
    """
    m = record.measurement
    return MeasuredPoint(
        f"{record.experiment}: {record.label}",
        record.flops,
        record.bytes,
        m.median,
        record.flops_per_s,
        record.rate(record.flops, m.max),
        record.rate(record.flops, m.min),
        record.bytes_per_s,
        record.precision,
        m.method,
        record.device,
        record.backend,
    )


def measured_points(records: tuple[Record, ...]) -> tuple[MeasuredPoint, ...]:
    """Points for every synchronized record with FLOPs and bytes (naive timings excluded)."""
    usable = (r for r in records if r.flops_per_s and r.bytes_per_s)
    return tuple(measured_point(r) for r in usable if r.measurement.min > 0)


def roof_flops_per_s(point: MeasuredPoint, device: Device) -> float | None:
    """The spec roof (FLOP/s) at the point's intensity and precision; None if unpublished."""
    roof = roofline.roofs(device, point.precision) if point.precision in PRECISIONS else None
    return None if roof is None else roofline.attainable(point.intensity, *roof)[0]


def above_roof(point: MeasuredPoint, device: Device) -> bool:
    """True when the point's median FLOP/s exceeds the device's spec roof at its intensity."""
    roof = roof_flops_per_s(point, device)
    return roof is not None and point.flops_per_s > roof


def regime(seconds: float, overhead_s: float, flops_per_s: float, roof: float) -> str:
    """'overhead', 'compute roof' or 'utilisation': which of a sweep's regimes a call is in."""
    if seconds < OVERHEAD_FACTOR * overhead_s:
        return "overhead"
    return "compute roof" if flops_per_s >= ROOF_FRACTION * roof else "utilisation"
