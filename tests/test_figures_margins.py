"""Margins set before the browser draws (style.fit_margins): room for the tick labels, axis
titles and legend, so that Plotly's automargin does not have to draw a chart twice.

tests/test_browser.py checks the outcome on the live pages (no chart's margins grow at
1400 px); bench/figures.py measures what it saves."""

import plotly.graph_objects as go
import pytest

from perfcore.figures.chip.style import (
    CHAR_PX,
    HALF_WIDTH,
    LEGEND_ROW_PX,
    LIGHT,
    base_layout,
    fit_margins,
    fitted,
)
from tests.support.figures import BUILDERS


def _fig(*traces, x_title="", y_title="", **layout) -> go.Figure:
    fig = go.Figure(list(traces), base_layout("t", x_title, y_title, theme=LIGHT))
    return fig.update_layout(**layout)


def _margins(fig: go.Figure) -> tuple:
    m = fig.layout.margin
    return m.l, m.r, m.t, m.b


@pytest.mark.parametrize("name", BUILDERS)
def test_every_builder_fits_its_margins_and_hangs_its_legend_at_the_foot(drawn, name):
    fig = drawn(name, LIGHT)[0]
    assert (fig.layout.legend.yref, fig.layout.legend.y, fig.layout.legend.yanchor) == (
        "container",
        0,
        "bottom",
    ), fig.layout.legend
    # Fitted already (at its own width, at most the main column's): fitting again at the
    # main column's width changes nothing. Unfitted, base_layout's 40 px bottom would grow.
    before = _margins(fig)
    assert _margins(fit_margins(go.Figure(fig))) == before, f"{name} is not @fitted"


def test_an_estimate_only_widens_a_builders_own_margins():
    fig = _fig(go.Scatter(x=[1, 2], y=[1, 2]), margin={"l": 300, "r": 200, "b": 250})
    assert _margins(fit_margins(fig)) == (300, 200, 50, 250)


def test_the_left_margin_holds_the_longest_tick_label_and_the_title():
    def left(labels, title=""):
        ticks = {"tickvals": list(range(len(labels))), "ticktext": labels}
        return fit_margins(_fig(y_title=title, yaxis=ticks)).layout.margin.l

    assert left(["1", "10"]) == _fig().layout.margin.l  # base_layout's room suffices
    assert left(["1", "100 TFLOP/s"]) >= 11 * CHAR_PX
    assert left(["1", "1000 TFLOP/s"]) - left(["1", "100 TFLOP/s"]) in (7, 8)  # one glyph
    assert left(["1", "100 TFLOP/s"], "FLOP/s") > left(["1", "100 TFLOP/s"])


def test_names_on_a_category_axis_and_a_right_hand_axis_get_their_room():
    bars = go.Bar(x=[1, 2], y=["a very long device name here", "b"], orientation="h")
    assert fit_margins(_fig(bars)).layout.margin.l >= 28 * CHAR_PX
    right = {"overlaying": "y", "side": "right", "title": {"text": "waves"}}
    two = _fig(go.Scatter(y=[1, 2]), go.Scatter(y=[3, 4], yaxis="y2"), yaxis2=right)
    assert fit_margins(two).layout.margin.r > _fig().layout.margin.r


def test_the_bottom_margin_holds_the_x_labels_their_title_and_the_legend_rows():
    one = fit_margins(_fig(go.Scatter(y=[1, 2], name="only")))  # one trace: no legend
    titled = fit_margins(_fig(go.Scatter(y=[1, 2], name="only"), x_title="intensity"))
    traces = [go.Scatter(y=[i, i + 1], name=f"a trace with a long name {i}") for i in range(12)]
    wide, narrow = fit_margins(_fig(*traces)), fit_margins(_fig(*traces), width=HALF_WIDTH)
    assert one.layout.margin.b == 48
    assert titled.layout.margin.b > one.layout.margin.b
    assert wide.layout.margin.b >= one.layout.margin.b + 2 * LEGEND_ROW_PX  # rows of entries
    assert narrow.layout.margin.b > wide.layout.margin.b  # more rows at half width


def test_a_titled_legend_group_adds_its_title_row():
    plain = [go.Scatter(y=[1], name=n, legendgroup="g") for n in ("x", "y")]
    titled = [
        go.Scatter(y=[1], name=n, legendgroup="g", legendgrouptitle={"text": "G"})
        for n in ("x", "y")
    ]
    gap = fit_margins(_fig(*titled)).layout.margin.b - fit_margins(_fig(*plain)).layout.margin.b
    assert gap == LEGEND_ROW_PX


def test_turned_category_labels_are_as_tall_as_the_longest_turned():
    def turned(names):
        return fit_margins(_fig(go.Bar(x=names, y=[1] * len(names)), xaxis={"tickangle": -30}))

    short, long = turned(["a", "b"]), turned(["a", "scale-up link (both directions)"])
    assert long.layout.margin.b - short.layout.margin.b >= 20 * CHAR_PX * 0.5 - 1


def test_fitted_records_the_width_it_fits_for():
    @fitted(width=HALF_WIDTH)
    def half(theme=LIGHT):
        return _fig()

    assert half.fit_width == HALF_WIDTH and fitted(_fig).fit_width > HALF_WIDTH
