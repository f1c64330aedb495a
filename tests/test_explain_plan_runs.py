"""The published runs a plan is held against (perfcore.explain.plans.plan_runs): the nearest first,
each run's efficiency as bound over measured, the setup's regimes and their efficiencies."""

from types import SimpleNamespace

from perfcore.explain.plans import plan_runs
from perfcore.explain.plans import plan_serve as serve
from perfcore.model.runs.efficiency import Efficiency
from perfcore.model.runs.sample import Sample

HALF = {r: Efficiency(r, 0.5, 10, 3, 0.3, 0.7, 0.1, 0.2) for r in ("train", "prefill", "decode")}


def _sample(name, model, device, gpus, regime="train", bound=1.0, measured=2.0):
    run = SimpleNamespace(
        name=name,
        model=model,
        device=device,
        gpus=gpus,
        printed="1",
        metric="step_s",
        source=f"{name}'s paper",
    )
    return Sample(run, regime, name, bound, measured)


def test_the_nearest_runs_are_same_model_and_device_then_model_then_device_then_gpus():
    runs = [
        _sample("other", "M2", "D2", 1024),
        _sample("device", "M2", "D", 1024),
        _sample("model", "M", "D2", 1024),
        _sample("both far", "M", "D", 64),
        _sample("both near", "M", "D", 512),
        _sample("serve", "M", "D", 1024, "decode"),
    ]
    got = plan_runs.nearest(runs, ("train",), "M", "D", {"gpus": 1024})
    # |log2(512/1024)| = 1 < |log2(64/1024)| = 4; the decode run is not a training run
    assert [s.run.name for s in got] == ["both near", "both far", "model", "device", "other"]


def test_the_runs_table_gives_efficiency_as_bound_over_measured_and_the_full_source():
    df = plan_runs.runs_table([_sample("a", "M", "D", 8, bound=3.0, measured=4.0)])
    assert df["efficiency"].iloc[0] == 0.75  # 3 / 4
    assert df["source"].iloc[0] == "a's paper" and df["published"].iloc[0] == "1 step_s"


def test_held_keeps_the_setups_regimes_and_their_efficiencies():
    runs = [_sample("t", "M", "D", 8), _sample("d", "M", "D", 8, "decode")]
    h = plan_runs.held(runs, HALF, "M", "D", serve.ServeSetup())
    assert [s.run.name for s in h.runs] == ["d"]
    assert [e.regime for e in h.efficiencies] == ["prefill", "decode"]
    said = "Expected decode: (bound + kernel boundaries + no-overlap) ÷ 0.50"
    assert said in plan_runs.runs_caption(h)
