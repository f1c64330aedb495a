"""The generations charts: ridge point against year with one op's verdict, and growth ratios."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.explain.chip.generations import GenerationRow
from perfcore.figures.chip.style import (
    LIGHT,
    Theme,
    base_layout,
    color,
    fitted,
    log_axis,
    note,
    point_labels,
)
from perfcore.model.chip.generations import Growth, device_ridge
from perfcore.model.chip.ops import Cost
from perfcore.model.chip.specs import Device

# Fixed ranges, so the axes hold still as the op's sizes and the vendor filter change:
# every ridge in data/specs.csv at every precision (8.7 to 1125 FLOP/byte) fits; widened
# only to hold the op's intensity line or an uploaded outlier.
RIDGE_RANGE = (5.0, 3000.0)
YEARS = (2016, 2026)
GROWTH_RANGE = (0.5, 20.0)
BOUND_STYLE = {"compute": (color(2), "circle"), "memory": (color(1), "x")}


def _hover(r: GenerationRow) -> str:
    """Hover text: device, year, ridge (derived from peak and bandwidth), the op's verdict."""
    d, p = r.device, r.point
    return (
        f"<b>{d.name}</b> ({d.year})<br>ridge {fmt.intensity(r.ridge)} = "
        f"{fmt.flops_per_s(p.peak_flops_per_s)} / {fmt.bytes_per_s(p.bytes_per_s)} (specs)"
        f"<br>op {p.limiter}-bound at {fmt.flops_per_s(p.attainable_flops_per_s)}"
    )


def short_name(device: Device) -> str:
    """The device's name without its vendor ('H100 SXM'): a label beside its point."""
    return device.name.removeprefix(f"{device.vendor} ").removeprefix("Instinct ")


def _bound_trace(rows: Sequence[GenerationRow], bound: str, theme: Theme) -> go.Scatter:
    """The devices on which the op is `bound`-bound, at (year, ridge), named when few."""
    shown = [r for r in rows if r.bound == bound]
    fill, symbol = BOUND_STYLE[bound]
    plotted = sum(r.point is not None for r in rows)
    labels = point_labels([short_name(r.device) for r in shown], "middle right", plotted)
    return go.Scatter(
        x=[r.device.year for r in shown],
        y=[r.ridge for r in shown],
        **labels,
        textfont={"size": 10},
        marker={
            "size": 11,
            "color": fill,
            "symbol": symbol,
            "line": {"width": 1, "color": theme.background},
        },
        name=f"{bound}-bound on this op",
        hovertext=[_hover(r) for r in shown],
        hoverinfo="text",
    )


def _op_line(cost: Cost, years: tuple[float, float], theme: Theme) -> go.Scatter:
    """The op's intensity, flat: a device whose ridge sits above it finds the op memory-bound."""
    return go.Scatter(
        x=list(years),
        y=[cost.intensity, cost.intensity],
        mode="lines",
        line={"color": theme.ink, "dash": "dash", "width": 1.5},
        name=f"{cost.name}: {fmt.intensity(cost.intensity)}",
        hovertemplate=f"{cost.name}: {fmt.intensity(cost.intensity)}<extra></extra>",
    )


def _pair_trace(pair: tuple[Device, Device], precision: str) -> go.Scatter | None:
    """A line from the old device's ridge to the new one's; None where either is unpublished."""
    ridges = [device_ridge(d, precision) for d in pair]
    if None in ridges:
        return None
    return go.Scatter(
        x=[d.year for d in pair],
        y=ridges,
        mode="lines+markers+text",
        text=[d.name for d in pair],
        textposition=["bottom center", "top center"],
        marker={"size": 16, "symbol": "circle-open", "color": color(0)},
        line={"color": color(0), "width": 1},
        name=f"growth: {pair[0].name} → {pair[1].name}",
        hoverinfo="skip",
    )


def _ranges(rows: Sequence[GenerationRow], cost: Cost) -> tuple[tuple, tuple]:
    """(year range, ridge range): the fixed ones, widened to hold every device and the op."""
    years = [r.device.year for r in rows]
    ridges = [r.ridge for r in rows if r.ridge is not None] + [cost.intensity]
    x = (min([YEARS[0], *years]) - 0.5, max([YEARS[1], *years]) + 0.5)
    y = (
        min([RIDGE_RANGE[0], *(v / 2 for v in ridges)]),
        max([RIDGE_RANGE[1], *(v * 2 for v in ridges)]),
    )
    return x, y


def _unpublished_note(rows: Sequence[GenerationRow], precision: str, theme: Theme) -> list[dict]:
    """An annotation saying how many devices publish no peak at the precision."""
    missing = sum(r.point is None for r in rows)
    text = f"{fmt.NOT_PUBLISHED} at {precision}, not plotted: {missing} (see the table)"
    return [note(text, 0, 1, theme)] if missing else []


@fitted
def ridge_by_year_figure(
    rows: Sequence[GenerationRow],
    cost: Cost,
    precision: str,
    pair: tuple[Device, Device] | None = None,
    theme: Theme = LIGHT,
) -> go.Figure:
    """Ridge point against year (log y), marked by the op's verdict, with the op's intensity."""
    x, y = _ranges(rows, cost)
    title = f"Ridge point by year at {precision} — and where {cost.name} falls"
    fig = go.Figure(layout=base_layout(title, "release year", "", theme=theme))
    fig.add_traces([_bound_trace(rows, b, theme) for b in BOUND_STYLE])
    fig.add_trace(_op_line(cost, x, theme))
    pair_trace = _pair_trace(pair, precision) if pair else None
    if pair_trace is not None:
        fig.add_trace(pair_trace)
    fig.update_layout(
        xaxis={"range": list(x), "dtick": 1, "title": {"text": "release year"}},
        yaxis=log_axis(*y, f"ridge point at {precision} (FLOP/byte, derived)", theme=theme),
        annotations=_unpublished_note(rows, precision, theme),
    )
    return fig


@fitted
def growth_figure(
    g: Growth | None, old: Device, new: Device, precision: str, theme: Theme = LIGHT
) -> go.Figure:
    """Growth of arithmetic, bandwidth and ridge from old to new (log y, 1x marked)."""
    values = [] if g is None else [g.arithmetic, g.bandwidth, g.ridge]
    title = f"Growth, {old.name} → {new.name}, {precision}"
    fig = go.Figure(layout=base_layout(title, "", "", height=360, theme=theme))
    fig.add_trace(
        go.Bar(
            x=["arithmetic (peak)", "bandwidth", "ridge"][: len(values)],
            y=values,
            text=[fmt.ratio(v) for v in values],
            textposition="outside",
            marker={"color": [color(0), color(2), color(1)][: len(values)]},
            name="new / old",
        )
    )
    low = min([GROWTH_RANGE[0], *(v / 2 for v in values)])
    high = max([GROWTH_RANGE[1], *(v * 2 for v in values)])
    notes = [] if g else [note(f"{fmt.NOT_PUBLISHED} at {precision}", 0.5, 0.5, theme)]
    # A shape, not add_hline: add_hline validates the whole figure again on every rerun.
    same = {
        "type": "line",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "y0": 1,
        "y1": 1,
        "line": {"color": theme.muted, "dash": "dot"},
    }
    fig.update_layout(
        yaxis=log_axis(low, high, "new / old", theme=theme), annotations=notes, shapes=[same]
    )
    return fig
