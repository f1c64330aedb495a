"""The scale-out chart: each all-reduce leg's time, and the total, against the node count."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.explain.llm.scale_out import LADDER, AllReduce
from perfcore.figures.chip.style import (
    LIGHT,
    SECOND_DEVICE_DASH,
    TIME_TICKS,
    Theme,
    base_layout,
    color,
    fitted,
    log_axis,
)


def _hover(r: AllReduce) -> str:
    """Hover text for one node count: both legs, the total and the network's share."""
    share = fmt.percent(r.network_share, 2) if r.setup.nodes > 1 else "no network leg"
    return (
        f"<b>{r.setup.nodes} nodes × {r.setup.gpus_per_node} GPUs</b><br>"
        f"in-node leg {fmt.traffic(r.intra.bytes_per_gpu)}/GPU, {fmt.seconds(r.intra.seconds)}<br>"
        f"network leg {fmt.traffic(r.inter.bytes_per_gpu)}/GPU, {fmt.seconds(r.inter.seconds)}<br>"
        f"all-reduce {fmt.seconds(r.seconds)}, {share} on the network"
    )


def _line(rows: Sequence[AllReduce], values: list, name: str, i: int, **line) -> go.Scatter:
    """One time-against-nodes line; its hover gives this line's time."""
    return go.Scatter(
        x=[r.setup.nodes for r in rows],
        y=values,
        mode="lines",
        name=name,
        line={"color": color(i), **line},
        hovertemplate=f"{name}: %{{y:.3s}}s at %{{x}} nodes<extra></extra>",
    )


def _intra_trace(rows: Sequence[AllReduce]) -> go.Scatter:
    """The in-node leg: the same at every node count, so two points (first and last)."""
    ends = [rows[0], rows[-1]]
    return _line(ends, [r.intra.seconds for r in ends], "in-node leg (scale-up)", 0)


def _inter_trace(rows: Sequence[AllReduce]) -> go.Scatter:
    """The network leg, from one node (no leg, 0 s) up."""
    return _line(rows, [r.inter.seconds for r in rows], "network leg (scale-out)", 1)


def _total_trace(rows: Sequence[AllReduce], prefix: str = "", dash=None) -> go.Scatter:
    """The whole all-reduce, the legs one after the other; its hover tells the whole story."""
    name = f"{prefix}all-reduce (total)"
    trace = _line(rows, [r.seconds for r in rows], name, 3 if prefix else 2, width=3, dash=dash)
    return trace.update(hovertemplate=None, hovertext=[_hover(r) for r in rows], hoverinfo="text")


def _chosen_trace(chosen: AllReduce, theme: Theme) -> go.Scatter | None:
    """A marker at the chosen node count on the total; None where the total is not published."""
    if chosen.seconds is None:
        return None
    share = f" ({fmt.percent(chosen.network_share, 2)} on the network)"
    return go.Scatter(
        x=[chosen.setup.nodes],
        y=[chosen.seconds],
        mode="markers+text",
        marker={"size": 13, "symbol": "diamond", "color": theme.ink},
        text=[fmt.seconds(chosen.seconds) + (share if chosen.setup.nodes > 1 else "")],
        # Label away from the nearer edge of the log axis, so it is never clipped.
        textposition="bottom right" if chosen.setup.nodes < 8 else "top left",
        name=f"chosen: {chosen.setup.nodes} nodes",
        hovertext=[_hover(chosen)],
        hoverinfo="text",
    )


def _missing(rows: Sequence[AllReduce], prefix: str = "") -> list[str]:
    """A 'not published' note for each line of this device that cannot be priced."""
    r = rows[-1]
    lines = (
        (r.intra.seconds, "in-node leg (scale-up link)"),
        (r.inter.seconds, "network leg (scale-out link)"),
        (r.seconds, "all-reduce total"),
    )
    return [f"{prefix}{what}: {fmt.NOT_PUBLISHED}" for value, what in lines if value is None]


def _note(lines: list[str]) -> dict:
    """An annotation in the chart's corner listing what is not published."""
    return {
        "text": "<br>".join(lines),
        "xref": "paper",
        "yref": "paper",
        "x": 0.01,
        "y": 0.98,
        "showarrow": False,
        "align": "left",
        "font": {"color": color(1)},
    }


def _device_traces(rows: Sequence[AllReduce]) -> list[go.Scatter]:
    """The chosen device's priced lines: in-node leg, network leg, total."""
    last = rows[-1]
    lines = (
        (last.intra.seconds, _intra_trace),
        (last.inter.seconds, _inter_trace),
        (last.seconds, _total_trace),
    )
    return [build(rows) for value, build in lines if value is not None]


def _compare_traces(compare: Sequence[AllReduce]) -> list[go.Scatter]:
    """The compared device's total, dashed; [] when none or not published."""
    if not compare or compare[-1].seconds is None:
        return []
    return [_total_trace(compare, f"{compare[0].device.name}: ", SECOND_DEVICE_DASH)]


@fitted
def scale_out_figure(
    rows: Sequence[AllReduce],
    chosen: AllReduce,
    compare: Sequence[AllReduce] = (),
    theme: Theme = LIGHT,
) -> go.Figure:
    """Time of each leg and of the whole all-reduce against nodes (log x), chosen count marked."""
    title = f"All-reduce time against nodes — {chosen.device.name}"
    fig = go.Figure(layout=base_layout(title, "", "", theme=theme))
    fig.add_traces(_device_traces(rows) + _compare_traces(compare))
    marker = _chosen_trace(chosen, theme)
    if marker is not None:
        fig.add_trace(marker)
    other = f"{compare[0].device.name}: " if compare else ""
    missing = _missing(rows) + (_missing(compare, other) if compare else [])
    # Fixed x range (1 to 64 nodes, wider only when more are asked for) so the axis holds
    # still while the node count moves the marker; y follows the gradient size.
    top = max(LADDER[-1], rows[-1].setup.nodes)
    yaxis = {"title": {"text": "time per all-reduce"}, **TIME_TICKS}
    fig.update_layout(
        xaxis=log_axis(1, top, "nodes", theme=theme),
        yaxis={**yaxis, "rangemode": "tozero"},
        annotations=[_note(missing)] if missing else [],
    )
    return fig
