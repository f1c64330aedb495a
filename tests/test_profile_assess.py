"""Each op judged against its roofs, and each program's step against the host: the levers.

Ops and roofs are built here with round numbers, so each fraction is hand arithmetic:
a roof of 100 GFLOP/s and 10 GB/s (ridge 10 FLOP/byte).
"""

import pytest

from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge.assess import (
    Roofs,
    assess,
    program_diagnosis,
    roofs_for,
)
from perfcore.measure.profile.judge.joined import Op, Program
from perfcore.measure.profile.judge.price import COST_MODEL, IN_BODY, NO_COST

ROOFS = Roofs("round roofs", (("fp32", 100e9),), 10e9)


def op(category, flops, n_bytes, seconds, occurrences=1, cost=COST_MODEL) -> Op:
    return Op(
        "jit_f",
        1,
        "x",
        "fusion",
        category,
        "f.py:1",
        "fp32",
        "cpu",
        occurrences,
        (seconds,) * 3,
        flops,
        n_bytes,
        cost,
        "",
    )


def test_a_memory_bound_elementwise_chain_is_told_to_fuse():
    """1 MFLOP over 100 MB in 20 ms: intensity 0.01, 5 GB/s of 10 = 50 % of bandwidth."""
    a = assess(op(hlo.ELEMENTWISE, 1e6, 1e8, 0.02), ROOFS)
    assert a.bound == "memory" and a.fraction == pytest.approx(0.5)
    assert "fuse" in a.diagnosis and "50.0 %" in a.diagnosis


def test_a_tiny_op_far_below_both_roofs_is_overhead_bound():
    """1 kFLOP over 1 kB in 5 µs: 0.2 GB/s, 2 % of the 10 GB/s memory roof there."""
    a = assess(op(hlo.ELEMENTWISE, 1e3, 1e3, 5e-6), ROOFS)
    assert a.fraction == pytest.approx(0.02)
    assert a.diagnosis.startswith("overhead-bound")


def test_a_compute_bound_matmul_at_a_low_fraction_points_at_precision_and_tiles():
    """2 GFLOP over 20 MB (100 FLOP/byte, above the ridge) in 100 ms: 20 GFLOP/s of 100."""
    a = assess(op(hlo.MATMUL, 2e9, 2e7, 0.1), ROOFS)
    assert a.bound == "compute" and a.fraction == pytest.approx(0.2)
    assert "precision" in a.diagnosis and "tile" in a.diagnosis


def test_a_matmul_near_its_roof_needs_less_work():
    a = assess(op(hlo.MATMUL, 2e9, 2e7, 0.025), ROOFS)
    assert a.fraction == pytest.approx(0.8) and "less work" in a.diagnosis


def test_a_loop_body_op_is_judged_per_occurrence_working_set():
    """8 runs of 1 MB each: the working set is 1 MB, held to the level that holds 1 MB."""
    roofs = Roofs("levels", (("fp32", 100e9),), 10e9, (("cache", 2e6, 40e9),))
    a = assess(op(hlo.ELEMENTWISE, 8e5, 8e6, 4e-3, occurrences=8), roofs)
    assert a.fraction == pytest.approx(8e6 / 4e-3 / 40e9)


@pytest.mark.parametrize(("cost", "words"), [(NO_COST, "no cost model"), (IN_BODY, "loop")])
def test_ops_without_a_cost_say_why_and_place_nowhere(cost, words):
    a = assess(op(hlo.CUSTOM, None, 1e6, 1e-3, cost=cost), ROOFS)
    assert a.fraction is None and words in a.diagnosis


def test_without_roofs_only_time_speaks():
    assert "no roof" in assess(op(hlo.MATMUL, 2e9, 2e7, 0.1), None).diagnosis


def _program(span, busy, wall):
    return Program(
        "jit_f",
        1,
        (wall,) * 2,
        (span,) * 2,
        (busy,) * 2,
        (busy,) * 2,
        (busy,) * 2,
        1.0,
        1.0,
        1.0,
        (),
    )


def test_an_idle_device_between_ops_points_at_the_host():
    """Busy 60 of 100 µs: idle 40 %, over the 20 % that points at a sync or dispatch."""
    assert "device idle 40.0 %" in program_diagnosis(_program(100e-6, 60e-6, 110e-6))


def test_a_host_wall_far_over_the_device_span_is_dispatch_bound():
    assert "dispatch-bound" in program_diagnosis(_program(100e-6, 99e-6, 1e-3))
    assert "busy" in program_diagnosis(_program(100e-6, 99e-6, 120e-6))


def test_roofs_come_from_the_matched_row_else_the_measured_roofline(specs):
    assert "H100" in roofs_for("NVIDIA H100 80GB HBM3", specs).label
    assert roofs_for("cpu", specs) is None


def test_an_op_above_its_roof_says_so_and_is_not_clamped():
    """2 GFLOP in 10 ms: 200 GFLOP/s over a 100 GFLOP/s roof, fraction 2 as measured."""
    a = assess(op(hlo.MATMUL, 2e9, 2e7, 0.01), ROOFS)
    assert a.fraction == pytest.approx(2.0) and a.diagnosis.startswith("above its roof")
