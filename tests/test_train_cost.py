"""Training FLOPs and memory in closed form, against the papers' own formulas and figures."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore.model.llm.models import Model, load_models
from perfcore.model.plans import train_cost as tc
from perfcore.model.plans.layout import Layout

# GPT-3 175B as Narayanan et al. 2021 train it: vocabulary padded to 51,200, sequence 2,048.
GPT3 = Model(
    name="GPT-3 175B (Megatron)",
    family="GPT",
    layers=96,
    hidden=12288,
    heads=96,
    kv_heads=96,
    head_dim=128,
    intermediate=4 * 12288,
    gated_mlp=False,
    vocab=51200,
    tied_embeddings=True,
    max_context=2048,
    published_params=175e9,
)


def test_megatron_eq3_for_gpt3_175b_at_batch_1536():
    """Narayanan et al. 2021, eq. 3, Table 1's 175B row (B = 1536, s = 2048, l = 96,
    h = 12288, V = 51200): 96·1536·2048·96·12288² = 4.37764e18, times
    (1 + 2048/73728 + 51200/18874368) = 1.030491, is 4.51097e18 FLOPs per iteration."""
    assert tc.megatron_flops_per_iteration(1536, 2048, 96, 12288, 51200) == pytest.approx(
        4.51097e18, rel=1e-5
    )


def test_hardware_flops_with_full_recompute_are_megatrons_eq3():
    """Eq. 3 counts 4 forwards of the layers (24 h² + 4 s h per token each: the full, unmasked
    s x s scores) and 3 of the logit layer (2 V h): the count here with recompute = full and
    no causal mask must give the same number, to rounding."""
    ours = tc.hardware_flops_per_token(GPT3, 2048, "full", causal=False) * 1536 * 2048
    assert ours == pytest.approx(
        tc.megatron_flops_per_iteration(1536, 2048, 96, 12288, 51200), rel=1e-12
    )


def test_model_flops_are_6n_plus_causal_attention_for_llama_70b():
    """Llama-3.1-70B at s = 8,192: N = params - the input embedding (128,256 x 8,192) - the
    norms (2 h per layer + h), 6N per token; causal attention 6 x layers x heads x head_dim x
    (s + 1) (each query sees (s + 1) / 2 keys on average, 4 FLOPs per key and head dim, x 3)."""
    m = load_models()["Llama-3.1-70B"]
    n = m.params() - m.vocab * m.hidden - (2 * m.layers + 1) * m.hidden
    expected = 6 * n + 6 * m.layers * m.heads * m.head_dim * (8192 + 1)
    assert tc.model_flops_per_token(m, 8192) == pytest.approx(expected, rel=1e-9)


KORTHIKANTI = [("none", 358_612_992), ("selective", 106_954_752), ("full", 6_291_456)]


@pytest.mark.parametrize(("recompute", "expected"), KORTHIKANTI)
def test_korthikanti_activation_memory_per_layer_for_the_three_recompute_modes(recompute, expected):
    """Korthikanti et al. 2022, unfused attention and dropout (s = 2048, b = 1, h = 12288,
    a = 96, t = 8, SP on): none sbh(34 + 5as/h)/t = 2048·12288·(34 + 80)/8 = 358,612,992 B;
    selective 34 sbh/t = 106,954,752 B; full 2 sbh/t = 6,291,456 B."""
    layout = Layout(tp=8, recompute=recompute)
    got = tc.activation_bytes_per_layer(GPT3, layout, 2048, fused=False, dropout=True)
    assert got == pytest.approx(expected)


def test_without_dropout_a_gpt_layer_keeps_no_masks():
    """No dropout: the two 1-byte masks (sbh each) and, unfused, the scores' mask (a s² b) and
    masked copy (2 a s² b) go: selective 32 sbh/t = 2048·12288·32/8 = 100,663,296 B; none
    unfused sbh(32 + 2as/h)/t = 2048·12288·(32 + 32)/8 = 201,326,592 B."""
    selective = Layout(tp=8, recompute="selective")
    assert tc.activation_bytes_per_layer(GPT3, selective, 2048) == pytest.approx(100_663_296)
    got = tc.activation_bytes_per_layer(GPT3, Layout(tp=8), 2048, fused=False)
    assert got == pytest.approx(201_326_592)


def test_a_layer_keeps_its_own_widths_gqa_swiglu_and_routed_experts():
    """Bytes kept per token, worked tensor by tensor at 2 bytes. Llama-3.1-70B (h 8,192, q
    8,192, kv 1,024, SwiGLU f 28,672): norms 2·2h = 32,768; attention 2(h + 2q + 2kv) =
    53,248; MLP 2h + 3·2f = 188,416; 274,432 = 33.5 h. Mixtral-8x7B (h 4,096, q 4,096, kv
    1,024, 2 routed experts of SwiGLU f 14,336): 16,384 + 2(4,096 + 8,192 + 2,048) = 28,672
    + 2h + 2 (2h + 6f) = 196,608; 241,664 = 59 h."""
    models = load_models()
    assert tc.kept_bytes_per_token(models["Llama-3.1-70B"]) == 274_432
    assert tc.kept_bytes_per_token(models["Mixtral-8x7B"]) == 241_664


def test_fused_attention_keeps_its_log_sum_exp_not_the_scores():
    """FlashAttention keeps O (in the 34) and an fp32 log-sum-exp per query and head, not the
    s x s scores: none = 34 sbh/t + 4 a s b/t = 106,954,752 + 4·96·2048/8 = 106,954,752 +
    98,304 = 107,053,056 B (GPT-3 175B, s = 2048, t = 8, dropout; it was 358,612,992 unfused)."""
    got = tc.activation_bytes_per_layer(GPT3, Layout(tp=8), 2048, dropout=True)
    assert got == pytest.approx(107_053_056)


def test_the_last_stage_keeps_fp32_logits_split_over_tp():
    """s b V x 4 B / t: 2,048 x 2 x 51,200 x 4 / 8 = 104,857,600 B (GPT-3, micro-batch 2)."""
    layout = Layout(tp=8, micro_batch=2)
    assert tc.logits_bytes(GPT3, layout, 2048) == pytest.approx(104_857_600)


@pytest.mark.parametrize(("zero", "gb"), [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_stage_memory_matches_the_zero_paper(zero, gb):
    """Rajbhandari et al. 2020, Figure 1 (fp16 gradients): 7.5B parameters, 64 GPUs, K = 12:
    (2 + 2 + 12) Ψ = 120 GB; P_os 31.4 GB; P_os+g 16.6 GB; P_os+g+p 1.9 GB (to 0.1 GB)."""
    total = sum(tc.state_bytes(7.5e9, zero, 64, grad_bytes=2).values())
    assert total / 1e9 == pytest.approx(gb, abs=0.05)


@pytest.mark.parametrize(("zero", "gb"), [(0, 135.0), (1, 46.40625)])
def test_fp32_main_gradients_are_megatrons_18_and_6_plus_12_over_d_bytes(zero, gb):
    """Megatron's distributed optimizer docs: 18 bytes per parameter with fp32 main grads
    (2 + 4 + 12), 6 + 12/d sharded: 7.5B x 18 = 135 GB; 7.5B x (6 + 12/64) = 46.40625 GB."""
    total = sum(tc.state_bytes(7.5e9, zero, 64).values())
    assert total / 1e9 == pytest.approx(gb, rel=1e-12)


def test_the_1f1b_bubble():
    """(p - 1) / (m + p - 1): p = 4, m = 8 -> 3/11; interleaved v = 2, p = 8, m = 64 ->
    3.5 / 67.5; one stage has none."""
    assert tc.bubble_fraction(4, 8) == pytest.approx(3 / 11)
    assert tc.bubble_fraction(8, 64, 2) == pytest.approx(3.5 / 67.5)
    assert tc.bubble_fraction(1, 5) == 0


@given(st.integers(1, 64), st.integers(1, 512), st.integers(1, 4))
def test_the_bubble_falls_with_micro_batches(p, m, v):
    assert tc.bubble_fraction(p, m + 1, v) <= tc.bubble_fraction(p, m, v)


def test_interleaving_holds_more_micro_batches_in_flight():
    """Korthikanti §4.2.3: min(m, p) micro-batches, x (1 + (p - 1)/(p v)) interleaved:
    p = 4, v = 2, m = 16 -> 4 x (1 + 3/8) = 5.5."""
    assert tc.in_flight(Layout(pp=4), 16) == 4
    assert tc.in_flight(Layout(pp=4, interleave=2), 16) == pytest.approx(5.5)
    assert tc.in_flight(Layout(pp=4), 2) == 2


def test_the_memory_bound_math_between_the_gemms_for_llama_8b_by_hand():
    """Llama-3.1-8B: h 4,096, q 32 x 128 = 4,096, k 8 x 128 = 1,024, f 14,336, gated so the
    up projection u = 28,672; 32 layers. Forward 10h + u + f = 83,968 elements, backward
    12h + f + 2u = 120,832: x 2 B = 409,600 B per layer, 13,107,200 B per token. Full
    recomputation runs the forward's again: (2 x 83,968 + 120,832) x 2 x 32 = 18,481,152.
    FP8 casts 4 B per element of the GEMM inputs, (2h + q + f) + (2h + q + 2k + u) = 26,624 +
    43,008 = 69,632: + 278,528 B per layer, 22,020,096 B per token."""
    m = load_models()["Llama-3.1-8B"]
    assert tc.elementwise_bytes(m, "none") == 13_107_200
    assert tc.elementwise_bytes(m, "selective") == 13_107_200
    assert tc.elementwise_bytes(m, "full") == 18_481_152
    assert tc.elementwise_bytes(m, "none", fp8=True) == 22_020_096


def test_zero_3_holds_two_layers_whole_and_one_layer_s_gradient():
    """Llama-3.1-8B, one layer: q, k, v 4,096 x 6,144 = 25,165,824; o 4,096² = 16,777,216;
    MLP 3 x 4,096 x 14,336 = 176,160,768; 2 norms 8,192: 218,112,000 parameters. ZeRO-3 holds
    two such layers' 16-bit weights (computing, prefetched): 872,448,000 B, and one layer's
    16-bit gradient before its reduce-scatter: 436,224,000 B; at TP 2 half of each; below
    ZeRO-3, or on one replica, nothing."""
    m = load_models()["Llama-3.1-8B"]
    got = tc.gathered_bytes(m, Layout(dp=8, zero=3))
    assert got == {"weights": 872_448_000, "gradients": 436_224_000}
    assert tc.gathered_bytes(m, Layout(tp=2, dp=4, zero=3))["weights"] == 436_224_000
    assert tc.gathered_bytes(m, Layout(dp=8, zero=2)) == {"weights": 0.0, "gradients": 0.0}
