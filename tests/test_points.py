"""measure.results.points: measured roofline points, derived from records and never clamped."""

import pytest

from perfcore.measure.clock.harness import ISOLATED, LOOP, Measurement
from perfcore.measure.results import Record, points
from perfcore.measure.results.points import MeasuredPoint
from perfcore.model.chip.specs import Device

STAMP = "2025-01-31T12:00:00+00:00"


def record(
    label: str, m: Measurement, flops: float | None, n_bytes: float | None, precision: str = "bf16"
) -> Record:
    return Record(
        experiment="sweep",
        label=label,
        measurement=m,
        device="NVIDIA H100 80GB HBM3",
        backend="gpu",
        jax_version="0.10.2",
        timestamp=STAMP,
        precision=precision,
        flops=flops,
        bytes=n_bytes,
    )


def point(
    seconds: float = 1e-3,
    spread: float = 0.1,
    precision: str = "bf16",
    flops: float = 1e12,
    n_bytes: float = 1e9,
) -> MeasuredPoint:
    samples = (seconds * (1 - spread), seconds, seconds * (1 + spread))
    return points.measured_point(record("p", Measurement(samples), flops, n_bytes, precision))


RECORDS = (
    record("matmul 1024", Measurement((3e-4, 2.5e-4, 2e-4), 10, LOOP, 3), 2.0 * 1024**3, 6e6),
    record("naive", Measurement((1e-5,), 1, ISOLATED, 0, False), 2.0 * 1024**3, 6e6),
    record("empty call", Measurement((1e-5,)), None, None),
    record("copy", Measurement((1e-4,)), 0.0, 8e6),
)
DEVICE = Device("Test", "Vendor", 2024, bf16_flops_per_s=500e12, memory_bytes_per_s=2e12)


def test_point_derives_intensity_and_flops_per_s_with_error_bars():
    p = point()
    assert p.intensity == 1000
    assert p.flops_per_s == pytest.approx(1e15)
    assert p.flops_per_s_lo < p.flops_per_s < p.flops_per_s_hi
    assert p.bytes_per_s == pytest.approx(1e12)


def test_a_point_above_its_roof_is_kept_and_flagged_never_clamped():
    fast = point(seconds=1e-3)  # 1e15 FLOP/s against a 5e14 roof
    assert fast.flops_per_s == pytest.approx(1e15)
    assert points.above_roof(fast, DEVICE)
    assert not points.above_roof(point(seconds=1.0), DEVICE)


def test_the_roof_at_a_point_is_the_lower_of_memory_and_compute():
    low = point(seconds=1.0, spread=0.0, flops=1e9)  # 1 FLOP/byte
    assert points.roof_flops_per_s(low, DEVICE) == pytest.approx(2e12)
    assert points.roof_flops_per_s(point(), DEVICE) == pytest.approx(500e12)


def test_no_published_roof_means_no_flag():
    assert points.roof_flops_per_s(point(precision="fp8"), DEVICE) is None
    assert not points.above_roof(point(seconds=1e-3, precision="fp8"), DEVICE)


def test_points_skip_naive_timings_and_records_without_work():
    got = points.measured_points(RECORDS)
    assert [p.label for p in got] == ["sweep: matmul 1024"]
    assert got[0].seconds_median == RECORDS[0].measurement.median
    assert got[0].flops_per_s == RECORDS[0].flops_per_s  # the record's own rate, one definition
    assert got[0].bytes_per_s == RECORDS[0].bytes_per_s
    assert (got[0].flops_per_s_lo, got[0].flops_per_s_hi) == (
        RECORDS[0].rate(RECORDS[0].flops, 3e-4),
        RECORDS[0].rate(RECORDS[0].flops, 2e-4),
    )


def test_regimes_follow_the_sweep_overhead_utilisation_roof():
    assert points.regime(15e-6, 10e-6, 1e12, 100e12) == "overhead"
    assert points.regime(1e-3, 10e-6, 10e12, 100e12) == "utilisation"
    assert points.regime(5e-3, 10e-6, 90e12, 100e12) == "compute roof"
