"""The matmul sweep's rows and its two ceilings.

One kernel over sizes passes through up to three regimes. Each size's achieved FLOP/s (FLOPs over
the median seconds per call) sits under two ceilings: the spec roof at its intensity
I(n) = 2n / 3b, and the launch-overhead ceiling 2n³ / t_empty, from the measured cost of an
empty call. (The measured roofs against the spec row: explain.measure.measure_roofline.)
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore import format as fmt
from perfcore.measure.clock.devices import DTYPE_PRECISION
from perfcore.measure.results import Record
from perfcore.measure.results.points import measured_point
from perfcore.model.chip import ops
from perfcore.model.chip.precision import BYTES_PER_ELEMENT
from perfcore.model.chip.roofline import attainable
from perfcore.model.chip.specs import PRECISIONS, Device

RATE_BASIS = "FLOPs / median seconds per call"
EMPTY_CALL = "empty call"  # the runner's sweep label for the cost of launching nothing
EXTEND = 4  # the ceilings are drawn from a quarter of the smallest size to 4x the largest


@dataclass(frozen=True)
class SweepPoint:
    """One size of the matmul sweep: achieved FLOP/s at the median, with min-max bars."""

    n: int
    dtype: str
    precision: str
    seconds: float
    flops_per_s: float
    flops_per_s_lo: float
    flops_per_s_hi: float
    regime: str


def sweep(records: tuple[Record, ...]) -> list[SweepPoint]:
    """The synchronized sized matmuls of the sweep, smallest first."""
    sized = [r for r in records if r.experiment == "sweep" and r.size and r.flops_per_s]
    points = [(r, measured_point(r)) for r in sized if r.bytes]
    rows = [
        SweepPoint(
            int(r.size),
            r.dtype,
            r.precision,
            p.seconds_median,
            p.flops_per_s,
            p.flops_per_s_lo,
            p.flops_per_s_hi,
            r.regime,
        )
        for r, p in points
    ]
    return sorted(rows, key=lambda row: row.n)


def empty_call_s(records: tuple[Record, ...]) -> float | None:
    """Median seconds of the sweep's empty call (the launch overhead); None if not measured."""
    found = [r for r in records if r.experiment == "sweep" and r.label == EMPTY_CALL]
    return found[0].measurement.median if found else None


def _sizes(rows: list[SweepPoint]) -> list[float]:
    """The sweep's sizes, extended by EXTEND at both ends."""
    return [rows[0].n / EXTEND, *(r.n for r in rows), rows[-1].n * EXTEND]


def _square(n: float, rows: list[SweepPoint]) -> ops.Cost:
    """The cost of an n x n x n matmul in the sweep's dtype."""
    bpe = BYTES_PER_ELEMENT.get(DTYPE_PRECISION.get(rows[0].dtype, ""), 4)
    return ops.matmul(n, n, n, bpe)


def overhead_by_n(records: tuple[Record, ...]) -> list[tuple[float, float]]:
    """(n, 2n³ / t_empty): the FLOP/s a matmul could reach if it cost one empty call."""
    rows, t_empty = sweep(records), empty_call_s(records)
    if not rows or not t_empty:
        return []
    return [(n, _square(n, rows).flops / t_empty) for n in _sizes(rows)]


def overhead_ceiling(records: tuple[Record, ...]) -> list[tuple[float, float]]:
    """The same ceiling at each size's intensity, I(n) = 2n / 3b: for the roofline."""
    rows, t_empty = sweep(records), empty_call_s(records)
    if not rows or not t_empty:
        return []
    costs = [_square(n, rows) for n in _sizes(rows)]
    return [(c.intensity, c.flops / t_empty) for c in costs]


def roof_by_n(records: tuple[Record, ...], spec: Device | None) -> list[tuple[float, float]]:
    """(n, spec roof at I(n)) for the sweep's precision; [] without a row or a published figure."""
    rows = sweep(records)
    if not rows or spec is None:
        return []
    peak, bw = spec_peak(spec, rows[0].precision), spec.memory_bytes_per_s
    if peak is None or bw is None:
        return []
    return [(n, attainable(_square(n, rows).intensity, peak, bw)[0]) for n in _sizes(rows)]


def sweep_sentence(records: tuple[Record, ...]) -> str:
    """Which sizes fell in which regime, and what the empty call caps."""
    rows, t_empty = sweep(records), empty_call_s(records)
    if not rows:
        return ""
    names = dict.fromkeys(r.regime for r in rows)
    by = {g: [str(r.n) for r in rows if r.regime == g] for g in names}
    regimes = "; ".join(f"{g or 'no regime noted'}: n = {', '.join(ns)}" for g, ns in by.items())
    return f"Regimes ({RATE_BASIS}) — {regimes}.{_cap(rows[0], t_empty)}"


def _cap(first: SweepPoint, t_empty: float | None) -> str:
    """What one empty call's time allows the smallest size, and whether it stayed under."""
    if not t_empty:
        return ""
    ceiling = ops.matmul(first.n, first.n, first.n).flops / t_empty
    head = (
        f" An empty call took {fmt.seconds(t_empty)} (median), so n={first.n} could reach "
        f"at most {fmt.flops_per_s(ceiling)} if it cost no more than one empty call; it "
        f"reached {fmt.flops_per_s(first.flops_per_s)}"
    )
    if first.flops_per_s > ceiling:
        why = "launching a call costs about as much as the smallest matmul"
        return (
            f"{head}, above that ceiling: here {why}, so overhead, not arithmetic, sets its time."
        )
    return head + "."


def spec_peak(spec: Device | None, precision: str) -> float | None:
    """The spec row's peak FLOP/s at precision; None without a row, a precision or a figure."""
    return spec.peak_flops(precision) if spec and precision in PRECISIONS else None
