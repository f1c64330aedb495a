"""Occupancy, crudely: equal-cost blocks dealt round-robin over the compute units.

A block runs on exactly one unit (SM or CU); the kernel ends when the busiest unit
ends, so n blocks take ceil(n / units) waves and utilisation is blocks / (waves x
units). Matmul tiles quantise twice: partial tiles at the matrix edge, and a partial
last wave of tiles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def waves(n_blocks: int, n_units: int) -> int:
    """Passes over the units needed to run n_blocks (0 blocks -> 0 waves)."""
    return math.ceil(n_blocks / n_units)


def utilisation(n_blocks: int, n_units: int) -> float:
    """Fraction of the paid-for block slots that do work; 0.0 for no blocks."""
    if n_blocks == 0:
        return 0.0
    return n_blocks / (waves(n_blocks, n_units) * n_units)


def idle_units(n_blocks: int, n_units: int) -> int:
    """Block slots left empty over all waves (units idle in the last wave)."""
    return waves(n_blocks, n_units) * n_units - n_blocks


@dataclass(frozen=True)
class TileQuantisation:
    """A (m x n) output cut into (tile_m x tile_n) tiles on `units` compute units."""

    m: int
    n: int
    tile_m: int
    tile_n: int
    units: int

    @property
    def tiles(self) -> int:
        """Tiles needed to cover the output, edge tiles included."""
        return math.ceil(self.m / self.tile_m) * math.ceil(self.n / self.tile_n)

    @property
    def waves(self) -> int:
        """Waves of tiles over the units."""
        return waves(self.tiles, self.units)

    @property
    def tile_efficiency(self) -> float:
        """Useful fraction of the computed tile area (edge padding wasted)."""
        return self.m * self.n / (self.tiles * self.tile_m * self.tile_n)

    @property
    def utilisation(self) -> float:
        """utilisation() of the units by the tiles, over all waves."""
        return utilisation(self.tiles, self.units)

    @property
    def efficiency(self) -> float:
        """Fraction of the paid-for tile slots doing useful work, in (0, 1]."""
        return self.tile_efficiency * self.utilisation
