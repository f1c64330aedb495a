"""bfloat16 math on XLA:CPU: each op of a fusion computed in float32, its result rounded to
bfloat16 and widened again by the next (a tanh GELU of 1.6M bfloat16 elements took 3.1 ms
there against 0.8 ms in float32). Each such rounding is an evaluation on the rounding curve
(kernel_kinds.ROUNDINGS an element in its kernel), beyond that kernel's own stream, its result's
rounding too; a convert alone (as XLA wraps one) is a stream.

Pure: a hand-written HLO module (tests/data/profile/roundings.hlo: `gelu`, a float32 input,
two roundings between its ops, a bfloat16 result; `pair`, a multi-output fusion whose
bfloat16 results leave by its tuple; `expb`, an exponential of bfloat16 computed in float32;
`narrow`, a convert alone, as XLA wraps one) with a stub cost model, on flat curves (1e9
FLOP/s, 1e9 bytes/s).
"""

from pathlib import Path

import pytest

from perfcore.measure.profile import hlo
from perfcore.model.chip import kernel_kinds
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "roundings.hlo").read_text("utf-8")
ELEMENTS = 64 * 32
U = 2 * 2 * ELEMENTS / 1e9  # seconds to read and write every element once in bfloat16


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module: 3 FLOPs an element, a float32 read
    and a bfloat16 write (1.5 U of bytes), no transcendentals; the exponential of bfloat16, a
    bfloat16 read and write (U) and one evaluation an element."""
    if " exponential(" in text:
        return 0.0, U * 1e9, float(ELEMENTS)
    return 3.0 * ELEMENTS, 1.5 * U * 1e9, 0.0


def test_roundings_between_ops_are_counted_and_the_stores_are_not():
    module = hlo.parse_module(MODULE)
    ops = {i.name: i for i in module.computations["%main"]}
    assert hlo.roundings(module, ops["%gelu"]) == 3 * ELEMENTS  # its result's too
    assert hlo.roundings(module, ops["%pair"]) == 2 * ELEMENTS  # both leave by the tuple
    assert hlo.roundings(module, ops["%expb"]) == ELEMENTS  # widened, evaluated, rounded
    assert hlo.roundings(module, ops["%narrow"]) == 0  # XLA's wrapped convert: a stream
    assert hlo.roundings(module, ops["%p"]) == 0  # no fusion: nothing held


def test_an_op_that_rounds_between_its_ops_adds_its_roundings_beyond_their_stream():
    """Stream at 0.5: 1.5 U / 0.5 = 3 U. Three roundings an element (two between its ops, one
    its result) against the kernel's 8, at its float32 operand's width (8 bytes an element
    moved, 2 U): 3/8 × (the rounding kernel over its 2,048 elements at 0.1, 20 U, less that
    kernel's own stream at 0.5, 4 U) = 6 U; in all 9 U. Still an elementwise op, not a
    transcendental one. A file with no rounding curve prices the roundings on the elementwise
    curve: nothing beyond the stream (3 U), said so."""
    assert kernel_kinds.ROUNDINGS == 8
    curves = cpu_curves({"elementwise": 0.5, "rounding": 0.1})
    gelu = predicted_ops(MODULE, curves, 2, stub_cost)["gelu"]
    assert gelu.kernel == "elementwise"
    assert gelu.predicted_s == pytest.approx(9 * U)
    assert "and 0.375 x the rounding curve's kernel over its 2,048 elements" in gelu.derived_from
    older = predicted_ops(MODULE, cpu_curves({"elementwise": 0.5}), 2, stub_cost)["gelu"]
    assert older.predicted_s == pytest.approx(3 * U)
    assert "elementwise (no rounding curve measured)" in older.derived_from


def test_a_bfloat16_ops_evaluations_cost_per_element_at_float32_where_no_bfloat16_curve_is():
    """The exponential of 2,048 bfloat16 elements on float32 curves (elementwise 0.5,
    transcendental 0.25). Its stream, by bytes: U / 0.5 = 2 U. Its evaluations, by elements at
    float32's width (8 bytes an element moved, 2 U): half the chain's kernel over its 2,048
    elements (2 U / 0.25 = 8 U) less that kernel's stream (2 U / 0.5 = 4 U), 2 U; in all 4 U.
    By bytes at bfloat16's width they would cost half that: 3 U."""
    curves = cpu_curves({"elementwise": 0.5, "transcendental": 0.25})
    expb = predicted_ops(MODULE, curves, 2, stub_cost)["expb"]
    assert expb.kernel == "transcendental" and expb.dtype == "bfloat16"
    assert expb.predicted_s == pytest.approx(4 * U)
    assert "(no bfloat16 curve measured: float32's, by elements)" in expb.derived_from
