"""The hierarchy chart: log axes, bars at the model's values, kinds apart, devices side by side."""

import pytest

from perfcore.explain.chip import hierarchy as view
from perfcore.figures import hierarchy_figure
from perfcore.figures.chip.hierarchy import NOT_PUBLISHED_TEXT


def _fig(device, metric, precision="fp16", other=None):
    return hierarchy_figure(view.hierarchies(device, other, precision), metric)


def _bars(fig):
    return [t for t in fig.data if t.type == "bar"]


@pytest.mark.parametrize("metric", view.METRICS)
def test_the_y_axis_is_log_for_every_metric(h100, metric):
    assert _fig(h100, metric).layout.yaxis.type == "log"


def test_flops_forgone_bars_stand_at_the_printed_values(h100):
    (bar,) = _bars(_fig(h100, "FLOPs forgone"))
    assert bar.name == view.FORGONE_KIND
    assert [round(y) for y in bar.y[:6]] == [
        990000,
        29700000,
        198000000,
        495000000,
        1980000000,
        4950000000,
    ]


def test_specs_and_estimates_are_separate_traces(h100):
    bars = {b.name: b.x for b in _bars(_fig(h100, "bandwidth"))}
    assert set(bars) == {"vendor spec", "estimate"}
    assert bars["estimate"] == ("registers", "shared mem/L1", "L2")
    assert "device memory" in bars["vendor spec"]


def test_the_bandwidth_chart_shows_each_links_convention(h100):
    labels = [x for b in _bars(_fig(h100, "bandwidth")) for x in b.x]
    assert "scale-up link (one direction)" in labels
    assert "scale-out net (one direction)" in labels


def test_the_capacity_chart_labels_per_unit_levels_and_leaves_out_links(h100):
    fig = _fig(h100, "capacity")
    labels = [x for t in fig.data for x in t.x]
    assert "registers (per SM/CU)" in labels and "shared mem/L1 (per SM/CU)" in labels
    assert not any("link" in x for x in labels)


def test_two_devices_sit_side_by_side_on_one_log_scale(h100, specs):
    fig = _fig(h100, "capacity", other=specs["NVIDIA V100 SXM2"])
    assert {t.xaxis for t in fig.data} == {"x", "x2"}
    assert [a.text for a in fig.layout.annotations] == [
        f"{h100.name} (fp16)",
        "NVIDIA V100 SXM2 (fp16)",
    ]
    assert fig.layout.yaxis2.matches == "y"


def test_unpublished_levels_say_so_and_draw_no_bar(specs):
    fig = _fig(specs["Google TPU v4"], "capacity", "bf16")
    (text,) = [t for t in fig.data if t.type == "scatter"]
    assert "registers (per SM/CU)" in text.x and set(text.text) == {NOT_PUBLISHED_TEXT}
    assert all(y > 0 for b in _bars(fig) for y in b.y)


def test_an_unpublished_precision_draws_no_flops_forgone_bars(specs):
    fig = _fig(specs["NVIDIA V100 SXM2"], "FLOPs forgone", "fp8")
    assert not _bars(fig)
    (text,) = fig.data
    assert len(text.x) == 7


def test_the_range_holds_still_across_devices(h100, specs):
    ranges = {_fig(d, "bandwidth").layout.yaxis.range for d in (h100, specs["NVIDIA L4"])}
    assert ranges == {(9.0, 15.0)}
