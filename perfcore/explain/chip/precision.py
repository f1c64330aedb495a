"""The precision page: one matmul at every precision the device publishes.

Rows come from perfcore.model.chip.precision (peak from the spec; ridge, intensity, bound and time
floor derived from it and the memory bandwidth). The span compares the widest and the
narrowest published precision: how many fewer bytes, how much higher the roof.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from perfcore import format as fmt
from perfcore.model.chip.precision import BYTES_PER_ELEMENT, LABELS, PrecisionRow, path
from perfcore.model.chip.specs import PRECISIONS, Device

UNITS = {
    "bytes per element": "traffic",
    "peak (spec)": "flops_per_s",
    "ridge": "intensity",
    "FLOPs": "flops",
    "bytes moved": "traffic",
    "intensity": "intensity",
    "time floor": "seconds",
}
SIZE_MAX = 2**20  # largest m, n or k offered: keeps every point on the chart's fixed axes

NOTE = (
    "Peak is the vendor's dense published spec; ridge = peak / memory bandwidth, intensity "
    "= FLOPs / bytes, bound and time floor = max(FLOPs / peak, bytes / bandwidth) are "
    "derived from it. FP64 and FP32 run on the vector units; TF32 and narrower on the "
    "tensor/matrix units. INT8 peaks are integer OP/s."
)


@dataclass(frozen=True)
class Span:
    """The same matmul at the widest and the narrowest published precision."""

    widest: PrecisionRow
    narrowest: PrecisionRow

    @property
    def bytes_ratio(self) -> float:
        """Bytes moved at the widest over bytes at the narrowest precision."""
        return self.widest.cost.bytes / self.narrowest.cost.bytes

    @property
    def peak_ratio(self) -> float:
        """Narrowest precision's peak over the widest's."""
        return self.narrowest.peak_flops_per_s / self.widest.peak_flops_per_s

    @property
    def speedup(self) -> float:
        """Time floor at the widest over the time floor at the narrowest precision."""
        return self.widest.time_floor_s / self.narrowest.time_floor_s

    @property
    def bound_changes(self) -> bool:
        """True when the matmul changes side of the ridge between the two ends."""
        return self.widest.limiter != self.narrowest.limiter


def span(rows: Sequence[PrecisionRow]) -> Span | None:
    """Widest (most bytes, slowest path on a tie) and narrowest row; None when no rows."""
    if not rows:
        return None
    widest = min(rows, key=lambda r: (-r.bytes_per_element, r.peak_flops_per_s))
    narrowest = min(rows, key=lambda r: (r.bytes_per_element, -r.peak_flops_per_s))
    return Span(widest, narrowest)


def not_published(rows: Sequence[PrecisionRow]) -> tuple[str, ...]:
    """The precisions that have no row (no peak or no bandwidth published), in order."""
    shown = {r.precision for r in rows}
    return tuple(p for p in PRECISIONS if p not in shown)


def missing_note(device: Device, rows: Sequence[PrecisionRow]) -> str:
    """A line listing what the device does not publish, so nothing is dropped silently."""
    missing = ", ".join(p.upper() for p in not_published(rows))
    if not missing:
        return f"{device.name} publishes a peak for every precision."
    where = "empty cells in the table, no bar, no point"
    return f"{missing}: {fmt.NOT_PUBLISHED} for {device.name} ({where})."


def _record(precision: str, r: PrecisionRow | None) -> dict:
    """One table row; the device's figures empty (None) where it publishes none."""
    known = r is not None
    return {
        "precision": LABELS[precision],
        "path": path(precision),
        "bytes per element": BYTES_PER_ELEMENT[precision],
        "peak (spec)": r.peak_flops_per_s if known else None,
        "ridge": r.ridge if known else None,
        "FLOPs": r.cost.flops if known else None,
        "bytes moved": r.cost.bytes if known else None,
        "intensity": r.cost.intensity if known else None,
        "bound by": r.limiter if known else None,
        "time floor": r.time_floor_s if known else None,
    }


def table(rows: Sequence[PrecisionRow]) -> pd.DataFrame:
    """A row per precision, SI numbers (NaN where unpublished); attrs["units"] names their kinds."""
    by_precision = {r.precision: r for r in rows}
    df = pd.DataFrame([_record(p, by_precision.get(p)) for p in PRECISIONS])
    df = df.astype({c: float for c in UNITS})
    df.attrs["units"] = UNITS
    return df


def _end(row: PrecisionRow) -> str:
    """'FP32 (201.3 MB, 67.0 TFLOP/s)': one end of a comparison."""
    peak = fmt.flops_per_s(row.peak_flops_per_s, 4)
    return f"{row.precision.upper()} ({fmt.traffic(row.cost.bytes, 4)}, {peak})"


def _vector_vs_tensor(rows: Sequence[PrecisionRow], s: Span) -> str:
    """The FP32 vector path against the narrowest tensor path, if both are published."""
    fp32 = next((r for r in rows if r.precision == "fp32"), None)
    if fp32 is None or path(s.narrowest.precision) != "tensor" or fp32 is s.widest:
        return ""
    both = Span(fp32, s.narrowest)
    return (
        f" Against the vector path's {_end(fp32)}, {s.narrowest.precision.upper()} moves "
        f"{fmt.ratio(both.bytes_ratio)} fewer bytes under a {fmt.ratio(both.peak_ratio)} "
        "higher roof."
    )


def _bound(s: Span) -> str:
    """Whether the matmul changes side of the ridge between the two ends."""
    if s.bound_changes:
        return f"it turns from {s.widest.limiter}-bound to {s.narrowest.limiter}-bound"
    return f"it stays {s.widest.limiter}-bound at both ends"


def takeaway(rows: Sequence[PrecisionRow], device: Device) -> str:
    """Bytes and roof ratios between the widest and narrowest published precision."""
    s = span(rows)
    if s is None:
        return f"{device.name} publishes no peak with a memory bandwidth: nothing to compare."
    flops = fmt.flops(s.widest.cost.flops)
    if s.widest is s.narrowest:
        return f"{device.name} publishes one precision only, {_end(s.widest)}: {flops}."
    return (
        f"Same maths, {flops} at every precision. From {_end(s.widest)} to "
        f"{_end(s.narrowest)} the bytes shrink {fmt.ratio(s.bytes_ratio)}, so the intensity "
        f"rises {fmt.ratio(s.bytes_ratio)}, and the roof lifts {fmt.ratio(s.peak_ratio)}: "
        f"{_bound(s)}, and the time floor falls {fmt.ratio(s.speedup)} "
        f"({fmt.seconds(s.widest.time_floor_s)} → {fmt.seconds(s.narrowest.time_floor_s)})."
        f"{_vector_vs_tensor(rows, s)} Dropping precision moves you right AND lifts the roof."
    )


def metrics(s: Span | None) -> list[tuple[str, str]]:
    """(label, value) headline numbers for the page; 'not published' when nothing is."""
    if s is None:
        return [("peak and memory bandwidth", fmt.NOT_PUBLISHED)]
    wide, narrow = s.widest.precision.upper(), s.narrowest.precision.upper()
    return [
        ("FLOPs, every precision", fmt.flops(s.widest.cost.flops)),
        (f"bytes moved at {wide}", fmt.traffic(s.widest.cost.bytes, 4)),
        (f"bytes moved at {narrow}", fmt.traffic(s.narrowest.cost.bytes, 4)),
        (f"roof lifts, {wide} → {narrow}", fmt.ratio(s.peak_ratio)),
        (f"time floor at {narrow}", fmt.seconds(s.narrowest.time_floor_s)),
    ]
