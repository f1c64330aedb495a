"""A complex dot counted at 8 FLOPs a multiply-add and priced on its real parts' curve (stop
52): XLA's cost model counts a complex64 dot's multiply-adds at 2 FLOPs, as a real one's
(268 MFLOP for a 512³ one, float32's and complex64's alike), where a complex product is 4
multiplies and 2 adds and its accumulation 2 more (LAPACK's CGEMM count, 8·M·N·K). A 512³
complex64 matmul was predicted at 2.6 ms (no curve, the published runs' efficiency) and took
12.3 ms here; on the float32 curve at 8·M·N·K, 6.2 ms.

Pure: a hand-written module (tests/data/profile/complex_dot.hlo: a complex64 and a float32
dot of 64×128·128×32), XLA's counts stubbed, flat hand-made curves at 1e9 FLOP/s.
"""

from pathlib import Path

import pytest

from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import price
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "complex_dot.hlo").read_text("utf-8")
MNK = 64 * 32 * 128


def xla_count(text: str) -> tuple[float, float, float]:
    """XLA's cost model's FLOPs for either dot: 2 a multiply-add, complex or not; no bytes."""
    return 2.0 * MNK, 0.0, 0.0


def test_a_complex_dot_is_8_flops_a_multiply_add_and_a_real_one_2():
    module = hlo.parse_module(MODULE)
    dots = {i.name.lstrip("%"): i for i in module.instructions.values() if i.opcode == "dot"}
    assert hlo.complex_dot_flops(module, dots["dot.c"]) == 6 * MNK
    assert hlo.complex_dot_flops(module, dots["dot.r"]) == 0
    priced = {n: price.price(module, d, xla_count) for n, d in dots.items()}
    assert (priced["dot.c"].flops, priced["dot.r"].flops) == (8 * MNK, 2 * MNK)
    assert priced["dot.c"].cost_source == price.COMPLEX_DOT
    assert priced["dot.r"].cost_source == price.COST_MODEL


def test_without_a_complex_curve_it_reads_float32s_said_so():
    """At 0.25 of 1e9 FLOP/s: 8·M·N·K over 2.5e8 FLOP/s."""
    ops = predicted_ops(MODULE, cpu_curves({"matmul": 0.25}), 4, xla_count)
    assert ops["dot.c"].predicted_s == pytest.approx(8 * MNK / 1e9 / 0.25)
    assert ops["dot.r"].predicted_s == pytest.approx(2 * MNK / 1e9 / 0.25)
    assert "(no complex64 curve measured: float32's, by real FLOPs)" in ops["dot.c"].derived_from
