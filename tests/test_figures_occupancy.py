"""Occupancy charts: an exact, lean sawtooth with the batch marked; tile shapes compared."""

import pytest

from perfcore.explain.chip import occupancy as view
from perfcore.figures import occupancy_sawtooth_figure, tile_efficiency_figure
from perfcore.figures.chip.occupancy import MAX_TEETH, corners
from perfcore.model.chip.occupancy import utilisation
from tests.support.devices import representative
from tests.support.figures import occupancy_charts_draw

H100_UTIL = "utilisation, NVIDIA H100 SXM (round figures) (132 units, spec)"


def _trace(fig, start):
    return next(t for t in fig.data if t.name.startswith(start))


def test_the_corners_are_each_waves_foot_and_top():
    assert corners(132, 528) == [1, 132, 133, 264, 265, 396, 397, 528]


def test_the_corners_end_at_the_last_block_inside_a_wave():
    assert corners(132, 200) == [1, 132, 133, 200]


def test_a_huge_batch_draws_at_most_max_teeth_waves():
    xs = corners(2, 10**6)
    assert len(xs) == 2 * MAX_TEETH + 1
    assert xs[-1] == 10**6


def test_the_sawtooth_is_exact_at_its_corners(h100):
    fig = occupancy_sawtooth_figure(h100, view.occupancy(h100, 1))
    saw = _trace(fig, H100_UTIL)
    assert list(saw.x[:4]) == [1, 132, 133, 264]
    assert list(saw.y[:4]) == pytest.approx([1 / 132, 1.0, 133 / 264, 1.0])
    assert all(y == utilisation(x, 132) for x, y in zip(saw.x, saw.y, strict=True))


def test_the_waves_staircase_sits_on_the_right_axis(h100):
    fig = occupancy_sawtooth_figure(h100, view.occupancy(h100, 1))
    steps = _trace(fig, "waves")
    assert steps.yaxis == "y2"
    assert list(steps.y[:4]) == [1, 1, 2, 2]
    assert fig.layout.yaxis2.overlaying == "y"


def test_the_chosen_batch_is_marked_where_it_sits(h100):
    fig = occupancy_sawtooth_figure(h100, view.occupancy(h100, 133))
    mark = _trace(fig, "your batch")
    assert (mark.x[0], mark.y[0]) == (133, pytest.approx(133 / 264))
    assert mark.name == "your batch (133 blocks, 2 waves, 131 units idle)"


def test_the_x_axis_spans_four_waves_whatever_the_small_batch(h100):
    small = occupancy_sawtooth_figure(h100, view.occupancy(h100, 1))
    cliff = occupancy_sawtooth_figure(h100, view.occupancy(h100, 133))
    assert small.layout.xaxis.range == cliff.layout.xaxis.range
    assert small.layout.xaxis.range[1] == pytest.approx(4 * 132 * 1.08)
    assert list(small.layout.yaxis.range) == [0, 1.1]


def test_the_x_axis_widens_to_hold_a_large_batch(h100):
    fig = occupancy_sawtooth_figure(h100, view.occupancy(h100, 1000))
    assert fig.layout.xaxis.range[1] >= 1000


def test_a_compared_device_gets_its_own_dashed_sawtooth(h100, specs):
    a100 = specs["NVIDIA A100 SXM4 80GB"]
    fig = occupancy_sawtooth_figure(h100, view.occupancy(h100, 1), a100)
    other = _trace(fig, "utilisation, NVIDIA A100 SXM4 80GB (108 units")
    assert other.line.dash == "dash"
    assert list(other.x[:3]) == [1, 108, 109]


def test_no_unit_count_shows_not_published_and_no_trace(h100):
    blind = h100.replace(compute_units=None)
    fig = occupancy_sawtooth_figure(blind, None)
    assert not fig.data
    assert "compute units not published" in fig.layout.annotations[0].text


def test_a_compared_device_without_units_is_noted(h100):
    blind = h100.replace(name="blind", compute_units=None)
    fig = occupancy_sawtooth_figure(h100, view.occupancy(h100, 1), blind)
    assert any("blind: compute units not published" in a.text for a in fig.layout.annotations)


def test_the_tile_chart_has_three_efficiencies_per_shape(h100):
    fig = tile_efficiency_figure(view.tiles_compared(3000, 5000, h100), "64x64")
    assert [t.name for t in fig.data] == [
        "tile efficiency (edge padding)",
        "utilisation (all waves)",
        "overall efficiency",
    ]
    assert list(fig.data[0].x) == list(view.TILES)
    # by hand (test_occupancy.py): 3000 x 5000 in 64 x 64 tiles on 132 units is 3713 tiles in
    # 29 waves, 15,000,000 cells used of 29 x 132 x 64^2 = 15,679,488 paid for
    assert fig.data[2].y[0] == pytest.approx(15e6 / 15_679_488, rel=1e-9)


def test_the_tile_chart_marks_the_chosen_shape_on_a_fixed_axis(h100):
    fig = tile_efficiency_figure(view.tiles_compared(4096, 4096, h100), "256x128")
    assert [a.x for a in fig.layout.annotations if "chosen" in a.text] == ["256x128"]
    assert list(fig.layout.yaxis.range) == [0, 1.15]


def test_the_tile_chart_without_units_says_not_published():
    fig = tile_efficiency_figure({}, "128x128")
    assert not fig.data and "not published" in fig.layout.annotations[0].text


def test_a_device_of_each_vendor_builds_both_charts(specs):
    """Every row: tests/test_sweep_figures.py (slow tier)."""
    v100 = specs["NVIDIA V100 SXM2"]
    assert all(occupancy_charts_draw(d, v100) for d in representative(specs))
