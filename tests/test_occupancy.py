"""Waves and utilisation: bounded, quantised, and the hand calculation's 132 vs 133 cliff."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore.model.occupancy import TileQuantisation, idle_units, utilisation, waves

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
def test_tile_efficiency_is_in_zero_one(m, n, tile, u):
    q = TileQuantisation(m, n, tile, tile, u)
    assert 0 < q.efficiency <= 1
    assert q.efficiency == pytest.approx(q.tile_efficiency * q.utilisation)


def test_tile_quantisation_counts_edge_tiles_and_waves():
    q = TileQuantisation(4097, 4096, 128, 128, 132)
    assert q.tiles == 33 * 32
    assert q.waves == 8
    assert q.tile_efficiency == pytest.approx(4097 / (33 * 128))
