"""Cost models: FLOPs not MACs, ideal bytes, and the catalog the CLI and pages share."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore.model.chip import ops


def test_matmul_counts_two_flops_per_multiply_add_and_each_matrix_once():
    c = ops.matmul(2, 3, 4, dtype_bytes=2)
    assert (c.flops, c.bytes) == (2 * 2 * 3 * 4, (2 * 4 + 4 * 3 + 2 * 3) * 2)


@given(st.integers(1, 64), st.sampled_from([1, 2, 4]))
def test_batch_size_is_intensity_for_a_linear_layer(batch, dtype_bytes):
    c = ops.linear(batch, 16384, 16384, dtype_bytes)
    assert c.intensity == pytest.approx(2 * batch / dtype_bytes, rel=0.01)


def test_unfused_attention_moves_the_scores_and_fused_does_not():
    fused, unfused = ops.attention(4096, 128), ops.attention(4096, 128, fused=False)
    assert fused.flops == unfused.flops == 4 * 4096**2 * 128
    assert unfused.bytes - fused.bytes == 4 * 4096**2 * 2
    assert unfused.intensity < fused.intensity


def test_decode_step_adds_the_kv_cache_to_the_weights():
    plain, with_kv = ops.decode_step(7e9, 8), ops.decode_step(7e9, 8, kv_cache_bytes=1e9)
    assert with_kv.bytes == plain.bytes + 1e9
    assert plain.intensity == pytest.approx(8.0)


def test_prefill_intensity_is_tokens_per_byte_of_weight():
    assert ops.prefill(7e9, 2048, dtype_bytes=2).intensity == pytest.approx(2048)


@given(st.integers(1, 10**9), st.sampled_from([1, 2, 4]))
def test_elementwise_stays_below_one_flop_per_byte(n, dtype_bytes):
    assert ops.elementwise_add(n, dtype_bytes).intensity < 1


@pytest.mark.parametrize("op", list(ops.CATALOG))
def test_every_catalog_op_builds_with_its_defaults(op):
    c = ops.build(op, 2)
    assert c.flops > 0 and c.bytes > 0 and c.name


def test_build_rejects_sizes_the_op_does_not_take():
    with pytest.raises(ValueError, match="takes no"):
        ops.build("matmul", 2, seq=5)


def test_build_uses_the_sizes_it_is_given():
    assert ops.build("matmul", 1, m=8, n=8, k=8) == ops.matmul(8, 8, 8, 1)
