"""The measured roofline: one flat roof per precision, one slanted roof per memory level.

Roofs come from the records, not from a spec: each precision's best matmul FLOP/s (the
`ceilings` and `roofline` experiments) and each memory level's best streaming bytes/s
(records tagged with a `level` by the roofline experiment; the ceilings' copy is memory).
The roof at intensity I is min(flat, best slanted x I), as for a spec roof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from perfcore.explain.measure_sweep import spec_peak
from perfcore.measure.plateaus import level_names
from perfcore.measure.points import MeasuredPoint, above_roof
from perfcore.measure.results import Record
from perfcore.model.specs import Device

ROOF_EXPERIMENTS = ("ceilings", "roofline")  # experiments whose best rates are ceilings
DEVICE_MEMORY = level_names(1)[-1]  # the slowest level's name; an untagged copy's level


@dataclass(frozen=True)
class Roof:
    """One measured ceiling: a compute roof (FLOP/s) or a memory level's bandwidth (bytes/s)."""

    name: str  # the precision (or dtype) of a compute roof, the level of a memory roof
    kind: str  # "compute" or "memory"
    value: float  # FLOP/s or bytes/s, at the median of the best record
    label: str  # the record it came from


def _best(roofs: list[Roof]) -> tuple[Roof, ...]:
    """The highest roof of each name, highest first."""
    best: dict[str, Roof] = {}
    for roof in roofs:
        if roof.name not in best or roof.value > best[roof.name].value:
            best[roof.name] = roof
    return tuple(sorted(best.values(), key=lambda r: -r.value))


def compute_roofs(records: tuple[Record, ...]) -> tuple[Roof, ...]:
    """The best measured FLOP/s per precision (dtype where none is named), highest first."""
    roofs = [r for r in records if r.experiment in ROOF_EXPERIMENTS and not _is_stream(r)]
    rated = [r for r in roofs if r.flops_per_s]
    return _best([Roof(r.precision or r.dtype, "compute", r.flops_per_s, r.label) for r in rated])


def memory_roofs(records: tuple[Record, ...]) -> tuple[Roof, ...]:
    """The best measured bytes/s per memory level, highest (the nearest cache) first."""
    streams = [r for r in records if _is_stream(r) and r.bytes_per_s]
    return _best(
        [Roof(r.level or DEVICE_MEMORY, "memory", r.bytes_per_s, r.label) for r in streams]
    )


def _is_stream(r: Record) -> bool:
    """True for a bandwidth record: tagged with a level, or the ceilings' copy (no FLOPs)."""
    return bool(r.level) or (r.experiment == "ceilings" and bool(r.bytes) and not r.flops)


def roof_at(intensity: float, precision: str, records: tuple[Record, ...]) -> float | None:
    """The measured roof (FLOP/s) at intensity for precision; None when a roof is missing."""
    flat = [r.value for r in compute_roofs(records) if r.name == precision]
    slanted = [r.value for r in memory_roofs(records)]
    if not flat or not slanted:
        return None
    return min(flat[0], max(slanted) * intensity)


def above_measured(point: MeasuredPoint, records: tuple[Record, ...]) -> bool:
    """True when a point's median FLOP/s is above the measured roof at its intensity."""
    roof = roof_at(point.intensity, point.precision, records)
    return roof is not None and point.flops_per_s > roof


def _spec_value(roof: Roof, spec: Device | None) -> float | None:
    """The spec row's figure for the same roof; None without a row or a published figure."""
    if spec is None:
        return None
    if roof.kind == "compute":
        return spec_peak(spec, roof.name)
    return spec.memory_bytes_per_s if roof.name == DEVICE_MEMORY else None


COLUMNS = ("roof", "from", "compute", "bandwidth", "spec compute", "spec bandwidth",
           "fraction of spec")  # fmt: skip
UNITS = {"compute": "flops_per_s", "bandwidth": "bytes_per_s", "spec compute": "flops_per_s",
         "spec bandwidth": "bytes_per_s", "fraction of spec": "percent"}  # fmt: skip


def _row(roof: Roof, spec: Device | None) -> dict:
    """One roof's table row: its value and the spec row's, in the column of its kind."""
    figure = _spec_value(roof, spec)
    kind = "compute" if roof.kind == "compute" else "bandwidth"
    row = dict.fromkeys(COLUMNS, math.nan) | {"roof": roof.name, "from": roof.label}
    row |= {kind: roof.value, f"spec {kind}": figure if figure else math.nan}
    return row | {"fraction of spec": roof.value / figure if figure else math.nan}


def roofs_table(records: tuple[Record, ...], spec: Device | None) -> pd.DataFrame:
    """Each measured roof beside the spec row's figure (only where a row applies)."""
    roofs = (*compute_roofs(records), *memory_roofs(records))
    df = pd.DataFrame([_row(roof, spec) for roof in roofs], columns=list(COLUMNS))
    df.attrs["units"] = dict(UNITS)
    return df


def above(
    points: tuple[MeasuredPoint, ...], records: tuple[Record, ...], spec: Device | None
) -> list[bool]:
    """For each point, whether it sits above its roof: the spec row's, else the measured one."""
    if spec is not None:
        return [above_roof(p, spec) for p in points]
    return [above_measured(p, records) for p in points]


def title(records: tuple[Record, ...], spec: Device | None) -> str:
    """The chart's title: whose measured ceilings, and which spec row beside them."""
    beside = f" beside {spec.name}'s spec" if spec else ""
    return f"Measured roofline — {records[0].device}: measured ceilings{beside}"
