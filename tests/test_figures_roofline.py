"""The roofline chart: roofs where the spec puts them, the ridge at ridge_point, measured
points drawn where they were measured (never clamped), and lean traces."""

import dataclasses

import pytest

from perfcore.figures import roofline_figure
from perfcore.figures.chip.roofline import ABOVE_ROOF, MOVED, OVERHEAD
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.results import Record
from perfcore.measure.results.points import measured_point
from perfcore.model.chip import ops
from perfcore.model.chip.roofline import estimate, ridge_point


def point(label, flops, n_bytes, seconds):
    """A measured point with a 10 % spread around `seconds`."""
    m = Measurement((seconds * 0.9, seconds, seconds * 1.1))
    r = Record(
        experiment="sweep",
        label=label,
        device="test device",
        backend="gpu",
        jax_version="0",
        timestamp="2025-01-31T12:00:00+00:00",
        measurement=m,
        precision="fp16",
        flops=flops,
        bytes=n_bytes,
    )
    return dataclasses.replace(measured_point(r), label=label)


def names(fig):
    return [t.name for t in fig.data]


def segments(trace) -> list[tuple[list, list]]:
    """A trace's line segments (split at None), as (xs, ys)."""
    cuts = [i for i, x in enumerate(trace.x) if x is None]
    bounds = zip([-1, *cuts], [*cuts, len(trace.x)], strict=True)
    return [(list(trace.x[a + 1 : b]), list(trace.y[a + 1 : b])) for a, b in bounds if b > a + 1]


def test_a_flat_roof_per_published_precision_the_chosen_one_apart(h100):
    fig = roofline_figure(h100, "fp16")
    fp16 = next(t for t in fig.data if t.name.startswith("fp16 roof"))
    assert list(fp16.y) == [990e12, 990e12] and fp16.line.width == 3
    others = next(t for t in fig.data if t.name == "other precisions' roofs (spec)")
    peaks = {h100.peak_flops(p) for p in h100.published_precisions() if p != "fp16"}
    assert {ys[0] for _, ys in segments(others)} == peaks
    named = " ".join(t for t in others.text if t)
    assert all(p in named for p in h100.published_precisions() if p != "fp16")


def test_both_axes_are_log(h100):
    fig = roofline_figure(h100, "bf16")
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "log"


def test_the_ridge_is_marked_at_ridge_point(h100):
    fig = roofline_figure(h100, "fp16")
    ridge = next(t for t in fig.data if t.name.startswith("ridge"))
    assert list(ridge.x) == [pytest.approx(ridge_point(990e12, 3.35e12))] * 2
    assert ridge.y[-1] == 990e12


def test_roof_lines_are_lean_two_ends_and_at_most_the_point_that_names_them(h100, specs):
    fig = roofline_figure(h100, "fp16", compare=specs["NVIDIA A100 SXM4 80GB"])
    roofs = [t for t in fig.data if "roof" in t.name or "memory" in t.name]
    assert all(2 <= len(xs) <= 3 for t in roofs for xs, _ in segments(t))


def test_op_points_sit_on_the_roof_with_their_numbers_in_the_hover(h100):
    e = estimate(990e12, 3.35e12, ops.decode_step(7e9, 1))
    fig = roofline_figure(h100, "fp16", [e])
    trace = next(t for t in fig.data if "decode" in t.name)
    assert (trace.x[0], trace.y[0]) == (pytest.approx(1.0), pytest.approx(3.35e12))
    assert "memory-bound" in trace.hovertext[0] and "time floor" in trace.hovertext[0]


def test_measured_points_are_not_clamped_and_above_roof_is_flagged(h100):
    # 2e15 FLOP/s at intensity 1000: above the 990 TFLOP/s roof, drawn where measured.
    high = point("too fast", 2e12, 2e9, 1e-3)
    low = point("honest", 1e12, 1e9, 1e-2)
    fig = roofline_figure(h100, "fp16", measured=[high, low])
    flagged = next(t for t in fig.data if t.name == ABOVE_ROOF)
    assert flagged.y[0] == pytest.approx(2e15)
    assert fig.layout.yaxis.range[1] > 15.3  # the axis grows to show it
    honest = next(t for t in fig.data if t.name.startswith("measured (median"))
    assert honest.y[0] == pytest.approx(1e14)
    assert honest.error_y.array[0] > 0 and honest.error_y.arrayminus[0] > 0


def test_a_compared_device_adds_its_chosen_roof_and_memory_only(h100, specs):
    fig = roofline_figure(h100, "fp16", compare=specs["NVIDIA V100 SXM2"])
    theirs = [n for n in names(fig) if n.startswith("NVIDIA V100 SXM2: ")]
    assert len(theirs) == 2 and any("fp16 roof" in n for n in theirs)


def test_switching_precision_draws_an_arrow_from_old_to_new(h100):
    cost16, cost8 = ops.matmul(4096, 4096, 4096, 2), ops.matmul(4096, 4096, 4096, 1)
    old, new = estimate(990e12, 3.35e12, cost16), estimate(1979e12, 3.35e12, cost8)
    fig = roofline_figure(h100, "fp8", [new], previous=[old])
    arrow = next(t for t in fig.data if t.name == MOVED)
    assert list(arrow.x) == [old.intensity, new.intensity, None] and old.intensity < new.intensity
    assert list(arrow.y)[:2] == [old.attainable_flops_per_s, new.attainable_flops_per_s]
    assert arrow.marker.symbol == "arrow" and list(arrow.marker.size) == [0, 12, 0]
    assert not fig.layout.annotations, "one trace, not an annotation per op"


def test_an_unpublished_precision_draws_no_ridge(specs):
    fig = roofline_figure(specs["NVIDIA V100 SXM2"], "fp8")
    assert not any(n.startswith("ridge") for n in names(fig))


def test_the_launch_overhead_floor_is_drawn_dashed_through_its_points(h100):
    floor = [(21.3, 5e10), (85.3, 3.4e12), (341.3, 2.1e14)]
    fig = roofline_figure(h100, "bf16", overhead=floor)
    trace = next(t for t in fig.data if t.name == OVERHEAD)
    assert (list(trace.x), list(trace.y)) == ([21.3, 85.3, 341.3], [5e10, 3.4e12, 2.1e14])
    assert trace.line.dash == "dash"
    assert OVERHEAD not in names(roofline_figure(h100, "bf16"))
