"""The Plan page's charts: where a step goes, memory per GPU against capacity, the serving
frontier, and published runs' measured time against their bound."""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.explain.plans import expected
from perfcore.explain.plans import plan as train
from perfcore.explain.plans import plan_serve as serve
from perfcore.figures.chip.style import (
    HALF_WIDTH,
    LIGHT,
    Theme,
    base_layout,
    color,
    fitted,
    log_axis,
)
from perfcore.figures.llm.memory import gib_ticks
from perfcore.model.plans.serve_plan import ServePlan

MEMORY_COLORS = {"weights": 0, "gradients": 3, "optimizer": 4, "activations": 2, "KV cache": 1}
STEP, MEMORY, FRONTIER = "step", "memory", "frontier"
TRAIN_CHARTS, SERVE_CHARTS = (STEP, MEMORY), (FRONTIER, MEMORY)


@fitted(width=HALF_WIDTH)
def step_parts_figure(parts: dict[str, float], step_s: float, theme: Theme = LIGHT) -> go.Figure:
    """Seconds of the best layout's step by what it waits on (a bound), one bar each."""
    title = f"Where the best layout's {fmt.seconds(step_s)} step goes (bound)"
    fig = go.Figure(layout=base_layout(title, "", "", 380, theme))
    names = list(parts)[::-1]  # compute on top
    fig.add_trace(
        go.Bar(
            x=[parts[n] for n in names],
            y=names,
            orientation="h",
            name="bound",
            marker={"color": color(0)},
            showlegend=False,
            hovertext=[
                f"{fmt.seconds(parts[n])}, {fmt.percent(parts[n] / step_s)} of the step"
                for n in names
            ],
            hoverinfo="text",
        )
    )
    # Log seconds: compute dwarfs the overheads the layouts differ by.
    low = min(parts.values()) / 2
    fig.update_layout(
        xaxis=log_axis(low, max(parts.values()) * 2, "seconds per step (bound)", fmt.seconds, theme)
    )
    return fig


@fitted(width=HALF_WIDTH)
def memory_per_gpu_figure(
    bars: Sequence[tuple[str, dict[str, float]]], capacity: float | None, theme: Theme = LIGHT
) -> go.Figure:
    """Stacked bytes per GPU by part, one bar per plan, against the device's capacity.

    Bars lie down, the plans' names on the y axis: names under upright bars would have to be
    turned, and turned names hang past the left margin (Plotly then draws the chart twice).
    """
    fig = go.Figure(layout=base_layout(_memory_title(capacity), "", "", 480, theme))
    labels = [name for name, _ in bars]
    present = [k for k in MEMORY_COLORS if any(k in parts for _, parts in bars)]
    for part in present:
        values = [parts.get(part, 0.0) for _, parts in bars]
        fig.add_trace(
            go.Bar(
                x=values,
                y=labels,
                orientation="h",
                name=part,
                marker={"color": color(MEMORY_COLORS[part])},
                hovertext=[fmt.capacity(v) for v in values],
                hoverinfo="text+name",
            )
        )
    totals = [sum(parts.values()) for _, parts in bars] or [1.0]
    top = max([*totals, capacity or 0.0])
    if capacity is not None:  # a tall tick at the capacity across each bar
        marker = {
            "symbol": "line-ns-open",
            "size": 30,
            "color": theme.ink,
            "line": {"width": 3, "color": theme.ink},
        }
        fig.add_trace(
            go.Scatter(
                x=[capacity] * len(labels),
                y=labels,
                mode="markers",
                name=f"capacity {fmt.capacity(capacity)}",
                marker=marker,
                hoverinfo="name",
            )
        )
    fig.update_layout(
        barmode="stack",
        yaxis={"autorange": "reversed"},
        xaxis={"title": {"text": "memory per GPU"}, **gib_ticks(top, most=3)},
    )  # three labels fit half width upright
    return fig


def _memory_title(capacity: float | None) -> str:
    """What the bars stand against: the capacity each GPU holds, or that it is unpublished."""
    if capacity is None:
        return "Memory per GPU; the capacity is not published"
    return f"Memory per GPU against the {fmt.capacity(capacity)} each holds"


@fitted(width=HALF_WIDTH)
def frontier_figure(
    plans: Sequence[ServePlan],
    frontier: Sequence[ServePlan],
    best: ServePlan | None,
    tpot_limit_s: float | None,
    limit_text: str = "TPOT limit",
    theme: Theme = LIGHT,
) -> go.Figure:
    """Tokens/s per GPU against TPOT for every plan (one colour per TP), the frontier and the
    best plan within the limits; every point a bound. tpot_limit_s: where the limit falls
    on the bound's axis (where it judges expected TPOT: expected.tpot_limit_on_bound; ≤ 0,
    no line: no bound meets it)."""
    fig = go.Figure(layout=base_layout("Throughput against latency (bounds)", "", "", 460, theme))
    for i, tp in enumerate(sorted({p.tp for p in plans})):
        mine = [p for p in plans if p.tp == tp]
        fig.add_trace(
            go.Scatter(
                x=[p.tpot_s for p in mine],
                y=[p.per_gpu for p in mine],
                mode="markers",
                name=f"TP {tp}",
                marker={"size": 8, "color": color(i)},
                hovertext=[_hover(p) for p in mine],
                hoverinfo="text",
            )
        )
    if frontier:
        fig.add_trace(
            go.Scatter(
                x=[p.tpot_s for p in frontier],
                y=[p.per_gpu for p in frontier],
                mode="lines",
                name="frontier",
                hoverinfo="skip",
                line={"color": theme.muted, "width": 1.5},
            )
        )
    if best is not None:
        fig.add_trace(
            go.Scatter(
                x=[best.tpot_s],
                y=[best.per_gpu],
                name="best within limits",
                text=[f"TP {best.tp}, batch {best.batch}"],
                mode="markers+text",
                textposition="top left",
                textfont={"color": theme.text},
                hovertext=[_hover(best)],
                hoverinfo="text",
                marker={"size": 15, "symbol": "star", "color": theme.ink},
            )
        )
    tpots = [p.tpot_s for p in plans] or [1e-3]
    rates = [p.per_gpu for p in plans] or [1.0]
    if tpot_limit_s is not None and tpot_limit_s > 0:  # <= 0: no bound meets the limit
        fig.add_vline(
            x=math.log10(tpot_limit_s),
            line={"color": theme.ink, "dash": "dot"},
            annotation={"text": limit_text, "font": {"color": theme.text}},
        )
        tpots.append(tpot_limit_s)
    fig.update_layout(
        xaxis=log_axis(
            min(tpots) / 1.5, max(tpots) * 1.5, "time per output token", fmt.seconds, theme
        ),
        # decades labelled in whole tokens/s: Plotly's own log labels crowd every 2..9
        yaxis=log_axis(
            min(min(rates) / 2, 10 ** math.floor(math.log10(min(rates)))),
            max(rates) * 2,
            "output tokens/s per GPU",
            lambda v, _: f"{v:,.0f}",
            theme,
        ),
    )
    return fig


def _hover(p: ServePlan) -> str:
    """A plan's layout, latencies and rates."""
    return (
        f"TP {p.tp} × {p.replicas}, batch {p.batch}<br>TPOT {fmt.seconds(p.tpot_s)}, "
        f"TTFT {fmt.seconds(p.ttft_s)}<br>{p.per_gpu:,.0f} tokens/s per GPU"
    )


def page_figure(
    data: train.TrainView | serve.ServeView, which: str, theme: Theme = LIGHT
) -> go.Figure:
    """One of the Plan page's charts by name (TRAIN_CHARTS, SERVE_CHARTS); ValueError for
    another name or mode."""
    if isinstance(data, train.TrainView) and which in TRAIN_CHARTS:
        best = data.best
        if which == STEP:
            return step_parts_figure(train.time_parts(best), best.step_s, theme)
        cap = best.training.device.memory_bytes
        return memory_per_gpu_figure(train.memory_bars(data), cap, theme)
    if isinstance(data, serve.ServeView) and which in SERVE_CHARTS:
        if which == FRONTIER:
            limit, text = data.setup.tpot_limit_s, "TPOT limit"
            ref = data.best or (data.frontier[0] if data.frontier else None)
            if limit is not None and data.decode is not None and ref is not None:
                added = fmt.seconds(expected.serve_added(ref)["decode"])
                limit = expected.tpot_limit_on_bound(data.decode, ref, limit)
                text = f"TPOT limit, expected ((bound + {added}) ÷ {data.decode.value:.2f})"
            return frontier_figure(data.candidates, data.frontier, data.best, limit, text, theme)
        cap = data.candidates[0].serving.device.memory_bytes
        return memory_per_gpu_figure(serve.memory_bars(data), cap, theme)
    raise ValueError(f"no Plan chart {which!r} for {type(data).__name__}")
