"""The predicted-vs-measured chart: one point per op where it was measured and predicted, the
diagonal, the curves' spread either side, and exactly the ops that missed named."""

import math

import pytest

from perfcore.figures.predicted import predicted_figure


def _row(op: str, measured: float, predicted: float, kernel: str = "matmul") -> dict:
    return {
        "op": op,
        "category": "matmul/conv",
        "kernel": kernel,
        "predicted_s": predicted,
        "measured_s": measured,
        "error": (predicted - measured) / measured,
        "source": "",
        "derived_from": "measured kernels on cpu",
    }


ROWS = [_row("dot.1", 2e-3, 1e-3), _row("dot.2", 1e-3, 1.1e-3), _row("copy.3", 4e-4, 4e-4, "copy")]


def _points(fig) -> dict[str, tuple[float, float]]:
    return {
        t: (x, y)
        for d in fig.data
        if d.mode == "markers"
        for x, y, t in zip(d.x, d.y, d.text, strict=True)
    }


def test_each_op_is_one_point_at_measured_and_predicted():
    points = _points(predicted_figure(ROWS, [], 0.2))
    assert points == {r["op"]: (r["measured_s"], r["predicted_s"]) for r in ROWS}


def test_the_diagonal_and_the_spread_either_side():
    lines = [d for d in predicted_figure(ROWS, [], 0.2).data if d.mode == "lines"]
    slopes = sorted(y / x for d in lines for x, y in zip(d.x, d.y, strict=True))
    assert slopes == pytest.approx([0.8, 0.8, 1.0, 1.0, 1.2, 1.2])
    no_spread = [d for d in predicted_figure(ROWS, [], None).data if d.mode == "lines"]
    assert len(no_spread) == 1


def test_only_the_ops_that_missed_are_named_at_their_points():
    fig = predicted_figure(ROWS, ["dot.1"], 0.2)
    (note,) = fig.layout.annotations
    assert note.text == "dot.1"
    assert (note.x, note.y) == pytest.approx((math.log10(2e-3), math.log10(1e-3)))
