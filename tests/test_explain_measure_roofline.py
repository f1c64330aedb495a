"""The measured roofline as a table: empirical's roofs beside the spec only where it applies."""

import dataclasses
import math

import pytest

from perfcore.explain.measure import measure_roofline as roofs
from perfcore.measure.results.empirical import MEMORY, measured_roofline
from perfcore.measure.results.points import measured_points
from tests.support.measured import lesson_records

RECORDS = lesson_records()
ROOFLINE = measured_roofline(RECORDS)
COPY_BPS = 536870912 / 200e-6  # the ceilings' copy: bytes / fastest sample
MATMUL_FLOPS = 2 * 4096**3 / 870e-6  # the ceilings' best matmul


def timed(record, seconds: float, **changes):
    """The record re-timed at `seconds` per call, other fields changed as given."""
    m = dataclasses.replace(record.measurement, samples=(seconds,) * 3)
    return dataclasses.replace(record, measurement=m, **changes)


def test_points_above_the_measured_roof_are_flagged_not_moved():
    best = next(r for r in RECORDS if r.label == "best matmul")
    fast = timed(best, 1e-4, experiment="sweep", label="too fast")
    slow, quick = measured_points((best, fast))
    assert roofs.above(measured_points((best, fast)), ROOFLINE, None) == [False, True]
    assert not roofs.above_measured(slow, ROOFLINE)
    assert quick.flops_per_s == pytest.approx(2 * 4096**3 / 1e-4)  # drawn where it was measured


def test_the_table_is_numeric_si_with_units_and_compares_only_with_a_spec(specs):
    alone = roofs.roofs_table(ROOFLINE, None)
    assert list(alone["roof"]) == ["bf16", MEMORY]
    assert alone["fraction of spec"].isna().all() and alone["spec compute"].isna().all()
    assert alone.attrs["units"]["compute"] == "flops_per_s"
    assert alone.attrs["units"]["fraction of spec"] == "percent"
    h100 = roofs.roofs_table(ROOFLINE, specs["NVIDIA H100 SXM"]).set_index("roof")
    assert h100.loc["bf16", "fraction of spec"] == pytest.approx(MATMUL_FLOPS / 989.4e12)
    assert h100.loc[MEMORY, "fraction of spec"] == pytest.approx(COPY_BPS / 3.35e12)
    assert math.isnan(h100.loc["bf16", "bandwidth"])


def test_the_table_values_are_the_models_own():
    table = roofs.roofs_table(ROOFLINE, None).set_index("roof")
    assert table.loc["bf16", "compute"] == ROOFLINE.roofs[0].flops_per_s
    assert table.loc[MEMORY, "bandwidth"] == ROOFLINE.levels[0].bytes_per_s


def test_ceilings_are_the_models_roofs_as_fractions_of_the_spec_never_clamped(specs):
    matmul, copy = roofs.ceilings(ROOFLINE, specs["NVIDIA H100 SXM"])
    assert matmul.fraction == pytest.approx(MATMUL_FLOPS / 989.4e12)
    assert copy.fraction == pytest.approx(COPY_BPS / 3.35e12)
    fast = tuple(dataclasses.replace(r, bytes=1e12) if r.label == "copy" else r for r in RECORDS)
    assert roofs.ceilings(measured_roofline(fast), specs["NVIDIA H100 SXM"])[1].fraction > 1


def test_an_unpublished_spec_figure_has_no_fraction(specs):
    (matmul, _) = roofs.ceilings(ROOFLINE, specs["NVIDIA V100 SXM2"])  # V100: no bf16
    assert matmul.spec is None and matmul.fraction is None


def test_without_a_spec_row_no_ceiling_has_a_fraction():
    assert [c.fraction for c in roofs.ceilings(ROOFLINE, None)] == [None, None]


def test_only_the_slowest_level_is_compared_with_the_spec_memory(specs):
    (cache,) = [c for c in roofs.ceilings(ROOFLINE, None) if c.unit == "B/s"]
    assert cache.what.startswith(MEMORY)
    h100 = specs["NVIDIA H100 SXM"]
    assert roofs.spec_figure(ROOFLINE.levels[0], h100) == h100.memory_bytes_per_s
    renamed = dataclasses.replace(ROOFLINE.levels[0], name="cache 1")
    assert roofs.spec_figure(renamed, h100) is None
