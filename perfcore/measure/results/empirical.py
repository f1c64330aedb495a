"""The measured hierarchical roofline: the one definition, derived from records (no JAX).

One flat roof per precision: the best matmul FLOP/s of the `roofline` experiment's size
sweep and the `ceilings` experiment's largest matmul. One slanted roof per memory level:
the bandwidth plateaus of the roofline experiment's streaming sweep (measure.results.plateaus),
each working set rated by the better of its kernels and paths, leaving out any record flagged
overhead-bound; without that sweep, the ceilings' device-memory copy is the one level.
Streaming records (size_kind "bytes", a level, the ceilings' copy) are memory roofs only,
whatever FLOPs they carry.

The statistic, chosen once here: a ceiling is the best rate the device sustains, so each
record is rated at its FASTEST sample (other work sharing the machine only ever adds time);
a plateau's bandwidth is the MEDIAN over its sizes (one lucky size does not make a level).
Records keep the raw samples, so a results file measured anywhere gives the same roofline.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from perfcore import format as fmt
from perfcore.measure.results import Record
from perfcore.measure.results.plateaus import Plateau, find_plateaus, level_names

EXPERIMENT = "roofline"
CEILINGS = "ceilings"  # the quick suite's two ceilings: its largest matmul and a copy
CEILINGS_COPY = "copy"  # the ceilings' copy: files before version 2 give it no size_kind
MEMORY = level_names(1)[-1]  # the slowest level's name: device memory
# The note of a streaming record whose pass took too little longer than the loop's overhead
# per pass for its time to be memory (perfcore.measure.experiments.stream): never part of a level.
OVERHEAD_BOUND = "overhead-bound, not a bandwidth"
OVERHEAD_NOTE = "overhead per pass"  # how the note of a path's measured overhead begins
PATH_NOTE = "path: "  # how the note naming a streaming record's path begins (loop, pallas)
PALLAS_UNUSED = "Pallas path not used: "  # how the note of why a GPU ran the loop only begins
OVERHEAD_FACTOR = 10  # a pass under 10x the overhead per pass spends over 10 % of its time there


@dataclass(frozen=True)
class Roof:
    """A flat compute roof: the best matmul of one precision and dtype, FLOP/s."""

    precision: str
    dtype: str
    flops_per_s: float
    label: str

    @property
    def name(self) -> str:
        """The roof's name: its precision, else its dtype."""
        return self.precision or self.dtype


@dataclass(frozen=True)
class MeasuredLevel:
    """A slanted memory roof: a named plateau of the bandwidth curve."""

    name: str
    plateau: Plateau

    @property
    def bytes_per_s(self) -> float:
        """The level's bandwidth, bytes/s."""
        return self.plateau.bytes_per_s

    @property
    def label(self) -> str:
        """The working sets the level was measured over."""
        lo, hi = fmt.capacity(self.plateau.lo_bytes), fmt.capacity(self.plateau.hi_bytes)
        return f"working set {lo}" if lo == hi else f"working sets {lo} - {hi}"


@dataclass(frozen=True)
class MeasuredRoofline:
    """Flat roofs (best first) and memory levels (fastest first) measured on one device."""

    roofs: tuple[Roof, ...]
    levels: tuple[MeasuredLevel, ...]

    def roof_at(self, intensity: float, precision: str) -> float | None:
        """min(flat roof, fastest level x intensity), FLOP/s; None when either is missing."""
        flat = [r.flops_per_s for r in self.roofs if r.name == precision]
        if not flat or not self.levels:
            return None
        return min(flat[0], self.levels[0].bytes_per_s * intensity)


def best_rate(record: Record, amount: float | None) -> float | None:
    """amount per second at the record's fastest sample; None for unsynchronized work."""
    return record.rate(amount, record.measurement.min)


def is_stream(record: Record) -> bool:
    """True for a bandwidth record of a roof experiment (never a compute roof)."""
    if record.experiment == EXPERIMENT:
        return record.size_kind == "bytes" or bool(record.level)
    return record.experiment == CEILINGS and (
        record.size_kind == "bytes" or record.label == CEILINGS_COPY
    )


def overhead_bound(pass_s: float, overhead_per_pass_s: float) -> bool:
    """True when a pass of pass_s seconds is under OVERHEAD_FACTOR x the overhead per pass."""
    return pass_s < OVERHEAD_FACTOR * overhead_per_pass_s


def is_overhead_bound(record: Record) -> bool:
    """True for a streaming record flagged as timing per-pass overhead, not memory."""
    return OVERHEAD_BOUND in record.notes


def _is_sweep_stream(record: Record) -> bool:
    """True for a record of the streaming sweep that times memory (not flagged overhead-bound)."""
    return (
        record.experiment == EXPERIMENT
        and is_stream(record)
        and record.size is not None
        and not is_overhead_bound(record)
    )


def bandwidth_curve(records: tuple[Record, ...]) -> dict[float, float]:
    """Working set (bytes) -> best kernel bandwidth there (bytes/s, at the fastest sample)."""
    curve: dict[float, float] = {}
    for r in filter(_is_sweep_stream, records):
        bandwidth = best_rate(r, r.bytes)
        if bandwidth:
            curve[r.size] = max(curve.get(r.size, 0.0), bandwidth)
    return curve


def _ceilings_copy(records: tuple[Record, ...]) -> tuple[MeasuredLevel, ...]:
    """The ceilings' copy as the one device-memory level; () without one."""
    rated = [(best_rate(r, r.bytes), r) for r in records if r.experiment == CEILINGS]
    copies = [(bw, r) for bw, r in rated if bw and is_stream(r)]
    if not copies:
        return ()
    bandwidth, copy = max(copies, key=lambda pair: pair[0])
    return (MeasuredLevel(MEMORY, Plateau((copy.size or copy.bytes,), (bandwidth,))),)


def _sweep_levels(records: tuple[Record, ...]) -> tuple[MeasuredLevel, ...]:
    """The plateaus of the streaming sweep's bandwidth curve, named, fastest first."""
    curve = bandwidth_curve(records)
    plateaus = find_plateaus(tuple(curve), tuple(curve.values())) if curve else ()
    return tuple(
        MeasuredLevel(n, p) for n, p in zip(level_names(len(plateaus)), plateaus, strict=True)
    )


def levels(records: tuple[Record, ...]) -> tuple[MeasuredLevel, ...]:
    """The memory levels of the streaming sweep, fastest first; else the ceilings' copy."""
    return _sweep_levels(records) or _ceilings_copy(records)


def roofs(records: tuple[Record, ...]) -> tuple[Roof, ...]:
    """The best matmul FLOP/s per precision (at the fastest sample), best first."""
    best: dict[str, Roof] = {}
    for r in records:
        if r.experiment not in (EXPERIMENT, CEILINGS) or is_stream(r):
            continue
        rate = best_rate(r, r.flops)
        roof = Roof(r.precision, r.dtype, rate, r.label) if rate else None
        if roof and (roof.name not in best or rate > best[roof.name].flops_per_s):
            best[roof.name] = roof
    return tuple(sorted(best.values(), key=lambda roof: -roof.flops_per_s))


def measured_roofline(records: tuple[Record, ...]) -> MeasuredRoofline:
    """The measured hierarchical roofline of the records' roofline and ceilings experiments."""
    return MeasuredRoofline(roofs(records), levels(records))


def with_levels(records: tuple[Record, ...]) -> tuple[Record, ...]:
    """The records, each streaming one on a plateau named by its level (others unchanged)."""
    where = {size: lv.name for lv in _sweep_levels(records) for size in lv.plateau.sizes}
    return tuple(
        dataclasses.replace(r, level=where[r.size])
        if _is_sweep_stream(r) and r.size in where
        else r
        for r in records
    )


def describe(roofline: MeasuredRoofline) -> list[str]:
    """One line per roof and per level, for a terminal."""
    lines = [
        f"compute roof {r.name:<5} {fmt.flops_per_s(r.flops_per_s):>14}  ({r.label})"
        for r in roofline.roofs
    ]
    for lv in roofline.levels:
        spread = fmt.percent(lv.plateau.spread)
        lines.append(
            f"memory level {lv.name:<8} {fmt.bytes_per_s(lv.bytes_per_s):>12}  "
            f"{lv.label}, spread {spread}"
        )
    return lines
