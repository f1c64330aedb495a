"""The measured roofline as the Measure page reads it: a table of roofs and their spec figures.

The roofs themselves are perfcore.measure.results.empirical's MeasuredRoofline (the one definition:
each record at its fastest sample, each memory level the median over its plateau); here
they become a table beside the spec row's figures, and a point is judged against the spec
row's roof when one applies, else against the measured one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from perfcore.explain.measure.measure_sweep import spec_peak
from perfcore.measure.results import Record
from perfcore.measure.results.empirical import MEMORY, MeasuredLevel, MeasuredRoofline, Roof
from perfcore.measure.results.points import MeasuredPoint, above_roof
from perfcore.model.chip.specs import Device

COLUMNS = (
    "roof",
    "from",
    "compute",
    "bandwidth",
    "spec compute",
    "spec bandwidth",
    "fraction of spec",
)
UNITS = {
    "compute": "flops_per_s",
    "bandwidth": "bytes_per_s",
    "spec compute": "flops_per_s",
    "spec bandwidth": "bytes_per_s",
    "fraction of spec": "percent",
}


def spec_figure(roof: Roof | MeasuredLevel, spec: Device | None) -> float | None:
    """The spec row's figure for the same roof (device memory only for levels); else None."""
    if spec is None:
        return None
    if isinstance(roof, Roof):
        return spec_peak(spec, roof.name)
    return spec.memory_bytes_per_s if roof.name == MEMORY else None


def _row(roof: Roof | MeasuredLevel, spec: Device | None) -> dict:
    """One roof's table row: its value and the spec row's, in the column of its kind."""
    figure = spec_figure(roof, spec)
    kind, value = (
        ("compute", roof.flops_per_s) if isinstance(roof, Roof) else ("bandwidth", roof.bytes_per_s)
    )
    row = dict.fromkeys(COLUMNS, math.nan) | {"roof": roof.name, "from": roof.label}
    row |= {kind: value, f"spec {kind}": figure if figure else math.nan}
    return row | {"fraction of spec": value / figure if figure else math.nan}


def roofs_table(roofline: MeasuredRoofline, spec: Device | None) -> pd.DataFrame:
    """Each measured roof beside the spec row's figure (only where a row applies)."""
    rows = [_row(roof, spec) for roof in (*roofline.roofs, *roofline.levels)]
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df.attrs["units"] = dict(UNITS)
    return df


@dataclass(frozen=True)
class Ceiling:
    """A measured roof (FLOP/s or bytes/s, per empirical) beside the spec row's figure."""

    what: str
    measured: float
    spec: float | None
    unit: str  # "FLOP/s" or "B/s"

    @property
    def fraction(self) -> float | None:
        """measured / spec; None where no spec row applies or it publishes no figure."""
        return self.measured / self.spec if self.spec else None


def ceilings(roofline: MeasuredRoofline, spec: Device | None) -> list[Ceiling]:
    """Each compute roof (best first), then device memory, against the spec row if one applies."""
    out = [
        Ceiling(f"{r.label} ({r.name})", r.flops_per_s, spec_figure(r, spec), "FLOP/s")
        for r in roofline.roofs
    ]
    memory = [lv for lv in roofline.levels if lv.name == MEMORY]
    return out + [
        Ceiling(f"{MEMORY} ({lv.label})", lv.bytes_per_s, spec_figure(lv, spec), "B/s")
        for lv in memory
    ]


def above_measured(point: MeasuredPoint, roofline: MeasuredRoofline) -> bool:
    """True when a point's median FLOP/s is above the measured roof at its intensity."""
    roof = roofline.roof_at(point.intensity, point.precision)
    return roof is not None and point.flops_per_s > roof


def above(
    points: tuple[MeasuredPoint, ...], roofline: MeasuredRoofline, spec: Device | None
) -> list[bool]:
    """For each point, whether it sits above its roof: the spec row's, else the measured one."""
    if spec is not None:
        return [above_roof(p, spec) for p in points]
    return [above_measured(p, roofline) for p in points]


def title(records: tuple[Record, ...], spec: Device | None) -> str:
    """The chart's title: whose measured ceilings, and which spec row beside them."""
    beside = f" beside {spec.name}'s spec" if spec else ""
    return f"Measured roofline — {records[0].device}: measured ceilings{beside}"
