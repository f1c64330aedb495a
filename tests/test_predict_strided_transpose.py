"""A fusion holding a broadcast that moves its minor dimension, priced on its own curve.

Pure: hand-written HLO modules (tests/data/profile/*.hlo, as XLA:CPU compiles them): a weight
gradient's activations times a gain plus 1, transposed (2, 16, 24) -> (24, 32); (x + 1)ᵀ in
2-D; the same transpose of a chain with no broadcast (x · y + x); attention's head split of
x + 1 (rows of 6 moved whole); (a · b · 0.5 − c · d · g)ᵀ of (16, 24), four operands walked.
With a stub cost model, on flat hand-made curves at 1e9 bytes/s: strided transpose swept by
rows walked, transpose 0.5. XLA:CPU tiles a plain
transpose and one of a chain without a broadcast; with a broadcast inside it reads each
element on its own, strided: (x + 1)ᵀ of 2048 × 1024 floats took 6.8 ms there against 0.82 ms
for xᵀ, and a SwiGLU block's backward over (2, 512, 256) activations spent 12 ms in four such
fusions priced at 1.5 ms.
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import permutes
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernels import cpu_curves, predicted_ops

DATA = Path(__file__).parent / "data" / "profile"
STRIDED = (DATA / "strided_transpose.hlo").read_text("utf-8")
BYTES = 2 * 16 * 24 * 4 + 24 * 4  # the activations read and written, the gain read


def _fusion(text: str) -> tuple[hlo.Module, hlo.Instruction]:
    module = hlo.parse_module(text)
    return module, next(i for i in module.instructions.values() if i.opcode == "fusion")


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module: a multiply and an add per element."""
    return 2 * 768.0, float(BYTES), 0.0


@pytest.mark.parametrize(
    ("name", "strided"),
    [
        ("strided_transpose", True),
        ("strided_transpose_2d", True),
        ("chain_transpose", False),
        ("row_transpose_plus_one", False),
    ],
)
def test_a_broadcast_beside_a_moved_minor_dimension_makes_a_strided_transpose(name, strided):
    module, fusion = _fusion((DATA / f"{name}.hlo").read_text("utf-8"))
    assert permutes.strided_transpose(module, fusion) is strided


def _swept(efficiencies: dict[int, float]) -> kernels.Curves:
    """Flat strided-transpose sweeps (rows walked: efficiency), a transpose at 0.5 and an
    elementwise stream at 1.0, against 1e9 bytes/s."""
    points = [
        kernels.Point("strided transpose", "float32", size, e, sweep=rows)
        for rows, e in efficiencies.items()
        for size in (1e2, 1e9)
    ]
    points += [
        kernels.Point(k, "float32", s, e)
        for k, e in (("transpose", 0.5), ("elementwise", 1.0))
        for s in (1e2, 1e9)
    ]
    return kernels.Curves("cpu", "2026-12-06", tuple(points), (("float32", 1e12),), 1e9, "hand")


@pytest.mark.parametrize(
    ("name", "rows"),
    [("strided_transpose", 32), ("strided_transpose_2d", 16), ("row_transpose_plus_one", 1)],
)
def test_the_rows_walked_are_the_output_elements_more_minor_than_the_operands_minor_dim(name, rows):
    """(2, 16, 24) -> (24, 32): the 2 x 16 rows more minor than the 24 columns; (16, 24)ᵀ: 16;
    a head split keeps its rows minor: 1."""
    module, fusion = _fusion((DATA / f"{name}.hlo").read_text("utf-8"))
    assert permutes.strided_rows(module, fusion) == rows


def test_a_strided_transpose_reads_its_sweeps_at_its_rows_walked():
    """32 rows walked lie halfway (in log rows) between the 16 sweep at 0.3 and the 64 at 0.1."""
    op = predicted_ops(STRIDED, _swept({16: 0.3, 64: 0.1}), 2, stub_cost)["copy_bitcast_fusion"]
    assert op.kernel == "strided transpose"
    assert op.predicted_s == pytest.approx(BYTES / 1e9 / 0.2)
    assert "rows walked 32, between the 16 sweep and the 64 sweep" in op.derived_from


def test_each_operand_of_the_outputs_size_is_walked_on_its_own():
    """(a · b · 0.5 − c · d · g)ᵀ of (16, 24): a, b, c, d walked (the gain g, 24 elements, is
    broadcast); its bytes count 5 arrays of 1,536 bytes and the gain, four walks move 8: on a
    flat curve at 0.2 its time is (bytes + 3 x 1,536) / 1e9 / 0.2."""
    four = (DATA / "strided_transpose_four.hlo").read_text("utf-8")
    module, fusion = _fusion(four)
    assert permutes.walked_operands(module, fusion) == (4, 16 * 24 * 4)
    assert permutes.walked_operands(*_fusion(STRIDED))[0] == 1  # its gain broadcast, not walked
    moved = 5 * 1536 + 96.0

    def cost(text):
        return 4 * 384.0, moved, 0.0

    op = predicted_ops(four, _swept({16: 0.2}), 5, cost)["transpose_copy_fusion"]
    assert op.kernel == "strided transpose"
    assert op.predicted_s == pytest.approx((moved + 3 * 1536) / 1e9 / 0.2)
    assert "4 operands walked strided, each a walk of its own (x 1.59)" in op.derived_from


def test_older_curves_price_it_as_a_transpose_said_so():
    older = predicted_ops(STRIDED, cpu_curves({"transpose": 0.5}), 2, stub_cost)
    fallback = older["copy_bitcast_fusion"]
    assert fallback.predicted_s == pytest.approx(BYTES / 1e9 / 0.5)
    assert "transpose (no strided transpose curve measured)" in fallback.derived_from


def test_without_a_broadcast_the_same_transpose_stays_a_transpose_and_rows_kept_a_row_one():
    curves = cpu_curves({"strided transpose": 0.1, "transpose": 0.5, "row transpose": 0.8})
    chain = (DATA / "chain_transpose.hlo").read_text("utf-8")
    rows = (DATA / "row_transpose_plus_one.hlo").read_text("utf-8")
    assert predicted_ops(chain, curves, 2, stub_cost)["copy_bitcast_fusion"].kernel == "transpose"
    row_op = predicted_ops(rows, curves, 1, stub_cost)["transpose_copy_fusion"]
    assert row_op.kernel == "row transpose"


def test_the_suite_transposes_x_plus_one_over_256_and_1024_rows_from_16_columns():
    suite = SUITES["quick"]
    sweeps = kernel_plan._strided_transposes(suite, "float32", 4)
    assert [s[0].shapes[0][0] for s in sweeps] == [256, 1024]
    for r, sweep in zip((256, 1024), sweeps, strict=True):
        sizes = [n for n in suite.kernel_elements if n >= 16 * r]
        assert len(sweep) == len(sizes) >= 2
        assert [p.shapes for p in sweep] == [((r, n // r),) for n in sizes]
        assert [p.model.bytes for p in sweep] == [2 * n * 4 for n in sizes]
    assert {p.fn for s in sweeps for p in s} == {"strided transpose"}
    assert kernel_kinds.BASE_KIND["strided transpose"] == "transpose"
    assert kernel_kinds.SWEPT["strided transpose"] == "rows walked"
    planned = {s[0].kind for s in kernel_plan.plan(suite, "float32") if s}
    assert "strided transpose" in planned
