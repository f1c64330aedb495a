"""Waves and utilisation: bounded, quantised, and the hand calculation's 132 vs 133 cliff."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore.model.chip.occupancy import TileQuantisation, idle_units, utilisation, waves

blocks = st.integers(min_value=1, max_value=10**6)
units = st.integers(min_value=1, max_value=1024)


@given(blocks, units)
def test_utilisation_is_in_zero_one(n, u):
    assert 0 < utilisation(n, u) <= 1


@given(blocks, units)
def test_waves_cover_the_blocks_with_less_than_one_wave_spare(n, u):
    w = waves(n, u)
    assert (w - 1) * u < n <= w * u
    assert idle_units(n, u) == w * u - n


@given(st.integers(min_value=1, max_value=100), units)
def test_full_waves_are_fully_utilised(k, u):
    assert utilisation(k * u, u) == 1.0


def test_one_block_past_a_full_wave_costs_a_whole_wave():
    assert waves(133, 132) == 2
    assert utilisation(133, 132) == pytest.approx(133 / 264)


def test_no_blocks_is_no_work():
    assert (waves(0, 132), utilisation(0, 132)) == (0, 0.0)


@given(st.integers(1, 20000), st.integers(1, 20000), st.sampled_from([64, 128, 256]), units)
def test_efficiency_is_useful_area_over_the_tile_slots_paid_for(m, n, tile, u):
    """Counted the other way round from the code: deal the tiles out wave by wave, count the
    slots (units x tile area per wave) the kernel pays for, divide the m x n useful cells."""
    q = TileQuantisation(m, n, tile, tile, u)
    tiles, slots = len(range(0, m, tile)) * len(range(0, n, tile)), 0
    while tiles > 0:
        slots, tiles = slots + u * tile * tile, tiles - u
    assert 0 < q.efficiency <= 1
    assert q.efficiency == pytest.approx(m * n / slots, rel=1e-12)


def test_a_3000_by_5000_output_in_64_tiles_on_132_units_is_95_7_percent_efficient():
    """By hand: ceil(3000/64) x ceil(5000/64) = 47 x 79 = 3713 tiles; 3713 / 132 -> 29 waves;
    29 x 132 x 64 x 64 = 15,679,488 cells paid for, 15,000,000 used: 95.666 %."""
    q = TileQuantisation(3000, 5000, 64, 64, 132)
    assert (q.tiles, q.waves) == (3713, 29)
    assert q.efficiency == pytest.approx(0.956664, rel=1e-6)


def test_tile_quantisation_counts_edge_tiles_and_waves():
    q = TileQuantisation(4097, 4096, 128, 128, 132)
    assert q.tiles == 33 * 32
    assert q.waves == 8
    assert q.tile_efficiency == pytest.approx(4097 / (33 * 128))
