"""The values whole-model pricing passes around (perfcore.model.llm.values): bits as bytes,
an op's bytes split by what they are, a pass's new tokens, a phase's pass."""

from perfcore.model.chip import ops
from perfcore.model.llm.values import Op, Pass, Precisions, layer_pass


def test_bits_are_bytes_per_element_for_weights_activations_and_kv():
    p = Precisions(4, 8, 16)
    assert (p.w, p.a, p.kv_bytes_per_element) == (0.5, 1.0, 2.0)


def test_an_ops_activation_bytes_are_what_its_weights_and_kv_cache_leave():
    op = Op("o", "projection", ops.Cost(10.0, 100.0, "o"), 3, weights=60, kv_read=20, kv_write=5)
    assert op.activations == 15 and (op.flops, op.bytes) == (30, 300)


def test_prefill_attends_the_whole_prompt_causally_and_decode_one_token_to_the_context():
    pre, dec = layer_pass("prefill", 4, 512), layer_pass("decode", 4, 512)
    assert (pre.q, pre.kv, pre.causal, pre.tokens) == (512, 512, True, 2048)
    assert (dec.q, dec.kv, dec.causal, dec.tokens) == (1, 512, False, 4)
    assert isinstance(pre, Pass)
