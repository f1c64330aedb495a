"""Bandwidth plateaus found from a working-set sweep: one per cache level, then device memory.

A streaming kernel's bandwidth against its working set is a staircase: flat while the
arrays fit one level, dropping when they spill to the next. The sorted curve is cut into
runs whose bandwidths stay within a factor `flat` of each other; a run of at least
`min_points` sizes is a plateau. Runs before the fastest plateau are overhead-bound (the
work is too small to hide a call's fixed cost) and runs that rise above the plateau before
them are noise: neither is a level. Each plateau keeps its sizes, bandwidths, median and spread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfcore.measure.clock import stats

FLAT = 1.4  # within one plateau, max / min bandwidth stays below this factor
MIN_POINTS = 2  # sizes a run needs to count as a plateau


@dataclass(frozen=True)
class Plateau:
    """A flat run of the bandwidth curve: working sets (bytes) and their bandwidths (bytes/s)."""

    sizes: tuple[float, ...]
    bandwidths: tuple[float, ...]

    @property
    def lo_bytes(self) -> float:
        """Smallest working set on the plateau, bytes."""
        return min(self.sizes)

    @property
    def hi_bytes(self) -> float:
        """Largest working set on the plateau, bytes."""
        return max(self.sizes)

    @property
    def bytes_per_s(self) -> float:
        """The level's bandwidth: median over the plateau's sizes, bytes/s."""
        return stats.median(self.bandwidths)

    @property
    def spread(self) -> float:
        """IQR / median of the plateau's bandwidths over its working sets, a fraction."""
        return stats.spread(self.bandwidths)


def flat_runs(bandwidths: Sequence[float], flat: float = FLAT) -> list[range]:
    """Index ranges of consecutive values whose max / min stays below `flat` (greedy)."""
    runs, start, lo, hi = [], 0, bandwidths[0], bandwidths[0]
    for i, value in enumerate(bandwidths[1:], start=1):
        lo, hi = min(lo, value), max(hi, value)
        if hi / lo >= flat:
            runs.append(range(start, i))
            start, lo, hi = i, value, value
    runs.append(range(start, len(bandwidths)))
    return runs


def _staircase(plateaus: list[Plateau]) -> tuple[Plateau, ...]:
    """From the fastest plateau on, each plateau slower than the one kept before it."""
    if not plateaus:
        return ()
    fastest = max(range(len(plateaus)), key=lambda i: plateaus[i].bytes_per_s)
    kept = [plateaus[fastest]]
    for plateau in plateaus[fastest + 1 :]:
        if plateau.bytes_per_s < kept[-1].bytes_per_s:
            kept.append(plateau)
    return tuple(kept)


def find_plateaus(
    sizes: Sequence[float],
    bandwidths: Sequence[float],
    flat: float = FLAT,
    min_points: int = MIN_POINTS,
) -> tuple[Plateau, ...]:
    """The bandwidth levels of a working-set sweep, fastest (smallest sizes) first."""
    if len(sizes) != len(bandwidths) or not sizes:
        raise ValueError("plateaus need one bandwidth per size, at least one of each")
    if min(bandwidths) <= 0:
        raise ValueError("bandwidths must be positive")
    pairs = sorted(zip(sizes, bandwidths, strict=True))
    xs, ys = [float(s) for s, _ in pairs], [float(b) for _, b in pairs]
    runs = [r for r in flat_runs(ys, flat) if len(r) >= min_points]
    return _staircase([Plateau(tuple(xs[i] for i in r), tuple(ys[i] for i in r)) for r in runs])


def level_names(count: int) -> tuple[str, ...]:
    """Names of `count` levels, fastest first: cache 1, cache 2, ..., and memory last."""
    if count < 1:
        return ()
    return (*(f"cache {i + 1}" for i in range(count - 1)), "memory")
