"""An op after its program's first, priced on the faster of its two curves.

Pure: a hand-written HLO module of two adds over separate operands, on hand-made CPU curves
(tests.support.kernels.cpu_curves: 1e9 bytes/s) whose elementwise kind is 0.5 of the roof as
a program of its own and 1.0 as a loop body's op. A program of one op wakes the host's thread
pool, which its later ops find awake (a 4 MiB row sum 174 µs as a program's only op, 102-130
µs as each later one, docs/profile.md); a loop body's op runs with it awake.
"""

import dataclasses

import pytest

from perfcore.model.chip import kernels
from tests.support.kernels import cpu_curves, predicted_ops

TWO_ADDS = """HloModule two_adds, is_scheduled=true

ENTRY %main (a: f32[1024], b: f32[1024]) -> (f32[1024], f32[1024]) {
  %a = f32[1024]{0} parameter(0)
  %b = f32[1024]{0} parameter(1)
  %add.0 = f32[1024]{0} add(%a, %a)
  %add.1 = f32[1024]{0} add(%b, %b)
  ROOT %tuple = (f32[1024]{0}, f32[1024]{0}) tuple(%add.0, %add.1)
}
"""
BYTES = 2 * 1024 * 4  # each add reads and writes 1,024 floats


def stub_cost(text: str) -> tuple[float, float, float]:
    return 1024.0, float(BYTES), 0.0


def _curves(loop_efficiency: float) -> kernels.Curves:
    flat = cpu_curves({"elementwise": 0.5})
    body = tuple(
        kernels.Point("elementwise", "float32", s, loop_efficiency, loop=True) for s in (1e2, 1e9)
    )
    return dataclasses.replace(flat, points=flat.points + body)


def test_the_first_op_reads_its_own_curve_and_a_later_one_the_loop_bodys_where_faster():
    ops = predicted_ops(TWO_ADDS, _curves(1.0), 2, stub_cost)
    assert ops["add.0"].predicted_s == pytest.approx(BYTES / 1e9 / 0.5)
    assert "loop body" not in ops["add.0"].derived_from
    assert ops["add.1"].predicted_s == pytest.approx(BYTES / 1e9 / 1.0)
    assert "a later op of its program (as a program of its own 0.50)" in ops["add.1"].derived_from


def test_a_later_op_keeps_its_own_curve_where_the_loop_bodys_is_slower():
    ops = predicted_ops(TWO_ADDS, _curves(0.25), 2, stub_cost)
    assert ops["add.1"].predicted_s == pytest.approx(BYTES / 1e9 / 0.5)
    assert "loop body" not in ops["add.1"].derived_from
