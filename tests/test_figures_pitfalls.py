"""The faster-chip chart: compute roof, memory roof and attainable per case, on a log axis."""

import pytest

from perfcore.explain.chip import pitfalls as view
from perfcore.figures import faster_chip_figure
from perfcore.figures.chip.pitfalls import CASES
from tests.support.pages import ROUND_H100


def _figure(specs, name=ROUND_H100, precision="bf16", batch=1):
    """The chart for a 7e9-param decode step on device `name`."""
    d = specs[name]
    return faster_chip_figure(d, precision, view.faster_chip(d, precision, 7e9, batch).result)


def _bars(fig, name):
    """The y values of the bar trace called `name`."""
    return list(next(t for t in fig.data if t.name == name).y)


def test_three_bar_groups_one_per_case(specs):
    fig = _figure(specs)
    assert [t.name for t in fig.data] == [
        "compute roof (peak)",
        "memory roof (intensity × bandwidth)",
        "attainable = min of the two",
    ]
    assert all(list(t.x) == list(CASES) for t in fig.data)
    assert fig.layout.barmode == "group"


def test_y_axis_is_log(specs):
    assert _figure(specs).layout.yaxis.type == "log"


def test_round_attainable_bars_are_3_35_3_35_6_70_tflops(specs):
    got = _bars(_figure(specs), "attainable = min of the two")
    assert got == pytest.approx([3.35e12, 3.35e12, 6.70e12])


def test_doubling_the_peak_lifts_only_the_compute_roof(specs):
    fig = _figure(specs)
    assert _bars(fig, "compute roof (peak)") == pytest.approx([990e12, 1980e12, 990e12])
    assert _bars(fig, "memory roof (intensity × bandwidth)")[:2] == pytest.approx([3.35e12] * 2)


def test_attainable_is_the_min_of_the_two_roofs_in_every_case(specs):
    fig = _figure(specs, batch=512)
    compute = _bars(fig, "compute roof (peak)")
    memory = _bars(fig, "memory roof (intensity × bandwidth)")
    roofs = zip(compute, memory, strict=True)
    assert _bars(fig, "attainable = min of the two") == pytest.approx([min(r) for r in roofs])


def test_every_bar_fits_inside_the_fixed_log_range(specs):
    fig = _figure(specs)
    low, high = (10**v for v in fig.layout.yaxis.range)
    assert all(low <= y <= high for t in fig.data for y in t.y)


def test_unpublished_precision_draws_no_bars_and_says_not_published(specs):
    fig = _figure(specs, "NVIDIA V100 SXM2", "fp8")
    assert not fig.data
    assert "not published" in fig.layout.annotations[0].text
