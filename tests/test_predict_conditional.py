"""A conditional's branches: one runs a call, chosen by the data, so a prediction made before
the program runs counts its costliest branch (XLA's own cost analysis keeps each property's
maximum over the branches), and a branch's ops outside any loop are priced as a program's ops,
not a loop body's.

Pure: tests/data/profile/conditional.hlo is XLA:CPU's module of
`lax.cond(p, lambda a: a @ w, lambda a: a * 3 + 1, x)` over 256² float32 (its metadata
dropped): branch 0 the multiply-add (one loop fusion), branch 1 the matmul (a YNNPACK
fusion). A stub cost model counts what XLA's does for each one-op module. Measured on this
CPU before: a program whose cond took its cheap branch (a tanh) was predicted at the sum of
both branches, the untaken 1,024² matmul's 5.9 ms included.
"""

from pathlib import Path

import pytest

from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import graph, program
from perfcore.model.chip import kernels
from tests.support.kernels import cpu_curves

MODULE = (Path(__file__).parent / "data" / "profile" / "conditional.hlo").read_text("utf-8")
SCAN = (Path(__file__).parent / "data" / "profile" / "cpu_scan.hlo").read_text("utf-8")
N = 256
DOT = (2.0 * N**3, 3.0 * N * N * 4)  # the matmul branch: FLOPs, bytes
AXPB = 2.0 * N * N * 4  # the multiply-add branch: its bytes


def xla_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module, as XLA's cost model counts them."""
    if " dot(" in text:
        return (*DOT, 0.0)
    if "multiply(" in text:
        return N * N * 2.0, AXPB, 0.0
    return 0.0, 8.0, 0.0


def _prediction(loop_efficiency: float = 0.5) -> program.Prediction:
    """The module predicted on flat curves at 1e9 FLOP/s and bytes/s: matmuls at 0.5,
    elementwise ops at 0.5 as programs of their own and at loop_efficiency as a loop's ops."""
    base = cpu_curves({"matmul": 0.5, "elementwise": 0.5})
    loops = tuple(
        kernels.Point("elementwise", "float32", size, loop_efficiency, loop=True)
        for size in (1e2, 1e9)
    )
    curves = kernels.Curves("cpu", "2026-12-07", base.points + loops, (("float32", 1e9),), 1e9, "h")
    return program.predict_modules([MODULE], "cpu", curves, 3, xla_cost)


def test_the_step_counts_the_costliest_branch_alone():
    got = _prediction()
    ops = {o.name: o for o in got.ops}
    matmul = DOT[0] / 1e9 / 0.5  # 67 ms: compute-bound at half the roof
    assert ops["ynn_fusion"].predicted_s == pytest.approx(matmul)
    assert ops["broadcast_add_fusion"].predicted_s == pytest.approx(AXPB / 1e9 / 0.5)
    assert got.untaken == frozenset({"broadcast_add_fusion"})
    convert = ops["wrapped_convert"].predicted_s
    assert got.op_s == pytest.approx(matmul + convert)  # not + the multiply-add's 1 ms


def test_the_schedule_runs_the_costliest_branch_for_the_conditional():
    module = hlo.parse_module(MODULE)
    seconds = {"ynn_fusion": 0.003, "broadcast_add_fusion": 0.001, "wrapped_convert": 0.0}
    node = {n.name: n for n in graph.nodes(module, seconds, 2)}["cond.3.clone"]
    assert node.seconds == pytest.approx(0.003)
    cheap = {**seconds, "ynn_fusion": 0.0005}  # now the multiply-add's branch costs more
    assert {n.name: n for n in graph.nodes(module, cheap, 2)}["cond.3.clone"].seconds == (
        pytest.approx(0.001)
    )


def test_a_branch_outside_any_loop_is_priced_as_a_programs_op():
    """The multiply-add is a later op of its program: the faster of its curve as a program of
    its own (0.5) and as a loop's op (0.1 here), not the loop's alone."""
    ops = {o.name: o for o in _prediction(loop_efficiency=0.1).ops}
    assert ops["broadcast_add_fusion"].efficiency == pytest.approx(0.5)
    module = hlo.parse_module(MODULE)
    assert not hlo.in_loop(module, module.instructions["%broadcast_add_fusion"])
    scan = hlo.parse_module(SCAN)
    assert hlo.in_loop(scan, scan.instructions["%wrapped_tanh"])
    assert not hlo.in_loop(scan, scan.instructions["%while.5"])
