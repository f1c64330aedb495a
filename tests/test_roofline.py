"""The roofline is min() of two lines: bounded, equal to one roof, monotone in intensity."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore.model.chip import ops
from perfcore.model.chip.roofline import (
    attainable,
    estimate,
    estimate_on,
    fraction_of_peak,
    intensity,
    ridge_point,
    roofs,
    t_lower,
    t_math,
    t_memory,
    t_upper,
)

positive = st.floats(min_value=1e-6, max_value=1e18, allow_nan=False, allow_infinity=False)


@given(positive, positive, positive)
def test_attainable_never_exceeds_either_roof_and_equals_one(i, peak, bw):
    reach, limiter = attainable(i, peak, bw)
    assert reach <= peak
    assert reach <= bw * i
    assert reach == (peak if limiter == "compute" else bw * i)


@given(positive, positive, positive, positive)
def test_attainable_is_monotone_in_intensity(i1, i2, peak, bw):
    lo, hi = sorted((i1, i2))
    assert attainable(lo, peak, bw)[0] <= attainable(hi, peak, bw)[0]


@given(positive, positive)
def test_ridge_is_where_the_limiter_flips(peak, bw):
    ridge = ridge_point(peak, bw)
    assert attainable(ridge * 2, peak, bw)[1] == "compute"
    assert attainable(ridge / 2, peak, bw)[1] == "memory"


def test_a_tie_counts_as_compute():
    assert attainable(2.0, 10.0, 5.0) == (10.0, "compute")


@given(positive, positive, positive)
def test_fraction_of_peak_is_in_zero_one(i, peak, bw):
    assert 0 < fraction_of_peak(i, peak, bw) <= 1


@given(positive, positive, positive, positive)
def test_time_floor_sits_between_each_term_and_their_sum(flops, n_bytes, peak, bw):
    lower, upper = t_lower(flops, n_bytes, peak, bw), t_upper(flops, n_bytes, peak, bw)
    assert max(t_math(flops, peak), t_memory(n_bytes, bw)) == lower
    assert lower <= upper <= 2 * lower * (1 + 1e-12)


@given(positive, positive, positive, positive)
def test_time_floor_agrees_with_attainable(flops, n_bytes, peak, bw):
    reach, _ = attainable(intensity(flops, n_bytes), peak, bw)
    assert abs(flops / reach - t_lower(flops, n_bytes, peak, bw)) <= 1e-9 * flops / reach


def test_estimate_on_a_device_reads_its_peak_and_bandwidth(h100):
    """4096^3 fp16 matmul on the round-figure H100 (990 TFLOP/s, 3.35 TB/s), by hand:
    FLOPs 2 x 4096^3 = 137,438,953,472; bytes 3 x 4096^2 x 2 = 100,663,296; intensity
    1365.33 FLOP/byte, past the ridge 990 / 3.35 = 295.5, so compute-bound at 990 TFLOP/s;
    time floor 137,438,953,472 / 990e12 = 138.83 µs."""
    got = estimate_on(h100, "fp16", ops.matmul(4096, 4096, 4096))
    assert roofs(h100, "fp16") == (990e12, 3.35e12)
    assert (got.limiter, got.attainable_flops_per_s) == ("compute", 990e12)
    assert got.intensity == pytest.approx(1365.333, rel=1e-6)
    assert got.ridge == pytest.approx(295.522, rel=1e-5)
    assert got.time_floor_s == pytest.approx(138.827e-6, rel=1e-5)


def test_estimate_of_a_matvec_is_memory_bound_at_bandwidth_times_intensity():
    """4096 x 4096 fp16 matvec at 990 TFLOP/s, 3.35 TB/s, by hand: FLOPs 2 x 4096^2 =
    33,554,432; bytes (4096^2 + 2 x 4096) x 2 = 33,570,816; intensity 0.99951 FLOP/byte,
    attainable 3.35e12 x 0.99951 = 3.3484 TFLOP/s, time floor 33,570,816 / 3.35e12 = 10.021 µs."""
    got = estimate(990e12, 3.35e12, ops.matvec(4096))
    assert got.limiter == "memory"
    assert got.attainable_flops_per_s == pytest.approx(3.34836e12, rel=1e-5)
    assert got.time_floor_s == pytest.approx(10.0211e-6, rel=1e-4)


def test_estimate_on_is_none_where_a_roof_is_unpublished(specs, h100):
    assert estimate_on(specs["NVIDIA V100 SXM2"], "bf16", ops.matvec(4096)) is None
    assert roofs(h100.replace(memory_bytes_per_s=None), "fp16") is None
