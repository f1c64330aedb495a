"""The measure page's charts, drawn from the rows of explain.measure's measure_sweep and
measure_clock.

Measured values are drawn where they were measured (never clamped) with min-max bars;
spec figures and derived ceilings are lines, labelled with where they come from. Times
and rates span decades, so their axes are logarithmic.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.explain.measure.measure_clock import DispatchRow, Pair, Spread
from perfcore.explain.measure.measure_roofline import Ceiling
from perfcore.explain.measure.measure_sweep import SweepPoint
from perfcore.figures.chip.style import LIGHT, Theme, base_layout, color, fitted, log_axis

REGIME_COLORS = {"overhead": color(4), "utilisation": color(0), "compute roof": color(2)}
OVERHEAD = "launch overhead ceiling: 2n³ / measured empty call"


def _span(values: Sequence[float], pad: float = 3.0) -> tuple[float, float]:
    """A log range holding every positive value, padded by `pad` at both ends."""
    positive = [v for v in values if v > 0] or [1.0]
    return min(positive) / pad, max(positive) * pad


def _line(xy: Sequence[tuple[float, float]], name: str, dash: str, line_color: str) -> go.Scatter:
    """A ceiling drawn as a line through (x, y) points."""
    return go.Scatter(
        x=[x for x, _ in xy],
        y=[y for _, y in xy],
        mode="lines",
        name=name,
        line={"color": line_color, "dash": dash, "width": 2},
        hoverinfo="skip",
    )


def sweep_title(rows: Sequence[SweepPoint]) -> str:
    """The sweep's title from the regimes its rows were found in, smallest size's first."""
    regimes = [r for r in dict.fromkeys(row.regime for row in rows) if r]
    if not regimes:
        return "Matmul size sweep: no regime noted"
    count = {1: "one regime", 2: "two regimes", 3: "three regimes"}.get(len(regimes))
    return f"Matmul size sweep: {count or f'{len(regimes)} regimes'} ({', '.join(regimes)})"


@fitted
def sweep_figure(
    rows: Sequence[SweepPoint],
    overhead: Sequence[tuple[float, float]] = (),
    roof: Sequence[tuple[float, float]] = (),
    spec_name: str = "",
    theme: Theme = LIGHT,
) -> go.Figure:
    """Achieved FLOP/s against n on log-log axes, one trace per regime, under both ceilings."""
    title = sweep_title(rows)
    fig = go.Figure(layout=base_layout(title, "", "", theme=theme))
    if roof:
        name = f"spec roof at I(n), {spec_name} {rows[0].precision} (published spec)"
        fig.add_trace(_line(roof, name, "solid", theme.ink))
    if overhead:
        fig.add_trace(_line(overhead, OVERHEAD, "dash", color(4)))
    for regime in dict.fromkeys(r.regime for r in rows):
        mine = [r for r in rows if r.regime == regime]
        fig.add_trace(
            go.Scatter(
                x=[r.n for r in mine],
                y=[r.flops_per_s for r in mine],
                mode="markers+lines",
                name=f"measured: {regime or 'no regime noted'} (median, min-max bars)",
                marker={"size": 11, "color": REGIME_COLORS.get(regime, theme.ink)},
                error_y={
                    "type": "data",
                    "array": [r.flops_per_s_hi - r.flops_per_s for r in mine],
                    "arrayminus": [r.flops_per_s - r.flops_per_s_lo for r in mine],
                },
                customdata=[fmt.seconds(r.seconds) for r in mine],
                hovertemplate="n=%{x}: %{y:.3s}FLOP/s, %{customdata} per call<extra></extra>",
            )
        )
    xs = [r.n for r in rows] + [x for x, _ in (*overhead, *roof)]
    low, high = _span([r.flops_per_s_lo for r in rows] + [y for _, y in roof])
    fig.update_layout(
        xaxis=log_axis(min(xs), max(xs), "matrix size n (n x n x n matmul)", theme=theme),
        yaxis=log_axis(low, high, "achieved FLOP/s (measured)", fmt.flops_per_s, theme=theme),
    )
    return fig


@fitted
def dispatch_figure(rows: Sequence[DispatchRow], theme: Theme = LIGHT) -> go.Figure:
    """Unblocked (dispatch) and blocked (compute) time per size, grouped bars on a log axis."""
    title = "Dispatch vs compute (min of isolated calls)"
    fig = go.Figure(layout=base_layout(title, "", "", theme=theme))
    sizes = [f"n={r.n}" for r in rows]
    for i, (name, values) in enumerate(
        (
            ("dispatch: clock stopped unblocked", [r.dispatch_s for r in rows]),
            ("compute: clock stopped after block_until_ready", [r.compute_s for r in rows]),
        )
    ):
        fig.add_trace(
            go.Bar(
                x=sizes,
                y=values,
                name=name,
                marker_color=color(i),
                text=[fmt.seconds(v) for v in values],
                textposition="outside",
            )
        )
    low, high = _span([r.dispatch_s for r in rows] + [r.compute_s for r in rows])
    y = log_axis(low, high, "per call", fmt.seconds, theme=theme)
    fig.update_layout(barmode="group", yaxis=y)
    return fig


@fitted
def pairs_figure(pairs: Sequence[Pair], theme: Theme = LIGHT) -> go.Figure:
    """Each experiment's pair of timings as two horizontal bars, on one log time axis."""
    layout = base_layout("Paired timings: the same work, two ways", "", "", 420, theme)
    fig = go.Figure(layout=layout)
    for i, p in enumerate(pairs):
        labels = [f"{p.title}: {p.a}", f"{p.title}: {p.b}"]
        values = [p.a_s, p.b_s]
        fig.add_trace(
            go.Bar(
                y=labels,
                x=values,
                orientation="h",
                name=p.title,
                marker_color=color(i),
                text=[
                    f"{fmt.seconds(v)} ({m})"
                    for v, m in zip(values, (p.a_method, p.b_method), strict=True)
                ],
                textposition="auto",
            )
        )
    low, high = _span([v for p in pairs for v in (p.a_s, p.b_s)])
    fig.update_layout(
        xaxis=log_axis(low, high, "per call (each record's method)", fmt.seconds, theme=theme),
        yaxis={"autorange": "reversed"},
        showlegend=False,
    )
    return fig


@fitted
def spread_figure(s: Spread, theme: Theme = LIGHT) -> go.Figure:
    """Each run's samples as a box, its min marked, and the back-to-back mean as a line."""
    title = "Min vs mean, and the run-to-run spread"
    fig = go.Figure(layout=base_layout(title, "", "", theme=theme))
    for i, (label, samples) in enumerate(s.runs):
        fig.add_trace(
            go.Box(
                y=list(samples),
                name=label,
                marker_color=color(i),
                boxpoints="all",
                showlegend=False,
            )
        )
    names = [label for label, _ in s.runs]
    fig.add_trace(
        go.Scatter(
            x=names,
            y=list(s.mins),
            mode="markers",
            name="min of each run",
            marker={"symbol": "line-ew-open", "size": 24, "color": theme.ink},
        )
    )
    if s.loop_mean is not None:
        mean = f"mean of a back-to-back loop: {fmt.seconds(s.loop_mean)}"
        fig.add_trace(
            go.Scatter(
                x=[names[0], names[-1]],
                y=[s.loop_mean] * 2,
                mode="lines",
                name=mean,
                line={"dash": "dash", "color": color(1)},
            )
        )
    values = [v for _, samples in s.runs for v in samples] + [s.loop_mean or s.mins[0]]
    y = log_axis(*_span(values, 1.5), "seconds per call (measured)", theme=theme)
    fig.update_layout(yaxis=y)
    return fig


@fitted
def ceilings_figure(rows: Sequence[Ceiling], spec_name: str, theme: Theme = LIGHT) -> go.Figure:
    """Each empirical ceiling as a fraction of the spec row's figure (log axis, 100 % marked)."""
    title = f"Empirical ceilings vs {spec_name} (spec)"
    fig = go.Figure(layout=base_layout(title, "", "", theme=theme))
    shown = [c for c in rows if c.fraction is not None]
    show = {"FLOP/s": fmt.flops_per_s, "B/s": fmt.bytes_per_s}
    fig.add_trace(
        go.Bar(
            x=[c.what for c in shown],
            y=[c.fraction for c in shown],
            marker_color=color(0),
            text=[f"{show[c.unit](c.measured)} of {show[c.unit](c.spec)}" for c in shown],
            textposition="outside",
            name="measured / spec",
        )
    )
    low = min([c.fraction for c in shown] + [0.1]) / 3
    # A shape, not add_hline: add_hline validates the whole figure again (slow on every rerun).
    spec_line = {
        "type": "line",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "y0": 1.0,
        "y1": 1.0,
        "line": {"dash": "dot", "color": theme.ink},
    }
    fig.update_layout(
        yaxis=log_axis(
            low, 3.0, "fraction of the published spec (100 % dotted)", fmt.percent, theme=theme
        ),
        shapes=[spec_line],
        showlegend=False,
    )
    return fig if shown else fig.update_layout(title_text=f"{spec_name} publishes no figure here")
