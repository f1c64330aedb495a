"""Precision charts: peak and time floor per precision, and the matmul on a mini-roofline.

The FP32/FP64 vector path and the tensor path are separate traces (own colour, own
legend entry) in both charts; precisions the device does not publish are marked
"not published" where their bar would stand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.explain.chip.precision import Span
from perfcore.figures.chip.roofs import slanted_roof
from perfcore.figures.chip.style import (
    LIGHT,
    Theme,
    base_layout,
    color,
    fitted,
    grid,
    log_arrow,
    log_axis,
    note,
)
from perfcore.model.chip.precision import PrecisionRow, path
from perfcore.model.chip.specs import PRECISIONS, Device

PATHS = {"vector": "vector path (FP64/FP32 units)", "tensor": "tensor path (matrix units)"}
PATH_COLOR = {"vector": color(1), "tensor": color(0)}
PATH_SYMBOL = {"vector": "square", "tensor": "circle"}
PATH_DASH = {"vector": "dash", "tensor": None}
CATEGORIES = [p.upper() for p in PRECISIONS]
# Fixed intensity range (FLOP/byte): a 1x1x1 FP64 matmul (0.08) to a 2^20-cubed FP4 one
# (1.4e6), so the axes hold still while m, n, k move.
X_MIN, X_MAX = 1e-2, 1e7


def _paths(rows: Sequence[PrecisionRow]) -> list[str]:
    """The paths ('vector', 'tensor') that have at least one published precision."""
    return [kind for kind in PATHS if any(path(r.precision) == kind for r in rows)]


def _hover(r: PrecisionRow) -> str:
    """Hover text for one precision: spec peak, then what was derived from it."""
    return "<br>".join(
        [
            f"<b>{r.label}</b> ({path(r.precision)} path)",
            f"peak {fmt.flops_per_s(r.peak_flops_per_s, 4)} (published spec)",
            f"{r.bytes_per_element:g} bytes/element, {fmt.traffic(r.cost.bytes, 4)} moved",
            f"intensity {fmt.intensity(r.cost.intensity)}, ridge {fmt.intensity(r.ridge)}",
            f"{r.limiter}-bound, time floor {fmt.seconds(r.time_floor_s)} (derived)",
        ]
    )


@dataclass(frozen=True)
class _Panel:
    """One half of the bar chart: its axes' suffix and place, what its bars measure."""

    axis: str
    domain: tuple[float, float]
    title: str
    y_title: str
    value: Callable[[PrecisionRow], float]
    label: Callable[[float], str]


PEAK = _Panel(
    "",
    (0.0, 0.45),
    "peak (published spec)",
    "FLOP/s",
    lambda r: r.peak_flops_per_s,
    fmt.flops_per_s,
)
TIME_FLOOR = _Panel(
    "2",
    (0.55, 1.0),
    "time floor of the matmul (derived)",
    "seconds",
    lambda r: r.time_floor_s,
    fmt.seconds,
)
PANELS = (PEAK, TIME_FLOOR)


def _bars(rows: Sequence[PrecisionRow], kind: str, panel: _Panel) -> go.Bar:
    """One path's bars in one panel, each labelled with its value."""
    mine = [r for r in rows if path(r.precision) == kind]
    return go.Bar(
        x=[r.precision.upper() for r in mine],
        y=[panel.value(r) for r in mine],
        xaxis=f"x{panel.axis}",
        yaxis=f"y{panel.axis}",
        text=[panel.label(panel.value(r)) for r in mine],
        # Vertical labels inside the bars: eight horizontal '1.98 PFLOP/s' overlap.
        textposition="inside",
        textangle=-90,
        insidetextanchor="start",
        name=PATHS[kind],
        legendgroup=kind,
        showlegend=panel is PANELS[0],
        marker={"color": PATH_COLOR[kind]},
        hovertext=[_hover(r) for r in mine],
        hoverinfo="text",
    )


def _not_published(missing: Sequence[str], axis: str, theme: Theme) -> list[dict]:
    """A 'not published' label at each missing precision's place on one panel."""
    style = {
        "textangle": -90,
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"color": theme.muted},
    }
    yref = f"y{axis[1:]} domain"
    return [
        {"x": p.upper(), "y": 0.02, "xref": axis, "yref": yref, "text": fmt.NOT_PUBLISHED, **style}
        for p in missing
    ]


def _log_range(rows: Sequence[PrecisionRow], value) -> list[float] | None:
    """log10 axis range from a third of the lowest to 3x the highest bar."""
    values = [value(r) for r in rows]
    if not values:
        return None
    return [math.log10(min(values) / 3), math.log10(max(values) * 3)]


def _panel_axes(rows: Sequence[PrecisionRow], panel: _Panel, theme: Theme) -> dict:
    """One panel's x axis (every precision keeps its place) and log y axis."""
    n = panel.axis
    x = {"domain": list(panel.domain), "anchor": f"y{n}", "type": "category", **grid(theme)}
    order = {"categoryorder": "array", "categoryarray": CATEGORIES}
    y = {"anchor": f"x{n}", "type": "log", "exponentformat": "SI", **grid(theme)}
    y |= {"title": {"text": panel.y_title}, "range": _log_range(rows, panel.value)}
    return {f"xaxis{n}": x | order, f"yaxis{n}": y}


def _panel_title(panel: _Panel) -> dict:
    """A panel's title above its middle."""
    middle = sum(panel.domain) / 2
    place = {"xref": "paper", "yref": "paper", "yanchor": "bottom", "showarrow": False}
    return {"text": panel.title, "x": middle, "y": 1.0, **place}


@fitted
def precision_bars_figure(
    rows: Sequence[PrecisionRow], missing: Sequence[str], theme: Theme = LIGHT
) -> go.Figure:
    """Peak FLOP/s (spec) and time floor (derived) per precision, log y, vector vs tensor."""
    layout = base_layout("Peak and time floor per precision", "", "", theme=theme)
    fig = go.Figure(layout=layout)
    fig.add_traces([_bars(rows, kind, panel) for panel in PANELS for kind in _paths(rows)])
    # Log y: peaks span 30x within one device and the time floor decades across sizes. The
    # peak axis depends on the device only, so it holds still as m, n, k move; the time floor
    # follows the data, because one fixed range over every size would flatten the bars.
    axes = {k: v for panel in PANELS for k, v in _panel_axes(rows, panel, theme).items()}
    notes = [n for panel in PANELS for n in _not_published(missing, f"x{panel.axis}", theme)]
    titles = [_panel_title(panel) for panel in PANELS]
    fig.update_layout(**axes, annotations=titles + notes)
    return fig


def _flat_roof(r: PrecisionRow) -> go.Scatter:
    """The compute roof of one precision, from its ridge to the right edge (two points)."""
    kind = path(r.precision)
    return go.Scatter(
        x=[r.ridge, X_MAX],
        y=[r.peak_flops_per_s, r.peak_flops_per_s],
        mode="lines",
        name=f"{r.precision.upper()} roof {fmt.flops_per_s(r.peak_flops_per_s)} (spec)",
        legendgroup=kind,
        legendgrouptitle={"text": PATHS[kind]},
        line={"color": color(PRECISIONS.index(r.precision)), "dash": PATH_DASH[kind]},
        hovertemplate=f"{r.label} peak (published spec)<extra></extra>",
    )


def _at(r: PrecisionRow) -> tuple[float, float]:
    """Where a row's point sits: (intensity, attainable)."""
    return r.cost.intensity, r.attainable_flops_per_s


def _labels(rows: Sequence[PrecisionRow]) -> list[str]:
    """A label per point; points at the same place share one label ('FP8 = INT8')."""
    place: dict[tuple[float, float], list[str]] = {}
    for r in rows:
        place.setdefault(_at(r), []).append(r.precision.upper())
    first = [place[_at(r)][0] == r.precision.upper() for r in rows]
    return [" = ".join(place[_at(r)]) if f else "" for r, f in zip(rows, first, strict=True)]


def _points(rows: Sequence[PrecisionRow], kind: str) -> go.Scatter:
    """The matmul at each precision of one path, on its roof at (intensity, attainable)."""
    mine = [r for r in rows if path(r.precision) == kind]
    return go.Scatter(
        x=[r.cost.intensity for r in mine],
        y=[r.attainable_flops_per_s for r in mine],
        mode="markers+text",
        text=_labels(mine),
        textposition="middle right",
        name=f"matmul, {PATHS[kind]}",
        marker={"size": 11, "color": PATH_COLOR[kind], "symbol": PATH_SYMBOL[kind]},
        hovertext=[_hover(r) for r in mine],
        hoverinfo="text",
    )


def _empty(fig: go.Figure, device: Device, theme: Theme) -> go.Figure:
    """The chart's place, saying that nothing is published."""
    text = f"{device.name}: peak or memory bandwidth {fmt.NOT_PUBLISHED}"
    return fig.update_layout(annotations=[note(text, 0.5, 0.5, theme)])


@fitted
def precision_roofline_figure(
    rows: Sequence[PrecisionRow],
    device: Device,
    span: Span | None = None,
    theme: Theme = LIGHT,
) -> go.Figure:
    """Mini log-log roofline: a roof per precision, the matmul on each, widest -> narrowest."""
    title = f"One matmul, every precision — {device.name}"
    fig = go.Figure(layout=base_layout(title, "", "", height=600, theme=theme))
    if not rows:
        return _empty(fig, device, theme)
    top = max(r.peak_flops_per_s for r in rows)
    low = min([top / 1e5] + [r.attainable_flops_per_s / 2 for r in rows])
    memory = slanted_roof("device memory", device.memory_bytes_per_s, top, True, "", None, theme)
    fig.add_trace(memory)
    fig.add_traces([_flat_roof(r) for r in rows])
    fig.add_traces([_points(rows, kind) for kind in _paths(rows)])
    moves = span is not None and span.widest is not span.narrowest
    arrows = [log_arrow(_at(span.widest), _at(span.narrowest))] if moves else []
    fig.update_layout(
        xaxis=log_axis(X_MIN, X_MAX, "arithmetic intensity (FLOP/byte)", theme=theme),
        yaxis=log_axis(low, 3 * top, "attainable FLOP/s", fmt.flops_per_s, theme=theme),
        annotations=arrows,
        # A click on an entry hides that roof alone, not its whole group (vector, tensor).
        legend={"groupclick": "toggleitem"},
    )
    return fig
