"""The predicted-vs-measured chart: one point per op where it was measured and predicted, the
diagonal, the curves' spread either side, and exactly the ops that missed named."""

import math

import pytest

from perfcore.figures.measure.predicted import predicted_figure
from perfcore.measure.profile.predict.versus import OpVersus


def _op(name: str, fastest: float, predicted: float, kernel: str = "matmul") -> OpVersus:
    """An op whose median step is half again its fastest: the chart places it at the fastest."""
    return OpVersus(
        name=name,
        category="matmul/conv",
        kernel=kernel,
        source="",
        predicted_s=predicted,
        measured_s=1.5 * fastest,
        fastest_s=fastest,
        derived_from="measured kernels",
        alone_s=predicted,
    )


OPS = (_op("dot.1", 2e-3, 1e-3), _op("dot.2", 1e-3, 1.1e-3), _op("copy.3", 4e-4, 4e-4, "copy"))


def _points(fig) -> dict[str, tuple[float, float]]:
    return {
        t: (x, y)
        for d in fig.data
        if d.mode == "markers"
        for x, y, t in zip(d.x, d.y, d.text, strict=True)
    }


def test_each_op_is_one_point_at_its_fastest_step_and_predicted():
    points = _points(predicted_figure(OPS, (), 0.2))
    assert points == {o.name: (o.fastest_s, o.predicted_s) for o in OPS}


def test_the_diagonal_and_the_spread_either_side():
    lines = [d for d in predicted_figure(OPS, (), 0.2).data if d.mode == "lines"]
    slopes = sorted(y / x for d in lines for x, y in zip(d.x, d.y, strict=True))
    assert slopes == pytest.approx([0.8, 0.8, 1.0, 1.0, 1.2, 1.2])
    no_spread = [d for d in predicted_figure(OPS, (), None).data if d.mode == "lines"]
    assert len(no_spread) == 1


def test_only_the_ops_that_missed_are_named_at_their_points():
    fig = predicted_figure(OPS, ("dot.1",), 0.2)
    (note,) = fig.layout.annotations
    assert note.text == "dot.1"
    assert (note.x, note.y) == pytest.approx((math.log10(2e-3), math.log10(1e-3)))


def test_an_op_at_zero_seconds_is_left_off_the_log_axes_and_not_named():
    """A results file may hold an op predicted at 0 s (an earlier rule for one that moves no
    device-memory bytes): log axes have no place for it, and the rest still draw."""
    zero = _op("copy.4", 4e-4, 0.0, "copy")
    fig = predicted_figure((*OPS, zero), ("dot.1", "copy.4"), 0.2)
    assert set(_points(fig)) == {o.name for o in OPS}
    assert [a.text for a in fig.layout.annotations] == ["dot.1"]
