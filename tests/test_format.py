"""Display formatting: units, prefixes, and 'not published' for None."""

import pytest

from perfcore import format as fmt


@pytest.mark.parametrize(
    ("fn", "value", "text"),
    [(fmt.flops_per_s, 989.4e12, "989 TFLOP/s"), (fmt.flops_per_s, 1.979e15, "1.98 PFLOP/s"),
     (fmt.bytes_per_s, 3.35e12, "3.35 TB/s"), (fmt.bytes_per_s, 900e9, "900 GB/s"),
     (fmt.capacity, 80 * 1024**3, "80.0 GiB"), (fmt.capacity, 228 * 1024, "228 KiB"),
     (fmt.traffic, 33.6e6, "33.6 MB"), (fmt.seconds, 390e-6, "390 µs"),
     (fmt.seconds, 0.0272, "27.2 ms"), (fmt.seconds, 1.52, "1.52 s"),
     (fmt.intensity, 295.52, "296 FLOP/byte"), (fmt.percent, 0.504, "50.4 %"),
     (fmt.ratio, 7.92, "7.9x"), (fmt.flops, 137.4e9, "137 GFLOP")],
)  # fmt: skip
def test_numbers_carry_their_units(fn, value, text):
    assert fn(value) == text


@pytest.mark.parametrize("fn", [fmt.flops_per_s, fmt.bytes_per_s, fmt.capacity, fmt.seconds,
                                fmt.intensity, fmt.percent, fmt.ratio])  # fmt: skip
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
