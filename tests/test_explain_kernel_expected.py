"""Workloads' expected figures: from the device's measured kernels when loaded, else published."""

import dataclasses

import pytest

from perfcore.explain.llm import kernel_expected
from perfcore.explain.llm import workloads as view
from perfcore.explain.llm import workloads_text as words
from perfcore.measure.experiments.suites import SUITES
from perfcore.model.llm.models import load_models
from perfcore.model.llm.phases import MATH_PRECISIONS
from perfcore.model.runs import kernel_ops, published
from tests.support.kernels import H100, h100_curves


@pytest.fixture(scope="module")
def table():
    return published.table()


def test_loaded_curves_change_the_expected_figure_and_say_from_what(specs, table):
    model, s = load_models()["Llama-3.1-8B"], view.Setup()
    device = specs[H100]
    before = view.page(model, device, None, s, table=table)
    curves = kernel_expected.curves_for(h100_curves(0.9), device, specs)
    after = view.page(model, device, None, s, curves=curves, table=table)
    assert before.expected_from == "expected from published runs"
    assert (
        after.expected_from == "expected from measured kernels on NVIDIA H100 80GB HBM3, 2026-01-31"
    )
    # every op at 0.9 of its bound: the expected total is the bound's over 0.9
    assert after.ops["expected"].sum() == pytest.approx(after.ops["time"].sum() / 0.9)
    assert after.ops["expected"].sum() < before.ops["expected"].sum()  # published: about 0.56
    # the headline leads with it: the ops' expected sum plus the communication (none at TP 1)
    assert after.expected_s == pytest.approx(after.ops["time"].sum() / 0.9)
    lead = words.headline(after.views[0], after.expected_s, after.expected_from)[0]
    assert lead[0] == "Time (expected)"
    assert lead[2].startswith("Expected from measured kernels on NVIDIA H100 80GB HBM3")
    assert words.headline(before.views[0])[0][0] == "Time (bound, sum of ops)"  # no table
    assert (before.ops["expected"] > before.ops["time"]).all()


def test_a_what_if_device_or_another_row_keeps_the_published_runs(specs):
    device = specs[H100]
    what_if = dataclasses.replace(device, memory_bytes_per_s=2 * device.memory_bytes_per_s)
    assert kernel_expected.curves_for(h100_curves(0.9), what_if, specs) is None
    other = specs["NVIDIA A100 SXM4 80GB"]
    assert kernel_expected.curves_for(h100_curves(0.9), other, specs) is None
    assert kernel_expected.curves_for(None, device, specs) is None


def test_a_decode_projection_is_a_matvec_and_prefill_a_matmul(specs, table):
    model, device = load_models()["Llama-3.1-8B"], specs[H100]
    decode = view.view(model, device, view.Setup(phase="decode", batch=4)).phase
    prefill = view.view(model, device, view.Setup(phase="prefill", batch=4)).phase
    kinds = {
        phase.name: {
            kernel_ops.kernel_kind(pr, 2) for pr in phase.ops if pr.op.kind == "projection"
        }
        for phase in (decode, prefill)
    }
    assert kinds == {decode.name: {"matvec"}, prefill.name: {"matmul"}}


def test_every_math_precision_but_fp4_reads_a_dtype_the_kernels_suite_measures():
    """An int8 model's matmuls read the suite's int8 curve (stop 51), an fp8 one's float8's;
    fp4 has no dtype JAX runs a matmul in, so the published runs price it."""
    measured = SUITES["default"].kernel_dtypes
    for precisions in MATH_PRECISIONS.values():
        for p in precisions:
            assert (kernel_ops.DTYPE_OF.get(p) in measured) == (p != "fp4"), p
