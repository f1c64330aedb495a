"""The measured roofline: roofs read from the records, the spec compared only where it applies."""

import dataclasses
import math

import pytest
from measured import seed_records

from perfcore.explain import measure_roofline as roofs
from perfcore.measure.points import measured_points

RECORDS = seed_records()
COPY_BPS = 536870912 / 200e-6  # the ceilings' copy: bytes / median seconds
MATMUL_FLOPS = 2 * 4096**3 / 870e-6  # the ceilings' best matmul


def timed(record, seconds: float, **changes):
    """The record re-timed at `seconds` per call, other fields changed as given."""
    m = dataclasses.replace(record.measurement, samples=(seconds,) * 3)
    return dataclasses.replace(record, measurement=m, **changes)


def test_the_ceilings_give_one_compute_roof_and_device_memory():
    (compute,) = roofs.compute_roofs(RECORDS)
    (memory,) = roofs.memory_roofs(RECORDS)
    assert (compute.name, compute.value) == ("bf16", pytest.approx(MATMUL_FLOPS))
    assert (memory.name, memory.value) == (roofs.DEVICE_MEMORY, pytest.approx(COPY_BPS))


def test_levels_tagged_on_records_become_one_slanted_roof_each_best_kept():
    copy = next(r for r in RECORDS if r.label == "copy")
    l2 = [timed(copy, t, level="L2", experiment="roofline") for t in (50e-6, 40e-6)]
    found = {r.name: r.value for r in roofs.memory_roofs(RECORDS + tuple(l2))}
    assert found == {
        "L2": pytest.approx(536870912 / 40e-6),
        roofs.DEVICE_MEMORY: pytest.approx(COPY_BPS),
    }
    assert [r.name for r in roofs.memory_roofs(RECORDS + tuple(l2))][0] == "L2"  # nearest first


def test_the_roof_is_the_lower_of_bandwidth_times_intensity_and_the_flat_roof():
    assert roofs.roof_at(1.0, "bf16", RECORDS) == pytest.approx(COPY_BPS)
    assert roofs.roof_at(1e6, "bf16", RECORDS) == pytest.approx(MATMUL_FLOPS)
    assert roofs.roof_at(1.0, "fp8", RECORDS) is None


def test_points_above_the_measured_roof_are_flagged_not_moved():
    best = next(r for r in RECORDS if r.label == "best matmul")
    fast = timed(best, 1e-4, experiment="sweep", label="too fast")
    slow, quick = measured_points((best, fast))
    assert not roofs.above_measured(slow, RECORDS)
    assert roofs.above_measured(quick, RECORDS)
    assert quick.flops_per_s == pytest.approx(2 * 4096**3 / 1e-4)  # drawn where it was measured


def test_the_table_is_numeric_si_with_units_and_compares_only_with_a_spec(specs):
    alone = roofs.roofs_table(RECORDS, None)
    assert alone["fraction of spec"].isna().all() and alone["spec compute"].isna().all()
    assert alone.attrs["units"]["compute"] == "flops_per_s"
    assert alone.attrs["units"]["fraction of spec"] == "percent"
    h100 = roofs.roofs_table(RECORDS, specs["NVIDIA H100 SXM"]).set_index("roof")
    assert h100.loc["bf16", "fraction of spec"] == pytest.approx(MATMUL_FLOPS / 989.4e12)
    assert h100.loc[roofs.DEVICE_MEMORY, "fraction of spec"] == pytest.approx(COPY_BPS / 3.35e12)
    assert math.isnan(h100.loc["bf16", "bandwidth"])


def test_a_streaming_kernel_with_flops_is_a_memory_roof_not_a_compute_roof():
    copy = next(r for r in RECORDS if r.label == "copy")
    triad = timed(copy, 100e-6, experiment="roofline", label="triad 64 MiB", level="cache 2",
                  flops=1e6, size=64 * 2**20, size_kind="bytes")  # fmt: skip
    assert roofs.compute_roofs(RECORDS + (triad,)) == roofs.compute_roofs(RECORDS)
    assert "cache 2" in {r.name for r in roofs.memory_roofs(RECORDS + (triad,))}
