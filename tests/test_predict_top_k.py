"""A top-k (jax.lax.top_k: XLA:CPU's `TopK` custom call) priced by its bytes on its own curve.

Pure: a hand-written HLO module (tests/data/profile/top_k.hlo: the 8 largest of each of 16
rows of 1,024 floats, as jax.lax.top_k compiles on a CPU), on flat hand-made curves at 1e9
bytes/s: top-k 0.1, reduction 0.5. Before, a custom call had no cost model, and a step of
2,048 rows of 1,024 (6.3 ms of top-k here) was predicted at 0.06 ms.
"""

import math
from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import price
from perfcore.measure.results import curves as curves_of
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernel_records import record
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "top_k.hlo").read_text("utf-8")
BYTES = 16 * 1024 * 4 + 16 * 8 * (4 + 4)  # its rows read; the values and int32 indices written


def no_cost(text: str) -> tuple[float, float, float]:
    raise AssertionError("a custom call is priced from its shapes, not XLA's cost model")


def test_a_top_k_is_priced_from_its_shapes_with_no_flops():
    module = hlo.parse_module(MODULE)
    p = price.price(module, module.instructions["%custom-call"], no_cost)
    assert (p.flops, p.bytes, p.cost_source) == (0.0, BYTES, price.TOP_K)


def test_a_top_k_takes_its_own_curve_else_the_reductions_said_so():
    ops = predicted_ops(MODULE, cpu_curves({"top-k": 0.1, "reduction": 0.5}), 1, no_cost)
    top = ops["custom-call"]
    assert top.kernel == "top-k"
    assert top.predicted_s == pytest.approx(BYTES / 1e9 / 0.1)
    older = predicted_ops(MODULE, cpu_curves({"reduction": 0.5}), 1, no_cost)["custom-call"]
    assert older.predicted_s == pytest.approx(BYTES / 1e9 / 0.5)
    assert "reduction (no top-k curve measured)" in older.derived_from


def test_the_suite_takes_the_2_8_and_64_largest_of_rows_of_1024_its_k_riding_along():
    suite = SUITES["quick"]
    sweeps = kernel_rows.top_ks(suite, "float32", 4)
    sizes = [n for n in suite.kernel_elements if n >= 1024][::2]
    assert len(sweeps) == 3
    for k, sweep in zip((2, 8, 64), sweeps, strict=True):
        assert [p.shapes for p in sweep] == [((n // 1024, 1024), (k,)) for n in sizes]
        assert [p.model.bytes for p in sweep] == [n * 4 + n // 1024 * k * 8 for n in sizes]
        assert [p.model.flops for p in sweep] == [0] * len(sizes)
    assert kernel_kinds.BASE_KIND["top-k"] == "reduction"


def test_heap_steps_by_hand():
    """k (1 + ln(n / k)) insertions of log2 k steps a row of n, per 1,000 elements: the 8
    largest of 1,024, 8 × 5.852 × 3 / 1.024 = 137.2; the 50 largest of 32,000, 50 × 7.462 ×
    5.644 / 32 = 65.8; the 2 largest of 64 (an MoE router's), 2 × 4.466 × 1 / 0.064 = 139.6; the
    largest alone, a heap of one, taken as 2's log2: 1 × 7.931 × 1 / 1.024 = 7.7."""
    assert kernel_kinds.heap_steps(1024, 8) == 137
    assert kernel_kinds.heap_steps(32000, 50) == 66
    assert kernel_kinds.heap_steps(64, 2) == 140
    assert kernel_kinds.heap_steps(1024, 1) == 8
    assert kernel_kinds.heap_steps(8, 8) == 1  # every element kept: no heap to pass


def test_a_top_k_reads_between_the_sweeps_around_its_heap_steps():
    """The module's 8 largest of 1,024 (137 steps per 1,000) on curves swept at 14 (k = 2, at
    0.3) and 1,414 (k = 64, at 0.03): between them in log steps."""
    points = tuple(
        kernels.Point("top-k", "float32", size, e, sweep=steps)
        for steps, e in ((14, 0.3), (1414, 0.03))
        for size in (1e2, 1e9)
    )
    curves = kernels.Curves("cpu", "2026-12-07", points, (("float32", 1e9),), 1e9, "hand")
    top = predicted_ops(MODULE, curves, 1, no_cost)["custom-call"]
    t = (math.log(137) - math.log(14)) / (math.log(1414) - math.log(14))
    assert top.efficiency == pytest.approx(0.3 + t * (0.03 - 0.3))
    assert "heap steps per 1,000 elements 137, between the 14 sweep and the 1,414 sweep" in (
        top.derived_from
    )


def test_a_records_heap_steps_come_from_its_row_and_its_k():
    r = record("top-k", "top-8 float32 16 rows of 1024", [1e-3], shapes=((16, 1024), (8,)))
    older = record("top-k", "top-8 float32 16 rows of 1024", [1e-3], shapes=((16, 1024),))
    assert (curves_of._sweep(r), curves_of._sweep(older)) == (137, 0)
