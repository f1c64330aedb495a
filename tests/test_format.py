"""Display formatting: units, prefixes, and 'not published' for None."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore import format as fmt


@pytest.mark.parametrize(
    ("fn", "value", "text"),
    [
        (fmt.flops_per_s, 989.4e12, "989 TFLOP/s"),
        (fmt.flops_per_s, 1.979e15, "1.98 PFLOP/s"),
        (fmt.bytes_per_s, 3.35e12, "3.35 TB/s"),
        (fmt.bytes_per_s, 900e9, "900 GB/s"),
        (fmt.capacity, 80 * 1024**3, "80.0 GiB"),
        (fmt.capacity, 228 * 1024, "228 KiB"),
        (fmt.traffic, 33.6e6, "33.6 MB"),
        (fmt.seconds, 390e-6, "390 µs"),
        (fmt.seconds, 0.0272, "27.2 ms"),
        (fmt.seconds, 1.52, "1.52 s"),
        (fmt.intensity, 295.52, "296 FLOP/byte"),
        (fmt.percent, 0.504, "50.4 %"),
        (fmt.ratio, 7.92, "7.9x"),
        (fmt.flops, 137.4e9, "137 GFLOP"),
    ],
)
def test_numbers_carry_their_units(fn, value, text):
    assert fn(value) == text


@pytest.mark.parametrize(
    "fn",
    [
        fmt.flops_per_s,
        fmt.bytes_per_s,
        fmt.capacity,
        fmt.seconds,
        fmt.intensity,
        fmt.percent,
        fmt.ratio,
    ],
)
def test_none_is_not_published(fn):
    assert fn(None) == fmt.NOT_PUBLISHED


def test_small_values_keep_a_prefix():
    assert fmt.seconds(2e-9) == "2.00 ns"
    assert fmt.flops_per_s(0.5) == "0.500 FLOP/s"


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1+A1", "@SUM(A1)", "\tx", "\rx"])
def test_formula_like_text_gets_a_leading_quote(text):
    assert fmt.safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", [-1.5, 0, 3, "NVIDIA H100 SXM", "", None, "a=b"])
def test_numbers_and_plain_text_are_written_as_they_are(value):
    assert fmt.safe_cell(value) is value


@pytest.mark.parametrize(
    ("kind", "values", "unit", "texts"),
    [
        ("flops_per_s", [989.4e12, 125e12], "TFLOP/s", ["989", "125"]),
        ("bytes_per_s", [3.35e12, 0.9e12], "TB/s", ["3.35", "0.90"]),
        ("seconds", [139e-6, 2e-3], "ms", ["0.14", "2.00"]),
        ("seconds", [2.5, 0.5], "s", ["2.50", "0.50"]),
        ("percent", [0.0006, 0.504], "%", ["0.060", "50.400"]),
        ("capacity", [80 * 1024**3, 16 * 1024**3], "GiB", ["80.0", "16.0"]),
        ("traffic", [33.6e6], "MB", ["33.6"]),
        ("intensity", [295.5, 1365.3], "FLOP/byte", ["296", "1,365"]),
        ("flops_per_s", [34e12, 67e12, 990e12, 1979e12], "TFLOP/s", ["34", "67", "990", "1,979"]),
        ("flops_per_s", [7.8e12, 15.7e12, 125e12], "TFLOP/s", ["7.8", "15.7", "125.0"]),
    ],
)
def test_a_column_gets_one_prefix_from_its_median_value(kind, values, unit, texts):
    scale = fmt.column_scale(kind, values)
    assert scale.unit == unit
    assert [scale.text(v) for v in values] == texts


def test_a_column_spanning_many_decades_takes_its_smallest_values_prefix():
    scale = fmt.column_scale("capacity", [80 * 1024**3, 228 * 1024])
    assert scale.unit == "KiB"
    assert [scale.text(v) for v in (80 * 1024**3, 228 * 1024)] == ["83,886,080", "228"]
    assert scale.printf == "%,.0f"


def test_missing_values_and_zeros_do_not_choose_the_prefix():
    scale = fmt.column_scale("flops_per_s", [None, math.nan, 0.0, 67e12])
    assert scale.unit == "TFLOP/s"
    assert fmt.column_scale("seconds", [None, math.nan]).unit == "s"


def test_headers_carry_the_display_unit_and_downloads_the_si_unit():
    assert fmt.header("peak", fmt.column_scale("flops_per_s", [989.4e12]).unit) == "peak (TFLOP/s)"
    assert fmt.header("utilisation", fmt.SI_UNITS["percent"]) == "utilisation (fraction)"
    assert set(fmt.SI_UNITS) == set(fmt.KINDS)
    assert all(callable(getattr(fmt, kind)) for kind in fmt.KINDS)


def test_figures_stay_short_for_any_size():
    assert [fmt.figures(v) for v in (0.1394, 1365.3, 999_999.0)] == ["0.139", "1,365", "999,999"]
    assert fmt.figures(3.333e19) == "3.33×10¹⁹" and fmt.figures(2e6) == "2.00×10⁶"


def test_fixed_keeps_its_decimals_in_the_values_own_prefix():
    assert fmt.fixed(989.5e12, "flops_per_s", 1) == "989.5 TFLOP/s"
    assert fmt.fixed(67e12, "flops_per_s", 1) == "67.0 TFLOP/s"
    assert fmt.fixed(80 * 1024**3, "capacity", 2) == "80.00 GiB"


def test_trimmed_shows_a_rate_as_published():
    assert fmt.trimmed(64e9, "bytes_per_s") == "64 GB/s"
    assert fmt.trimmed(37.5e9, "bytes_per_s") == "37.5 GB/s"
    assert fmt.trimmed(3.35e12, "bytes_per_s") == "3.35 TB/s"


def test_alike_prints_values_in_one_prefix_down_to_a_tenth_of_it():
    assert fmt.alike((0.524, 0.0104), "seconds") == ("0.52 s", "0.01 s")
    assert fmt.alike((2.5e-3, 1.3e-4), "seconds") == ("2.50 ms", "0.13 ms")
    # 0.1 ms at a scale of seconds would print 0.00 s: each keeps its own prefix then
    assert fmt.alike((0.52, 1e-4), "seconds") == ("520 ms", "100 µs")


def test_intensity_has_a_short_unit_for_a_narrow_metric_box():
    """'11.1 FLOP/byte' overflowed a quarter-width metric at 1400 px (224 px in 223)."""
    assert fmt.intensity(11.08) == "11.1 FLOP/byte"
    assert fmt.intensity(11.08, unit="FLOP/B") == "11.1 FLOP/B"


@pytest.mark.parametrize(
    "value, text",
    [
        (15e12, "15T"),  # 15 × 10¹² training tokens
        (2**24, "16Mi"),  # 16,777,216: 16.78M is not exact, 16 × 2²⁰ is
        (16_800_000, "16.8M"),
        (16_777_217, "16,777,217"),  # neither form holds it in 4 figures
        (8192, "8,192"),  # below a million, digits
        (1e17, "100P"),
    ],
)
def test_a_count_reads_as_its_shortest_exact_text(value, text):
    assert fmt.count(value) == text


@pytest.mark.parametrize(
    "text, value",
    [("15T", 15e12), ("16Mi", 2**24), (" 1.5e13 ", 1.5e13), ("16,777,216", 2**24), ("4K", 4e3)],
)
def test_a_count_is_read_with_its_suffix_exponent_or_grouping(text, value):
    assert fmt.parse_count(text) == value


@pytest.mark.parametrize("text", ["lots", "", "7B", "16 Mi tokens", "1.2.3M"])
def test_a_text_that_is_no_count_reads_as_nan(text):
    assert math.isnan(fmt.parse_count(text))


@given(st.integers(min_value=1, max_value=2**53))
def test_every_whole_count_reads_back_to_itself(n):
    assert fmt.parse_count(fmt.count(n)) == n
