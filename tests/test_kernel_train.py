"""A training plan's step expected from measured kernels (perfcore.model.runs.kernel_train):
the compute, bubble and optimizer scaled by the curves' factors, communication at its bound."""

import pytest

from perfcore.model.chip import kernels
from perfcore.model.llm import phases
from perfcore.model.llm.values import Precisions
from perfcore.model.plans import train_plan
from perfcore.model.plans.layout import Layout
from perfcore.model.runs import kernel_train, published
from tests.support.kernels import H100, h100_curves
from tests.support.plans import L8


@pytest.fixture(scope="module")
def table():
    return published.table()


@pytest.fixture(scope="module")
def plan(specs):
    """Llama-3.1-8B on 64 H100s, TP 2 x PP 2 x DP 16, 512 sequences of 8,192 tokens."""
    t = train_plan.Training(L8, specs[H100], 64, 8192, 2**22)
    return train_plan.price(t, Layout(tp=2, pp=2, dp=16, micro_batch=1))


def test_flat_curves_scale_compute_bubble_and_optimizer_and_leave_communication(plan, table):
    """At efficiency e every op takes its roofline time ÷ e, so the factors are 1/e times
    those at 1; the step is the bound plus (compute + bubble)(f - 1) + optimizer (g - 1)."""
    at_one = kernel_train.expected_step(plan, h100_curves(1.0), table)
    half = kernel_train.expected_step(plan, h100_curves(0.5), table)
    assert half.compute_factor == pytest.approx(2 * at_one.compute_factor)
    assert half.optimizer_factor == pytest.approx(2.0)  # the update is one elementwise op
    parts = plan.time_s_by
    by_hand = (
        plan.step_s
        + (parts["compute"] + parts["pp_bubble"]) * (half.compute_factor - 1)
        + parts["optimizer"] * (2.0 - 1)
    )
    assert half.seconds == pytest.approx(by_hand)
    assert half.sources == {kernels.MEASURED}
    assert "communication at its bound" in half.derived_from


def test_at_efficiency_one_the_compute_factor_is_the_ops_roofline_over_their_flops_at_peak(
    plan, table, specs
):
    """Efficiency 1: each op at its roofline, so the factor is Σ roofline ÷ Σ FLOPs at peak of
    one micro-batch's ops (TP 2, 8,192 tokens); memory-bound ops make it above 1."""
    ops = phases.train_ops(L8, 1, 8192, Precisions(), True, 2, False)
    phase = phases.priced("train", specs[H100], Precisions(), ops, 0.0)
    work = [pr for pr in phase.ops if pr.op.kind != "optimizer"]
    roofline = sum(pr.time_s for pr in work)
    at_peak = sum(pr.op.flops for pr in work) / phase.peak_flops_per_s
    got = kernel_train.expected_step(plan, h100_curves(1.0), table)
    assert got.compute_factor == pytest.approx(roofline / at_peak)
    assert 1.0 < got.compute_factor < 1.5


def test_kinds_without_a_curve_take_the_published_runs_and_say_so(plan, table):
    only_matmuls = h100_curves(0.8, ("matmul", "matmul transposed"))
    got = kernel_train.expected_step(plan, only_matmuls, table)
    assert {kernels.MEASURED, kernels.PUBLISHED} <= got.sources
    assert "kinds without a curve at the published runs' efficiency" in got.derived_from
