"""The workloads charts: a layer's ops on the roofline, serving curve, memory, time by kind."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.explain.llm.workloads import (
    CHARTS,
    KINDS,
    LAYER,
    MEMORY,
    SERVING,
    Page,
    memory_parts,
    time_by_kind,
)
from perfcore.figures.chip.roofs import X_MAX, X_MIN, roof_traces
from perfcore.figures.chip.style import (
    HALF_WIDTH,
    LIGHT,
    SECOND_DEVICE_DASH,
    TIME_TICKS,
    Theme,
    base_layout,
    color,
    fitted,
    log_axis,
)
from perfcore.figures.llm.memory import memory_figure
from perfcore.model.chip.roofline import Estimate
from perfcore.model.chip.specs import Device
from perfcore.model.llm.serving import ServingPoint

KIND_COLORS = {
    "norm": 8,
    "projection": 0,
    "attention": 1,
    "mlp": 2,
    "residual": 5,
    "lm_head": 3,
    "embedding": 6,
}


def _points(points: Sequence[tuple[str, Estimate]], axis: str, legend: bool, theme: Theme) -> list:
    """One trace per op kind: its ops at (intensity, attainable), each named in the hover.

    One trace per kind, not per op: a dozen fewer traces to build and send on every rerun.
    """
    kinds = dict.fromkeys(kind for kind, e in points if e.cost.flops > 0)
    traces = []
    for kind in kinds:
        ops = [e for k, e in points if k == kind and e.cost.flops > 0]
        traces.append(
            go.Scatter(
                x=[e.intensity for e in ops],
                y=[e.attainable_flops_per_s for e in ops],
                mode="markers",
                xaxis=axis,
                name=kind,
                legendgroup=kind,
                showlegend=legend,
                marker={
                    "size": 11,
                    "color": color(KIND_COLORS.get(kind, 4)),
                    "line": {"color": theme.ink, "width": 1},
                },
                hovertext=[_hover(e) for e in ops],
                hoverinfo="text",
            )
        )
    return traces


def _hover(e: Estimate) -> str:
    """An op's name, FLOPs, bytes, intensity, bound and time."""
    return (
        f"<b>{e.cost.name}</b><br>{fmt.flops(e.cost.flops)}, {fmt.traffic(e.cost.bytes)}"
        f"<br>intensity {fmt.intensity(e.intensity)}<br>{e.limiter}-bound, "
        f"{fmt.seconds(e.time_floor_s)}"
    )


@fitted(width=HALF_WIDTH)
def layer_roofline_figure(
    device: Device,
    precision: str,
    prefill: Sequence[tuple[str, Estimate]],
    decode: Sequence[tuple[str, Estimate]],
    theme: Theme = LIGHT,
) -> go.Figure:
    """One layer's (kind, op) points on the device roofline: prefill left, decode right."""
    fig = go.Figure(layout=base_layout(f"One layer's ops on {device.name}", "", "", 520, theme))
    for axis, points in (("x", prefill), ("x2", decode)):
        for trace in roof_traces(device, precision, brief=True, theme=theme):
            trace.update(xaxis=axis, showlegend=axis == "x", legendgroup=trace.name)
            fig.add_trace(trace)
        fig.add_traces(_points(points, axis, axis == "x", theme))
    peak = device.peak_flops(precision) or 1e15
    x = log_axis(X_MIN, X_MAX, "intensity (FLOP/byte)", theme=theme)
    fig.update_layout(
        xaxis={**x, "domain": [0, 0.48]},
        xaxis2={**x, "domain": [0.52, 1]},
        yaxis=log_axis(peak / 1e5, peak * 3, "attainable FLOP/s", fmt.flops_per_s, theme),
        annotations=[_panel("prefill", 0.0), _panel("decode", 0.52)],
    )
    return fig


def _panel(text: str, x: float) -> dict:
    """A panel title at paper x."""
    return {
        "text": f"<b>{text}</b>",
        "x": x,
        "y": 1.0,
        "xref": "paper",
        "yref": "paper",
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom",
    }


def _curve(points: Sequence[ServingPoint], name: str, dash, i: int) -> go.Scatter:
    """TPOT against aggregate tokens/s, one marker per batch size."""
    return go.Scatter(
        x=[p.tokens_per_s for p in points],
        y=[p.tpot_s for p in points],
        mode="lines+markers",
        name=name,
        line={"color": color(i), "dash": dash},
        hovertext=[
            f"batch {p.batch}: {fmt.seconds(p.tpot_s)} per token, "
            f"{p.tokens_per_s:,.0f} tokens/s ({p.bound}-bound)"
            for p in points
        ],
        hoverinfo="text",
    )


def _marker(p: ServingPoint, label: str, symbol: str, theme: Theme) -> go.Scatter:
    """A labelled marker on the curve."""
    return go.Scatter(
        x=[p.tokens_per_s],
        y=[p.tpot_s],
        mode="markers+text",
        name=label,
        text=[label],
        textposition="top left",
        textfont={"color": theme.text},
        marker={"size": 14, "symbol": symbol, "color": theme.ink},
    )


@fitted(width=HALF_WIDTH)
def serving_figure(
    curve: Sequence[ServingPoint],
    crossover: ServingPoint | None = None,
    compare: Sequence[ServingPoint] = (),
    names: tuple[str, str] = ("", ""),
    theme: Theme = LIGHT,
) -> go.Figure:
    """Time per output token against aggregate tokens/s as batch grows to the memory limit."""
    title = "Time per token against tokens/s, batch 1 to memory full"
    fig = go.Figure(layout=base_layout(title, "", "", 460, theme))
    if not curve:
        fig.add_annotation(
            text="no sequence fits beside the weights",
            showarrow=False,
            xref="paper",
            yref="paper",
            x=0.5,
            y=0.5,
        )
    else:
        fig.add_trace(_curve(curve, names[0] or "decode", None, 0))
        last = curve[-1]
        fig.add_trace(_marker(last, f"memory full: {last.batch} sequences", "x", theme))
    if crossover is not None:
        fig.add_trace(
            _marker(crossover, f"compute-bound from batch {crossover.batch}", "diamond", theme)
        )
    if compare:
        fig.add_trace(_curve(compare, names[1], SECOND_DEVICE_DASH, 1))
    every = [*curve, *compare, *([crossover] if crossover else [])]
    rates = [p.tokens_per_s for p in every] or [1.0]
    tpots = [p.tpot_s for p in every] or [1e-3]
    fig.update_layout(
        xaxis=log_axis(min(rates) / 2, max(rates) * 2, "aggregate tokens/s", theme=theme),
        yaxis=log_axis(min(tpots) / 2, max(tpots) * 2, "time per output token", fmt.seconds, theme),
    )
    return fig


@fitted(width=HALF_WIDTH)
def time_by_kind_figure(
    kinds: Sequence[tuple[str, dict[str, float]]], theme: Theme = LIGHT
) -> go.Figure:
    """Seconds by op group and communication, one bar group per device."""
    fig = go.Figure(layout=base_layout("Where the time goes", "", "", 380, theme))
    for i, (name, by_kind) in enumerate(kinds):
        fig.add_trace(
            go.Bar(
                x=list(by_kind),
                y=list(by_kind.values()),
                name=name,
                marker={"color": color(i)},
                hovertext=[fmt.seconds(v) for v in by_kind.values()],
                hoverinfo="text+name",
            )
        )
    # d3's SI format: 0.004 -> "4m", so the axis reads 4 ms, not 0.004 s.
    # Names turned one way always: at half width Plotly would turn them itself, past the
    # right edge, and draw the chart twice to fit them (style.fit_margins).
    y = {"title": {"text": "time"}, **TIME_TICKS}
    fig.update_layout(barmode="group", xaxis={"tickangle": -30}, yaxis=y)
    return fig


def page_figure(page: Page, which: str, tp: int, theme: Theme = LIGHT) -> go.Figure:
    """One of the workloads page's charts by name (explain.llm.workloads.CHARTS); ValueError for
    another name."""
    main = page.views[0]
    if which == LAYER:
        return layer_roofline_figure(main.device, main.phase.precision, *page.layer, theme)
    if which == SERVING:
        names = tuple(v.device.name for v in page.views) + ("",)
        compare = page.serving[1].curve if len(page.serving) > 1 else ()
        return serving_figure(
            page.serving[0].curve, page.serving[0].crossover, compare, names[:2], theme
        )
    if which == MEMORY:
        bars = [(v.device.name, memory_parts(v.memory), v.memory.capacity, tp) for v in page.views]
        return memory_figure(bars, theme)
    if which == KINDS:
        return time_by_kind_figure([(v.device.name, time_by_kind(v)) for v in page.views], theme)
    raise ValueError(f"no workloads chart {which!r}: expected one of {', '.join(CHARTS)}")
