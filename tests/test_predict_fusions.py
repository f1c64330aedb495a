"""Fusions priced by what they hold: a fusion of several matmuls (XLA:CPU's YNNPACK fuses a
chain of them) as the sum of its matmuls, each on its own curve at its own size; a
transcendental op by how many transcendentals it evaluates per element against the curve's
kernel (exp and tanh: 2).

Pure: a hand-written HLO module (tests/data/profile/fusions.hlo: `two`, a fusion of
64×32·32×48 and 64×48·48×24 dots; `sines`, three sines of a 64×32 array) with a stub cost
model (6 transcendentals per element for the sines, as XLA counts a chain of 3 of 2 ops
each, to keep the scale a round number), on hand-made curves (1e9 FLOP/s, 1e9 bytes/s).
"""

from pathlib import Path

import pytest

from perfcore.measure.profile import predict
from perfcore.model.chip import kernels

MODULE = (Path(__file__).parent / "data" / "profile" / "fusions.hlo").read_text("utf-8")
SIN_ELEMENTS, SIN_BYTES = 64 * 32, 2 * 64 * 32 * 4  # one read and one write of each element


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module."""
    if " dot(" in text:
        return 4e5, 3e4, 0.0
    return (0.0, SIN_BYTES, 6.0 * SIN_ELEMENTS) if " sine(" in text else (0.0, 1e3, 0.0)


def _point(kind: str, efficiency: float, size: float) -> tuple[kernels.Point, ...]:
    return tuple(kernels.Point(kind, "float32", s, efficiency) for s in (size / 100, size * 100))


CURVES = kernels.Curves(
    "cpu",
    "2026-12-02",
    (*_point("matmul", 0.5, 2e5), *_point("transcendental", 0.25, SIN_BYTES)),
    (("float32", 1e9),),
    1e9,
    "hand",
    threads=2,
)


def _ops() -> dict[str, predict.OpPrediction]:
    got = predict.predict_modules([MODULE], "cpu", CURVES, 3, stub_cost)
    return {o.name: o for o in got.ops}


def test_a_fusion_of_two_matmuls_is_the_sum_of_each_on_its_curve():
    """By hand: 2·64·48·32 = 196,608 FLOPs over 4·(64·32 + 32·48 + 64·48) = 26,624 bytes, and
    2·64·24·48 = 147,456 FLOPs over 4·(64·48 + 48·24 + 64·24) = 23,040 bytes: both
    compute-bound at 1e9 FLOP/s, at efficiency 0.5: (196,608 + 147,456) / 1e9 / 0.5 s."""
    two = _ops()["two"]
    assert two.kernel == "matmul"
    assert two.predicted_s == pytest.approx((196_608 + 147_456) / 1e9 / 0.5)
    assert two.derived_from.startswith("the sum of its 2 matmuls: matmul float32 at 1.97e+05")
    assert two.efficiency == pytest.approx(two.bound_s / two.predicted_s)


def test_a_transcendental_op_scales_by_its_evaluations_per_element():
    """6 per element against the curve's 2: 3 times the curve's SIN_BYTES / 1e9 / 0.25 s."""
    sines = _ops()["sines"]
    assert sines.kernel == "transcendental"
    assert sines.predicted_s == pytest.approx(3 * SIN_BYTES / 1e9 / 0.25)
    assert "x 3: 6 transcendentals per element against the curve's 2" in sines.derived_from


@pytest.mark.parametrize(("per_element", "scale"), [(0.5, 1.0), (2, 1.0), (3, 1.5), (40, 20.0)])
def test_the_transcendental_scale_is_never_below_the_curves_own(per_element, scale):
    assert kernels.transcendental_scale(per_element) == scale
