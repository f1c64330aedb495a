"""Shared look: one palette, a light and a dark theme, log axes, and the base layout.

Every builder takes `theme` (LIGHT or DARK, chosen by the UI from Streamlit's active
theme) and takes its background, text, grid and neutral ink from it, never a literal.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
)
SECOND_DEVICE_DASH = "dash"
ESTIMATE_DASH = "dot"


@dataclass(frozen=True)
class Theme:
    """The colours a chart takes from the page: background, text, grid and neutral ink."""

    name: str
    background: str
    text: str
    grid: str
    zeroline: str
    axis_line: str
    ink: str  # what would be black on white: the device memory roof, neutral markers
    muted: str  # secondary lines and labels


LIGHT = Theme("light", "#ffffff", "#262730", "#e5e5e5", "#cccccc", "#999999", "#222222", "#888888")
DARK = Theme("dark", "#0e1117", "#fafafa", "#31333f", "#4a4c57", "#808495", "#e8e8e8", "#a0a0a8")
THEMES = {t.name: t for t in (LIGHT, DARK)}
# Up to this many points that each stand for a device or an op carry their name as text;
# past it the names would pile up, and the hover and the table name them instead.
LABEL_LIMIT = 12
# Text sizes for margins set before the browser draws (fit_margins), at font size 13: a
# glyph's mean advance in Chromium's sans-serif is 6.1-7.3 px for labels (8.8 for capitals
# only), a line of axis text with its padding about 20 px. The widths are a chart's in the
# wide layout at 1400 px: the main column's, and one of two columns' (measured: 1010 and 462).
CHAR_PX = 7.5
LINE_PX = 20
LEGEND_ROW_PX = 22  # a legend row (measured 21.4)
LEGEND_PAD_PX = 10  # a horizontal legend's own padding: its rows wrap this much short of the plot
FIT_WIDTH = 1000
HALF_WIDTH = 460
AUTO_TICK_CHARS = 5  # Plotly's own tick labels: '0.25', '100k', '1.5M'
TIME_TICKS = {"tickformat": "~s", "ticksuffix": "s"}  # an axis of seconds: '200µs', '1.5ms'


def grid(theme: Theme) -> dict:
    """Axis grid, zero line and axis line colours for `theme`."""
    return {"gridcolor": theme.grid, "zerolinecolor": theme.zeroline, "linecolor": theme.axis_line}


def point_labels(names: Sequence[str], position: str = "top center", among: int = 0) -> dict:
    """Scatter settings that write each point's name beside it, when there are few enough.

    `among`: how many named points the whole chart has, when more traces than this one do.
    """
    if max(len(names), among) > LABEL_LIMIT:
        return {"mode": "markers"}
    return {"mode": "markers+text", "text": list(names), "textposition": position}


def note(text: str, x: float, y: float, theme: Theme = LIGHT, **kw) -> dict:
    """A muted annotation at paper coordinates (x, y): what is not published, and why."""
    return {
        "text": text,
        "xref": "paper",
        "yref": "paper",
        "x": x,
        "y": y,
        "showarrow": False,
        "font": {"color": theme.muted},
        **kw,
    }


def color(i: int) -> str:
    """The i-th palette colour, cycling."""
    return PALETTE[i % len(PALETTE)]


def translucent(hex_colour: str, alpha: float = 0.15) -> str:
    """A '#rrggbb' colour as 'rgba(r,g,b,alpha)': a shaded range that lets points show through."""
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def base_layout(
    title: str, x_title: str, y_title: str, height: int = 480, theme: Theme = LIGHT
) -> go.Layout:
    """Common layout in `theme`: title, axis titles, legend below, compact margins."""
    return go.Layout(
        title={"text": title, "x": 0.0},
        # automargin: room for long tick labels ('100 TFLOP/s') and the title beside them,
        # where fit_margins' estimate falls short (a narrow screen).
        xaxis={"title": {"text": x_title}, "automargin": True, **grid(theme)},
        yaxis={"title": {"text": y_title}, "automargin": True, **grid(theme)},
        # At the foot of the figure, under the x axis title: a legend that wraps to more rows
        # at 420 px pushes the bottom margin by its own height, never over the axis.
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0},
        margin={"l": 60, "r": 30, "t": 50, "b": 40},
        height=height,
        hovermode="closest",
        # template "none" plus the few settings we want: building and serialising a figure
        # with a named template (plotly_white) took 4-7x longer, on every rerun.
        template="none",
        plot_bgcolor=theme.background,
        paper_bgcolor=theme.background,
        font={"family": "sans-serif", "size": 13, "color": theme.text},
        modebar={"bgcolor": "rgba(0,0,0,0)", "color": theme.muted, "activecolor": theme.text},
    )


def log_axis(
    low: float, high: float, title: str, label: Callable | None = None, theme: Theme = LIGHT
) -> dict:
    """A log axis with a fixed range, so it holds still while sliders move.

    With `label` (e.g. format.flops_per_s) each decade is labelled with its unit.
    """
    axis = {
        "type": "log",
        "range": [math.log10(low), math.log10(high)],
        "title": {"text": title},
        "exponentformat": "SI",
        "automargin": True,
        **grid(theme),
    }
    if label is not None:
        decades = [10.0**k for k in range(math.ceil(axis["range"][0]), int(axis["range"][1]) + 1)]
        axis |= {"tickvals": decades, "ticktext": [label(v, 1) for v in decades]}
    return axis


def log_arrow(start: tuple[float, float], end: tuple[float, float]) -> dict:
    """An arrow annotation from data point `start` to `end` on log-log axes (log10 coords)."""
    (ax, ay), (x, y) = ([math.log10(v) for v in xy] for xy in (start, end))
    return {
        "x": x,
        "y": y,
        "ax": ax,
        "ay": ay,
        "xref": "x",
        "yref": "y",
        "axref": "x",
        "ayref": "y",
        "showarrow": True,
        "arrowhead": 3,
        "arrowwidth": 1.5,
        "arrowcolor": color(6),
    }


def fit_margins(fig: go.Figure, width: int = FIT_WIDTH) -> go.Figure:
    """`fig` with margins that already hold its tick labels, axis titles and legend.

    Plotly's automargin draws a figure, measures what sticks out and, when a margin has to
    grow, draws it all again: every chart here paid that second draw whenever it changed
    (bench/figures.py: the roofline 92 ms left to automargin, 47 ms fitted; most charts
    draw about twice as fast). Margins estimated from the labels' lengths (CHAR_PX, LINE_PX)
    at `width` avoid it; automargin stays as the net where the estimate is short (a phone's
    width). An estimate only ever widens a builder's own margin.
    """
    lay, m = fig.layout, fig.layout.margin
    left, right = max(m.l or 0, _side_px(fig, "left")), max(m.r or 0, _side_px(fig, "right"))
    # The x axis's tick labels, its title, then the legend at the foot, wrapped within the
    # plot's width between the margins it will have.
    bottom = _ticks_px(fig) + (LINE_PX + 4 if _title(lay.xaxis) else 0)
    bottom += _legend_px(fig, width - left - right)
    return fig.update_layout(margin={"l": left, "r": right, "b": max(m.b or 0, bottom)})


def fitted(builder: Callable[..., go.Figure] | None = None, *, width: int = FIT_WIDTH):
    """A figure builder whose figures come out with fit_margins applied at `width` px (the
    main column's; HALF_WIDTH for a chart in one of two columns). As @fitted or
    @fitted(width=...)."""

    def wrap(build_figure: Callable[..., go.Figure]) -> Callable[..., go.Figure]:
        @functools.wraps(build_figure)
        def build(*args, **kw) -> go.Figure:
            return fit_margins(build_figure(*args, **kw), width)

        build.fit_width = width  # what bench/figures.py draws it at
        return build

    return wrap if builder is None else wrap(builder)


def _title(axis) -> bool:
    """Whether the axis has a title to make room for."""
    return bool(axis.title and axis.title.text)


def _axes(fig: go.Figure, letter: str) -> list[tuple]:
    """Each `letter` ('x' or 'y') axis of `fig`, with the text values its traces put on it
    (category names)."""
    found = []
    for name in [k for k in fig.layout if k.startswith(f"{letter}axis")]:
        ref = letter + name[5:]
        on_axis = [t for t in fig.data if (getattr(t, f"{letter}axis", None) or letter) == ref]
        texts = [v for t in on_axis for v in getattr(t, letter, None) or () if isinstance(v, str)]
        found.append((fig.layout[name], texts))
    return found


def _ticks_px(fig: go.Figure) -> int:
    """Height of the x tick labels: 48 px flat; names turned by a set tickangle, as tall as
    the longest (its longest line) turned."""
    px = 48
    for axis, texts in _axes(fig, "x"):
        names = axis.categoryarray or texts
        if not axis.tickangle or not names:
            continue
        chars = max(len(line) for c in names for line in str(c).split("<br>"))
        turned = abs(math.sin(math.radians(axis.tickangle)))
        px = max(px, round(chars * CHAR_PX * turned) + 44)  # + a turned line's height
    return px


def _side_px(fig: go.Figure, side: str) -> int:
    """Room for the widest tick labels and the title of the y axes drawn on `side`."""
    px = 12
    for axis, texts in _axes(fig, "y"):
        if (axis.side or "left") != side or (side == "left" and axis.overlaying):
            continue
        chars = max((len(str(v)) for v in axis.ticktext or texts), default=AUTO_TICK_CHARS)
        px = max(px, round(chars * CHAR_PX) + (LINE_PX + 4 if _title(axis) else 0) + 12)
    return px


def _legend_px(fig: go.Figure, width: float) -> int:
    """Height of the horizontal legend at `width` px: each group's title and rows of entries
    (a swatch and its name), groups 10 px apart."""
    shown = [t for t in fig.data if t.name and t.showlegend is not False]
    if fig.layout.showlegend is False or not shown:
        return 0
    if len(shown) < 2 and fig.layout.showlegend is not True and shown[0].showlegend is not True:
        return 0
    # Entries flow in rows; a group with a title starts its own block under that title.
    groups: dict = {}
    for t in shown:
        groups.setdefault(t.legendgroup if t.legendgrouptitle.text else None, []).append(t)
    px = 10 * len(groups)
    for traces in groups.values():
        rows, used = 1, 0.0
        for t in traces:
            w = 50 + len(t.name) * CHAR_PX  # swatch, gaps, name
            if used and used + w > width - LEGEND_PAD_PX:
                rows, used = rows + 1, 0.0
            used += w
        px += (rows + bool(traces[0].legendgrouptitle.text)) * LEGEND_ROW_PX
    return px
