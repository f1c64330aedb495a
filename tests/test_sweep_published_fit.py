"""Every published training run through `plan train` as its row states it (a sweep over every
row: the slow tier): it fits but for the runs tests.support.plans names, and keeps its bound."""

import json

from perfcore.cli import main
from perfcore.model.chip.specs import load_specs
from perfcore.model.llm.models import load_models
from perfcore.model.runs.published import measured_step_s
from perfcore.model.runs.rows import load_runs
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
