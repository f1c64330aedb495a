"""A training step priced for a layout: hand-worked parts, and how memory and time must move."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcore.model.llm.models import load_models
from perfcore.model.plans import train_comm
from perfcore.model.plans.layout import Layout, problems, stage_layers
from perfcore.model.plans.train_plan import Training, price, run_totals

H100 = "NVIDIA H100 SXM"
MODELS = load_models()


@pytest.fixture(scope="module")
def h100(specs):
    return specs[H100]


def llama8b(h100, gpus=8, batch_tokens=64 * 4096, **kw):
    return Training(MODELS["Llama-3.1-8B"], h100, gpus, 4096, batch_tokens, **kw)


@pytest.mark.parametrize(("zero", "ms"), [(0, 62.4636), (1, 62.4696)])
def test_the_gradient_reduce_in_one_node_by_hand(h100, zero, ms):
    """Llama-3.1-8B (8,030,261,248 parameters), DP 8 in one 8-GPU NVLink domain, bf16 grads:
    S = 16,060,522,496 B. ZeRO-0: ring all-reduce 2 x 7/8 x S / 450e9 = 62.4576 ms + 6 µs =
    62.4636 ms. ZeRO-1: reduce-scatter of grads + all-gather of weights, each 7/8 x S / 450e9
    = 31.2288 ms + 6 µs: 62.4696 ms."""
    plan = price(llama8b(h100), Layout(dp=8, zero=zero, micro_batch=8))
    assert plan.dp_s == pytest.approx(ms * 1e-3, rel=1e-5)


def test_zero3_gathers_the_weights_forward_and_backward_every_micro_batch(h100):
    """ZeRO-3, 8 sequences per replica in micro-batches of 2: m = 4, each an all-gather forward,
    one backward and a reduce-scatter: 4 x 3 x 31.2348 ms = 374.818 ms."""
    plan = price(llama8b(h100), Layout(dp=8, zero=3, micro_batch=2))
    assert plan.dp_s == pytest.approx(0.374818, rel=1e-5)


def test_the_reduce_hides_behind_the_last_backward_except_its_last_bucket(h100):
    """Megatron's DDP reduces 40M-parameter buckets as the last micro-batch's backward makes
    them; the last bucket starts when the backward ends. Llama-3.1-8B, DP 8 in one domain:
    the whole all-reduce (62.46 ms) hides in the 2/3 x compute backward, the last bucket's
    all-reduce of 40e6 x 2 B does not: 2 x 7/8 x 80e6 / 450e9 = 311.11 µs + 6 µs = 317.11 µs."""
    plan = price(llama8b(h100), Layout(dp=8, micro_batch=8))
    assert plan.time_s_by["compute"] * 2 / 3 > plan.dp_s
    assert plan.time_s_by["dp"] == pytest.approx(317.111e-6, rel=1e-5)
    assert plan.step_no_overlap_s - plan.step_s == pytest.approx(plan.dp_s - plan.time_s_by["dp"])


def test_zero2_reduce_scatters_after_every_micro_batch(h100):
    """Sharded gradients cannot accumulate (DeepSpeed, FSDP SHARD_GRAD_OP): m = 4 micro-batches
    of 2, each backward a reduce-scatter (31.2348 ms), and one all-gather of the weights:
    5 x 31.2348 ms = 156.174 ms."""
    plan = price(llama8b(h100), Layout(dp=8, zero=2, micro_batch=2))
    assert plan.dp_s == pytest.approx(0.156174, rel=1e-5)


def test_only_the_warm_up_and_cool_down_pipeline_sends_are_exposed(h100):
    """1F1B, PP 4 in one domain, micro-batch 4 of 4,096 tokens: a send is 4 x 4,096 x 4,096 x
    2 B = 134,217,728 B / 450e9 = 298.26 µs + 6 µs = 304.26 µs. m = 16: 32 sends, of which the
    first micro-batch's 3 forward and the last's 3 backward are exposed: 6 x 304.26 µs =
    1.8256 ms (the other 26, 7.9 ms, run beside seconds of compute)."""
    plan = price(llama8b(h100, gpus=4), Layout(pp=4, micro_batch=4))
    assert plan.time_s_by["pp_p2p"] == pytest.approx(1.8256e-3, rel=1e-4)


def test_tp_hides_behind_the_layers_gemms_until_it_outgrows_them(h100):
    """Megatron/Transformer Engine overlap TP's all-gathers and reduce-scatters with the
    neighbouring GEMMs (tp_comm_overlap). Llama-3.1-8B TP 8, m = 8 micro-batches of 8 x 4,096
    tokens: 32 layers x 8 collectives (2 AG + 2 RS forward, again backward) of 268,435,456 B,
    each 7/8 x S / 450e9 + 6 µs = 527.97 µs: 8 x 256 x 527.97 µs = 1.0813 s, inside the
    layers' GEMMs (1.3869 s of the 1.5980 s of compute): nothing exposed. On a 20 GB/s what-if
    scale-up each takes 7/8 x S / 2e10 + 6 µs = 11.750 ms: 24.064 s, exposed past the GEMMs:
    24.064 - 1.3869 = 22.677 s."""
    layout = Layout(tp=8, micro_batch=8)
    t = llama8b(h100)
    assert train_comm.tp_seconds(t, layout, 8) == pytest.approx(1.0813, rel=1e-4)
    assert price(t, layout).time_s_by["tp"] == 0
    slow = llama8b(h100.replace(scaleup_bytes_per_s=4e10))  # 2e10 per direction
    assert train_comm.tp_seconds(slow, layout, 8) == pytest.approx(24.064, rel=1e-4)
    assert price(slow, layout).time_s_by["tp"] == pytest.approx(22.677, rel=1e-4)


def test_training_tp_communication_is_2x_the_forward_and_3x_with_full_recompute(h100):
    """TP 8 with SP: the forward's 2 all-gathers + 2 reduce-scatters per layer run again in the
    backward (2x); full recomputation runs the forward's once more (3x): 3/2 of none's."""
    t = llama8b(h100)
    none, full = (
        train_comm.tp_seconds(t, Layout(tp=8, recompute=r, micro_batch=8), 8)
        for r in ("none", "full")
    )
    selective = train_comm.tp_seconds(t, Layout(tp=8, recompute="selective", micro_batch=8), 8)
    assert full / none == pytest.approx(1.5) and selective == none


def test_the_bubble_is_p_minus_1_micro_batches_of_one_stage(h100):
    """PP 4, m = 16: bubble = 3 x (compute + TP) / 16, so a fraction 3 / 19 of the 1F1B time."""
    plan = price(llama8b(h100, gpus=4), Layout(pp=4, micro_batch=4))
    parts = plan.time_s_by
    assert parts["pp_bubble"] == pytest.approx(3 * (parts["compute"] + parts["tp"]) / 16)


def test_a_run_of_t_tokens_takes_its_steps_and_tdp_energy(h100):
    """15e12 tokens at tokens_per_s: days = T / rate / 86,400; energy = 700 W x GPUs x time."""
    plan = price(llama8b(h100, tokens=15e12), Layout(dp=8, micro_batch=8))
    seconds = 15e12 / plan.tokens_per_s
    totals = run_totals(plan)
    assert totals["train_days"] == pytest.approx(seconds / 86400)
    assert totals["gpu_hours"] == pytest.approx(8 * seconds / 3600)
    assert totals["energy_kwh"] == pytest.approx(700 * 8 * seconds / 3.6e6)


def test_mfu_at_the_bound_on_one_gpu_is_the_model_over_hardware_share(h100):
    """One GPU, no recompute: step = compute + optimizer, so MFU = compute / step < 1."""
    plan = price(llama8b(h100, gpus=1, batch_tokens=4096), Layout())
    assert plan.mfu == pytest.approx(plan.time_s_by["compute"] / plan.step_s)
    assert plan.mfu < 1


seventy = st.fixed_dictionaries(
    {
        "tp": st.sampled_from([1, 2, 4]),
        "pp": st.sampled_from([1, 2, 4]),
        "zero": st.sampled_from([0, 1, 2]),
        "recompute": st.sampled_from(["none", "selective", "full"]),
    }
)


def _memory(h100, tp, pp, zero, recompute):
    """Bytes per GPU of Llama-3.1-70B, 512 GPUs, 512 sequences of 4,096, micro-batch 1."""
    dp = 512 // (tp * pp)
    t = Training(MODELS["Llama-3.1-70B"], h100, 512, 4096, 512 * 4096)
    return price(t, Layout(tp=tp, pp=pp, dp=dp, zero=zero, recompute=recompute)).memory_total


@settings(max_examples=40, deadline=None)
@given(seventy)
def test_memory_per_gpu_falls_with_tp_pp_and_the_zero_stage(specs, f):
    h100 = specs[H100]
    here = _memory(h100, **f)
    assert _memory(h100, **{**f, "tp": f["tp"] * 2}) <= here
    assert _memory(h100, **{**f, "pp": f["pp"] * 2}) <= here
    assert _memory(h100, **{**f, "zero": f["zero"] + 1}) <= here


def test_uneven_stages_price_the_fullest_one_405b_at_pp_16(h100):
    """Llama-3.1-405B, 126 layers over PP 16 (Llama 3 paper, Table 4): ceil(126/16) = 8 layers
    on the slowest stage, so the step and memory are those of an even 128-layer model at PP 16
    (8 per stage: the same layers, attention and lm_head per GPU). Activations, selective
    recompute, TP 8, micro-batch 1, 8,192 tokens: per token 2·2h + 2(h + 2q + 2kv) + 2h + 3·2f
    = 65,536 + 102,400 + 32,768 + 319,488 = 520,192 B (h = q = 16,384, kv = 1,024, f =
    53,248), x 8,192 / 8 = 532,676,608 B per layer; 8 layers x min(m = 32, p = 16)
    micro-batches in flight = 68,182,605,824 B."""
    real = MODELS["Llama-3.1-405B"]
    even = replace(real, name="405B with 128 layers", layers=128)
    layout = Layout(tp=8, pp=16, dp=64, micro_batch=1, recompute="selective")
    uneven, whole = (
        price(Training(m, h100, 8192, 8192, 2048 * 8192), layout) for m in (real, even)
    )
    assert stage_layers(126, 16) == 8
    assert uneven.step_s == pytest.approx(whole.step_s, rel=1e-12)
    assert uneven.memory_bytes == pytest.approx(whole.memory_bytes, rel=1e-12)
    assert uneven.memory_bytes["activations"] == pytest.approx(68_182_605_824, rel=1e-12)


def test_only_more_stages_than_layers_is_refused():
    """PP 126 puts one layer per stage; PP 127 leaves a stage with none."""
    model = MODELS["Llama-3.1-405B"]
    assert problems(Layout(pp=126), model, 126, 8192, 126) == []
    (err,) = problems(Layout(pp=127), model, 127, 8192, 127)
    assert err.field == "pp" and "more than the 126 layers" in str(err)


def test_the_memory_bound_math_is_its_bytes_at_the_memory_bandwidth(h100):
    """Llama-3.1-8B on 8 H100s (3.35 TB/s), 2^20 tokens at 8,192, DP 8: 13,107,200 B per token
    (tests/test_train_cost) x 2^20 / 8 GPUs / 3.35e12 = 0.51283 s; the bound leaves it out."""
    t = Training(MODELS["Llama-3.1-8B"], h100, 8, 8192, 2**20)
    plan = price(t, Layout(dp=8, zero=1))
    assert plan.elementwise_s == pytest.approx(13_107_200 * 2**20 / 8 / 3.35e12)
    assert plan.elementwise_s == pytest.approx(0.51283, rel=1e-4)
    assert "elementwise" not in plan.time_s_by


def test_the_attention_core_is_its_flops_at_the_peak(h100):
    """Llama-3.1-8B (32 layers, 32 heads of 128) on 8 H100s (989.4 TFLOP/s BF16), 2^20 tokens
    at 8,192, DP 8: the core's forward is 4 x 32 x 128 = 16,384 FLOPs a (query, key) pair and
    layer, 8,192 x 8,193 / 2 causal pairs a sequence, 4,096.5 a token; forward and backward 3
    x that: 3 x 16,384 x 4,096.5 x 32 x 2^20 / 8 / 989.4e12 = 0.85358 s. Full recomputation
    runs its forward again: 4/3 of it. The expected figure prices it; the bound holds it in
    its compute, not again."""
    t = Training(MODELS["Llama-3.1-8B"], h100, 8, 8192, 2**20)
    plan = price(t, Layout(dp=8, zero=1))
    assert plan.attention_s == pytest.approx(3 * 16384 * 4096.5 * 32 * 2**20 / 8 / 989.4e12)
    assert plan.attention_s == pytest.approx(0.85358, rel=1e-4)
    recomputed = price(t, Layout(dp=8, zero=1, recompute="full"))
    assert recomputed.attention_s == pytest.approx(4 / 3 * plan.attention_s)
    assert "attention" not in plan.time_s_by


def test_an_fp8_steps_attention_core_is_its_flops_at_the_bf16_peak(h100):
    """The same step in FP8: its GEMMs run at 1,978.9 TFLOP/s, its attention core in 16 bits
    (only the linear layers are cast) at the BF16 peak's 989.4: the same 0.85358 s, not the
    0.42679 its FLOPs take at the FP8 peak."""
    t = Training(MODELS["Llama-3.1-8B"], h100, 8, 8192, 2**20, precision="fp8")
    plan = price(t, Layout(dp=8, zero=1))
    assert plan.attention_s == pytest.approx(3 * 16384 * 4096.5 * 32 * 2**20 / 8 / 989.4e12)
    assert plan.attention_s == pytest.approx(0.85358, rel=1e-4)
