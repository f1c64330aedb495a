"""Shared look: one palette, a light and a dark theme, log axes, and the base layout.

Every builder takes `theme` (LIGHT or DARK, chosen by the UI from Streamlit's active
theme) and takes its background, text, grid and neutral ink from it, never a literal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#17becf", "#7f7f7f", "#bcbd22")  # fmt: skip
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
    return {"text": text, "xref": "paper", "yref": "paper", "x": x, "y": y, "showarrow": False,
            "font": {"color": theme.muted}, **kw}  # fmt: skip


def color(i: int) -> str:
    """The i-th palette colour, cycling."""
    return PALETTE[i % len(PALETTE)]


def base_layout(
    title: str, x_title: str, y_title: str, height: int = 480, theme: Theme = LIGHT
) -> go.Layout:
    """Common layout in `theme`: title, axis titles, legend below, compact margins."""
    return go.Layout(
        title={"text": title, "x": 0.0},
        # automargin: room for long tick labels ('100 TFLOP/s') and the title beside them.
        xaxis={"title": {"text": x_title}, "automargin": True, **grid(theme)},
        yaxis={"title": {"text": y_title}, "automargin": True, **grid(theme)},
        # Below the x axis title, hanging from its top: a legend that wraps to more rows at
        # 420 px grows downwards, never over the axis.
        legend={"orientation": "h", "yanchor": "top", "y": -0.2},
        margin={"l": 60, "r": 20, "t": 50, "b": 40},
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
    axis = {"type": "log", "range": [math.log10(low), math.log10(high)],
            "title": {"text": title}, "exponentformat": "SI", "automargin": True,
            **grid(theme)}  # fmt: skip
    if label is not None:
        decades = [10.0**k for k in range(math.ceil(axis["range"][0]), int(axis["range"][1]) + 1)]
        axis |= {"tickvals": decades, "ticktext": [label(v, 1) for v in decades]}
    return axis


def log_arrow(start: tuple[float, float], end: tuple[float, float]) -> dict:
    """An arrow annotation from data point `start` to `end` on log-log axes (log10 coords)."""
    (ax, ay), (x, y) = ([math.log10(v) for v in xy] for xy in (start, end))
    return {"x": x, "y": y, "ax": ax, "ay": ay, "xref": "x", "yref": "y", "axref": "x",
            "ayref": "y", "showarrow": True, "arrowhead": 3, "arrowwidth": 1.5,
            "arrowcolor": color(6)}  # fmt: skip
