"""A layout is valid where it is made; one that cannot exist says which field and why."""

import pytest

from perfcore.model.llm.models import load_models
from perfcore.model.plans.layout import (
    Layout,
    LayoutError,
    bubble_stages,
    checked,
    micro_batches,
    problems,
)


@pytest.fixture(scope="module")
def models():
    return load_models()


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"tp": 0}, "tp", "from 1"),
        ({"zero": 4}, "zero", "ZeRO stage"),
        ({"recompute": "some"}, "recompute", "none, selective, full"),
        ({"interleave": 2}, "interleave", "pp of 2"),
        ({"dp": 2.5}, "dp", "whole number"),
        ({"micro_batch": True}, "micro_batch", "whole number"),
    ],
)
def test_an_impossible_value_is_refused_naming_its_field(fields, field, words):
    with pytest.raises(LayoutError, match=words) as err:
        Layout(**fields)
    assert err.value.field == field
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("model", "fields", "gpus", "field", "words"),
    [
        ("Llama-3.1-70B", {"tp": 3, "dp": 1}, 3, "tp", "64 attention heads"),
        ("Llama-3.1-70B", {"pp": 81}, 81, "pp", "more than the 80 layers"),
        ("Llama-3.1-70B", {"tp": 8, "dp": 4}, 64, "gpus", "= 32"),
        ("Llama-3.1-70B", {"tp": 8, "dp": 8, "micro_batch": 5}, 64, "micro_batch", "sequences"),
        ("Llama-3.1-70B", {"cp": 3, "dp": 1}, 3, "cp", "2 x cp"),
        ("Mixtral-8x7B", {"ep": 3, "dp": 3}, 3, "ep", "8 experts"),
        ("Mixtral-8x7B", {"ep": 4, "dp": 2}, 2, "ep", "dp x cp"),
        (
            "Llama-3.1-70B",
            {"pp": 4, "interleave": 2, "dp": 2, "micro_batch": 16},
            8,
            "interleave",
            "multiple of pp",
        ),
    ],
)
def test_a_layout_the_model_cannot_take_is_refused_with_the_reason(
    models, model, fields, gpus, field, words
):
    layout = Layout(**fields)
    with pytest.raises(LayoutError, match=words) as err:
        checked(layout, models[model], gpus, 8192, 96)
    assert err.value.field == field


def test_tp_past_the_kv_heads_replicates_them_and_is_allowed(models):
    """Llama-3.1-70B: 8 KV heads; TP 16 keeps one per two GPUs (replicated), so it exists."""
    assert problems(Layout(tp=16), models["Llama-3.1-70B"], 16, 8192, 16) == []
    bad = problems(Layout(tp=12), models["Qwen2.5-7B"], 12, 8192, 12)
    assert {e.field for e in bad} == {"tp"}


def test_micro_batches_are_the_replicas_share_over_the_micro_batch():
    """2,048 sequences over DP 32 = 64 per replica; micro-batch 2 -> 32 micro-batches."""
    assert micro_batches(Layout(dp=32, micro_batch=2), 2048) == 32


def test_the_bubble_is_set_by_the_largest_chunk():
    """Narayanan et al. 2021: (p - 1)/v stages' work with equal chunks (80 layers, PP 4, v 5:
    chunks of 4 layers of 20: 3 x 4/20 = 0.6 = 3/5); 126 over PP 16 at v 3: stage of 8 in
    chunks 3, 3, 2: 15 x 3/8 = 5.625, where (p - 1)/v would say 5."""
    assert bubble_stages(80, 4, 5) == pytest.approx(3 / 5)
    assert bubble_stages(126, 16, 3) == pytest.approx(15 * 3 / 8)
    assert bubble_stages(80, 1, 1) == 0


def test_an_interleave_past_one_layer_a_chunk_is_refused(models):
    """80 layers over PP 4: 20 a stage, so v = 21 leaves a chunk empty."""
    found = problems(Layout(pp=4, interleave=21, dp=1), models["Llama-3.1-70B"], 4, 4096, 4)
    assert [e.field for e in found] == ["interleave"]
