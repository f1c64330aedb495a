"""Memory, fit, serving capacity, the throughput-latency curve and the crossover batch."""

import math

import pytest

from perfcore.model.llm import phases, serving
from perfcore.model.llm.models import load_models
from perfcore.model.llm.workloads import Precisions

H100 = "NVIDIA H100 SXM"
P16 = Precisions()


@pytest.fixture(scope="module")
def models():
    return load_models()


def test_llama2_70b_at_16_bits_needs_two_80gib_gpus(specs, models):
    m, h100 = models["Llama-2-70B"], specs[H100]
    step = phases.decode(m, h100, 1, 1024)
    mem = serving.inference_memory(m, h100, step, 1, 1024, P16)
    assert mem.weights == m.params() * 2
    assert mem.fits is False and mem.gpus_needed == 2


def test_capacity_is_the_kv_that_fits_beside_the_weights(specs, models):
    m, h100 = models["Llama-3.1-8B"], specs[H100]
    free = h100.memory_bytes - m.params() * 2
    assert serving.max_sequences(m, h100, 4096, P16) == math.floor(free / m.kv_cache_bytes(2, 4096))
    assert serving.max_sequences(m, h100, 4096, Precisions(kv=8)) > serving.max_sequences(
        m, h100, 4096, P16
    )


def test_serving_curve_runs_from_batch_one_to_the_memory_limit(specs, models):
    m, h100 = models["Llama-3.1-8B"], specs[H100]
    curve = serving.serving_curve(m, h100, 4096)
    assert curve[0].batch == 1
    assert curve[-1].batch == serving.max_sequences(m, h100, 4096, P16)
    rates = [pt.tokens_per_s for pt in curve]
    assert rates == sorted(rates)
    assert curve[-1].tpot_s > curve[0].tpot_s


def test_crossover_sits_just_past_the_ridge_for_short_contexts(specs, models):
    """Weights alone cross at batch = ridge (2 FLOPs per 2-byte weight per token); the
    activations each op reads and writes, and the KV cache, push it later, not earlier."""
    m, h100 = models["Llama-3.1-8B"], specs[H100]
    ridge = h100.peak_flops("bf16") / h100.memory_bytes_per_s
    b = serving.crossover_batch(m, h100, 16)
    assert ridge < b < 1.5 * ridge
    assert phases.decode(m, h100, b, 16).bound == "compute"
    assert phases.decode(m, h100, b - 1, 16).bound == "memory"


def test_crossover_moves_out_with_context_and_back_with_narrower_kv(specs, models):
    m, h100 = models["Llama-3.1-8B"], specs[H100]
    short, longer = serving.crossover_batch(m, h100, 16), serving.crossover_batch(m, h100, 64)
    assert longer > short
    assert serving.crossover_batch(m, h100, 64, Precisions(kv=8)) < longer
    assert serving.crossover_batch(m, h100, 512) is None  # the KV read alone outweighs the ridge


def test_mha_at_long_context_never_turns_compute_bound(specs, models):
    assert serving.crossover_batch(models["Llama-2-7B"], specs[H100], 1024) is None


def test_generate_adds_every_decode_step_to_the_first_token(specs, models):
    m, h100 = models["Llama-3.1-8B"], specs[H100]
    g = serving.generate(m, h100, 2, 100, 5)
    steps = [phases.decode(m, h100, 2, c).time_s for c in (101, 102, 103, 104)]
    assert g.ttft_s == phases.prefill(m, h100, 2, 100).time_s
    assert g.total_s == pytest.approx(g.ttft_s + sum(steps))
    assert g.tokens_per_s == pytest.approx(2 * 5 / g.total_s)


def test_long_generations_are_sampled_and_stay_close_to_the_exact_sum(specs, models):
    m, h100 = models["Llama-3.1-8B"], specs[H100]
    g = serving.generate(m, h100, 1, 10, 600)
    exact = sum(phases.decode(m, h100, 1, c).time_s for c in range(11, 610))
    assert g.total_s - g.ttft_s == pytest.approx(exact, rel=1e-3)


def test_training_memory_counts_adam_and_recomputation_shrinks_activations(specs, models):
    m, h100 = models["Llama-3.1-8B"], specs[H100]
    full = serving.train_memory(m, h100, 1, 4096, P16, fused=True)
    lean = serving.train_memory(m, h100, 1, 4096, P16, fused=True, recompute=True)
    assert full.optimizer == pytest.approx(m.params() * (2 + 12))
    assert lean.activations < full.activations
    assert full.fits is False
