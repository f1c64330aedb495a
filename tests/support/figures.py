"""One sample chart per figure builder: BUILDERS maps each builder's name to a function of
(specs, theme) drawing it from representative inputs (the timing lessons' records, three
devices, catalog ops). The theme tests, the margin tests and bench/figures.py draw these."""

import functools
from pathlib import Path
from types import SimpleNamespace

import perfcore.figures as figures
from perfcore.explain.chip import generations as gen
from perfcore.explain.chip import hierarchy, occupancy, pitfalls, precision
from perfcore.explain.llm import scale_out, workloads
from perfcore.explain.measure import measure_clock as clock
from perfcore.explain.measure import measure_roofline as measured
from perfcore.explain.measure import measure_sweep as sweep
from perfcore.explain.measure import profile as profile_view
from perfcore.explain.measure import profile_example, profile_predict
from perfcore.explain.plans import plan, plan_serve
from perfcore.figures.chip.home import calculator_figure
from perfcore.figures.llm import workloads as wl
from perfcore.figures.measure.measure_roofline import measured_roofline_figure
from perfcore.figures.plans import plan as plan_charts
from perfcore.figures.plans import plan_runs as plan_runs_charts
from perfcore.measure.profile.judge.assess import spec_roofs
from perfcore.measure.profile.judge.records import profile_records
from perfcore.measure.results import load_results
from perfcore.measure.results.empirical import measured_roofline
from perfcore.measure.results.points import MeasuredPoint
from perfcore.model.chip import ops
from perfcore.model.chip.generations import growth
from perfcore.model.chip.roofline import estimate
from perfcore.model.llm.models import load_models
from perfcore.model.runs.efficiency import Efficiency
from perfcore.model.runs.sample import Sample
from tests.support.measured import lesson_records

H100, A100, V100 = "NVIDIA H100 SXM", "NVIDIA A100 SXM4 80GB", "NVIDIA V100 SXM2"
RECORDS = lesson_records()
PROFILE = load_results(Path(__file__).parents[1] / "data" / "profile" / "mlp_profile.json")
MEASURED = MeasuredPoint(
    "matmul 4096",
    1.4e11,
    1e8,
    2e-3,
    7e13,
    6.4e13,
    7.8e13,
    5e10,
    "bf16",
    "isolated calls, min",
    "test device",
    "gpu",
)
ROOFLINE = measured_roofline(RECORDS)


def _predicted(theme):
    """The bundled example's prediction against its profile."""
    shown = profile_predict.shown(profile_example.bundled())
    return figures.predicted_figure(shown.ops, shown.missed, shown.spread, theme=theme)


def sample_ops(d):
    """Three catalog ops on device d at bf16."""
    costs = [ops.matmul(4096, 4096, 4096), ops.decode_step(7e9, 1), ops.elementwise_add(1 << 24)]
    return [estimate(d.peak_flops("bf16"), d.memory_bytes_per_s, c) for c in costs]


def ridge_chart(specs, theme, vendors=None):
    """The ridge-by-year chart of fp16 attention over `vendors` (default: all of them)."""
    cost = gen.op_cost("attention", "fp16", {"seq": 512, "d_head": 64})
    rows = gen.rows(specs, vendors or gen.vendors(specs), "fp16", cost)
    return figures.ridge_by_year_figure(rows, cost, "fp16", (specs[V100], specs[H100]), theme)


def _precision_rows(d):
    from perfcore.model.chip.precision import matmul_sweep

    return matmul_sweep(d, 4096, 4096, 4096)


def _scale_out(specs, theme):
    s = scale_out.setup(7e9, "bf16", 8, 2)
    rows, other = scale_out.sweep(specs[H100], s), scale_out.sweep(specs[A100], s)
    return figures.scale_out_figure(rows, scale_out.allreduce(specs[H100], s), other, theme)


def _occupancy(specs, theme):
    d = specs[H100]
    return figures.occupancy_sawtooth_figure(d, occupancy.occupancy(d, 133), specs[A100], theme)


def _faster_chip(specs, theme):
    d = specs[H100]
    result = pitfalls.faster_chip(d, "bf16", 7e9, 1).result
    return figures.faster_chip_figure(d, "bf16", result, theme)


@functools.cache
def _workloads_page(main, compare):
    """The Workloads page priced for Llama-3.1-8B decode on `main` against `compare`, once."""
    return workloads.page(load_models()["Llama-3.1-8B"], main, compare, workloads.Setup())


def _workloads(specs, theme):
    """The Workloads page's four charts, H100 against A100, Llama-3.1-8B decode."""
    page = _workloads_page(specs[H100], specs[A100])
    return {which: wl.page_figure(page, which, 1, theme) for which in workloads.CHARTS}


@functools.cache
def _plan_views(device):
    """Llama-3.1-8B's training searched on 16 of `device`, Llama-3.1-70B's serving on 8, once."""
    models = load_models()
    trained = plan.train_view(models["Llama-3.1-8B"], device, plan.TrainSetup(16, 4096, 2**21), {})
    served = plan_serve.serve_view(models["Llama-3.1-70B"], device, plan_serve.ServeSetup(), {})
    return trained, served


def precision_charts_draw(device) -> bool:
    """Both Precision charts of `device` draw something."""
    rows = _precision_rows(device)
    roofline = figures.precision_roofline_figure(rows, device, precision.span(rows))
    return bool(
        roofline.data and figures.precision_bars_figure(rows, precision.not_published(rows)).data
    )


def occupancy_charts_draw(device, compare) -> bool:
    """Both Occupancy charts of `device` (the sawtooth beside `compare`'s) draw something."""
    chosen = occupancy.occupancy(device, 133)
    sawtooth = figures.occupancy_sawtooth_figure(device, chosen, compare)
    tiles = figures.tile_efficiency_figure(occupancy.tiles_compared(4096, 4096, device), "128x128")
    return bool(sawtooth.data and tiles.data)


# Every builder, called with a representative input and the theme.
def _plan(specs, theme):
    """The Plan page's charts: Llama-3.1-8B trained on 16 H100s, Llama-3.1-70B served on 8,
    and three published runs (two of them nearest)."""
    trained, served = _plan_views(specs[H100])
    times = (("run a", 1.0, 2.0), ("run b", 3.0, 4.0), ("run c", 0.2, 0.5))
    runs = [
        Sample(SimpleNamespace(name=n, model="M", device="D", gpus=8), "train", n, b, m)
        for n, b, m in times
    ]
    eff = Efficiency("train", 0.6, 3, 2, 0.4, 0.75, None, None)
    return {
        "step_parts_figure": plan_charts.page_figure(trained, plan_charts.STEP, theme),
        "memory_per_gpu_figure": plan_charts.page_figure(trained, plan_charts.MEMORY, theme),
        "frontier_figure": plan_charts.page_figure(served, plan_charts.FRONTIER, theme),
        "published_runs_figure": plan_runs_charts.published_runs_figure(
            runs, runs[:2], [eff], theme
        ),
    }


BUILDERS = {
    "roofline_figure": lambda s, t: figures.roofline_figure(
        s[H100],
        "bf16",
        sample_ops(s[H100]),
        s[A100],
        [MEASURED],
        overhead=[(1, 1e9), (1e3, 1e12)],
        theme=t,
    ),
    "calculator_figure": lambda s, t: calculator_figure(s[H100], "bf16", sample_ops(s[H100])[0], t),
    "ridge_by_year_figure": ridge_chart,
    "growth_figure": lambda s, t: figures.growth_figure(
        growth(s[V100], s[H100], "fp16"), s[V100], s[H100], "fp16", t
    ),
    "hierarchy_figure": lambda s, t: figures.hierarchy_figure(
        hierarchy.hierarchies(s[H100], s[A100], "bf16"), "bandwidth", t
    ),
    "precision_bars_figure": lambda s, t: figures.precision_bars_figure(
        _precision_rows(s[H100]), precision.not_published(_precision_rows(s[H100])), t
    ),
    "precision_roofline_figure": lambda s, t: figures.precision_roofline_figure(
        _precision_rows(s[H100]), s[H100], precision.span(_precision_rows(s[H100])), t
    ),
    "occupancy_sawtooth_figure": _occupancy,
    "tile_efficiency_figure": lambda s, t: figures.tile_efficiency_figure(
        occupancy.tiles_compared(4096, 4096, s[H100]), occupancy.DEFAULT_TILE, t
    ),
    "faster_chip_figure": _faster_chip,
    "scale_out_figure": _scale_out,
    "sweep_figure": lambda s, t: figures.sweep_figure(
        sweep.sweep(RECORDS),
        sweep.overhead_by_n(RECORDS),
        sweep.roof_by_n(RECORDS, s[H100]),
        H100,
        t,
    ),
    "dispatch_figure": lambda s, t: figures.dispatch_figure(clock.dispatch(RECORDS), t),
    "pairs_figure": lambda s, t: figures.pairs_figure(clock.pairs(RECORDS), t),
    "spread_figure": lambda s, t: figures.spread_figure(clock.spread(RECORDS), t),
    "ceilings_figure": lambda s, t: figures.ceilings_figure(
        measured.ceilings(ROOFLINE, s[H100]), H100, t
    ),
    "measured_roofline_figure": lambda s, t: measured_roofline_figure(
        ROOFLINE, [MEASURED], [False], s[H100], "bf16", theme=t
    ),
    "layer_roofline_figure": lambda s, t: _workloads(s, t)[workloads.LAYER],
    "serving_figure": lambda s, t: _workloads(s, t)[workloads.SERVING],
    "memory_figure": lambda s, t: _workloads(s, t)[workloads.MEMORY],
    "time_by_kind_figure": lambda s, t: _workloads(s, t)[workloads.KINDS],
    "profile_roofline_figure": lambda s, t: figures.profile_roofline_figure(
        profile_records(PROFILE), spec_roofs(s[H100]), theme=t
    ),
    "category_figure": lambda s, t: figures.category_figure(
        profile_view.category_times(PROFILE), theme=t
    ),
    "compare_figure": lambda s, t: figures.compare_figure(
        profile_view.compare(PROFILE, PROFILE[:4]), theme=t
    ),
    "predicted_figure": lambda s, t: _predicted(t),
    **{
        name: (lambda s, t, name=name: _plan(s, t)[name])
        for name in (
            "step_parts_figure",
            "memory_per_gpu_figure",
            "frontier_figure",
            "published_runs_figure",
        )
    },
}
