"""The pitfalls chart: the faster chip as roofline bars (compute roof, memory roof, attainable)."""

from __future__ import annotations

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures.chip.style import LIGHT, Theme, base_layout, color, fitted, log_axis
from perfcore.model.chip.pitfalls import FasterChip
from perfcore.model.chip.specs import Device

CASES = ("today", "2x the arithmetic peak", "2x the memory bandwidth")


def _roofs(device: Device, precision: str, r: FasterChip) -> dict[str, list[float]]:
    """Compute roof, memory roof (intensity x bandwidth) and attainable for each case, FLOP/s."""
    peak, bw, i = device.peak_flops(precision), device.memory_bytes_per_s, r.cost.intensity
    return {
        "compute roof (peak)": [peak, 2 * peak, peak],
        "memory roof (intensity × bandwidth)": [i * bw, i * bw, 2 * i * bw],
        "attainable = min of the two": [r.today[0], r.double_peak[0], r.double_bandwidth[0]],
    }


def _bar(name: str, values: list[float], i: int) -> go.Bar:
    """One group member per case, labelled with its value."""
    text = [fmt.flops_per_s(v) for v in values]
    hover = f"{name}: %{{text}}<extra></extra>"
    return go.Bar(
        x=list(CASES),
        y=values,
        name=name,
        marker={"color": color(i)},
        text=text,
        # Up the inside of each bar: side by side outside, three labels run into each other.
        textposition="inside",
        textangle=-90,
        insidetextanchor="end",
        hovertemplate=hover,
    )


def _not_published(device: Device, fig: go.Figure) -> go.Figure:
    """The empty chart with 'not published' where the bars would be."""
    text = f"{device.name}: {fmt.NOT_PUBLISHED}"
    fig.add_annotation(text=text, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
    return fig


@fitted
def faster_chip_figure(
    device: Device, precision: str, result: FasterChip | None, theme: Theme = LIGHT
) -> go.Figure:
    """Roofs and attainable FLOP/s today, with 2x the peak, and with 2x the bandwidth (log y)."""
    title = f"(1) The faster chip — {device.name}, {precision}"
    fig = go.Figure(layout=base_layout(title, "", "FLOP/s", height=420, theme=theme))
    if result is None:
        return _not_published(device, fig)
    roofs = _roofs(device, precision, result)
    fig.add_traces([_bar(name, values, i) for i, (name, values) in enumerate(roofs.items())])
    # Log y over six decades below 4x the highest roof (room for the labels), so an attainable
    # bar hundreds of times below its compute roof still shows beside it.
    top = 4 * max(max(v) for v in roofs.values())
    y = log_axis(top / 1e6, top, "FLOP/s", fmt.flops_per_s, theme=theme)
    fig.update_layout(barmode="group", yaxis=y)
    return fig
