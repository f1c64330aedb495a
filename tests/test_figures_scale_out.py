"""The scale-out chart: one line per leg and the total, log nodes axis, the chosen count marked."""

import math

import pytest

from perfcore.explain.llm import scale_out as view
from perfcore.figures import scale_out_figure
from tests.support.pages import ROUND_H100


def _figure(specs, name=ROUND_H100, nodes=2, compare=None, **changes):
    """The chart for device `name` at the hand calculation's setup with `nodes` chosen."""
    s = view.setup(7e9, "bf16", 8, nodes, **changes)
    rows = view.sweep(specs[name], s)
    other = view.sweep(specs[compare] if compare else None, s)
    return scale_out_figure(rows, view.allreduce(specs[name], s), other)


def _trace(fig, name):
    """The trace called `name`."""
    return next(t for t in fig.data if t.name == name)


def test_traces_are_the_two_legs_the_total_and_the_chosen_marker(specs):
    names = [t.name for t in _figure(specs).data]
    expected = ["in-node leg (scale-up)", "network leg (scale-out)", "all-reduce (total)"]
    assert names == [*expected, "chosen: 2 nodes"]


def test_x_axis_is_log_from_one_to_64_nodes(specs):
    axis = _figure(specs).layout.xaxis
    assert axis.type == "log"
    assert tuple(axis.range) == pytest.approx((0, math.log10(64)))


def test_x_axis_widens_only_past_64_nodes(specs):
    assert _figure(specs, nodes=128).layout.xaxis.range[1] == pytest.approx(math.log10(128))


def test_chosen_marker_sits_on_the_printed_total(specs):
    # the published hand calculation's total, which uses the scale-up figure as marketed
    marker = _trace(_figure(specs, nodes=16, convention="as-marketed"), "chosen: 16 nodes")
    assert (marker.x[0], f"{marker.y[0] * 1e3:.1f}") == (16, "92.8")
    assert marker.text[0] == "92.8 ms (71 % on the network)"


def test_in_node_leg_is_a_flat_two_point_line_at_27_2_ms(specs):
    leg = _trace(_figure(specs, convention="as-marketed"), "in-node leg (scale-up)")  # published
    assert list(leg.x) == [1, 64]
    assert [f"{y * 1e3:.1f}" for y in leg.y] == ["27.2", "27.2"]


def test_network_leg_starts_at_zero_on_one_node(specs):
    leg = _trace(_figure(specs), "network leg (scale-out)")
    assert (leg.x[0], leg.y[0]) == (1, 0)
    assert f"{leg.y[list(leg.x).index(2)] * 1e3:.1f}" == "35.0"


def test_per_direction_doubles_the_in_node_line(specs):
    leg = _trace(_figure(specs, convention="per-direction"), "in-node leg (scale-up)")
    assert f"{leg.y[0] * 1e3:.1f}" == "54.4"


def test_missing_scale_out_drops_network_and_total_and_says_not_published(specs):
    fig = _figure(specs, "NVIDIA V100 SXM2")
    assert [t.name for t in fig.data] == ["in-node leg (scale-up)"]
    note = fig.layout.annotations[0].text
    assert "network leg (scale-out link): not published" in note
    assert "all-reduce total: not published" in note


def test_device_without_links_draws_no_line_but_says_why(specs):
    fig = _figure(specs, "NVIDIA L4")
    assert not fig.data
    assert "in-node leg (scale-up link): not published" in fig.layout.annotations[0].text


def test_compared_device_adds_a_dashed_total(specs):
    fig = _figure(specs, compare="NVIDIA B200")
    other = _trace(fig, "NVIDIA B200: all-reduce (total)")
    assert other.line.dash == "dash"


def test_compared_device_without_a_network_is_noted_not_drawn(specs):
    fig = _figure(specs, compare="NVIDIA V100 SXM2")
    assert not any(t.name.startswith("NVIDIA V100") for t in fig.data)
    assert "NVIDIA V100 SXM2: all-reduce total: not published" in fig.layout.annotations[0].text


def test_no_value_in_any_trace_is_nan(specs):
    for name in ("NVIDIA H100 SXM", "NVIDIA V100 SXM2", "Google TPU v5e"):
        for t in _figure(specs, name).data:
            assert all(y is not None and not math.isnan(y) for y in t.y)
