"""The measure charts: measured values drawn as measured, ceilings labelled, log axes."""

import math

import pytest

from perfcore.explain.measure import measure_clock as clock
from perfcore.explain.measure import measure_roofline as roofs
from perfcore.explain.measure import measure_sweep
from perfcore.figures import (
    ceilings_figure,
    dispatch_figure,
    pairs_figure,
    spread_figure,
    sweep_figure,
)
from perfcore.figures.chip.style import DARK
from perfcore.figures.measure.measure import OVERHEAD
from perfcore.figures.measure.measure_roofline import ABOVE, measured_roofline_figure
from perfcore.measure.results.empirical import MeasuredRoofline, measured_roofline
from perfcore.measure.results.points import measured_points
from tests.support.measured import lesson_records

RECORDS = lesson_records()


def _names(fig) -> list[str]:
    return [t.name for t in fig.data]


@pytest.fixture
def h100(specs):
    return specs["NVIDIA H100 SXM"]


def test_the_sweep_draws_one_trace_per_regime_under_both_ceilings(h100):
    rows = measure_sweep.sweep(RECORDS)
    fig = sweep_figure(
        rows,
        measure_sweep.overhead_by_n(RECORDS),
        measure_sweep.roof_by_n(RECORDS, h100),
        h100.name,
    )
    names = _names(fig)
    assert names[0].startswith("spec roof at I(n), NVIDIA H100 SXM bf16")
    assert names[1] == OVERHEAD and fig.data[1].line.dash == "dash"
    assert [n.split(":")[1].split("(")[0].strip() for n in names[2:]] == [
        "overhead",
        "utilisation",
        "compute roof",
    ]
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_the_sweep_title_names_the_regimes_the_records_show():
    """The timing lessons' sweep has all three; a sweep that never left overhead has one."""
    rows = measure_sweep.sweep(RECORDS)
    title = sweep_figure(rows).layout.title.text
    assert title == "Matmul size sweep: three regimes (overhead, utilisation, compute roof)"
    small = [r for r in rows if r.regime == "overhead"]
    assert sweep_figure(small).layout.title.text == "Matmul size sweep: one regime (overhead)"


def test_the_sweep_points_are_the_measured_rates_with_min_max_bars(h100):
    rows = measure_sweep.sweep(RECORDS)
    fig = sweep_figure(rows)
    assert [t.y[0] for t in fig.data] == [r.flops_per_s for r in rows]
    assert all(t.error_y.array is not None for t in fig.data)
    low, high = fig.layout.yaxis.range
    assert all(low <= math.log10(r.flops_per_s) <= high for r in rows)


def test_dispatch_bars_unblocked_beside_blocked_on_a_log_axis():
    fig = dispatch_figure(clock.dispatch(RECORDS))
    assert len(fig.data) == 2 and fig.layout.barmode == "group"
    assert list(fig.data[0].x) == ["n=128", "n=512", "n=1024"]
    assert fig.data[1].y[-1] == pytest.approx(5929.7e-6)
    assert fig.layout.yaxis.type == "log"


def test_pairs_draw_two_bars_each_labelled_with_their_method():
    pairs = clock.pairs(RECORDS)
    fig = pairs_figure(pairs)
    assert len(fig.data) == len(pairs) == 4
    compile_ = next(t for t in fig.data if t.name == "compile vs steady state")
    assert list(compile_.x) == pytest.approx([5.9e-3, 651.6e-3])
    assert "(isolated calls, min)" in compile_.text[1]
    assert fig.layout.xaxis.type == "log"


def test_spread_draws_each_runs_samples_its_min_and_the_loop_mean():
    s = clock.spread(RECORDS)
    fig = spread_figure(s)
    boxes = [t for t in fig.data if t.type == "box"]
    assert len(boxes) == 5 and list(boxes[0].y) == list(s.runs[0][1])
    assert fig.data[5].name == "min of each run" and list(fig.data[5].y) == list(s.mins)
    assert "6.90 ms" in fig.data[6].name


def test_ceilings_are_bars_of_the_fraction_of_spec_with_100_percent_marked(h100):
    rows = roofs.ceilings(measured_roofline(RECORDS), h100)
    fig = ceilings_figure(rows, h100.name)
    assert list(fig.data[0].y) == pytest.approx([c.fraction for c in rows])
    assert "158 TFLOP/s of 989 TFLOP/s" in fig.data[0].text[0]
    assert fig.layout.shapes[0].y0 == 1.0


def test_a_ceiling_with_no_published_figure_is_left_out(specs):
    v100 = specs["NVIDIA V100 SXM2"]
    fig = ceilings_figure(roofs.ceilings(measured_roofline(RECORDS), v100), v100.name)
    assert list(fig.data[0].x) == ["memory (working set 512 MiB)"]


def roofline(spec=None, theme=DARK):
    """The measured roofline of the records, beside `spec` when given."""
    points, measured = measured_points(RECORDS), measured_roofline(RECORDS)
    flags = roofs.above(points, measured, spec)
    return measured_roofline_figure(measured, points, flags, spec, "bf16", theme=theme)


def test_the_measured_roofline_draws_measured_roofs_alone_without_a_spec():
    names = _names(roofline())
    assert names[0].startswith("measured ceiling: bf16") and "best matmul" in names[0]
    assert names[1].startswith("measured ceiling: memory")
    assert not any("published spec" in n for n in names)


def test_the_spec_row_is_drawn_beside_the_measured_roofs_dashed(h100):
    fig = roofline(h100)
    spec = [t for t in fig.data if t.name.startswith("NVIDIA H100 SXM (published spec)")]
    assert spec and all(t.line.dash == "dash" for t in spec)
    assert fig.data[0].line.dash is None


def test_measured_points_are_never_moved_and_a_point_above_is_flagged():
    fig = roofline()
    points = [t for t in fig.data if t.mode in ("markers", "markers+text")]  # named when few
    drawn = [y for t in points for y in t.y]
    assert sorted(drawn) == sorted(p.flops_per_s for p in measured_points(RECORDS))
    points = measured_points(RECORDS)[:1]
    flagged = measured_roofline_figure(MeasuredRoofline((), ()), points, [True])
    assert _names(flagged) == [ABOVE]


def test_the_measured_roofline_takes_its_colours_from_the_theme():
    fig = roofline(theme=DARK)
    assert fig.layout.paper_bgcolor == DARK.background and fig.layout.font.color == DARK.text
    assert fig.layout.xaxis.gridcolor == DARK.grid
    memory = next(t for t in fig.data if "ceiling: memory" in t.name)
    assert memory.line.color == DARK.ink
