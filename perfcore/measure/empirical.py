"""The measured hierarchical roofline, derived from the roofline experiment's records.

One flat roof per precision: the best matmul FLOP/s over the size sweep. One slanted roof
per memory level: the bandwidth plateaus of the streaming sweep (perfcore.measure.plateaus),
where each working set's bandwidth is the better of the two kernels. A ceiling is what the
device can do, so rates use each record's fastest sample: other work sharing the machine
only ever adds time. Records keep the raw samples; everything here is derived,
so a results file measured anywhere gives the same roofline.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from perfcore import format as fmt
from perfcore.measure.plateaus import Plateau, find_plateaus, level_names
from perfcore.measure.results import Record

EXPERIMENT = "roofline"


@dataclass(frozen=True)
class Roof:
    """A flat compute roof: the best matmul of one precision and dtype."""

    precision: str
    dtype: str
    flops_per_s: float
    label: str


@dataclass(frozen=True)
class Level:
    """A slanted memory roof: a named plateau of the bandwidth curve."""

    name: str
    plateau: Plateau

    @property
    def bytes_per_s(self) -> float:
        """The level's bandwidth, bytes/s."""
        return self.plateau.bytes_per_s


@dataclass(frozen=True)
class MeasuredRoofline:
    """Flat roofs (best first) and memory levels (fastest first) measured on one device."""

    roofs: tuple[Roof, ...]
    levels: tuple[Level, ...]


def _is_stream(record: Record) -> bool:
    """True for a streaming-kernel record of the roofline experiment."""
    return record.experiment == EXPERIMENT and record.size_kind == "bytes" and bool(record.bytes)


def bandwidth_curve(records: tuple[Record, ...]) -> dict[float, float]:
    """Working set (bytes) -> best kernel bandwidth there (bytes/s, at the fastest sample)."""
    curve: dict[float, float] = {}
    for r in filter(_is_stream, records):
        bandwidth = r.bytes / r.measurement.min
        curve[r.size] = max(curve.get(r.size, 0.0), bandwidth)
    return curve


def levels(records: tuple[Record, ...]) -> tuple[Level, ...]:
    """The memory levels found in the records' bandwidth curve, fastest first."""
    curve = bandwidth_curve(records)
    if not curve:
        return ()
    plateaus = find_plateaus(tuple(curve), tuple(curve.values()))
    return tuple(Level(n, p) for n, p in zip(level_names(len(plateaus)), plateaus, strict=True))


def roofs(records: tuple[Record, ...]) -> tuple[Roof, ...]:
    """The best matmul FLOP/s per precision (at the fastest sample), best first."""
    best: dict[str, Roof] = {}
    for r in records:
        if r.experiment != EXPERIMENT or r.size_kind != "side" or not r.flops:
            continue
        roof = Roof(r.precision, r.dtype, r.flops / r.measurement.min, r.label)
        current = best.get(r.precision)
        if current is None or roof.flops_per_s > current.flops_per_s:
            best[r.precision] = roof
    return tuple(sorted(best.values(), key=lambda roof: -roof.flops_per_s))


def measured_roofline(records: tuple[Record, ...]) -> MeasuredRoofline:
    """The measured hierarchical roofline of the records' roofline experiment."""
    return MeasuredRoofline(roofs(records), levels(records))


def with_levels(records: tuple[Record, ...]) -> tuple[Record, ...]:
    """The records, each streaming one on a plateau named by its level (others unchanged)."""
    where = {size: lv.name for lv in levels(records) for size in lv.plateau.sizes}
    return tuple(dataclasses.replace(r, level=where[r.size]) if _is_stream(r) and r.size in where
                 else r for r in records)  # fmt: skip


def describe(roofline: MeasuredRoofline) -> list[str]:
    """One line per roof and per level, for a terminal."""
    lines = [f"compute roof {r.precision or r.dtype:<5} {fmt.flops_per_s(r.flops_per_s):>14}"
             f"  ({r.label})" for r in roofline.roofs]  # fmt: skip
    for lv in roofline.levels:
        p = lv.plateau
        span = f"{fmt.capacity(p.lo_bytes)} - {fmt.capacity(p.hi_bytes)}"
        lines.append(f"memory level {lv.name:<8} {fmt.bytes_per_s(lv.bytes_per_s):>12}  "
                     f"working sets {span}, spread {fmt.percent(p.spread)}")  # fmt: skip
    return lines
