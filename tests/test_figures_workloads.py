"""The workloads charts: layer roofline panels, serving curve, memory verdict, time by kind."""

import pytest

from perfcore.explain.llm import workloads as view
from perfcore.figures.chip.style import DARK
from perfcore.figures.llm import workloads as charts
from perfcore.model.llm.models import load_models

H100 = "NVIDIA H100 SXM"


@pytest.fixture(scope="module")
def llama():
    return load_models()["Llama-3.1-8B"]


def test_layer_roofline_has_prefill_and_decode_panels_on_the_same_roofs(specs, llama):
    d, s = specs[H100], view.Setup()
    pre, dec = (view.layer_points(llama, d, s, p) for p in ("prefill", "decode"))
    fig = charts.layer_roofline_figure(d, "bf16", pre, dec, theme=DARK)
    left = [t for t in fig.data if t.xaxis == "x" and t.mode == "markers"]
    right = [t for t in fig.data if t.xaxis == "x2" and t.mode == "markers"]
    assert [t.name for t in left] == [t.name for t in right]  # one trace per op kind
    assert sum(len(t.x) for t in left) == sum(len(t.x) for t in right) == len(pre)
    assert "<b>q proj</b>" in next(t for t in left if t.name == "projection").hovertext[0]
    assert [a.text for a in fig.layout.annotations] == ["<b>prefill</b>", "<b>decode</b>"]
    assert fig.layout.paper_bgcolor == DARK.background
    assert fig.layout.xaxis.type == fig.layout.xaxis2.type == "log"


def test_serving_figure_marks_the_crossover_and_the_memory_limit(specs, llama):
    sv = view.serving_view(llama, specs[H100], view.Setup(context=128))
    fig = charts.serving_figure(sv.curve, sv.crossover, names=(H100, ""))
    names = [t.name for t in fig.data]
    assert f"memory full: {sv.curve[-1].batch} sequences" in names
    assert f"compute-bound from batch {sv.crossover_batch}" in names
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "log"


def test_time_by_kind_has_one_bar_group_per_device_and_communication(specs, llama):
    views = [view.view(llama, specs[n], view.Setup(tp=2)) for n in (H100, "NVIDIA A100 SXM4 80GB")]
    fig = charts.time_by_kind_figure([(v.device.name, view.time_by_kind(v)) for v in views])
    assert len(fig.data) == 2
    assert "communication" in fig.data[0].x and fig.data[0].y[-1] > 0


def test_page_figure_builds_each_chart_by_name_for_both_devices(specs, llama):
    data = view.page(llama, specs[H100], specs["NVIDIA A100 SXM4 80GB"], view.Setup())
    figs = {which: charts.page_figure(data, which, 1, DARK) for which in view.CHARTS}
    assert list(figs) == [view.LAYER, view.SERVING, view.MEMORY, view.KINDS]
    assert len(figs[view.KINDS].data) == 2 and len(figs[view.MEMORY].data[0].x) == 2
    assert figs[view.SERVING].layout.title.text.startswith("Time per token")
    with pytest.raises(ValueError, match="no workloads chart 'pie'.*Ops on the roofline, Serv"):
        charts.page_figure(data, "pie", 1, DARK)


def test_serving_figure_says_when_no_sequence_fits():
    fig = charts.serving_figure(())
    assert fig.layout.annotations[0].text == "no sequence fits beside the weights"
