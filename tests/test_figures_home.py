"""The landing page's small chart: the calculator's operation on one precision's roofline."""

from perfcore.explain.chip import home
from perfcore.figures.chip.home import calculator_figure
from perfcore.figures.chip.style import DARK


def test_the_operation_sits_on_the_chosen_precisions_roof_under_its_name(h100):
    point = home.quick_calc(h100, "fp16", 137.4e9, 100.7e6)
    fig = calculator_figure(h100, "fp16", point)
    names = [t.name for t in fig.data]
    assert names[:2] == ["fp16 roof 990 TFLOP/s (spec)", "device memory 3.35 TB/s"]
    op = next(t for t in fig.data if t.name == "your operation (model)")
    assert (op.x[0], op.y[0]) == (point.intensity, 990e12)
    assert list(op.text) == ["your operation"]


def test_the_axes_widen_to_hold_an_operation_far_off_the_usual_range(h100):
    point = home.quick_calc(h100, "fp16", 1.0, 1e6)  # 1e-6 FLOP/byte
    fig = calculator_figure(h100, "fp16", point)
    low, high = fig.layout.xaxis.range
    assert low < -6 < high  # log10 of the range
    assert 10 ** fig.layout.yaxis.range[0] < point.attainable_flops_per_s


def test_the_chart_takes_its_colours_from_the_theme(h100):
    fig = calculator_figure(h100, "fp16", home.quick_calc(h100, "fp16", 1e9, 1e9), DARK)
    assert fig.layout.paper_bgcolor == DARK.background
    assert fig.layout.font.color == DARK.text
