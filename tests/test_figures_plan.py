"""The Plan page's charts (perfcore.figures.plans.plan): each draws the numbers it is given, where a
reader would look for them."""

import math

import pytest

from perfcore import format as fmt
from perfcore.explain.plans import plan
from perfcore.explain.plans import plan_serve as serve
from perfcore.figures.chip.style import LIGHT
from perfcore.figures.plans import plan as charts
from perfcore.model.llm.models import load_models
from perfcore.model.plans import serve_basis
from tests.support.plans import HALF

H100 = "NVIDIA H100 SXM"
L70, L8 = load_models()["Llama-3.1-70B"], load_models()["Llama-3.1-8B"]
GIB = 2**30


def test_the_step_chart_draws_each_part_with_compute_on_top_and_titles_the_step():
    parts = {"compute": 7.6, "pipeline bubble": 0.18, "DP reduce (exposed)": 0.24}
    fig = charts.step_parts_figure(parts, 8.02, LIGHT)
    (bars,) = fig.data
    assert list(bars.y) == ["DP reduce (exposed)", "pipeline bubble", "compute"]
    assert list(bars.x) == [0.24, 0.18, 7.6]
    assert "8.02 s step" in fig.layout.title.text and "(bound)" in fig.layout.title.text
    # the log axis holds the smallest part at half and the largest at twice
    assert fig.layout.xaxis.range == pytest.approx((math.log10(0.09), math.log10(15.2)))


def test_the_memory_chart_stacks_each_part_and_draws_the_capacity_across():
    second = {"weights": 15 * GIB, "gradients": 15 * GIB, "activations": 40 * GIB}
    bars = [("#1", {"weights": 30 * GIB, "activations": 20 * GIB}), ("#2", second)]
    fig = charts.memory_per_gpu_figure(bars, 80 * GIB, LIGHT)
    stacked = {t.name: list(t.x) for t in fig.data if t.type == "bar"}
    assert stacked == {
        "weights": [30 * GIB, 15 * GIB],
        "gradients": [0.0, 15 * GIB],
        "activations": [20 * GIB, 40 * GIB],
    }
    (cap,) = [t for t in fig.data if t.type == "scatter"]
    assert list(cap.x) == [80 * GIB, 80 * GIB] and cap.name == "capacity 80.0 GiB"
    assert list(cap.y) == ["#1", "#2"]
    assert fig.layout.title.text == "Memory per GPU against the 80.0 GiB each holds"


def test_a_device_without_a_capacity_draws_no_capacity_line():
    fig = charts.memory_per_gpu_figure([("#1", {"weights": GIB})], None, LIGHT)
    assert [t.type for t in fig.data] == ["bar"]
    assert "capacity is not published" in fig.layout.title.text


@pytest.fixture(scope="module")
def served(specs):
    return serve.serve_view(L70, specs[H100], serve.ServeSetup(), {})


def test_the_frontier_chart_has_a_trace_per_tp_the_frontier_the_best_and_the_limit(served):
    fig = charts.frontier_figure(served.candidates, served.frontier, served.best, 0.05, theme=LIGHT)
    tps = sorted({p.tp for p in served.candidates})
    assert [t.name for t in fig.data] == [
        *(f"TP {t}" for t in tps),
        "frontier",
        "best within limits",
    ]
    assert sum(len(t.x) for t in fig.data[: len(tps)]) == len(served.candidates)
    star = fig.data[-1]
    assert (star.x[0], star.y[0]) == (served.best.tpot_s, served.best.per_gpu)
    (limit,) = fig.layout.shapes
    assert limit.x0 == pytest.approx(math.log10(0.05))  # a log axis takes log10 positions


def test_page_figure_draws_each_chart_of_each_mode_and_refuses_another_name(specs, served):
    trained = plan.train_view(L8, specs[H100], plan.TrainSetup(16, 4096, 2**21), {})
    step = charts.page_figure(trained, charts.STEP)
    assert fmt.seconds(trained.best.step_s) in step.layout.title.text
    assert charts.page_figure(served, charts.FRONTIER).layout.title.text.startswith("Throughput")
    memory = charts.page_figure(served, charts.MEMORY)
    assert [t.name for t in memory.data if t.type == "bar"] == ["weights", "KV cache"]
    with pytest.raises(ValueError, match="no Plan chart 'step' for ServeView"):
        charts.page_figure(served, charts.STEP)


def test_the_frontier_draws_the_expected_tpot_limit_where_the_best_plan_meets_it(specs):
    """Efficiency 0.5: the best plan's expected TPOT, 2 × (bound + what it adds: serve_basis),
    meets 50 ms at a bound of 50 ms × 0.5 − what it adds (expected.serve_expected's rule)."""
    v = serve.serve_view(L70, specs[H100], serve.ServeSetup(), HALF)
    added = serve_basis.plan_s(v.best)[1]
    (limit,) = charts.page_figure(v, charts.FRONTIER).layout.shapes
    assert limit.x0 == pytest.approx(math.log10(0.05 * 0.5 - added))
    assert 2 * (v.best.tpot_s + added) <= 0.05
