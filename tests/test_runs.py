"""runs: the bundled published runs load, name real models and devices, hold the figures their
sources print, and a broken runs file is reported by row, column, value and what was expected."""

import csv
import io

import pytest

from perfcore.model.chip.specs import load_specs
from perfcore.model.llm.models import load_models
from perfcore.model.runs.rows import DEFAULT_PATH, Run, RunError, load_runs, load_runs_bytes

MODELS, DEVICES = load_models(), load_specs()
RUNS = load_runs()
BY_NAME = {run.name: run for run in RUNS}


def test_the_file_holds_40_training_and_40_serving_runs_from_6_sources():
    kinds = [run.kind for run in RUNS]
    assert kinds.count("train") >= 40 and kinds.count("serve") >= 40
    assert len({run.source_id for run in RUNS}) >= 6


@pytest.mark.parametrize("run", RUNS, ids=[run.name for run in RUNS])
def test_every_run_names_a_bundled_model_and_device_and_cites_its_source(run):
    assert run.model in MODELS and run.device in DEVICES
    assert "http" in run.source or "arXiv" in run.source, run.source
    assert DEVICES[run.device].peak_flops(run.precision) is not None


def test_narayanan_2021_one_trillion_parameters_on_3072_gpus_at_163_tflops():
    """Narayanan et al. 2021 Table 1: 1008.0B params (160 heads, hidden 25600, 128 layers),
    TP 8 x PP 64 on 3,072 A100s (so DP 6), batch 3,072, 163 TFLOP/s per GPU; 163 x 3,072 =
    500.7 PFLOP/s against the 502.0 printed (the per-GPU figure is rounded)."""
    run = BY_NAME["narayanan2021-table1-1008.0b"]
    assert (run.tp, run.pp, run.dp, run.gpus, run.global_batch) == (8, 64, 6, 3072, 3072)
    assert run.value == 163e12 and run.metric == "hardware_tflops_per_gpu"
    assert MODELS[run.model].layers == 128 and MODELS[run.model].hidden == 25600
    assert run.value * run.gpus == pytest.approx(502.0e15, rel=0.003)


def test_llama3_405b_on_8192_h100s_at_430_tflops():
    """Llama 3 paper Table 4, row 1: 8,192 GPUs, TP 8, CP 1, PP 16, DP 64, sequence 8,192,
    32 sequences per DP rank (2,048 in all = 16.8M tokens, printed "16M"), 430 TFLOPs/GPU."""
    run = BY_NAME["llama3-405b-table4-row1"]
    assert (run.gpus, run.tp, run.cp, run.pp, run.dp) == (8192, 8, 1, 16, 64)
    assert run.tokens_per_step == 2048 * 8192 == 16_777_216
    assert run.value == 430e12 and run.flops_convention == "palm-mfu"


KORTHIKANTI = {  # Table 5: model, (full recompute s, present work s, printed MFU of present work)
    "22b": (1.42, 1.10, 0.415),
    "175b": (18.13, 13.75, 0.514),
    "530b": (49.05, 37.83, 0.560),
    "1t": (94.42, 71.49, 0.563),
}


@pytest.mark.parametrize("size", KORTHIKANTI)
def test_korthikanti_2022_iteration_times_give_the_printed_mfu(size):
    """Korthikanti et al. 2022 count model FLOPs per iteration as 72 B L s h^2 (1 + s/(6h) +
    V/(12 h L)) (Section 6). For the 175B: B 64, L 96, s 2048, h 12288, V 51200 gives
    1.411e17 FLOPs; / (13.75 s x 64 GPUs x 312e12) = 51.4 %, Table 5's MFU. The same check
    on each row tests its batch, layout and time together against the printed MFU. Tolerance:
    the rounding of what is printed, times to 0.01 s (0.005 / t of the MFU) and MFU to 0.1 %."""
    full_s, present_s, mfu = KORTHIKANTI[size]
    full = BY_NAME[f"korthikanti2022-table5-{size}-full"]
    present = BY_NAME[f"korthikanti2022-table5-{size}-selective-sp"]
    assert (full.measured_step_s, present.measured_step_s) == (full_s, present_s)
    assert (full.recompute, present.recompute, present.sp) == ("full", "selective", True)
    m, b, s = MODELS[present.model], present.global_batch, present.seq_len
    h, layers, v = m.hidden, m.layers, 51200
    flops = 72 * b * layers * s * h**2 * (1 + s / (6 * h) + v / (12 * h * layers))
    achieved = flops / (present.measured_step_s * present.gpus * 312e12)
    assert achieved == pytest.approx(mfu, abs=mfu * 0.005 / present_s + 0.0005)


def test_nemo_llama2_7b_step_time_from_tokens_per_gpu():
    """NeMo 24.07 pre-training table: Llama-2-7B on 8 H100s, GBS 128 at 4,096 tokens,
    16,847 tokens/s/GPU. One step is 128 x 4,096 = 524,288 tokens; at 16,847 x 8 =
    134,776 tokens/s that is 3.890 s."""
    run = BY_NAME["nemo-24.07-h100-llama2-7b-8gpu"]
    assert run.value == 16847 and run.tokens_per_step == 524_288
    assert run.measured_step_s == pytest.approx(3.890, abs=0.001)


def test_mosaic_per_gpu_throughput_times_gpus_is_the_printed_total():
    """llm-foundry H100 80GB BF16 table: MPT 7b at 2,048 tokens on 8 GPUs prints 10,643 T/s/GPU
    and 85,144 T/s in all (10,643 x 8 = 85,144); FSDP FULL_SHARD is ZeRO stage 3."""
    run = BY_NAME["llm-foundry-h100-80gb-mpt-7b-2048-8gpu"]
    assert run.value * run.gpus == 85144
    assert (run.zero, run.dp, run.recompute, run.micro_batch) == (3, 8, "none", 6)


def test_tensorrt_llm_figures_as_printed_and_in_si():
    """TensorRT-LLM v0.6.1 performance.md: Llama 2 70B, batch 1024, TP 2, 128 in / 128 out on
    H100 FP8: 2,657 out tok/s per GPU; its first-token latency at TP 4, batch 1, 2,048 tokens
    in: 109 ms = 0.109 s. TensorRT-LLM 1.0 perf overview: Llama 3.1 8B, H100 TP1 FP8,
    128/128: 28,312 tokens/s in all."""
    tput = BY_NAME["trtllm-0.6.1-h100-llama2-70b-tput-b1024-tp2-128-128"]
    assert (tput.batch, tput.tp, tput.gpus, tput.value) == (1024, 2, 2, 2657)
    ttft = BY_NAME["trtllm-0.6.1-h100-llama2-70b-ttft-b1-tp4-2048-1"]
    assert ttft.printed == "109" and ttft.value == pytest.approx(0.109, rel=1e-12)
    new = BY_NAME["trtllm-1.0-h100-llama-3.1-8b-fp8-tp1-128-128"]
    assert (new.value, new.batch_mode, new.batch) == (28312, "max_throughput", None)


def test_vllm_on_mi300x_latency_of_a_static_batch():
    """ROCm vLLM dev-docker README, Latency Measurements: Llama 3.1 405B FP8 on 8 MI300X (TP 8),
    batch 1, 128 tokens in and 2,048 out: 48.453 s end to end; at batch 128, 117.027 s."""
    one = BY_NAME["rocm-vllm-0.10.0-mi300x-llama-3.1-405b-fp8-tp8-b1-128-2048"]
    many = BY_NAME["rocm-vllm-0.10.0-mi300x-llama-3.1-405b-fp8-tp8-b128-128-2048"]
    assert (one.engine, one.device, one.replicas) == ("vLLM", "AMD Instinct MI300X", 1)
    assert (one.value, many.value, many.batch) == (48.453, 117.027, 128)


def test_lmdeploy_and_vllm_ci_figures_as_printed_and_in_si():
    """LMDeploy v0.1.0 a100_fp16.md: Llama 2 70B, batch 64, TP 4, 2,048 in and out: 930.46 out
    tok/s; Llama 2 7B at batch 1, 2,048 in: FTL(ave) 0.139 s, stored as 139 ms. vLLM CI build
    9513: Llama 3 70B at TP 4 on H200, batch 8, 32 in, 128 out: 2,075.08 ms mean latency."""
    tput = BY_NAME["lmdeploy-0.1.0-a100-llama2-70b-tput-b64-tp4-2048-2048"]
    assert (tput.batch, tput.tp, tput.gpus, tput.value, tput.batch_mode) == (
        64,
        4,
        4,
        930.46,
        "static",
    )
    ttft = BY_NAME["lmdeploy-0.1.0-a100-llama2-7b-ttft-b1-tp1-2048-128"]
    assert ttft.printed == "139" and ttft.value == pytest.approx(0.139, rel=1e-12)
    vllm = BY_NAME["vllm-buildkite-9513-h200-llama-3-70b-tp4-b8-32-128"]
    assert (vllm.engine, vllm.batch, vllm.input_tokens, vllm.output_tokens) == ("vLLM", 8, 32, 128)
    assert vllm.value == pytest.approx(2.07508, rel=1e-12) and vllm.device == "NVIDIA H200 SXM"


def test_docs_list_every_source_with_its_row_count():
    """docs/runs.md's source table has a row `| source_id | ... | <n> train|serve |` per source."""
    docs = (DEFAULT_PATH.parents[1] / "docs" / "runs.md").read_text()
    for source_id in {run.source_id for run in RUNS}:
        runs = [run for run in RUNS if run.source_id == source_id]
        line = next((ln for ln in docs.splitlines() if ln.startswith(f"| `{source_id}` |")), "")
        assert f"| {len(runs)} {runs[0].kind} |" in line, (source_id, len(runs), line)


def test_no_bundled_run_is_speculative():
    assert not any(run.speculative for run in RUNS)


def test_a_path_an_open_file_and_bytes_load_the_same_runs():
    with open(DEFAULT_PATH, "rb") as f:
        opened = load_runs(f)
    raw = load_runs_bytes(DEFAULT_PATH.read_bytes(), "runs.csv", MODELS, DEVICES)
    assert load_runs(DEFAULT_PATH) == opened == raw == RUNS
    assert isinstance(hash(RUNS[0]), int) and isinstance(RUNS[0], Run)


def rows() -> list[dict]:
    """The bundled file's first training and first serving rows, as CSV dicts."""
    reader = list(csv.DictReader(io.StringIO(DEFAULT_PATH.read_text())))
    return [next(r for r in reader if r["kind"] == kind) for kind in ("train", "serve")]


def broken(changes: dict, drop: str = "") -> str:
    """The message of loading the two rows with `changes` to the first (spreadsheet row 2)."""
    first, second = rows()
    first.update(changes)
    return refusal([first, second], [c for c in first if c != drop])


def refusal(records: list[dict], columns: list[str]) -> str:
    """The RunError message of loading `records` as a CSV of `columns`."""
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(records)
    with pytest.raises(RunError) as err:
        load_runs_bytes(out.getvalue().encode(), "mine.csv", MODELS, DEVICES)
    return str(err.value)


def test_a_missing_column_is_named():
    message = broken({}, drop="metric")
    assert "mine.csv, row 1: missing required column(s) 'metric'" in message


REFUSALS = {  # cells changed in the first training row (spreadsheet row 2) -> what is said
    "unknown model": (
        {"model": "Llama-2-7b"},
        [
            "row 2, column 'model': got 'Llama-2-7b'; expected a name in the models table "
            "(did you mean 'Llama-2-7B'?)"
        ],
    ),
    "negative gpus, fractional tp": (
        {"gpus": "-8", "tp": "2.5"},
        [
            "row 2, column 'gpus': got '-8'; expected a whole number from 1",
            "row 2, column 'tp': got '2.5'; expected a whole number from 1",
        ],
    ),
    # NeMo's GPT-3 175B row: TP 4 x PP 8 x CP 1 x DP 4 = 128 GPUs
    "layout against gpus": (
        {"gpus": "64"},
        ["row 2, column 'gpus': got 64; expected tp x pp x cp x dp = 128"],
    ),
    "serving cell, serving metric": (
        {"input_tokens": "128", "metric": "ttft_ms"},
        [
            "row 2, column 'input_tokens': got 128; expected empty for a train run",
            "row 2, column 'metric': got 'ttft_ms', a serve metric",
        ],
    ),
    "precision the device lacks": (
        {"device": "NVIDIA A100 SXM4 80GB", "precision": "fp8"},
        ["row 2, column 'precision': got 'fp8'; expected one NVIDIA A100 SXM4 80GB"],
    ),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_a_broken_row_is_named_by_file_row_column_and_value(case):
    changes, said = REFUSALS[case]
    message = broken(changes)
    for text in said:
        assert f"mine.csv, {text}" in message, message


def test_a_flop_rate_without_its_convention_and_a_bad_value_are_refused():
    message = broken({"metric": "model_tflops_per_gpu", "flops_convention": ""})
    assert "row 2, column 'flops_convention': got ''; expected one of megatron-eq3" in message
    assert "column 'value': got '1,979'" in broken({"value": "1,979"})


def test_a_duplicate_name_is_refused():
    first, _ = rows()
    message = refusal([first, first], list(first))
    assert f"got {first['name']!r}, the name of row 2; expected each name once" in message
