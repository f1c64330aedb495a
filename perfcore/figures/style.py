"""Shared look: one palette, log axes, and the layout every chart starts from."""

from __future__ import annotations

import math
from collections.abc import Callable

import plotly.graph_objects as go

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#17becf", "#7f7f7f", "#bcbd22")  # fmt: skip
SECOND_DEVICE_DASH = "dash"
GRID = {"gridcolor": "#e5e5e5", "zerolinecolor": "#cccccc", "linecolor": "#999999"}
ESTIMATE_DASH = "dot"


def color(i: int) -> str:
    """The i-th palette colour, cycling."""
    return PALETTE[i % len(PALETTE)]


def base_layout(title: str, x_title: str, y_title: str, height: int = 480) -> go.Layout:
    """Common layout: title, axis titles, legend below, compact margins."""
    return go.Layout(
        title={"text": title, "x": 0.0},
        xaxis={"title": {"text": x_title}, **GRID},
        yaxis={"title": {"text": y_title}, **GRID},
        legend={"orientation": "h", "y": -0.2},
        margin={"l": 60, "r": 20, "t": 50, "b": 40},
        height=height,
        hovermode="closest",
        # template "none" plus the few settings we want: building and serialising a figure
        # with a named template (plotly_white) took 4-7x longer, on every rerun.
        template="none",
        plot_bgcolor="white",
        font={"family": "sans-serif", "size": 13},
    )


def log_axis(low: float, high: float, title: str, label: Callable | None = None) -> dict:
    """A log axis with a fixed range, so it holds still while sliders move.

    With `label` (e.g. format.flops_per_s) each decade is labelled with its unit.
    """
    axis = {"type": "log", "range": [math.log10(low), math.log10(high)],
            "title": {"text": title}, "exponentformat": "SI", **GRID}  # fmt: skip
    if label is not None:
        decades = [10.0**k for k in range(math.ceil(axis["range"][0]), int(axis["range"][1]) + 1)]
        axis |= {"tickvals": decades, "ticktext": [label(v, 1) for v in decades]}
    return axis


def log_arrow(start: tuple[float, float], end: tuple[float, float]) -> dict:
    """An arrow annotation from data point `start` to `end` on log-log axes (log10 coords)."""
    (ax, ay), (x, y) = ([math.log10(v) for v in xy] for xy in (start, end))
    return {"x": x, "y": y, "ax": ax, "ay": ay, "xref": "x", "yref": "y", "axref": "x",
            "ayref": "y", "showarrow": True, "arrowhead": 3, "arrowwidth": 1.5,
            "arrowcolor": "#e377c2"}  # fmt: skip
