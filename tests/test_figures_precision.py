"""Precision charts: vector and tensor paths apart, log axes, points where the model puts them."""

import math

import pytest

from perfcore.explain.chip.precision import not_published, span
from perfcore.figures import precision_bars_figure, precision_roofline_figure
from perfcore.figures.chip.precision import CATEGORIES, X_MAX, X_MIN
from perfcore.model.chip.precision import matmul_sweep
from tests.support.devices import representative
from tests.support.figures import precision_charts_draw

VECTOR, TENSOR = "vector path (FP64/FP32 units)", "tensor path (matrix units)"


def _rows(device, size=4096):
    return matmul_sweep(device, size, size, size)


def _bars(device):
    rows = _rows(device)
    return precision_bars_figure(rows, not_published(rows))


def _roofline(device, size=4096):
    rows = _rows(device, size)
    return precision_roofline_figure(rows, device, span(rows))


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_the_bars_have_a_vector_and_a_tensor_trace_in_each_panel(h100):
    fig = _bars(h100)
    assert [(t.name, t.xaxis) for t in fig.data] == [
        (VECTOR, "x"),
        (TENSOR, "x"),
        (VECTOR, "x2"),
        (TENSOR, "x2"),
    ]
    assert [t.showlegend for t in fig.data] == [True, True, False, False]


def test_the_bars_are_peaks_and_time_floors_on_log_axes(h100):
    fig = _bars(h100)
    assert fig.layout.yaxis.type == fig.layout.yaxis2.type == "log"
    assert list(fig.data[0].x) == ["FP64", "FP32"]
    assert list(fig.data[0].y) == [34e12, 67e12]
    assert fig.data[2].y[1] == pytest.approx(2 * 4096**3 / 67e12)


def test_every_precision_keeps_its_place_on_the_bar_axis(h100):
    fig = _bars(h100)
    assert list(fig.layout.xaxis.categoryarray) == list(fig.layout.xaxis2.categoryarray)
    assert list(fig.layout.xaxis.categoryarray) == CATEGORIES


def test_an_unpublished_precision_is_marked_not_published_in_both_panels(specs):
    fig = _bars(specs["NVIDIA V100 SXM2"])
    marks = [(a.x, a.xref) for a in fig.layout.annotations if a.text == "not published"]
    assert ("FP8", "x") in marks and ("FP8", "x2") in marks
    assert len(marks) == 2 * 5


def test_the_peak_axis_holds_still_as_the_size_changes(h100):
    small = precision_bars_figure(_rows(h100, 256), ())
    assert small.layout.yaxis.range == _bars(h100).layout.yaxis.range
    assert small.layout.yaxis2.range != _bars(h100).layout.yaxis2.range


def test_the_roofline_is_log_log_with_a_fixed_intensity_range(h100):
    fig = _roofline(h100)
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "log"
    assert list(fig.layout.xaxis.range) == [math.log10(X_MIN), math.log10(X_MAX)]
    assert fig.layout.xaxis.range == _roofline(h100, 64).layout.xaxis.range


def test_each_published_precision_has_a_flat_roof_from_its_ridge(h100):
    fig = _roofline(h100)
    roof = _trace(fig, "FP8 roof 1.98 PFLOP/s (spec)")
    assert roof.x[0] == pytest.approx(1979e12 / 3.35e12)
    assert list(roof.y) == [1979e12, 1979e12]
    flats = [t for t in fig.data if " roof " in t.name]
    assert len(flats) == 7


def test_the_vector_roofs_are_dashed_and_the_tensor_roofs_solid(h100):
    fig = _roofline(h100)
    assert _trace(fig, "FP32 roof 67.0 TFLOP/s (spec)").line.dash == "dash"
    assert _trace(fig, "TF32 roof 495 TFLOP/s (spec)").line.dash is None


def test_the_matmul_points_sit_at_intensity_and_attainable_per_path(h100):
    fig = _roofline(h100)
    vector = _trace(fig, f"matmul, {VECTOR}")
    tensor = _trace(fig, f"matmul, {TENSOR}")
    assert [f"{x:.0f}" for x in vector.x] == ["341", "683"]
    assert list(vector.y) == [34e12, 67e12]
    assert (f"{tensor.x[-1]:.0f}", tensor.y[-1]) == ("2731", 1979e12)
    assert vector.marker.symbol != tensor.marker.symbol


def test_points_at_the_same_place_share_one_label(h100):
    tensor = _trace(_roofline(h100), f"matmul, {TENSOR}")
    assert list(tensor.text) == ["TF32", "BF16 = FP16", "", "FP8 = INT8", ""]


def test_an_arrow_runs_from_the_widest_to_the_narrowest_point(h100):
    (arrow,) = _roofline(h100).layout.annotations
    assert (arrow.ax, arrow.x) == pytest.approx((math.log10(4096 / 12), math.log10(8192 / 3)))


def test_a_memory_bound_point_sits_on_the_slanted_roof(h100):
    tensor = _trace(_roofline(h100, 256), f"matmul, {TENSOR}")
    assert tensor.y[-1] == pytest.approx(3.35e12 * tensor.x[-1])


def test_no_published_roof_shows_not_published_instead_of_a_chart(h100):
    blind = h100.replace(memory_bytes_per_s=None)
    fig = precision_roofline_figure([], blind)
    assert not fig.data
    assert "not published" in fig.layout.annotations[0].text


def test_a_device_of_each_vendor_builds_both_charts(specs):
    """Every row: tests/test_sweep_figures.py (slow tier)."""
    assert all(precision_charts_draw(d) for d in representative(specs))
