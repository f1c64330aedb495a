"""The sweep under its two ceilings: the spec roof and the launch-overhead ceiling."""

import dataclasses

import pytest

from perfcore.explain.measure import measure_sweep
from tests.support.measured import lesson_records

RECORDS = lesson_records()
T_EMPTY = 10e-6


def test_the_sweep_reads_sizes_rates_and_regimes_smallest_first():
    rows = measure_sweep.sweep(tuple(reversed(RECORDS)))
    assert [r.n for r in rows] == [256, 1024, 4096]
    assert [r.regime for r in rows] == ["overhead", "utilisation", "compute roof"]
    assert rows[0].flops_per_s == pytest.approx(2 * 256**3 / 12e-6)


def test_the_overhead_ceiling_is_the_flops_over_one_empty_call():
    assert measure_sweep.empty_call_s(RECORDS) == pytest.approx(T_EMPTY)
    by_n = measure_sweep.overhead_by_n(RECORDS)
    assert [n for n, _ in by_n] == [64, 256, 1024, 4096, 16384]
    for n, flops_per_s in by_n:
        assert flops_per_s == pytest.approx(2 * n**3 / T_EMPTY)


def test_on_the_roofline_the_ceiling_sits_at_intensity_2n_over_3b():
    overhead, ceiling = (
        measure_sweep.overhead_by_n(RECORDS),
        measure_sweep.overhead_ceiling(RECORDS),
    )
    for (n, f), (i, g) in zip(overhead, ceiling, strict=True):
        assert i == pytest.approx(2 * n / (3 * 2))  # bf16: b = 2 bytes
        assert g == pytest.approx(f)


def test_no_empty_call_means_no_ceiling():
    without = tuple(r for r in RECORDS if r.label != measure_sweep.EMPTY_CALL)
    assert (
        measure_sweep.overhead_by_n(without) == [] and measure_sweep.overhead_ceiling(without) == []
    )
    assert "empty call" not in measure_sweep.sweep_sentence(without)


def test_the_spec_roof_at_each_size_never_exceeds_the_peak_or_the_memory_roof(specs):
    h100 = specs["NVIDIA H100 SXM"]
    peak, bw = h100.peak_flops("bf16"), h100.memory_bytes_per_s
    for n, roof in measure_sweep.roof_by_n(RECORDS, h100):
        assert roof == pytest.approx(min(peak, bw * 2 * n / 6))


def test_no_published_peak_means_no_roof_line(specs):
    fp8 = tuple(dataclasses.replace(r, precision="fp8") for r in RECORDS)
    assert measure_sweep.roof_by_n(fp8, specs["NVIDIA V100 SXM2"]) == []


def test_the_sentence_names_regimes_and_what_the_empty_call_allows():
    text = measure_sweep.sweep_sentence(RECORDS)
    assert "overhead: n = 256; utilisation: n = 1024; compute roof: n = 4096" in text
    assert "could reach at most 3.36 TFLOP/s" in text and "it reached 2.80 TFLOP/s." in text


def test_a_size_above_the_overhead_ceiling_is_said_to_be_above_it():
    slow_empty = tuple(
        dataclasses.replace(r, measurement=dataclasses.replace(r.measurement, samples=(1e-3,) * 3))
        if r.label == measure_sweep.EMPTY_CALL
        else r
        for r in RECORDS
    )
    assert "above that ceiling" in measure_sweep.sweep_sentence(slow_empty)
