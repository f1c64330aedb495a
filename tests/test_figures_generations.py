"""The generations charts: log ridge axis, markers at (year, ridge) by verdict, growth bars."""

from perfcore.explain.chip import generations as view
from perfcore.figures import growth_figure, ridge_by_year_figure
from perfcore.model.chip.generations import growth

V100, H100 = "NVIDIA V100 SXM2", "NVIDIA H100 SXM"


def _fig(specs, precision="fp16", seq=512, pair=(V100, H100)):
    cost = view.op_cost("attention", precision, {"seq": seq, "d_head": 64})
    rows = view.rows(specs, view.vendors(specs), precision, cost)
    return ridge_by_year_figure(rows, cost, precision, tuple(specs[n] for n in pair))


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_the_ridge_axis_is_log(specs):
    assert _fig(specs).layout.yaxis.type == "log"


def test_markers_split_by_the_ops_verdict_with_their_own_symbols(specs):
    fig = _fig(specs)
    compute, memory = (_trace(fig, f"{b}-bound on this op") for b in ("compute", "memory"))
    assert (len(compute.x), len(memory.x)) == (14, 7)
    assert compute.marker.symbol != memory.marker.symbol
    assert compute.marker.color != memory.marker.color


def test_a_device_sits_at_its_year_and_its_ridge(specs, h100):
    memory = _trace(_fig(specs), "memory-bound on this op")
    points = dict(zip(memory.y, memory.x, strict=True))
    assert points[h100.peak_flops("fp16") / h100.memory_bytes_per_s] == 2022


def test_the_ops_intensity_is_a_flat_line(specs):
    line = _trace(_fig(specs), "attention, seq=512, d_head=64: 256 FLOP/byte")
    assert line.y == (256, 256)


def test_devices_without_the_precision_are_noted_not_plotted(specs):
    fig = _fig(specs, "fp8")
    plotted = sum(len(t.x) for t in fig.data if t.name.endswith("-bound on this op"))
    assert plotted == 15
    assert "not published at fp8" in fig.layout.annotations[0].text


def test_the_growth_pair_is_joined_from_old_to_new(specs):
    pair = _trace(_fig(specs), f"growth: {V100} → {H100}")
    assert pair.x == (2017, 2022) and pair.text == (V100, H100)


def test_the_growth_pair_is_left_out_where_unpublished(specs):
    assert not any(t.name.startswith("growth") for t in _fig(specs, "fp8").data)


def test_the_ridge_range_holds_still_as_the_op_size_changes(specs):
    assert _fig(specs, seq=512).layout.yaxis.range == _fig(specs, seq=1024).layout.yaxis.range


def test_growth_bars_are_the_growth_ratios_on_a_log_axis(specs, h100):
    old = specs[V100]
    fig = growth_figure(growth(old, h100, "fp16"), old, h100, "fp16")
    assert fig.layout.yaxis.type == "log"
    assert [f"{v:.1f}" for v in fig.data[0].y] == ["7.9", "3.7", "2.1"]
    assert fig.data[0].text == ("7.9x", "3.7x", "2.1x")


def test_growth_without_a_peak_draws_no_bar_and_says_not_published(specs, h100):
    fig = growth_figure(None, specs[V100], h100, "fp8")
    assert not fig.data[0].y
    assert fig.layout.annotations[0].text == "not published at fp8"
