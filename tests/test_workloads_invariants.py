"""A whole model as ops: the accounting's invariants over every model of data/models.csv and
over sizes drawn by hypothesis (tests/test_workloads.py holds the cases worked by hand)."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcore.model.llm import phases
from perfcore.model.llm.models import load_models
from perfcore.model.llm.workloads import Pass, Precisions, model_ops

H100 = "NVIDIA H100 SXM"
LLAMA31_8B = load_models()["Llama-3.1-8B"]


def weights_by_op(phase) -> dict[str, float]:
    """{op name: weight bytes} of a phase, its ops merged by name."""
    return {pr.op.name: pr.op.weights for pr in phases.by_name(phase)}


@pytest.mark.parametrize("model", list(load_models().values()), ids=lambda m: m.name)
def test_op_parameters_sum_to_the_model_count(model):
    ops_ = model_ops(model, Pass(1, 1, 64, causal=False), Precisions(), 1)
    assert sum(op.params * op.count for op in ops_) == model.params()


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 512))
def test_decode_intensity_grows_with_batch_and_stays_near_it_when_weights_dominate(specs, batch):
    short = phases.decode(LLAMA31_8B, specs[H100], batch, 16)
    more = phases.decode(LLAMA31_8B, specs[H100], batch + 1, 16)
    assert more.intensity > short.intensity
    if batch <= 64:  # weights dominate: 2 FLOPs per weight per token over 2 bytes per weight
        assert short.intensity == pytest.approx(batch, rel=0.15)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 8192), st.sampled_from([1, 2, 4, 8, 16, 32]))
def test_kv_bytes_are_linear_in_context_and_kv_heads(specs, context, kv_heads):
    model = dataclasses.replace(LLAMA31_8B, layers=4, kv_heads=kv_heads)  # head dim 128
    one = phases.decode(model, specs[H100], 1, context).part("kv_read")
    assert one == 4 * context * 2 * kv_heads * 128 * 2


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([2, 4, 8]))
def test_tp_divides_the_sharded_weights_per_gpu(specs, tp):
    h100 = specs[H100]
    one = weights_by_op(phases.decode(LLAMA31_8B, h100, 1, 128))
    split = weights_by_op(phases.decode(LLAMA31_8B, h100, 1, 128, tp=tp))
    for name in ("q proj", "o proj", "mlp gate+up", "mlp down", "lm_head"):
        assert split[name] == pytest.approx(one[name] / tp)


def test_eight_bit_weights_halve_weight_bytes(specs):
    h100 = specs[H100]
    full = phases.decode(LLAMA31_8B, h100, 4, 512)
    half = phases.decode(LLAMA31_8B, h100, 4, 512, Precisions(weights=8))
    assert half.part("weights") == pytest.approx(full.part("weights") / 2)
    assert half.part("kv_read") == full.part("kv_read")


def test_moe_active_parameters_are_fewer_than_total():
    for model in load_models().values():
        assert model.active_params() <= model.params()
        assert (model.active_params() < model.params()) == model.is_moe


def test_sliding_window_layers_read_only_their_window(specs):
    gemma = load_models()["Gemma-2-9B"]
    step = phases.decode(gemma, specs[H100], 1, 8192)
    assert step.part("kv_read") == gemma.kv_cache_bytes(2, 8192)
    assert "attention (window 4,096)" in weights_by_op(step)
