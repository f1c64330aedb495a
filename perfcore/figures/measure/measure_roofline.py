"""The measured roofline: this device's own roofs, the spec row's beside them, measured points.

The roofs are perfcore.measure.results.empirical's MeasuredRoofline, drawn as they are.
Measured roofs are solid and named "measured ceiling"; a spec row's roofs (drawn only when
one applies) are dashed and named with the row. Points sit where they were measured, never
clamped; a point above the roof it is judged against is drawn as an x and says so.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures.chip.roofline import measured_traces, overhead_trace
from perfcore.figures.chip.roofs import X_MAX, X_MIN, roof_traces
from perfcore.figures.chip.style import (
    LIGHT,
    SECOND_DEVICE_DASH,
    Theme,
    base_layout,
    color,
    fitted,
    log_axis,
)
from perfcore.measure.results.empirical import MeasuredLevel, MeasuredRoofline, Roof
from perfcore.measure.results.points import MeasuredPoint
from perfcore.model.chip.specs import Device

MEASURED = "measured ceiling"
ABOVE = "measured, ABOVE the roof it is judged against: check the precision or the FLOP count"


def _flat(roof: Roof, start: float, i: int) -> go.Scatter:
    """A measured compute roof, from where the fastest memory roof meets it to the right edge."""
    value = roof.flops_per_s
    return go.Scatter(
        x=[start, X_MAX],
        y=[value, value],
        mode="lines",
        name=f"{MEASURED}: {roof.name} {fmt.flops_per_s(value)} ({roof.label})",
        line={"color": color(i), "width": 3},
        hovertemplate=f"{roof.name}, {MEASURED}: {fmt.flops_per_s(value)}<extra></extra>",
    )


def _slanted(level: MeasuredLevel, top: float, first: bool, theme: Theme) -> go.Scatter:
    """A measured memory roof: bandwidth x intensity, up to the highest compute roof."""
    value = level.bytes_per_s
    return go.Scatter(
        x=[X_MIN, top / value],
        y=[value * X_MIN, top],
        mode="lines",
        name=f"{MEASURED}: {level.name} {fmt.bytes_per_s(value)} ({level.label})",
        line={"color": theme.ink if first else theme.muted, "width": 2.5 if first else 1.5},
        hovertemplate=f"{level.name}, {MEASURED}: {fmt.bytes_per_s(value)} × intensity"
        "<extra></extra>",
    )


def measured_roof_traces(roofline: MeasuredRoofline, theme: Theme = LIGHT) -> list[go.Scatter]:
    """Flat roofs per precision and slanted roofs per memory level, all measured."""
    compute, memory = roofline.roofs, roofline.levels
    top = max((r.flops_per_s for r in compute), default=None)
    fastest = max((lv.bytes_per_s for lv in memory), default=None)
    flats = [
        _flat(r, r.flops_per_s / fastest if fastest else X_MIN, i) for i, r in enumerate(compute)
    ]
    if top is None:
        return flats
    return flats + [_slanted(lv, top, i == len(memory) - 1, theme) for i, lv in enumerate(memory)]


def _y_range(
    compute: Sequence[Roof], spec: Device | None, points: Sequence[MeasuredPoint]
) -> tuple[float, float]:
    """From the highest roof or point down six decades, widened to hold every point."""
    tops = [r.flops_per_s for r in compute] + [p.flops_per_s_hi for p in points]
    tops += [spec.peak_flops(p) for p in spec.published_precisions()] if spec else []
    high = 3 * max(tops, default=1e12)
    return min([high / 1e6] + [p.flops_per_s_lo / 2 for p in points]), high


@fitted
def measured_roofline_figure(
    roofline: MeasuredRoofline,
    points: Sequence[MeasuredPoint] = (),
    above: Sequence[bool] = (),
    spec: Device | None = None,
    precision: str = "",
    overhead: Sequence[tuple[float, float]] = (),
    title: str = "",
    theme: Theme = LIGHT,
) -> go.Figure:
    """Log-log measured roofline, the spec row's roofs (if any) dashed, points unclamped.

    `above[i]` is True when points[i] sits above the roof it is judged against.
    """
    low, high = _y_range(roofline.roofs, spec, points)
    layout = base_layout(title or "Measured roofline", "", "", height=620, theme=theme)
    fig = go.Figure(layout=layout)
    fig.add_traces(measured_roof_traces(roofline, theme))
    if spec is not None:
        prefix = f"{spec.name} (published spec): "
        fig.add_traces(roof_traces(spec, precision, prefix, SECOND_DEVICE_DASH, True, theme))
    if overhead:
        fig.add_trace(overhead_trace(overhead))
    fig.add_traces(measured_traces(points, list(above) or [False] * len(points), ABOVE))
    fig.update_layout(
        xaxis=log_axis(X_MIN, X_MAX, "arithmetic intensity (FLOP/byte)", theme=theme),
        yaxis=log_axis(low, high, "attainable FLOP/s", fmt.flops_per_s, theme=theme),
    )
    return fig
