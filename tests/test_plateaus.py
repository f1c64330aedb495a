"""perfcore.measure.results.plateaus: bandwidth levels found from synthetic working-set sweeps."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore.measure.results.plateaus import find_plateaus, flat_runs, level_names

KIB, MIB = 2**10, 2**20
SIZES = [16 * KIB * 2**i for i in range(17)]  # 16 KiB .. 1 GiB


def staircase(levels, noise=()):
    """Bandwidths over SIZES: each (upper size, bytes/s) holds up to that size, times noise."""
    out = []
    for i, size in enumerate(SIZES):
        bandwidth = next(b for top, b in levels if size <= top)
        out.append(bandwidth * (noise[i % len(noise)] if noise else 1))
    return out


def test_a_three_level_staircase_gives_three_plateaus_with_their_ranges():
    curve = staircase([(256 * KIB, 200e9), (16 * MIB, 60e9), (2**40, 15e9)])
    found = find_plateaus(SIZES, curve)
    assert [p.bytes_per_s for p in found] == [200e9, 60e9, 15e9]
    assert (found[0].lo_bytes, found[0].hi_bytes) == (16 * KIB, 256 * KIB)
    assert (found[1].lo_bytes, found[1].hi_bytes) == (512 * KIB, 16 * MIB)
    assert found[2].hi_bytes == 2**30
    assert all(p.spread == 0 for p in found)


def test_noise_within_a_level_does_not_split_it():
    noise = (1.0, 0.9, 1.1, 0.95, 1.05)
    found = find_plateaus(SIZES, staircase([(1 * MIB, 100e9), (2**40, 20e9)], noise))
    assert len(found) == 2
    assert found[0].bytes_per_s == pytest.approx(100e9, rel=0.1)
    assert 0 < found[0].spread < 0.3


def test_a_rising_overhead_bound_start_is_not_a_level():
    curve = staircase([(4 * MIB, 80e9), (2**40, 20e9)])
    curve[:3] = [10e9, 11e9, 25e9]  # too small to hide the call's cost
    found = find_plateaus(SIZES, curve)
    assert [p.bytes_per_s for p in found] == [80e9, 20e9]
    assert found[0].lo_bytes == 128 * KIB


def test_a_lone_point_between_levels_is_a_transition_not_a_level():
    curve = staircase([(1 * MIB, 100e9), (2**40, 20e9)])
    curve[7] = 45e9  # half spilled
    assert [p.bytes_per_s for p in find_plateaus(SIZES, curve)] == [100e9, 20e9]


def test_order_of_the_input_does_not_matter():
    curve = staircase([(1 * MIB, 100e9), (2**40, 20e9)])
    pairs = list(zip(SIZES, curve, strict=True))[::-1]
    found = find_plateaus([s for s, _ in pairs], [b for _, b in pairs])
    assert [p.bytes_per_s for p in found] == [100e9, 20e9]


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        find_plateaus([], [])
    with pytest.raises(ValueError):
        find_plateaus([1, 2], [1.0])
    with pytest.raises(ValueError):
        find_plateaus([1, 2], [1.0, 0.0])


@given(st.lists(st.floats(min_value=1e6, max_value=1e12), min_size=1, max_size=40))
def test_runs_cover_every_point_once_and_each_stays_flat(values):
    runs = flat_runs(values)
    assert [i for r in runs for i in r] == list(range(len(values)))
    assert all(max(values[i] for i in r) / min(values[i] for i in r) < 1.4 for r in runs)


@given(st.lists(st.floats(min_value=1e6, max_value=1e12), min_size=1, max_size=40))
def test_levels_only_ever_get_slower(values):
    found = find_plateaus(list(range(len(values))), values)
    speeds = [p.bytes_per_s for p in found]
    assert speeds == sorted(speeds, reverse=True)


def test_levels_are_named_fastest_first_with_memory_last():
    assert level_names(3) == ("cache 1", "cache 2", "memory")
    assert level_names(1) == ("memory",)
    assert level_names(0) == ()
