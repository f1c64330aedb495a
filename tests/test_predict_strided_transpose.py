"""A fusion holding a broadcast that moves its minor dimension, priced on its own curve.

Pure: hand-written HLO modules (tests/data/profile/*.hlo, as XLA:CPU compiles them): a weight
gradient's activations times a gain plus 1, transposed (2, 16, 24) -> (24, 32); (x + 1)ᵀ in
2-D; the same transpose of a chain with no broadcast (x · y + x); attention's head split of
x + 1 (rows of 6 moved whole); (a · b · 0.5 − c · d · g)ᵀ of (16, 24), four operands walked;
(x + 1) of (4, 32, 32) with each matrix transposed. With a stub cost model, on flat hand-made
curves at 1e9 bytes/s: strided transpose swept by the KiB a walk spans, transpose 0.5.
XLA:CPU tiles a plain transpose and one of a chain without a broadcast; with a broadcast
inside it reads each element on its own, strided: (x + 1)ᵀ of 2048 × 1024 floats took 6.8 ms
there against 0.82 ms for xᵀ, and a SwiGLU block's backward over (2, 512, 256) activations
spent 12 ms in four such fusions priced at 1.5 ms.
"""

import dataclasses
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
    """Flat strided-transpose sweeps (KiB a walk spans: efficiency), a transpose at 0.5 and an
    elementwise stream at 1.0, against 1e9 bytes/s."""
    points = [
        kernels.Point("strided transpose", "float32", size, e, sweep=span)
        for span, e in efficiencies.items()
        for size in (1e2, 1e9)
    ]
    points += [
        kernels.Point(k, "float32", s, e)
        for k, e in (("transpose", 0.5), ("elementwise", 1.0))
        for s in (1e2, 1e9)
    ]
    return kernels.Curves("cpu", "2026-12-06", tuple(points), (("float32", 1e12),), 1e9, "hand")


@pytest.mark.parametrize(
    ("name", "kib"),
    [
        ("strided_transpose", 3),
        ("strided_transpose_2d", 2),
        ("strided_transpose_heads", 4),
        ("row_transpose_plus_one", 1),
    ],
)
def test_a_walk_spans_its_rows_times_the_pitch_of_the_dimension_it_walks(name, kib):
    """(2, 16, 24) -> (24, 32): the 2 x 16 rows of 24 floats more minor than the 24 columns,
    3,072 bytes; (16, 24)ᵀ: 16 rows of 96 bytes, 1,536 (2 KiB rounded up); (4, 32, 32) with
    each matrix transposed: a walk spans one matrix, 32 rows of 128 bytes (4 KiB, not the 16
    of the array); a head split keeps its rows minor: 1."""
    module, fusion = _fusion((DATA / f"{name}.hlo").read_text("utf-8"))
    assert permutes.strided_span(module, fusion) == kib


def test_a_strided_transpose_reads_its_sweeps_at_the_kib_a_walk_spans():
    """3 KiB lie at log 3 / log 9 = 1/2 (in log KiB) between the 1 sweep at 0.3 and the 9 at
    0.1: 0.2."""
    op = predicted_ops(STRIDED, _swept({1: 0.3, 9: 0.1}), 2, stub_cost)["copy_bitcast_fusion"]
    assert op.kernel == "strided transpose"
    assert op.predicted_s == pytest.approx(BYTES / 1e9 / 0.2)
    assert "KiB a walk spans 3, between the 1 sweep and the 9 sweep" in op.derived_from


def test_a_size_below_one_sweeps_smallest_point_is_said_as_the_size_not_the_span():
    """The 9 KiB sweep measured from 1e4 bytes (a walk of 9 KiB is an array of 9 KiB or
    more): the op's 3,168 bytes read it at its nearest, said as outside the sizes both sweeps
    were measured at, its span being inside the swept 1-9."""
    curves = _swept({1: 0.3})
    big = tuple(kernels.Point("strided transpose", "float32", s, 0.1, sweep=9) for s in (1e4, 1e9))
    curves = dataclasses.replace(curves, points=curves.points + big)
    op = predicted_ops(STRIDED, curves, 2, stub_cost)["copy_bitcast_fusion"]
    assert op.predicted_s == pytest.approx(BYTES / 1e9 / 0.2)
    assert "between the 1 sweep and the 9 sweep outside the measured 1e+04-1e+09" in (
        op.derived_from
    )
    assert "outside the swept" not in op.derived_from and op.efficiency_source == kernels.NEAREST


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


def test_the_suite_transposes_square_matrices_of_64_256_and_1024_batched_to_each_size():
    suite = SUITES["quick"]
    sweeps = kernel_plan._strided_transposes(suite, "float32", 4)
    assert [s[0].shapes[0][1:] for s in sweeps] == [(64, 64), (256, 256), (1024, 1024)]
    for side, sweep in zip((64, 256, 1024), sweeps, strict=True):
        sizes = [n for n in suite.kernel_elements if n >= side**2]
        assert len(sweep) == len(sizes) >= 1
        assert [p.shapes for p in sweep] == [((n // side**2, side, side),) for n in sizes]
        assert [p.model.bytes for p in sweep] == [2 * n * 4 for n in sizes]
    assert {p.fn for s in sweeps for p in s} == {"strided transpose"}
    assert kernel_kinds.BASE_KIND["strided transpose"] == "transpose"
    assert kernel_kinds.SWEPT["strided transpose"] == "KiB a walk spans"
    planned = {s[0].kind for s in kernel_plan.plan(suite, "float32") if s}
    assert "strided transpose" in planned
