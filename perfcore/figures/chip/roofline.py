"""The roofline chart: roofs from the spec (roofs.py), op points on them, measured points as
measured, the launch-overhead ceiling and the moves from the previous precision."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures.chip.roofs import X_MAX, X_MIN, ridge_trace, roof_traces
from perfcore.figures.chip.style import (
    LABEL_LIMIT,
    LIGHT,
    SECOND_DEVICE_DASH,
    Theme,
    base_layout,
    color,
    fitted,
    log_axis,
    point_labels,
)
from perfcore.measure.results.points import MeasuredPoint, above_roof
from perfcore.model.chip.roofline import Estimate
from perfcore.model.chip.specs import Device

ABOVE_ROOF = "measured, ABOVE its roof: check the precision or the FLOP count"
OVERHEAD = "launch overhead ceiling (measured empty call)"
MOVED = "moved from the previous precision"


def _hover(e: Estimate) -> str:
    """Hover text for a modelled op point."""
    lines = [
        f"<b>{e.cost.name}</b>",
        f"FLOPs {fmt.flops(e.cost.flops)}",
        f"bytes {fmt.traffic(e.cost.bytes)}",
        f"intensity {fmt.intensity(e.intensity)}",
        f"attainable {fmt.flops_per_s(e.attainable_flops_per_s)} ({e.limiter}-bound)",
        f"time floor {fmt.seconds(e.time_floor_s)}",
    ]
    return "<br>".join(lines)


# One marker shape per op, so ops at the same intensity (matvec and batch-1 decode) stay apart.
OP_SYMBOLS = (
    "circle",
    "square",
    "diamond",
    "triangle-up",
    "pentagon",
    "star",
    "hexagon",
    "triangle-down",
    "cross",
)


def op_traces(points: Sequence[Estimate], theme: Theme = LIGHT) -> list[go.Scatter]:
    """Modelled ops, one legend entry each and named beside the marker, on their roof."""
    named = len(points) <= LABEL_LIMIT
    return [
        go.Scatter(
            x=[e.intensity],
            y=[e.attainable_flops_per_s],
            mode="markers+text" if named else "markers",
            text=[e.cost.name] if named else None,
            # Above, then below: ops at one place (mat-vec and batch-1 decode) or on one roof
            # (mat-mul and attention) keep their names apart.
            textposition=("top center", "bottom center")[i % 2],
            cliponaxis=False,  # a name above a point on the top roof stays whole
            marker={
                "size": 12,
                "color": theme.ink,
                "symbol": OP_SYMBOLS[i % len(OP_SYMBOLS)],
                "line": {"color": theme.background, "width": 1},
            },
            name=f"{e.cost.name} (model)",
            hovertext=[_hover(e)],
            hoverinfo="text",
        )
        for i, e in enumerate(points)
    ]


def _measured_hover(m: MeasuredPoint) -> str:
    """Hover text for a measured point: what, how, and its spread."""
    return (
        f"<b>{m.label}</b> (measured on {m.device}, {m.backend})<br>"
        f"{fmt.flops_per_s(m.flops_per_s)} at the median of {m.method}<br>"
        f"spread {fmt.flops_per_s(m.flops_per_s_lo)} – {fmt.flops_per_s(m.flops_per_s_hi)}"
        f"<br>intensity {fmt.intensity(m.intensity)}, {m.precision}"
    )


def measured_traces(
    points: Sequence[MeasuredPoint], above: Sequence[bool], above_name: str
) -> list[go.Scatter]:
    """The points below their roof as squares, those above it as crosses named `above_name`."""
    below = [p for p, up in zip(points, above, strict=True) if not up]
    over = [p for p, up in zip(points, above, strict=True) if up]
    return [
        measured_trace(group, name, symbol)
        for group, name, symbol in (
            (below, "measured (median, min–max bars)", "square"),
            (over, above_name, "x"),
        )
        if group
    ]


def measured_trace(points: Sequence[MeasuredPoint], name: str, symbol: str) -> go.Scatter:
    """Measured points exactly where they were measured, with min/max error bars, named."""
    return go.Scatter(
        x=[m.intensity for m in points],
        y=[m.flops_per_s for m in points],
        **point_labels([m.label for m in points], "middle left"),
        marker={"size": 10, "symbol": symbol, "color": color(1)},
        error_y={
            "type": "data",
            "array": [m.flops_per_s_hi - m.flops_per_s for m in points],
            "arrayminus": [m.flops_per_s - m.flops_per_s_lo for m in points],
        },
        name=name,
        hovertext=[_measured_hover(m) for m in points],
        hoverinfo="text",
    )


def overhead_trace(overhead: Sequence[tuple[float, float]]) -> go.Scatter:
    """The launch-overhead ceiling: (intensity, FLOP/s) a call could reach in one empty call."""
    return go.Scatter(
        x=[i for i, _ in overhead],
        y=[f for _, f in overhead],
        mode="lines",
        name=OVERHEAD,
        line={"color": color(4), "width": 2, "dash": "dash"},
        hovertemplate="FLOPs / measured empty-call time: %{y:.3s}FLOP/s<extra></extra>",
    )


def _at(e: Estimate) -> tuple[float, float]:
    """Where an op point sits: (intensity, attainable FLOP/s)."""
    return e.intensity, e.attainable_flops_per_s


def _moves(previous: Sequence[Estimate], points: Sequence[Estimate]) -> go.Scatter | None:
    """An arrow from each op's place at the previous precision to its place now, all in one
    trace (arrow annotations, one per op, doubled the browser's redraw); None when none moved."""
    moved = [(_at(old), _at(new)) for old, new in zip(previous, points, strict=False) if old != new]
    if not moved:
        return None
    x = [v for (x0, _), (x1, _) in moved for v in (x0, x1, None)]
    y = [v for (_, y0), (_, y1) in moved for v in (y0, y1, None)]
    return go.Scatter(
        x=x,
        y=y,
        mode="lines+markers",
        name=MOVED,
        hoverinfo="skip",
        line={"color": color(6), "width": 1.5},
        marker={
            "symbol": "arrow",
            "angleref": "previous",
            "color": color(6),
            "size": [0, 12, 0] * len(moved),
        },
    )


def _y_range(devices: Sequence[Device], measured: Sequence[MeasuredPoint]) -> tuple[float, float]:
    """A y range from the highest roof down six decades, widened to hold every measured point."""
    tops = [d.peak_flops(p) for d in devices for p in d.published_precisions()]
    high = 3 * max(tops + [m.flops_per_s_hi for m in measured], default=1e15)
    low = min([high / 1e6] + [m.flops_per_s_lo / 2 for m in measured])
    return low, high


@fitted
def roofline_figure(
    device: Device,
    precision: str,
    points: Sequence[Estimate] = (),
    compare: Device | None = None,
    measured: Sequence[MeasuredPoint] = (),
    previous: Sequence[Estimate] = (),
    overhead: Sequence[tuple[float, float]] = (),
    theme: Theme = LIGHT,
    measured_on: Device | None = None,
) -> go.Figure:
    """Log-log roofline of `device` (and `compare`), op points, and measured points unclamped.

    `overhead`: (intensity, FLOP/s) points of the launch-overhead ceiling, drawn dashed.
    `measured_on`: the device the measured points ran on, whose roofs they are held against
    (default `device`; a what-if's points ran on its published row).
    """
    low, high = _y_range([d for d in (device, compare) if d], measured)
    layout = base_layout(f"Roofline — {device.name}", "", "", height=620, theme=theme)
    fig = go.Figure(layout=layout)
    fig.add_traces(roof_traces(device, precision, theme=theme))
    if compare is not None:
        prefix = f"{compare.name}: "
        fig.add_traces(roof_traces(compare, precision, prefix, SECOND_DEVICE_DASH, True, theme))
    ridge = ridge_trace(device, precision, low, theme)
    if ridge is not None:
        fig.add_trace(ridge)
    moves = _moves(previous, points)
    fig.add_traces([moves, *op_traces(points, theme)] if moves else op_traces(points, theme))
    if overhead:
        fig.add_trace(overhead_trace(overhead))
    above = [above_roof(m, measured_on or device) for m in measured]
    fig.add_traces(measured_traces(measured, above, ABOVE_ROOF))
    fig.update_layout(
        xaxis=log_axis(X_MIN, X_MAX, "arithmetic intensity (FLOP/byte)", theme=theme),
        yaxis=log_axis(low, high, "attainable FLOP/s", fmt.flops_per_s, theme=theme),
    )
    return fig
