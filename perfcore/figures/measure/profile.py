"""The Profile page's charts: every op on its device's roofline, time by category, the change.

Each op is a point at its intensity and achieved FLOP/s, never clamped to a roof; its
marker's area is its share of the step's op time, and the ops that take most of the time
are named, each label placed beside its point where it meets no other at any width from a
420 px screen's to the main column's (figures.measure.labels). The roofs are the ones the
ops were judged against (perfcore.measure.profile.judge.assess.Roofs): a specs row's or the
measured roofline's, each memory level slanted.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures.chip import style
from perfcore.figures.chip.roofs import X_MAX, X_MIN
from perfcore.figures.chip.style import LIGHT, Theme, base_layout, color, fitted, log_axis
from perfcore.figures.measure import labels
from perfcore.measure.profile.judge.assess import Roofs
from perfcore.measure.profile.judge.records import what
from perfcore.measure.results import Record

MAX_MARKER_PX = 46  # the op taking the whole step; area (not diameter) follows time
MIN_MARKER_PX = 6
NAMED = 6  # the slowest ops named beside their points
HEIGHT = 620


def _size(share: float) -> float:
    """Marker diameter (px) whose area is proportional to share."""
    return max(MIN_MARKER_PX, MAX_MARKER_PX * math.sqrt(max(share, 0.0)))


def _roof_traces(roofs: Roofs, precisions: set[str], theme: Theme) -> list[go.Scatter]:
    """The flat roof of each precision the ops ran at, and each memory level's slant."""
    flats = [(p, v) for p, v in roofs.flops_per_s if p in precisions] or list(roofs.flops_per_s)[:1]
    top = max((v for _, v in flats), default=None)
    traces = [
        go.Scatter(
            x=[X_MIN, X_MAX],
            y=[v, v],
            mode="lines",
            line={"color": color(i), "width": 3},
            name=f"{p} roof {fmt.flops_per_s(v)}",  # whose: the caption above the chart
            hoverinfo="skip",
        )
        for i, (p, v) in enumerate(flats)
    ]
    levels = [(n, bw) for n, _, bw in roofs.levels] or (
        [("memory", roofs.bytes_per_s)] if roofs.bytes_per_s else []
    )
    for i, (name, bw) in enumerate(levels):
        last = i == len(levels) - 1
        traces.append(
            go.Scatter(
                x=[X_MIN, top / bw if top else X_MAX],
                y=[bw * X_MIN, top or bw * X_MAX],
                mode="lines",
                name=f"{name} {fmt.bytes_per_s(bw)}",
                hoverinfo="skip",
                line={"color": theme.ink if last else theme.muted, "width": 2.5 if last else 1.2},
            )
        )
    return traces


def _placed(ops: tuple[Record, ...]) -> list[Record]:
    """The ops a log-log roofline can place: FLOPs, bytes and time all above zero."""
    return [r for r in ops if r.flops and r.bytes and r.measurement.median > 0]


@fitted
def profile_roofline_figure(
    ops: tuple[Record, ...],
    roofs: Roofs | None,
    title: str = "",
    named: int = NAMED,
    theme: Theme = LIGHT,
) -> go.Figure:
    """Log-log roofline of the ops (records of experiment `profile`), area by time, unclamped;
    the `named` slowest ops written beside their points where there is room."""
    total = sum(r.measurement.median for r in ops) or 1.0
    placed = _placed(ops)
    rates = [r.flops / r.measurement.median for r in placed]
    peaks = [v for _, v in roofs.flops_per_s] if roofs else []
    high = 3 * max(rates + peaks, default=1e12)
    low = min([high / 1e6] + [v / 3 for v in rates])
    fig = go.Figure(layout=base_layout(title or "Each op on the roofline", "", "", HEIGHT, theme))
    if roofs is not None:
        fig.add_traces(_roof_traces(roofs, {r.precision for r in placed}, theme))
    categories = list(dict.fromkeys(r.category for r in placed))
    for i, category in enumerate(categories):
        mine = [r for r in placed if r.category == category]
        fig.add_trace(
            go.Scatter(
                x=[r.flops / r.bytes for r in mine],
                y=[r.flops / r.measurement.median for r in mine],
                mode="markers",
                name=f"{category} (measured, median step)",
                text=[what(r) for r in mine],
                marker={
                    "size": [_size(r.measurement.median / total) for r in mine],
                    "color": color(i + 3),
                    "opacity": 0.75,
                    "line": {"width": 1, "color": theme.text},
                },
                customdata=[
                    [r.source, fmt.seconds(r.measurement.median), r.diagnosis] for r in mine
                ],
                hovertemplate="%{text}<br>%{customdata[0]}<br>%{customdata[1]} per step<br>"
                "%{x:.3g} FLOP/byte, %{y:.3s}FLOP/s<br>%{customdata[2]}<extra></extra>",
            )
        )
    fig.update_layout(
        xaxis=log_axis(X_MIN, X_MAX, "arithmetic intensity (FLOP/byte)", theme=theme),
        yaxis=log_axis(low, high, "achieved FLOP/s", fmt.flops_per_s, theme=theme),
    )
    slowest = sorted(placed, key=lambda r: -r.measurement.median)
    marks = [
        (r.flops / r.bytes, r.flops / r.measurement.median, _size(r.measurement.median / total) / 2)
        for r in slowest
    ]
    points = [(x, y, what(r), d) for r, (x, y, d) in zip(slowest[:named], marks, strict=False)]
    return labels.name_points(fig, points, theme, tuple(marks))


@fitted
def category_figure(times: dict[str, float], title: str = "", theme: Theme = LIGHT) -> go.Figure:
    """Horizontal bars: op time per step of each category, largest on top."""
    names, values = list(times)[::-1], list(times.values())[::-1]
    fig = go.Figure(
        layout=base_layout(title or "Time by category", "time per step", "", 320, theme)
    )
    fig.add_trace(
        go.Bar(
            x=values,
            y=names,
            orientation="h",
            marker={"color": color(0)},
            text=[fmt.seconds(v) for v in values],
            textposition="auto",
            name="measured, median step",
            hovertemplate="%{y}: %{text} per step<extra></extra>",
        )
    )
    fig.update_layout(showlegend=False, xaxis=style.TIME_TICKS)
    return fig


@fitted
def compare_figure(table: pd.DataFrame, theme: Theme = LIGHT, limit: int = 10) -> go.Figure:
    """Horizontal bars: the change in time per step of the ops that moved most (after - before)."""
    ops = table.iloc[1:].dropna(subset=["change"])
    ops = ops.reindex(ops["change"].abs().sort_values(ascending=False).index)[:limit][::-1]
    fig = go.Figure(
        layout=base_layout("Change per op, after - before", "time per step", "", 360, theme)
    )
    fig.add_trace(
        go.Bar(
            x=list(ops["change"]),
            y=[f"{o} ({s})" if s else o for o, s in zip(ops["op"], ops["source"], strict=True)],
            orientation="h",
            name="after - before (median steps)",
            marker={"color": [color(2) if c < 0 else color(1) for c in ops["change"]]},
            text=[fmt.seconds(abs(c)) for c in ops["change"]],
            textposition="auto",
            hovertemplate="%{y}: %{x:.3s}s<extra></extra>",
        )
    )
    fig.update_layout(showlegend=False, xaxis=style.TIME_TICKS)
    return fig
