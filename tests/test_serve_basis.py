"""Kernel boundaries a serving expected figure adds to its bound, worked by hand."""

import pytest

from perfcore.model.chip.ops import Cost
from perfcore.model.llm import phases
from perfcore.model.llm.models import load_models
from perfcore.model.llm.values import Op
from perfcore.model.llm.workloads import Precisions
from perfcore.model.plans import serve_basis, serve_plan

H100 = "NVIDIA H100 SXM"
MODELS = load_models()


def test_a_kernel_costs_what_the_megakernel_saved_over_its_kernels():
    """Spector et al. 2025: Llama-3.2-1B's 1.24e9 BF16 weights take 2.48 GB / 3.35 TB/s =
    0.7403 ms; at 50 % of the bandwidth against the megakernel's 78 % the boundaries cost
    0.7403 x (2 - 1.2821) = 0.5315 ms over 16 layers x 10 kernels: 3.32 µs a kernel."""
    assert pytest.approx(3.322e-6, rel=1e-3) == serve_basis.KERNEL_S


def test_a_pass_launches_ten_kernels_a_layer_and_two_all_reduces_past_tp_1():
    """Llama-2-7B, 32 layers: 320 kernels at TP 1, 32 x 12 = 384 at TP 2; Llama-3.1-70B at
    TP 8: 80 x 12 = 960 kernels, 3.19 ms a pass."""
    assert serve_basis.kernels_per_pass(MODELS["Llama-2-7B"], 1) == 320
    assert serve_basis.kernels_per_pass(MODELS["Llama-2-7B"], 2) == 384
    assert serve_basis.pass_s(MODELS["Llama-3.1-70B"], 8) == pytest.approx(960 * 3.322e-6, 1e-3)


def test_an_op_that_does_not_overlap_its_loads_and_math_adds_the_shorter_of_the_two():
    """2 TFLOPs at 1 PFLOP/s (2 ms) and 1 GB at 1 TB/s (1 ms), run 3 times: the bound takes
    3 x max = 6 ms, no overlap 3 x (2 + 1) = 9 ms, so 3 ms more; a second op at 1 ms math
    and 4 ms of loads adds its 1 ms."""
    one = Op("matmul", "projection", Cost(2e12, 1e9), count=3)
    two = Op("read", "projection", Cost(1e12, 4e9))
    phase = phases.Phase(
        "prefill", tuple(phases.price(o, 1e15, 1e12) for o in (one, two)), 1e15, 1e12, 0.0, "bf16"
    )
    assert phase.compute_s == pytest.approx(10e-3)
    assert serve_basis.serial_s(phase) == pytest.approx(4e-3)


@pytest.mark.parametrize("batch", [64, 1024])
def test_a_plan_adds_one_pass_to_ttft_and_a_step_with_its_prefills_to_tpot(specs, batch):
    """256 output tokens: a turnover's prompts (the batch's) run as one pass every 256 steps
    (serve_plan.prefill_per_request), so TPOT adds 1 + 1/256 passes of kernel boundaries at
    batch 64 and 1,024 alike. No-overlap: the passes' own, the batch's prefill shared the
    same way."""
    m, d, fp8 = MODELS["Llama-3.1-8B"], specs[H100], Precisions(8, 8, 8)
    s = serve_plan.Serving(m, d, 1, 1024, 256, fp8)
    (ttft_b, ttft_s), (tpot_b, tpot_s) = serve_basis.plan_parts(serve_plan.price(s, 1, batch))
    one = 32 * 10 * serve_basis.KERNEL_S
    assert ttft_b == pytest.approx(one)
    assert tpot_b == pytest.approx((1 + 1 / 256) * one)
    first = serve_basis.serial_s(phases.prefill(m, d, 1, 1024, fp8))
    prompts = serve_basis.serial_s(phases.prefill(m, d, batch, 1024, fp8))
    step = serve_basis.serial_s(phases.decode(m, d, batch, 1152, fp8))
    assert ttft_s == pytest.approx(first)
    assert tpot_s == pytest.approx(step + prompts / 256)
    assert serve_basis.plan_s(serve_plan.price(s, 1, batch)) == pytest.approx(
        (ttft_b + ttft_s, tpot_b + tpot_s)
    )


def test_a_static_batch_adds_its_prompts_pass_to_ttft_and_a_bare_step_to_tpot(specs):
    """A static batch of 64 prefills its 64 prompts in the one pass TTFT is, and takes no
    prompts in as it decodes: TPOT adds one step's 32 x 10 kernel boundaries, not 1 + 1/256
    passes."""
    m, d, fp8 = MODELS["Llama-3.1-8B"], specs[H100], Precisions(8, 8, 8)
    s = serve_plan.Serving(m, d, 1, 1024, 256, fp8, static=True)
    (ttft_b, ttft_s), (tpot_b, tpot_s) = serve_basis.plan_parts(serve_plan.price(s, 1, 64))
    assert ttft_b == tpot_b == pytest.approx(32 * 10 * serve_basis.KERNEL_S)
    assert ttft_s == pytest.approx(serve_basis.serial_s(phases.prefill(m, d, 64, 1024, fp8)))
    assert tpot_s == pytest.approx(serve_basis.serial_s(phases.decode(m, d, 64, 1152, fp8)))
