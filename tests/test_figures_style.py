"""Every chart in the page's theme: background, text and grid from the Theme passed in, no
trace, marker, annotation or shape drawn in the background's colour (it would vanish), and
the points that stand for a device or an op named on the chart where there are few."""

import pytest

import perfcore.figures as figures
from perfcore.figures.chip.generations import short_name
from perfcore.figures.chip.style import DARK, LABEL_LIMIT, LIGHT, THEMES, point_labels
from tests.support.figures import BUILDERS, H100, MEASURED, V100, ridge_chart, sample_ops


def _axes(plotly_json: dict) -> dict:
    """Every x and y axis the figure's layout sets (xaxis, xaxis2, yaxis, ...)."""
    layout = plotly_json["layout"]
    return {k: v for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))}


def _colours(plotly_json: dict) -> list[tuple[str, str]]:
    """(where, colour) of every trace's fill, line and text, every annotation and shape."""
    found = []
    for t in plotly_json["data"]:
        for part in ("marker", "line", "textfont"):
            value = t.get(part, {}).get("color")
            for c in value if isinstance(value, list) else [value]:
                found.append((f"{t.get('name')} {part}", c))
    layout = plotly_json["layout"]
    found += [
        (f"annotation {a.get('text')}", a.get("font", {}).get("color"))
        for a in layout.get("annotations", [])
    ]
    found += [("arrow", a.get("arrowcolor")) for a in layout.get("annotations", [])]
    found += [("shape", s.get("line", {}).get("color")) for s in layout.get("shapes", [])]
    return [(where, c) for where, c in found if c is not None]


def test_every_builder_is_checked_here():
    assert set(figures.__all__) <= set(BUILDERS), set(figures.__all__) - set(BUILDERS)


@pytest.mark.parametrize("name", BUILDERS)
@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_background_text_and_grid_come_from_the_theme(drawn, name, theme):
    fig, plotly_json = drawn(name, theme)
    assert fig.layout.paper_bgcolor == fig.layout.plot_bgcolor == theme.background
    assert fig.layout.font.color == theme.text
    assert fig.layout.modebar.color == theme.muted
    axes = _axes(plotly_json)
    assert axes and all(a.get("gridcolor") == theme.grid for a in axes.values()), axes


@pytest.mark.parametrize("name", BUILDERS)
@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_nothing_is_drawn_in_the_background_colour(drawn, name, theme):
    colours = _colours(drawn(name, theme)[1])
    same = [where for where, c in colours if c.lower() in (theme.background, "white", "#fff")]
    assert not same, f"{name} draws these in the background colour: {same}"


@pytest.mark.parametrize("name", BUILDERS)
def test_light_and_dark_differ_and_neither_uses_the_others_background(drawn, name):
    (light, light_json), (dark, dark_json) = drawn(name, LIGHT), drawn(name, DARK)
    assert light.layout.paper_bgcolor != dark.layout.paper_bgcolor
    dark_colours, light_colours = _colours(dark_json), _colours(light_json)
    assert not [w for w, c in dark_colours if c in (LIGHT.ink, LIGHT.muted, "#000", "black")]
    assert not [w for w, c in light_colours if c in (DARK.ink, DARK.muted)]


def test_themes_are_keyed_by_streamlits_theme_type():
    assert THEMES == {"light": LIGHT, "dark": DARK}


def test_point_labels_write_names_up_to_the_limit_only():
    names = [f"d{i}" for i in range(LABEL_LIMIT)]
    assert point_labels(names) == {
        "mode": "markers+text",
        "text": names,
        "textposition": "top center",
    }
    assert point_labels([*names, "one more"]) == {"mode": "markers"}
    assert point_labels(names[:2], among=LABEL_LIMIT + 1) == {"mode": "markers"}


def test_roofline_ops_and_measured_points_are_named_beside_their_markers(drawn, specs):
    fig = drawn("roofline_figure", LIGHT)[0]
    named = {t.text[0] for t in fig.data if t.mode and "text" in t.mode}
    assert {e.cost.name for e in sample_ops(specs[H100])} | {MEASURED.label} <= named


def test_a_dozen_devices_on_the_ridge_chart_are_named_more_are_left_to_the_hover(specs):
    few = ridge_chart(specs, LIGHT, ["AMD", "Google", "Intel"])
    points = [t for t in few.data if t.name.endswith("-bound on this op")]
    shown = [name for t in points for name in t.text]
    assert "MI300X" in shown and len(shown) == sum(len(t.x) for t in points) <= LABEL_LIMIT
    every = ridge_chart(specs, LIGHT)
    assert sum(len(t.x) for t in every.data if t.name.endswith("on this op")) > LABEL_LIMIT
    assert all(t.mode == "markers" for t in every.data if t.name.endswith("on this op"))
    pair = next(t for t in every.data if t.name.startswith("growth:"))
    assert list(pair.text) == [V100, H100], "the compared pair is named whatever the count"


def test_short_names_drop_the_vendor(specs):
    assert short_name(specs[H100]) == "H100 SXM"
    assert short_name(specs["AMD Instinct MI300X"]) == "MI300X"


@pytest.mark.parametrize(
    "name",
    [
        "scale_out_figure",
        "precision_roofline_figure",
        "faster_chip_figure",
        "occupancy_sawtooth_figure",
    ],
)
def test_every_line_and_point_has_a_legend_entry_or_a_label(drawn, name):
    fig = drawn(name, DARK)[0]
    for t in fig.data:
        assert t.name and (t.showlegend is not False or (t.mode and "text" in t.mode)), t.name


def test_hierarchy_values_sit_above_their_bars_in_the_text_colour(drawn):
    fig = drawn("hierarchy_figure", DARK)[0]
    bars = [t for t in fig.data if t.type == "bar"]
    assert bars and all(t.textposition == "outside" for t in bars)
    assert all(t.textfont.color in (None, DARK.text) for t in bars)
