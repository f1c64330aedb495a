"""Every published run through `plan train` or `plan serve` as its row states it (a sweep over
every row: the slow tier): a training run fits but for the runs tests.support.plans names, and
no run beats the command's bound."""

import json

from perfcore.cli import main
from perfcore.model.chip.specs import load_specs
from perfcore.model.llm.models import load_models
from perfcore.model.runs.published import measured_step_s
from perfcore.model.runs.rows import load_runs
from perfcore.model.runs.serve_runs import precisions_of
from tests.support.plans import CANNOT_FIT


def cli_flags(run) -> list[str]:
    """`plan train` for a published run with its layout as the row states it: every stated
    cell a flag, an empty one left to the command's default (ZeRO: layout.UNSET_ZERO)."""
    argv = ["plan", "train", "--model", run.model, "--device", run.device, "--json"]
    argv += ["--gpus", str(run.gpus), "--seq", str(run.seq_len), "--precision", run.precision]
    argv += ["--global-batch-tokens", str(run.global_batch * run.seq_len)]
    for field in ("tp", "pp", "dp", "cp", "ep", "zero", "micro_batch", "vp", "recompute"):
        value = getattr(run, field)
        if value is not None and value != "":
            name = {"vp": "interleave", "micro_batch": "micro-batch"}.get(field, field)
            argv += [f"--{name}", str(value)]
    return argv


def test_every_training_run_fits_and_keeps_its_bound_through_plan_train_as_its_row_states_it(
    capsys,
):
    """The same runs through `python -m perfcore plan train` with each row's stated cells as
    flags (what a reader holding the sources would type): the same one cannot fit, and no
    run's measured step is faster than the command's bound (published.measured_step_s)."""
    models, specs = load_models(), load_specs()
    misfits, faster = set(), set()
    for run in load_runs(models=models, devices=specs):
        if run.kind == "train":
            assert main(cli_flags(run)) == 0
            r = json.loads(capsys.readouterr().out)
            if not r["fits"]:
                misfits.add(run.name)
            if measured_step_s(run, models[run.model], specs[run.device]) < r["step_s"]:
                faster.add(run.name)
    assert misfits == set(CANNOT_FIT)
    assert faster == set()


def serve_flags(run) -> list[str]:
    """`plan serve` for a published run as its row states it: its GPUs, TP, lengths and widths,
    and its batch but where the engine chose it (max throughput), static where it was."""
    p = precisions_of(run)
    argv = ["plan", "serve", "--model", run.model, "--device", run.device, "--json"]
    argv += ["--gpus", str(run.gpus), "--tp", str(run.tp)]
    argv += ["--input-tokens", str(run.input_tokens), "--output-tokens", str(run.output_tokens)]
    argv += ["--weights-bits", str(p.weights), "--act-bits", str(p.activations)]
    argv += ["--kv-bits", str(p.kv)]
    if run.batch_mode != "max_throughput":
        argv += ["--batch", str(run.batch)]
    return argv + (["--static"] if run.batch_mode == "static" else [])


def bound_of(run, r: dict) -> float:
    """The command's bound of the row's metric (seconds, or output tokens/s)."""
    return {
        "ttft_ms": r["ttft_s"],
        "tpot_ms": r["tpot_s"],
        "latency_s": r["request_s"],
        "output_tokens_per_s": r["output_tokens_per_s"],
        "output_tokens_per_s_per_gpu": r["per_gpu"],
    }[run.metric]


def test_no_serving_run_beats_its_bound_through_plan_serve_as_its_row_states_it(capsys):
    """Every serving row the command plans (a batch whose paged KV cache fits): its measured
    figure is no better than the command's bound (a time no shorter, a rate no higher)."""
    models, specs = load_models(), load_specs()
    beaten, planned = set(), 0
    for run in load_runs(models=models, devices=specs):
        if run.kind != "serve" or run.speculative:
            continue
        assert main(serve_flags(run)) == 0
        r = json.loads(capsys.readouterr().out)
        if r["layout"] is None:
            continue
        planned += 1
        bound = bound_of(run, r)
        rate = run.metric.startswith("output_tokens")
        if (run.value > bound) if rate else (run.value < bound):
            beaten.add(run.name)
    assert planned > 290 and beaten == set()
