"""A narrow matmul (an MLP's batch of 32 rows against 1024-wide layers) on its layout's narrow
sweeps, a square one on the layout's other points.

Pure: a hand-written HLO module (tests/data/profile/narrow_dots.hlo: an MLP layer's forward
X·W, weight gradient Xᵀ·dY and input gradient dY·Wᵀ over 32 rows, a 32-row Aᵀ·Bᵀ (as an
einsum's contraction order can give), and a square 256³ matmul)
with a stub cost model (2 FLOPs per multiply-add, 1e3 bytes an op), on hand-made curves at
1e9 FLOP/s: each layout flat at 0.8 on its wide points and 0.4 on a side-32 sweep.
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from perfcore.measure.experiments.suites import SUITES
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernels import predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "narrow_dots.hlo").read_text("utf-8")
NARROW = 2 * 32 * 1024 * 1024  # FLOPs of each of the three 32-row matmuls
SQUARE = 2 * 256**3
LAYOUTS = ("matmul", "matmul transposed", "matmul rhs transposed", "matmul both transposed")


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module, by which dot it holds."""
    return float(SQUARE if "square" in text else NARROW), 1e3, 0.0


def _curves(swept: bool = True) -> kernels.Curves:
    wide = [kernels.Point(k, "float32", s, 0.8) for k in LAYOUTS for s in (1e2, 1e9)]
    narrow = [kernels.Point(k, "float32", s, 0.4, sweep=32) for k in LAYOUTS for s in (1e2, 1e9)]
    points = tuple(wide + (narrow if swept else []))
    return kernels.Curves("cpu", "2026-12-05", points, (("float32", 1e9),), 1e9, "hand")


NAMES = ("fwd", "wgrad", "dgrad", "both")


@pytest.mark.parametrize("name, kind", list(zip(NAMES, LAYOUTS, strict=True)))
def test_each_layouts_32_row_matmul_is_priced_on_its_side_32_sweep(name, kind):
    """6.7e7 FLOPs at 1e9 FLOP/s: a 67 ms bound, over the sweep's 0.4: 168 ms."""
    op = predicted_ops(MODULE, _curves(), 4, stub_cost)[name]
    assert op.kernel == kind
    assert op.predicted_s == pytest.approx(NARROW / 1e9 / 0.4)
    assert "smallest side 32, on the 32 sweep" in op.derived_from


def test_a_square_matmul_keeps_the_wide_points():
    op = predicted_ops(MODULE, _curves(), 4, stub_cost)["square"]
    assert op.predicted_s == pytest.approx(SQUARE / 1e9 / 0.8) and "side" not in op.derived_from


def test_curves_without_narrow_sweeps_price_them_as_before():
    """An older results file: every matmul on its layout's one curve."""
    ops = predicted_ops(MODULE, _curves(swept=False), 5, stub_cost)
    assert ops["fwd"].predicted_s == pytest.approx(NARROW / 1e9 / 0.8)


def test_the_suite_sweeps_each_layout_narrow_at_8_to_32_times_its_side():
    """Per narrow side r: X·W (M = r), Xᵀ·dY (K = r), dY·Wᵀ (M = r), Aᵀ·Bᵀ (M = r), n from 8r
    to 32r."""
    sweeps = kernel_plan.plan(SUITES["default"], "float32")
    narrow = [
        s
        for s in sweeps
        if s and s[0].kind in LAYOUTS and kernel_kinds.narrow_side(*s[0].shapes[0], *s[0].shapes[1])
    ]
    assert len(narrow) == 4 * len(SUITES["default"].kernel_narrow)
    for sweep in narrow:
        sides = [kernel_kinds.narrow_side(*p.shapes[0], *p.shapes[1]) for p in sweep]
        assert len(set(sides)) == 1 and sides[0] in SUITES["default"].kernel_narrow
        assert [max(*p.shapes[0], *p.shapes[1]) // sides[0] for p in sweep] == [8, 16, 32]


def test_a_both_transposed_matmul_is_its_own_kind_priced_as_a_weight_gradient_before():
    """Aᵀ·Bᵀ runs outside XLA:CPU's matmul library (27 GFLOP/s for 64×1024·1024×1024 where
    A·B ran 190): its own curve, square and narrow; an older file's weight-gradient curve,
    said so."""
    assert kernel_kinds.matmul_kind(64, 64, True, True) == "matmul both transposed"
    assert kernel_kinds.matmul_kind(64, 64, True) == "matmul transposed"
    assert kernel_kinds.BASE_KIND["matmul both transposed"] == "matmul transposed"
    older = [p for p in _curves().points if p.kind != "matmul both transposed"]
    curves = kernels.Curves("cpu", "2026-12-05", tuple(older), (("float32", 1e9),), 1e9, "hand")
    op = predicted_ops(MODULE, curves, 5, stub_cost)["both"]
    assert op.kernel == "matmul both transposed"
    assert "matmul transposed (no matmul both transposed curve measured)" in op.derived_from
    square = [s for s in kernel_plan.plan(SUITES["quick"], "float32") if s and s[0].fn == op.kernel]
    assert square and all(p.shapes[0][0] == p.shapes[1][1] for s in square for p in s)
