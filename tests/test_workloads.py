"""A whole model as ops: hand-checked FLOPs and bytes, and the invariants of the accounting."""

import pytest

from perfcore.model.chip import ops
from perfcore.model.llm import phases
from perfcore.model.llm.models import Model
from perfcore.model.llm.workloads import Pass, Precisions, experts_touched, model_ops, pairs

H100 = "NVIDIA H100 SXM"

LLAMA2_7B = Model(
    name="Llama-2-7B",
    family="Llama 2",
    layers=32,
    hidden=4096,
    heads=32,
    kv_heads=32,
    head_dim=128,
    intermediate=11008,
    gated_mlp=True,
    vocab=32000,
    tied_embeddings=False,
    max_context=4096,
    published_params=6.74e9,
)
LLAMA31_8B = Model(
    name="Llama-3.1-8B",
    family="Llama 3.1",
    layers=32,
    hidden=4096,
    heads=32,
    kv_heads=8,
    head_dim=128,
    intermediate=14336,
    gated_mlp=True,
    vocab=128256,
    tied_embeddings=False,
    max_context=131072,
    published_params=8.03e9,
)
MIXTRAL = Model(
    name="Mixtral-8x7B",
    family="Mixtral",
    layers=32,
    hidden=4096,
    heads=32,
    kv_heads=8,
    head_dim=128,
    intermediate=14336,
    gated_mlp=True,
    vocab=32000,
    tied_embeddings=False,
    experts=8,
    experts_per_token=2,
    max_context=32768,
    published_params=46.7e9,
    published_active_params=12.9e9,
)


@pytest.fixture(scope="module")
def h100(specs):
    return specs[H100]


def by_name(phase):
    """{op name: merged Priced} of a phase."""
    return {pr.op.name: pr.op for pr in phases.by_name(phase)}


def test_llama2_7b_decode_flops_and_bytes_worked_by_hand(h100):
    """Llama-2-7B, batch 1, context 1024, 16 bits, fused attention; per layer (x32):

    norms: 4 FLOPs x 4096, bytes (4096 in + 4096 out + 4096 weights) x 2 = 24,576 each
    q, k, v, o: 2 x 4096 x 4096 = 33,554,432 FLOPs; bytes 4096² x 2 + (4096 + 4096) x 2
    attention: 32 heads x 1024 keys = 32,768 scores; FLOPs 4 x 32,768 x 128 + 5 x 32,768;
      bytes: KV cache 1024 x 2 x 32 x 128 x 2 = 16,777,216, q in + out 2 x 4096 x 2
    residual adds: 4096 FLOPs, 3 x 4096 x 2 bytes each
    gate+up: 2 x 4096 x 22,016 FLOPs, bytes 4096 x 22,016 x 2 + (4096 + 22,016) x 2
    activation: 11,008 x 5 FLOPs, 3 x 11,008 x 2 bytes; down: 2 x 11,008 x 4096 FLOPs,
      bytes 11,008 x 4096 x 2 + (11,008 + 4096) x 2
    once: embedding table 32,000 x 4096 x 2 read + 4096 x 2 written; final norm; lm_head
      2 x 4096 x 32,000 FLOPs, bytes 4096 x 32,000 x 2 + (4096 + 32,000) x 2.
    """
    layer_flops = (
        2 * 4 * 4096
        + 4 * 2 * 4096 * 4096
        + 4 * 32768 * 128
        + 5 * 32768
        + 2 * 4096
        + 2 * 4096 * 22016
        + 5 * 11008
        + 2 * 11008 * 4096
    )
    layer_bytes = (
        2 * 3 * 4096 * 2
        + 4 * (4096 * 4096 * 2 + 2 * 4096 * 2)
        + 16_777_216
        + 2 * 4096 * 2
        + 2 * 3 * 4096 * 2
        + 4096 * 22016 * 2
        + (4096 + 22016) * 2
        + 3 * 11008 * 2
        + 11008 * 4096 * 2
        + (11008 + 4096) * 2
    )
    head_flops = 4 * 4096 + 2 * 4096 * 32000
    head_bytes = 32000 * 4096 * 2 + 4096 * 2 + 3 * 4096 * 2 + 4096 * 32000 * 2 + (4096 + 32000) * 2
    step = phases.decode(LLAMA2_7B, h100, 1, 1024)
    assert step.flops == pytest.approx(32 * layer_flops + head_flops, rel=1e-12)
    assert step.bytes == pytest.approx(32 * layer_bytes + head_bytes, rel=1e-12)
    assert step.part("kv_read") == 32 * 16_777_216
    assert step.bound == "memory"


def test_llama2_7b_decode_reads_every_weight_and_the_whole_kv(h100):
    step = phases.decode(LLAMA2_7B, h100, 1, 1024)
    weights = 2 * LLAMA2_7B.params()  # the embedding table included, as the standard accounting
    assert step.part("weights") == pytest.approx(weights, rel=1e-12)
    assert step.part("kv_read") == LLAMA2_7B.kv_cache_bytes(2, 1024)
    attention = 4 * 32 * 32 * 1024 * 128  # layers x heads x keys x head dim, QKᵀ and PV
    assert step.flops == pytest.approx(
        2 * (LLAMA2_7B.params() - 32000 * 4096) + attention, rel=0.01
    )


def test_llama31_8b_prefill_gqa_causal_and_lm_head_on_the_last_position(h100):
    """Llama-3.1-8B, batch 2, prompt 2048, 16 bits, fused; per layer (x32), T = 4096 tokens:

    k proj (8 KV heads): 2 x 4096 x 4096 x 1024 FLOPs; bytes 4096 x 1024 x 2 weights +
      4096 x 4096 x 2 in + 4096 x 1024 x 2 written to the KV cache
    attention: causal, 2048 x 2049 / 2 = 2,098,176 pairs per sequence and head:
      FLOPs 2 x 32 x 2,098,176 x (4 x 128 + 5); KV read once 2 x 2048 x 2 x 8 x 128 x 2
    lm_head: the last position of each sequence only, 2 x 2 x 4096 x 128,256 FLOPs.
    """
    step = phases.prefill(LLAMA31_8B, h100, 2, 2048)
    got = by_name(step)
    assert got["k proj"].flops == 32 * 2 * 4096 * 4096 * 1024
    k_bytes = 4096 * 1024 * 2 + 4096 * 4096 * 2 + 4096 * 1024 * 2
    assert got["k proj"].bytes == 32 * k_bytes
    assert got["k proj"].kv_write == 32 * 4096 * 1024 * 2
    assert got["attention"].flops == 32 * 2 * 32 * 2_098_176 * (4 * 128 + 5)
    assert got["attention"].kv_read == 32 * 2 * 2048 * 2 * 8 * 128 * 2
    assert got["lm_head"].flops == 2 * 2 * 4096 * 128256
    assert step.bound == "compute"


def test_mixtral_decode_reads_the_experts_its_tokens_visit(h100):
    """Mixtral-8x7B, batch 1: each token visits 2 of 8 experts, so 8 x (1 - (6/8)^1) = 2 are
    read. Per layer: router 2 x 4096 x 8 FLOPs; experts 2 tokens x 2 x 3 x 4096 x 14,336 FLOPs;
    expert weights read 2 x 3 x 4096 x 14,336 x 2 bytes (not all 8)."""
    step = phases.decode(MIXTRAL, h100, 1, 1024)
    got = by_name(step)
    assert got["router"].flops == 32 * 2 * 4096 * 8
    expert_flops = got["experts gate+up"].flops + got["experts down"].flops
    assert expert_flops == 32 * 2 * 2 * 3 * 4096 * 14336
    expert_weights = got["experts gate+up"].weights + got["experts down"].weights
    assert expert_weights == pytest.approx(32 * 2 * 3 * 4096 * 14336 * 2, rel=1e-12)
    active = MIXTRAL.active_params() - 32000 * 4096  # the embedding table is not multiplied
    attention = 4 * 32 * 32 * 1024 * 128
    assert step.flops == pytest.approx(2 * active + attention, rel=0.01)


def test_mixtral_prefill_worked_by_hand(h100):
    """Mixtral-8x7B, batch 1, prompt 512, 16 bits, fused; per layer (x32), T = 512 tokens:

    router: 2 x 512 x 4096 x 8 FLOPs; experts: 512 tokens x 2 experts x 2 x 3 x 4096 x 14,336
    FLOPs; experts read: 8 x (1 - (6/8)^512), i.e. all 8, so 8 x 3 x 4096 x 14,336 x 2 bytes
    of weights; attention: causal 512 x 513 / 2 = 131,328 pairs per head, 32 heads,
    (4 x 128 + 5) FLOPs each; lm_head on the last position: 2 x 4096 x 32,000 FLOPs.
    """
    got = by_name(phases.prefill(MIXTRAL, h100, 1, 512))
    assert got["router"].flops == 32 * 2 * 512 * 4096 * 8
    expert_flops = got["experts gate+up"].flops + got["experts down"].flops
    assert expert_flops == 32 * 512 * 2 * 2 * 3 * 4096 * 14336
    expert_weights = got["experts gate+up"].weights + got["experts down"].weights
    assert expert_weights == pytest.approx(32 * 8 * 3 * 4096 * 14336 * 2, rel=1e-9)
    assert got["attention"].flops == 32 * 32 * 131_328 * (4 * 128 + 5)
    assert got["lm_head"].flops == 2 * 4096 * 32000


def test_expected_experts_touched_follows_the_formula():
    assert experts_touched(8, 2, 1) == pytest.approx(2)
    assert experts_touched(8, 2, 2) == pytest.approx(8 * (1 - 0.75**2))
    assert experts_touched(8, 2, 1000) == pytest.approx(8)


def test_causal_pairs_count_each_query_prefix_and_the_window_caps_them():
    assert pairs(4, 4, True, None) == 1 + 2 + 3 + 4
    assert pairs(4, 4, True, 2) == 1 + 2 + 2 + 2
    assert pairs(1, 1024, False, None) == 1024
    assert pairs(1, 1024, False, 256) == 256


def test_one_full_attention_head_matches_ops_attention_plus_softmax():
    model = Model(
        name="one",
        family="t",
        layers=1,
        hidden=64,
        heads=1,
        kv_heads=1,
        head_dim=64,
        intermediate=64,
        gated_mlp=False,
        vocab=10,
        tied_embeddings=True,
        max_context=128,
        published_params=1,
    )
    s = Pass(1, 128, 128, causal=False, cache=False, fused=True)
    att = next(op for op in model_ops(model, s, Precisions(), 1) if op.kind == "attention")
    assert att.cost.flops == ops.attention(128, 64).flops + 5 * 128 * 128
    assert att.cost.bytes == ops.attention(128, 64).bytes


def test_unfused_attention_adds_four_score_round_trips():
    s = Pass(1, 128, 128, causal=False, cache=False, fused=False)
    got = [op for op in model_ops(LLAMA2_7B, s, Precisions(), 1) if op.kind == "attention"]
    fused = Pass(1, 128, 128, causal=False, cache=False, fused=True)
    one = next(op for op in model_ops(LLAMA2_7B, fused, Precisions(), 1) if op.kind == "attention")
    assert sum(op.cost.bytes for op in got) - one.cost.bytes == 4 * 32 * 128 * 128 * 2
