"""Every chart in the page's theme: background, text and grid from the Theme passed in, no
trace, marker, annotation or shape drawn in the background's colour (it would vanish), and
the points that stand for a device or an op named on the chart where there are few."""

from pathlib import Path

import pytest
from measured import seed_records

import perfcore.figures as figures
from perfcore.explain import generations as gen
from perfcore.explain import hierarchy, occupancy, pitfalls, precision, scale_out, workloads
from perfcore.explain import measure_clock as clock
from perfcore.explain import measure_roofline as measured
from perfcore.explain import measure_sweep as sweep
from perfcore.explain import profile as profile_view
from perfcore.figures import workloads as wl
from perfcore.figures.generations import short_name
from perfcore.figures.home import calculator_figure
from perfcore.figures.measure_roofline import measured_roofline_figure
from perfcore.figures.style import DARK, LABEL_LIMIT, LIGHT, THEMES, point_labels
from perfcore.measure.empirical import measured_roofline
from perfcore.measure.points import MeasuredPoint
from perfcore.measure.profile_assess import spec_roofs
from perfcore.measure.profile_records import profile_records
from perfcore.measure.results import load_results
from perfcore.model import ops
from perfcore.model.generations import growth
from perfcore.model.models import load_models
from perfcore.model.roofline import estimate

H100, A100, V100 = "NVIDIA H100 SXM", "NVIDIA A100 SXM4 80GB", "NVIDIA V100 SXM2"
RECORDS = seed_records()
PROFILE = load_results(Path(__file__).parent / "data" / "profile" / "mlp_profile.json")
MEASURED = MeasuredPoint("matmul 4096", 1.4e11, 1e8, 2e-3, 7e13, 6.4e13, 7.8e13, 5e10, "bf16",
                         "isolated calls, min", "test device", "gpu")  # fmt: skip
ROOFLINE = measured_roofline(RECORDS)


def _ops(d):
    """Three catalog ops on device d at bf16."""
    costs = [ops.matmul(4096, 4096, 4096), ops.decode_step(7e9, 1), ops.elementwise_add(1 << 24)]
    return [estimate(d.peak_flops("bf16"), d.memory_bytes_per_s, c) for c in costs]


def _generations(specs, theme, vendors=None):
    cost = gen.op_cost("attention", "fp16", {"seq": 512, "d_head": 64})
    rows = gen.rows(specs, vendors or gen.vendors(specs), "fp16", cost)
    return figures.ridge_by_year_figure(rows, cost, "fp16", (specs[V100], specs[H100]), theme)


def _precision_rows(d):
    from perfcore.model.precision import matmul_sweep

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


def _workloads(specs, theme):
    """The Workloads page's four charts, H100 against A100, Llama-3.1-8B decode."""
    model = load_models()["Llama-3.1-8B"]
    page = workloads.page(model, specs[H100], specs[A100], workloads.Setup())
    return {which: wl.page_figure(page, which, 1, theme) for which in workloads.CHARTS}


# Every builder, called with a representative input and the theme.
BUILDERS = {
    "roofline_figure": lambda s, t: figures.roofline_figure(
        s[H100],
        "bf16",
        _ops(s[H100]),
        s[A100],
        [MEASURED],
        overhead=[(1, 1e9), (1e3, 1e12)],
        theme=t,
    ),  # fmt: skip
    "calculator_figure": lambda s, t: calculator_figure(s[H100], "bf16", _ops(s[H100])[0], t),
    "ridge_by_year_figure": _generations,
    "growth_figure": lambda s, t: figures.growth_figure(
        growth(s[V100], s[H100], "fp16"), s[V100], s[H100], "fp16", t
    ),  # fmt: skip
    "hierarchy_figure": lambda s, t: figures.hierarchy_figure(
        hierarchy.hierarchies(s[H100], s[A100], "bf16"), "bandwidth", t
    ),  # fmt: skip
    "precision_bars_figure": lambda s, t: figures.precision_bars_figure(
        _precision_rows(s[H100]), precision.not_published(_precision_rows(s[H100])), t
    ),  # fmt: skip
    "precision_roofline_figure": lambda s, t: figures.precision_roofline_figure(
        _precision_rows(s[H100]), s[H100], precision.span(_precision_rows(s[H100])), t
    ),  # fmt: skip
    "occupancy_sawtooth_figure": _occupancy,
    "tile_efficiency_figure": lambda s, t: figures.tile_efficiency_figure(
        occupancy.tiles_compared(4096, 4096, s[H100]), occupancy.DEFAULT_TILE, t
    ),  # fmt: skip
    "faster_chip_figure": _faster_chip,
    "scale_out_figure": _scale_out,
    "sweep_figure": lambda s, t: figures.sweep_figure(
        sweep.sweep(RECORDS),
        sweep.overhead_by_n(RECORDS),
        sweep.roof_by_n(RECORDS, s[H100]),
        H100,
        t,
    ),  # fmt: skip
    "dispatch_figure": lambda s, t: figures.dispatch_figure(clock.dispatch(RECORDS), t),
    "pairs_figure": lambda s, t: figures.pairs_figure(clock.pairs(RECORDS), t),
    "spread_figure": lambda s, t: figures.spread_figure(clock.spread(RECORDS), t),
    "ceilings_figure": lambda s, t: figures.ceilings_figure(
        measured.ceilings(ROOFLINE, s[H100]), H100, t
    ),  # fmt: skip
    "measured_roofline_figure": lambda s, t: measured_roofline_figure(
        ROOFLINE, [MEASURED], [False], s[H100], "bf16", theme=t
    ),  # fmt: skip
    "layer_roofline_figure": lambda s, t: _workloads(s, t)[workloads.LAYER],
    "serving_figure": lambda s, t: _workloads(s, t)[workloads.SERVING],
    "memory_figure": lambda s, t: _workloads(s, t)[workloads.MEMORY],
    "time_by_kind_figure": lambda s, t: _workloads(s, t)[workloads.KINDS],
    "profile_roofline_figure": lambda s, t: figures.profile_roofline_figure(
        profile_records(PROFILE), spec_roofs(s[H100]), theme=t
    ),  # fmt: skip
    "category_figure": lambda s, t: figures.category_figure(
        profile_view.category_times(PROFILE), theme=t
    ),  # fmt: skip
    "compare_figure": lambda s, t: figures.compare_figure(
        profile_view.compare(PROFILE, PROFILE[:4]), theme=t
    ),  # fmt: skip
}


def _axes(fig):
    """Every x and y axis the figure's layout sets (xaxis, xaxis2, yaxis, ...)."""
    layout = fig.to_plotly_json()["layout"]
    return {k: v for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))}


def _colours(fig) -> list[tuple[str, str]]:
    """(where, colour) of every trace's fill, line and text, every annotation and shape."""
    found = []
    for t in fig.to_plotly_json()["data"]:
        for part in ("marker", "line", "textfont"):
            value = t.get(part, {}).get("color")
            for c in value if isinstance(value, list) else [value]:
                found.append((f"{t.get('name')} {part}", c))
    layout = fig.to_plotly_json()["layout"]
    found += [(f"annotation {a.get('text')}", a.get("font", {}).get("color"))
              for a in layout.get("annotations", [])]  # fmt: skip
    found += [("arrow", a.get("arrowcolor")) for a in layout.get("annotations", [])]
    found += [("shape", s.get("line", {}).get("color")) for s in layout.get("shapes", [])]
    return [(where, c) for where, c in found if c is not None]


def test_every_builder_is_checked_here():
    assert set(figures.__all__) <= set(BUILDERS), set(figures.__all__) - set(BUILDERS)


@pytest.mark.parametrize("name", BUILDERS)
@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_background_text_and_grid_come_from_the_theme(specs, name, theme):
    fig = BUILDERS[name](specs, theme)
    assert fig.layout.paper_bgcolor == fig.layout.plot_bgcolor == theme.background
    assert fig.layout.font.color == theme.text
    assert fig.layout.modebar.color == theme.muted
    axes = _axes(fig)
    assert axes and all(a.get("gridcolor") == theme.grid for a in axes.values()), axes


@pytest.mark.parametrize("name", BUILDERS)
@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_nothing_is_drawn_in_the_background_colour(specs, name, theme):
    colours = _colours(BUILDERS[name](specs, theme))
    same = [where for where, c in colours if c.lower() in (theme.background, "white", "#fff")]
    assert not same, f"{name} draws these in the background colour: {same}"


@pytest.mark.parametrize("name", BUILDERS)
def test_light_and_dark_differ_and_neither_uses_the_others_background(specs, name):
    light, dark = (BUILDERS[name](specs, t) for t in (LIGHT, DARK))
    assert light.layout.paper_bgcolor != dark.layout.paper_bgcolor
    assert not [w for w, c in _colours(dark) if c in (LIGHT.ink, LIGHT.muted, "#000", "black")]
    assert not [w for w, c in _colours(light) if c in (DARK.ink, DARK.muted)]


def test_themes_are_keyed_by_streamlits_theme_type():
    assert THEMES == {"light": LIGHT, "dark": DARK}


def test_point_labels_write_names_up_to_the_limit_only():
    names = [f"d{i}" for i in range(LABEL_LIMIT)]
    assert point_labels(names) == {"mode": "markers+text", "text": names,
                                   "textposition": "top center"}  # fmt: skip
    assert point_labels([*names, "one more"]) == {"mode": "markers"}
    assert point_labels(names[:2], among=LABEL_LIMIT + 1) == {"mode": "markers"}


def test_roofline_ops_and_measured_points_are_named_beside_their_markers(specs):
    fig = BUILDERS["roofline_figure"](specs, LIGHT)
    named = {t.text[0] for t in fig.data if t.mode and "text" in t.mode}
    assert {e.cost.name for e in _ops(specs[H100])} | {MEASURED.label} <= named


def test_a_dozen_devices_on_the_ridge_chart_are_named_more_are_left_to_the_hover(specs):
    few = _generations(specs, LIGHT, ["AMD", "Google", "Intel"])
    points = [t for t in few.data if t.name.endswith("-bound on this op")]
    shown = [name for t in points for name in t.text]
    assert "MI300X" in shown and len(shown) == sum(len(t.x) for t in points) <= LABEL_LIMIT
    every = _generations(specs, LIGHT)
    assert sum(len(t.x) for t in every.data if t.name.endswith("on this op")) > LABEL_LIMIT
    assert all(t.mode == "markers" for t in every.data if t.name.endswith("on this op"))
    pair = next(t for t in every.data if t.name.startswith("growth:"))
    assert list(pair.text) == [V100, H100], "the compared pair is named whatever the count"


def test_short_names_drop_the_vendor(specs):
    assert short_name(specs[H100]) == "H100 SXM"
    assert short_name(specs["AMD Instinct MI300X"]) == "MI300X"


@pytest.mark.parametrize("name", ["scale_out_figure", "precision_roofline_figure",
                                  "faster_chip_figure", "occupancy_sawtooth_figure"])  # fmt: skip
def test_every_line_and_point_has_a_legend_entry_or_a_label(specs, name):
    fig = BUILDERS[name](specs, DARK)
    for t in fig.data:
        assert t.name and (t.showlegend is not False or (t.mode and "text" in t.mode)), t.name


def test_hierarchy_values_sit_above_their_bars_in_the_text_colour(specs):
    fig = BUILDERS["hierarchy_figure"](specs, DARK)
    bars = [t for t in fig.data if t.type == "bar"]
    assert bars and all(t.textposition == "outside" for t in bars)
    assert all(t.textfont.color in (None, DARK.text) for t in bars)
