"""The Profile page's charts: each op where it was measured (never clamped), area by time."""

import dataclasses
import itertools
import math
from pathlib import Path

import pytest

from perfcore.explain.measure import profile as view
from perfcore.figures.measure import labels
from perfcore.figures.measure.profile import (
    category_figure,
    compare_figure,
    profile_roofline_figure,
)
from perfcore.measure.profile.judge.assess import Roofs
from perfcore.measure.profile.judge.records import profile_records
from perfcore.measure.results import load_results

OPS = profile_records(load_results(Path(__file__).parent / "data" / "profile" / "mlp_profile.json"))
LOW_ROOF = Roofs("a roof below the ops", (("fp32", 1e9),), 1e9)  # 1 GFLOP/s, 1 GB/s


def _points(fig):
    return [
        (x, y, s, t)
        for d in fig.data
        if d.mode == "markers"
        for x, y, s, t in zip(d.x, d.y, d.marker.size, d.text, strict=True)
    ]


def _named(fig) -> list[str]:
    return [a.text for a in fig.layout.annotations]


def test_ops_sit_at_their_measured_rate_even_above_the_roof():
    """The roof is 1 GFLOP/s, the ops reach ~100: each point's y is FLOPs / median."""
    points = _points(profile_roofline_figure(OPS, LOW_ROOF))
    want = sorted(r.flops / r.measurement.median for r in OPS if r.flops)
    assert sorted(y for _, y, _, _ in points) == pytest.approx(want, rel=1e-12)
    assert all(y > 1e9 for _, y, _, _ in points)


def test_marker_area_follows_time():
    points = {t: s for _, _, s, t in _points(profile_roofline_figure(OPS, None))}
    first, second = OPS[0], OPS[1]
    ratio = (points[first.label] / points[second.label]) ** 2
    assert ratio == pytest.approx(first.measurement.median / second.measurement.median)


def test_only_the_slowest_ops_are_named():
    assert _named(profile_roofline_figure(OPS, None, named=2)) == [r.label for r in OPS[:2]]


def test_each_name_points_at_its_op():
    """A label's arrow head is its op's point (log10 coordinates on log axes)."""
    fig = profile_roofline_figure(OPS, None)
    where = {t: (math.log10(x), math.log10(y)) for x, y, _, t in _points(fig)}
    for a in fig.layout.annotations:
        assert (a.x, a.y) == pytest.approx(where[a.text])


def test_named_ops_never_overlap_even_when_their_points_coincide():
    """Twelve ops at one point: each label's box, centred its offset from that point, meets
    no other label's box; half of them at least find room."""
    same = tuple(dataclasses.replace(OPS[0], label=f"fusion.{i}") for i in range(12))
    fig = profile_roofline_figure(same, None, named=12)
    boxes = []
    for a in fig.layout.annotations:
        w, h = labels.text_size(a.text)
        boxes.append((a.ax - w / 2, -a.ay - h / 2, a.ax + w / 2, -a.ay + h / 2))
    assert len(boxes) >= 6
    assert not any(labels.intersects(p, q) for p, q in itertools.combinations(boxes, 2))


def test_an_op_without_flops_is_left_off_not_drawn_at_zero():
    no_cost = dataclasses.replace(OPS[0], label="pallas", flops=None)
    points = _points(profile_roofline_figure((*OPS, no_cost), None))
    assert len(points) == len(OPS) and all(math.isfinite(y) and y > 0 for _, y, _, _ in points)


def test_the_category_bars_hold_each_category_time():
    times = view.category_times(OPS)
    (bars,) = category_figure(times).data
    assert dict(zip(bars.y, bars.x, strict=True)) == times


def test_the_compare_bars_show_the_largest_changes():
    (bars,) = compare_figure(view.compare(OPS, OPS[:3])).data
    assert len(bars.x) == 3
