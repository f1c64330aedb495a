"""Phases on a device: the roof's precision rule, both times, training's multiples."""

import pytest

from perfcore.model.llm import phases
from perfcore.model.llm.models import load_models
from perfcore.model.llm.workloads import Precisions

A100, H100 = "NVIDIA A100 SXM4 80GB", "NVIDIA H100 SXM"


@pytest.fixture(scope="module")
def llama():
    return load_models()["Llama-3.1-8B"]


@pytest.mark.parametrize(
    ("device", "bits", "expected"),
    [
        (H100, (16, 16), "bf16"),
        (H100, (8, 8), "fp8"),
        (A100, (8, 8), "int8"),
        (H100, (4, 16), "bf16"),
        (H100, (8, 4), "fp8"),
        (H100, (4, 4), None),
    ],
)
def test_math_runs_in_the_wider_of_weights_and_activations(specs, device, bits, expected):
    p = Precisions(weights=bits[0], activations=bits[1])
    assert phases.math_precision(specs[device], p) == expected


def test_a_missing_peak_names_the_figure_and_what_the_device_publishes(specs, llama):
    with pytest.raises(ValueError, match=r"publishes no fp4 peak \(it publishes: .*bf16"):
        phases.decode(llama, specs[H100], 1, 128, Precisions(4, 4, 4))


def test_sum_of_per_op_times_is_never_below_the_single_roofline(specs, llama):
    for batch in (1, 16, 256):
        step = phases.decode(llama, specs[H100], batch, 2048)
        assert step.time_s >= step.time_bound_s * (1 - 1e-12)
    first = phases.prefill(llama, specs[H100], 1, 4096)
    assert first.time_s > first.time_bound_s  # its norms and adds stay memory-bound


def test_training_is_three_forwards_and_four_with_recomputation(specs, llama):
    h100 = specs[H100]
    step = phases.train(llama, h100, 1, 2048)
    again = phases.train(llama, h100, 1, 2048, recompute=True)
    adam = step.ops[-1].op.flops
    assert (again.flops - adam) / (step.flops - adam) == pytest.approx(4 / 3)
    assert step.flops == pytest.approx(6 * llama.params() * 2048, rel=0.1)


def test_tensor_parallel_adds_communication_and_shrinks_compute(specs, llama):
    one = phases.decode(llama, specs[H100], 8, 1024)
    four = phases.decode(llama, specs[H100], 8, 1024, tp=4)
    assert one.comm_s == 0 < four.comm_s
    assert four.compute_s < one.compute_s


def test_generate_combines_prefill_and_weighted_decode_steps(specs, llama):
    h100 = specs[H100]
    pre = phases.prefill(llama, h100, 1, 100)
    dec = phases.decode(llama, h100, 1, 101)
    both = phases.combine("generate", [(pre, 1.0), (dec, 3.0)])
    assert both.flops == pytest.approx(pre.flops + 3 * dec.flops)
    assert both.time_s == pytest.approx(pre.time_s + 3 * dec.time_s)
