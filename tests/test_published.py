"""Published runs priced by the plans' own code: none beats its bound; their efficiencies."""

import pickle
from dataclasses import replace

import pytest

from perfcore.model.llm import phases
from perfcore.model.llm.models import load_models
from perfcore.model.plans import serve_plan
from perfcore.model.plans.train_plan import Training, price
from perfcore.model.runs.published import (
    attention_kernel,
    layouts_of,
    nemo_flops_per_token,
    precisions_of,
    priced_runs,
    table,
)
from perfcore.model.runs.sample import Sample, batching

H100 = "NVIDIA H100 SXM"
PRICED_SHARE = 0.80  # the floor: at least 80 % of the rows priced


def test_no_published_run_beats_its_bound(priced):
    """Efficiency = bound / measured <= 1 for every priced run but speculative decoding."""
    beaten = [
        f"{s.run.name}: measured {s.measured_s:.4g} s, bound {s.bound_s:.4g} s "
        f"({s.efficiency - 1:.1%} past it)"
        for s in priced.samples
        if not s.run.speculative and s.efficiency > 1
    ]
    assert not beaten, "runs faster than their bound:\n" + "\n".join(beaten)


def test_priced_runs_is_a_tuple_of_samples_that_pickles_with_its_unpriced(priced):
    """The page caches it (st.cache_data pickles): the tuple and its unpriced list survive."""
    assert isinstance(priced, tuple) and all(isinstance(s, Sample) for s in priced)
    again = pickle.loads(pickle.dumps(priced))
    assert len(again) == len(priced) and again.unpriced == priced.unpriced


def test_a_run_the_model_cannot_price_is_kept_with_its_reason(by_name):
    """Llama 3 Table 4 row 1 moved to PP 127 (more stages than its 126 layers): refused, and
    kept in `unpriced` with the layout's reason, not dropped."""
    row = by_name["llama3-405b-table4-row1"].run
    bad = replace(row, name="pp-127", pp=127, dp=1, gpus=8 * 127)
    got = priced_runs([row, bad])
    assert [s.run.name for s in got] == [row.name]
    ((run, why),) = got.unpriced
    assert run is bad and "more than the 126 layers" in why
    assert pickle.loads(pickle.dumps(got)).unpriced[0][1] == why


def test_at_least_80_percent_of_the_rows_are_priced_and_the_rest_say_why(priced):
    rows = len(priced.samples) + len(priced.unpriced)
    assert rows == 598  # data/runs.csv
    assert len(priced.samples) >= PRICED_SHARE * rows
    assert all(why.strip() and "\n" not in why for _, why in priced.unpriced)


def test_each_regime_has_an_efficiency_in_0_1_from_several_frameworks(priced):
    """The median in (0, 1]; one run may beat its basis (bound + what the expected model adds,
    not a bound: LMDeploy's batch-64 decode overlaps loads and math), never its bound."""
    got = table(priced.samples)
    assert set(got) == {"train", "prefill", "decode"}
    for regime, eff in got.items():
        assert 0 < eff.low <= eff.value <= 1 and eff.value <= eff.high, regime
        assert eff.families >= 2 and eff.error_median is not None, regime
        assert 0 <= eff.error_median <= eff.error_p90, regime


def test_a_training_run_s_framework_family_is_its_source_s(priced):
    """NeMo, Megatron-Bridge and the Megatron papers are one family; llm-foundry its own."""
    runs = {s.run.source_id: s.run.framework for s in priced if s.run.kind == "train"}
    assert {runs[k] for k in ("nemo-24.07", "megatron-bridge-25.09", "narayanan2021")} == {
        "Megatron"
    }
    assert runs["llm-foundry"] == "llm-foundry"


def test_a_run_s_attention_kernel_is_its_source_s_and_slows_only_a_hopper(by_name):
    """torchtitan's and llm-foundry's runs ran kernels written for Ampere (PyTorch SDPA's
    FlashAttention-2, Triton's FlashAttention), NeMo's Transformer Engine's cuDNN one: on an
    H100 the first two price the core 1.75 x slower, on an A100 and for NeMo not at all."""
    cases = {
        "torchtitan-2024-12-h100-llama3.1-8b-8gpu-cp8-256k": ("flash2", 1.75),
        "llm-foundry-h100-80gb-mpt-1b-32768-8gpu": ("flash2", 1.75),
        "torchtitan-2024-a100-llama2-70b-64gpu-fullac": ("flash2", 1.0),
        "llm-foundry-a100-80gb-mpt-7b-32768-8gpu": ("flash2", 1.0),
        "nemo-longseq-24.03-h100-llama2-7b-16k": ("fused", 1.0),
    }
    for name, want in cases.items():
        s = by_name[name]
        assert (attention_kernel(s.run), s.attention_slowdown) == want, name
        assert s.attention_s > 0, name


def test_megatron_1t_on_3072_a100s_by_hand(by_name, specs):
    """Narayanan et al. Table 1, 1T (128 layers, h 25,600, V 51,200, s 2,048, B 3,072):
    eq. 3 F = 96 B s l h² (1 + s/6h + V/16lh) = 5.1391e19 FLOPs; at 163 TFLOP/s per GPU
    (as printed) on 3,072 GPUs the step took F / (163e12 x 3072) = 102.63 s. At the 312
    TFLOP/s peak, F / (312e12 x 3072) = 53.618 s; eq. 3 counts the full s x s attention, the
    bound only the causal half: 4 passes x (4 x 25,600 x 2,048 x 128 / 2 - its diagonal half,
    1.3416e10 FLOPs per token) x 6,291,456 tokens = 3.376e17 FLOPs = 0.352 s less: compute
    53.265 s. TP, the bubble and the sends come on top, so the bound lies between 53.265 s
    and the measured 102.63 s."""
    s = by_name["narayanan2021-table1-1008.0b"]
    assert s.measured_s == pytest.approx(102.63, rel=1e-4)
    model = load_models()["Megatron-GPT-1T"]
    t = Training(model, specs["NVIDIA A100 SXM4 80GB"], 3072, 2048, 3072 * 2048, "fp16")
    plan = price(t, layouts_of(s.run, model)[0])
    assert plan.time_s_by["compute"] == pytest.approx(53.265, rel=1e-4)
    assert 53.265 < s.bound_s < s.measured_s


def test_gptj_first_token_on_an_l40s_by_hand(by_name):
    """TensorRT-LLM v0.5, L40S FP8, GPT-J-6B, batch 1, 128 tokens: the prefill reads the
    6,050,254,848 weights once, 1 byte each, at 864 GB/s: 7.003 ms at least (its 1.5 TFLOPs
    take 2.1 ms at 733 TFLOP/s; KV writes and lm_head add a little). Measured 12 ms."""
    s = by_name["trtllm-0.6.1-l40s-gptj-6b-ttft-b1-tp1-128-1"]
    assert s.regime == "prefill" and s.measured_s == pytest.approx(0.012)
    assert 7.003e-3 < s.bound_s < 1.15 * 7.003e-3


def test_a_70b_static_decode_on_mi300x_by_hand(by_name):
    """ROCm vLLM 0.10, Llama-3.1-70B FP8 on 8 MI300X (TP 8), batch 1, 128 in, 2,048 out: each
    of the 2,047 decode steps reads 70,553,706,496 / 8 = 8,819,213,312 weight bytes at
    5.3 TB/s (1.6640 ms) and waits on 2 x 80 TP all-reduces at 6 µs each plus their bytes
    (0.9651 ms): 2,047 x 2.6291 ms = 5.382 s; the prefill and KV reads add under 1 %.
    Measured 17.236 s."""
    s = by_name["rocm-vllm-0.10.0-mi300x-llama-3.1-70b-fp8-tp8-b1-128-2048"]
    assert s.regime == "decode" and s.measured_s == pytest.approx(17.236)
    assert 5.382 < s.bound_s < 1.01 * 5.382


def test_sglang_s_static_prefill_and_decode_step_on_mi300x_by_hand(by_name):
    """SGLang bench_latency, Llama-3-8B BF16 on one MI300X, 32 prompts of 256 tokens.

    The decode step (TPOT) at the mean context 256 + 32 / 2 = 272 reads the 8,030,261,248
    weights at 2 bytes and 32 x 272 x 131,072 KV bytes at 5.3 TB/s: 3.2455 ms (activations add
    under 3 %); measured 9.73 ms.

    The prefill (TTFT) of all T = 32 x 256 = 8,192 tokens: the layers' 6,979,588,096 weights
    (8,030,261,248 less the embedding's and lm_head's 128,256 x 4,096 each) do 2 FLOPs a token
    each, 114.35 TFLOP at 1,307.4 TFLOP/s, 87.466 ms; per layer the norms read and write T x
    4,096 twice, the residual adds read two and write one twice, SwiGLU reads two T x 14,336 and
    writes one, at 2 bytes and 5.3 TB/s: 32 layers 8.306 ms; the embedding's table and rows
    0.211 ms: 95.98 ms (attention and lm_head's 32 positions add under 2 %); measured 250.74 ms.
    """
    step = by_name["sglang-llmtracker-mi300x-llama3-8b-decode-b32-256-32"]
    assert step.regime == "decode" and step.measured_s == pytest.approx(9.73e-3)
    assert 3.2455e-3 < step.bound_s < 1.03 * 3.2455e-3
    first = by_name["sglang-llmtracker-mi300x-llama3-8b-prefill-b32-256-32"]
    assert first.regime == "prefill" and first.measured_s == pytest.approx(0.25074)
    assert 95.98e-3 < first.bound_s < 1.02 * 95.98e-3


NEMO_PAIRS = {  # summary row: Model TFLOP/s per GPU printed beside its tokens/s/GPU
    "nemo-24.07-h100-llama2-7b-8gpu": 776,
    "nemo-25.02-b200-llama3-8b-8gpu": 1506,
}


@pytest.mark.parametrize("name", NEMO_PAIRS)
def test_the_nemo_count_turns_a_summary_rows_tokens_into_its_printed_tflops(name, by_name):
    """NeMo's summaries print tokens/s/GPU and Model TFLOP/s per GPU side by side: 16,847 and
    776 (24.07, Llama 2 7B at 4,096), 26,006 and 1,506 (25.02, Llama 3 8B at 8,192). The
    `nemo` count times the tokens gives the TFLOP/s to the rounding of its last digit."""
    run = by_name[name].run
    tflops = nemo_flops_per_token(load_models()[run.model], run.seq_len) * run.value / 1e12
    assert tflops == pytest.approx(NEMO_PAIRS[name], abs=0.5)


def test_a_million_token_nemo_step_by_hand(by_name):
    """NeMo long-sequence table, Llama 2 7B on 1,024 H100s, 1,024K tokens, batch 4, 536
    TFLOPS/GPU: per token 32 x 4,096² x (12 + 12 + 18 x 11,008/4,096 + 12 x 1,048,576/4,096
    + 6 x 32,000/(32 x 4,096)) = 1.68892e12 FLOPs; x 4,194,304 tokens / (536e12 x 1,024) =
    12.906 s a step."""
    s = by_name["nemo-longseq-24.03-h100-llama2-7b-1024k"]
    assert (s.run.tp, s.run.cp, s.run.dp, s.run.flops_convention) == (8, 32, 4, "nemo")
    assert s.measured_s == pytest.approx(12.906, abs=0.001)
    assert s.regime == "train" and s.bound_s < s.measured_s


def test_llama3_405b_at_pp_16_is_priced_on_its_uneven_stages(by_name):
    """Table 4 rows 1-3: 126 layers over PP 16 are priced (8 on the slowest stage)."""
    rows = [f"llama3-405b-table4-row{i}" for i in (1, 2, 3)]
    assert all(by_name[r].regime == "train" for r in rows)


def test_a_throughput_run_is_decode_when_its_steps_take_half_the_tpot_or_more(priced, specs):
    """max_throughput rows: the regime follows the best plan's decode step (at the mean context
    I + O/2) against its TPOT, which also carries the prefills the step takes in."""
    models = load_models()
    for s in priced:
        run = s.run
        if run.batch_mode != "max_throughput":
            continue
        model, device, p = models[run.model], specs[run.device], precisions_of(run)
        serving = serve_plan.Serving(
            model, device, run.gpus, run.input_tokens, run.output_tokens, p
        )
        best = max(serve_plan.plans(serving, run.tp), key=lambda q: q.output_tokens_per_s)
        context = round(run.input_tokens + run.output_tokens / 2)
        step = phases.decode(model, device, best.batch, context, p, tp=run.tp).time_s
        assert s.regime == ("decode" if step >= best.tpot_s / 2 else "prefill"), run.name


def test_a_static_batch_adds_the_boundaries_of_its_prefill_and_every_step(by_name):
    """ROCm vLLM 0.10, Llama-3.1-70B at TP 8, 2,048 out: one prefill and 2,047 steps, 2,048
    passes of 80 x 12 kernels at 3.32 µs: 6.53 s beside its 5.38 s bound (and at batch 1 the
    steps' math, 2 x 70.6e9 / 8 FLOPs at 2.6 PFLOP/s, 6.8 µs a step, is what no-overlap adds,
    under 1 %); it batched statically, though the cells are not split by batching (docs/plans.md),
    and a TTFT row is one pass in TensorRT-LLM's."""
    s = by_name["rocm-vllm-0.10.0-mi300x-llama-3.1-70b-fp8-tp8-b1-128-2048"]
    assert s.launch_s == pytest.approx(2048 * 960 * 3.322e-6, rel=1e-3)
    assert 2047 * 6.8e-6 < s.serial_s < 0.01 * s.bound_s
    assert s.basis_s == pytest.approx(s.bound_s + s.launch_s + s.serial_s)
    assert batching(s.run) == "static" and s.setting.batching is None
    ttft = by_name["trtllm-0.6.1-l40s-gptj-6b-ttft-b1-tp1-128-1"]
    assert ttft.launch_s == pytest.approx(28 * 10 * 3.322e-6, rel=1e-3)
