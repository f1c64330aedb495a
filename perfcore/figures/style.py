"""Shared look: one palette, log axes, and the layout every chart starts from."""

from __future__ import annotations

import math

import plotly.graph_objects as go

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#17becf", "#7f7f7f", "#bcbd22")  # fmt: skip
SECOND_DEVICE_DASH = "dash"
ESTIMATE_DASH = "dot"


def color(i: int) -> str:
    """The i-th palette colour, cycling."""
    return PALETTE[i % len(PALETTE)]


def base_layout(title: str, x_title: str, y_title: str, height: int = 480) -> go.Layout:
    """Common layout: title, axis titles, legend below, compact margins."""
    return go.Layout(
        title={"text": title, "x": 0.0},
        xaxis={"title": {"text": x_title}},
        yaxis={"title": {"text": y_title}},
        legend={"orientation": "h", "y": -0.2},
        margin={"l": 60, "r": 20, "t": 50, "b": 40},
        height=height,
        hovermode="closest",
        template="plotly_white",
    )


def log_axis(low: float, high: float, title: str) -> dict:
    """A log axis with a fixed range, so it holds still while sliders move."""
    return {"type": "log", "range": [math.log10(low), math.log10(high)],
            "title": {"text": title}, "exponentformat": "SI"}  # fmt: skip
